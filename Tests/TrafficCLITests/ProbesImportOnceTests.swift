import Foundation
import Testing
import TrafficTestSupport

@testable import traffic

/// `traffic probes import` ingests each probe once, whatever the order of the files and
/// however often one is imported, and its counts add up.
@Suite struct ProbesImportOnceTests {
  /// The cars of `FlowCommandsTests.probes()` (with its two bad rows), `ago` seconds earlier.
  static func file(ago: Int) throws -> String {
    let original = try FlowCommandsTests.probes()
    defer { try? FileManager.default.removeItem(atPath: original) }
    var lines = try String(contentsOfFile: original, encoding: .utf8)
      .split(separator: "\n").map(String.init)
    for k in lines.indices.dropFirst() {
      var fields = lines[k].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      if let time = Int(fields[1]) { fields[1] = String(time - ago) }
      lines[k] = fields.joined(separator: ",")
    }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "probes-\(ago)-\(UUID()).csv")
    try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
    return url.path
  }

  /// The numbers of a summary line: accepted, rejected, matched, vehicles.
  static func counts(_ line: Substring) -> [Int] {
    let pattern = #/(\d+) accepted, (\d+) rejected.*, (\d+) matched to roads, (\d+) vehicles/#
    guard let match = line.firstMatch(of: pattern) else { return [] }
    return [match.1, match.2, match.3, match.4].compactMap { Int($0) }
  }

  @Test func aFileImportedAgainIsDuplicatesAndAnOlderFileAfterANewerIsLearned() async throws {
    let db = FlowCommandsTests.database()
    defer { TemporaryFiles.removeDatabase(db) }
    _ = await runTraffic(["network", "import", "--db", db, FlowCommandsTests.network])
    let live = try Self.file(ago: 0)
    let old = try Self.file(ago: 7 * 86_400)
    defer {
      try? FileManager.default.removeItem(atPath: live)
      try? FileManager.default.removeItem(atPath: old)
    }
    // The newer file, then the older one, in one run: both learned.
    let both = await runTraffic(["probes", "import", "--db", db, live, old])
    #expect(both.status == .success, "\(both.errors)")
    let lines = both.output.split(separator: "\n")
    #expect(lines.count == 2, "\(both.output)")
    for line in lines {
      let numbers = Self.counts(line)
      #expect(numbers.count == 4, "\(line)")
      #expect(numbers.prefix(2) == [36, 2], "\(line)")
      #expect(numbers.dropFirst(2).first ?? 0 > 20, "matched to roads: \(line)")
      #expect(numbers.last == 4, "\(line)")
    }
    // Either file again, in a new process: every probe a duplicate; the rows still add up.
    for file in [live, old] {
      let again = await runTraffic(["probes", "import", "--db", db, file])
      #expect(again.status == .success, "\(again.errors)")
      #expect(
        again.output.contains(
          "0 accepted, 38 rejected (36 duplicate, 1 outOfRange, 1 unparseable), "
            + "0 matched to roads, 0 vehicles"), "\(again.output)")
      // The two bad lines are listed; the duplicates, which no line of the file tells apart,
      // are counted after them.
      #expect(again.errors.contains("  ... and 36 more rejected rows"), "\(again.errors)")
    }
    let json = await runTraffic(["probes", "import", "--db", db, "--json", live])
    let summary = try #require(
      try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
    let file = try #require((summary["files"] as? [[String: Any]])?.first)
    #expect(file["accepted"] as? Int == 0 && file["rejected"] as? Int == 38)
    #expect((file["rejections"] as? [String: Int])?["duplicate"] == 36)
  }
}
