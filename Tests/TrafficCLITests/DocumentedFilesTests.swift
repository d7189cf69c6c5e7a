import Foundation
import Testing
import TrafficTestSupport

/// What the pages show of the repository's own files is those files, and what the README's
/// tour writes into the clone stays out of `git status`.
@Suite struct DocumentedFilesTests {
  static func text(_ path: String) throws -> String {
    try String(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent(path), encoding: .utf8)
  }

  /// The unit docs/operations.md prints is `dist/traffic.service.in` as `make install`
  /// writes it with `PREFIX=/opt/traffic` (its comment for the installer aside).
  @Test func theSystemdUnitOfOperationsIsTheInstalledOne() throws {
    let page = try Self.text("docs/operations.md")
    let marker = "# $PREFIX/lib/systemd/system/traffic.service\n"
    let shown = try #require(
      page.components(separatedBy: "```ini\n" + marker).dropFirst().first?
        .components(separatedBy: "```").first)
    let installed = try Self.text("dist/traffic.service.in")
      .replacingOccurrences(of: "@PREFIX@", with: "/opt/traffic")
      .split(separator: "\n", omittingEmptySubsequences: false)
      .drop { $0.hasPrefix("#") }.joined(separator: "\n")
    #expect(shown == installed)
  }

  /// Whether git is at hand in a checkout (a tarball of the sources has no `.git`).
  static let inACheckout =
    FileManager.default.fileExists(
      atPath: Fixtures.repositoryRoot.appendingPathComponent(".git").path)
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/git")

  /// Every file the README's shell blocks write into the clone's root (`-o FILE`,
  /// `> FILE`, SUMO's `--fcd-output FILE`) is ignored by git: a reader who takes the tour
  /// gets no untracked 78 MB `fcd.xml`.
  @Test(.enabled(if: inACheckout, "git and a checkout"))
  func whatTheTourWritesIsIgnored() throws {
    let readme = try Self.text("README.md")
    var written: Set<String> = []
    var inShell = false
    for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") {
        inShell = line.hasPrefix("```sh")
        continue
      }
      guard inShell else { continue }
      for match in line.matches(of: /(?:-o|>|--fcd-output) ([A-Za-z0-9_.-]+)/) {
        let name = String(match.output.1)
        if name != "-", !name.hasPrefix("&") { written.insert(name) }
      }
    }
    #expect(written.isSuperset(of: ["fcd.xml", "sumo.log", "speeds.csv", "weeks.csv"]))
    for name in written.sorted() {
      let result = try ChildProcess.run(
        URL(fileURLWithPath: "/usr/bin/git"), ["check-ignore", "--no-index", "-q", name],
        in: Fixtures.repositoryRoot)
      #expect(result.status == 0, "\(name) is not ignored: \(result.output)")
    }
  }
}
