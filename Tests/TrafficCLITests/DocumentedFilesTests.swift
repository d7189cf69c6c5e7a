import Foundation
import Testing
import TrafficTestSupport

/// What the pages show of the repository's own files is those files.
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
}
