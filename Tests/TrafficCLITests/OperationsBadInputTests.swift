import Foundation
import Testing
import TrafficSQLite
import TrafficTestSupport

/// The bad-input table of `docs/operations.md` ("When input is wrong"), run row by row with
/// the built `traffic` binary: each command gets the status and the one line of standard
/// error the table shows. A changed message fails here until the page says it too.
@Suite struct OperationsBadInputTests {
  struct Row: CustomTestStringConvertible, Sendable {
    var arguments: [String]
    /// The message's pieces around each `…`, to be found in this order.
    var pieces: [String]
    var status: Int32
    var testDescription: String { arguments.joined(separator: " ") }
  }

  /// The rows of the table.
  static func rows() throws -> [Row] {
    let page = try String(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/operations.md"),
      encoding: .utf8)
    let section = try #require(
      page.components(separatedBy: "## When input is wrong").dropFirst().first?
        .components(separatedBy: "\n## ").first)
    var rows: [Row] = []
    for line in section.split(separator: "\n") where line.hasPrefix("| ") {
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard cells.count == 6, cells[2].hasPrefix("`traffic "), let status = Int32(cells[4])
      else { continue }
      let command = cells[2].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
      let message = cells[3].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
      rows.append(
        Row(
          arguments: Array(command.split(separator: " ").dropFirst().map(String.init)),
          pieces: message.components(separatedBy: "…").map {
            $0.trimmingCharacters(in: .whitespaces)
          }.filter { !$0.isEmpty }, status: status))
    }
    return rows
  }

  @Test func theTableCoversTheCasesUsersMeet() throws {
    let rows = try Self.rows()
    #expect(rows.count >= 15)
    for needed in ["--db typo.sqlite", "--bogus", "nosuch.xml", "--keys-file", "--server http"] {
      #expect(rows.contains { $0.testDescription.contains(needed) }, "\(needed)")
    }
  }

  /// A directory as the table expects it.
  static func workspace() async throws -> URL {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("bad-input-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: CarefulCommandsTests.feed, to: directory.appendingPathComponent("feed.xml"))
    for (arguments, _) in [
      (["import", "--db", "incidents-only.sqlite", "feed.xml"], ()),
      (["network", "import", "--db", "network.sqlite", FlowCommandsTests.network], ()),
    ] {
      let (status, _, errors) = try run(arguments, in: directory)
      try #require(status == 0, "\(arguments): \(errors)")
    }
    try #require(
      FileManager.default.createFile(
        atPath: directory.appendingPathComponent("empty.sqlite").path, contents: nil))
    try SQLiteScript.run(
      "CREATE TABLE t (x); DROP TABLE t; VACUUM",
      inFileAt: directory.appendingPathComponent("blank.sqlite").path)
    try SQLiteScript.run(
      "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)",
      inFileAt: directory.appendingPathComponent("photos.sqlite").path)
    return directory
  }

  /// Runs the binary in `directory`: status, standard output, standard error.
  static func run(
    _ arguments: [String], in directory: URL
  ) throws -> (Int32, String, String) {
    var environment = ProcessInfo.processInfo.environment
    environment["TRAFFIC_DB"] = nil
    let result = try ChildProcess.run(
      try CarefulCommandsTests.trafficBinary(), arguments, in: directory,
      environment: environment, mergingErrors: false)
    return (result.status, result.output, result.errors)
  }

  @Test(arguments: try OperationsBadInputTests.rows())
  func eachRowFailsAsThePageSays(row: Row) async throws {
    let directory = try await Self.workspace()
    defer { try? FileManager.default.removeItem(at: directory) }
    let before = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    let (status, _, errors) = try Self.run(row.arguments, in: directory)
    #expect(status == row.status, "\(errors)")
    let lines = errors.split(separator: "\n")
    #expect(lines.count == 1, "one line: \(errors)")
    var rest = Substring(errors)
    for piece in row.pieces {
      guard let found = rest.range(of: piece) else {
        Issue.record("\(errors) lacks \(piece)")
        break
      }
      rest = rest[found.upperBound...]
    }
    #expect(!errors.contains("Error Domain") && !errors.contains("NSCocoaErrorDomain"))
    // Nothing was created by the mistake (SQLite's -shm/-wal of an opened store aside).
    let after = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
      .filter { !$0.hasSuffix("-shm") && !$0.hasSuffix("-wal") }
    #expect(after == before.filter { !$0.hasSuffix("-shm") && !$0.hasSuffix("-wal") })
  }
}
