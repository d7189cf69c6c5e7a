import Foundation
import Testing
import TrafficSQLite
import TrafficTestSupport

@testable import traffic

/// `traffic import`, `incidents`, `lookup` and `nearest` on a temporary SQLite store, with the
/// project's own feed fixtures.
@Suite struct IncidentCommandsTests {
  let database: String
  let fixtures = Fixtures.repositoryRoot.appendingPathComponent("Tests/TrafficFeedsTests/Fixtures")

  init() {
    database =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("cli-\(UUID().uuidString).sqlite").path
  }

  func fixture(_ path: String) -> String { fixtures.appendingPathComponent(path).path }

  func cleanUp() {
    for suffix in ["", "-wal", "-shm"] {
      try? FileManager.default.removeItem(atPath: database + suffix)
    }
  }

  /// Times print in the proleptic Gregorian calendar of RFC 3339 and `--json`, also before
  /// 1582 (Foundation's formatter switches to the Julian calendar there: two days off).
  @Test func timesPrintAsRFC3339InEveryCenturyInWholeSeconds() {
    #expect(
      IncidentOutput.timestamp(Date(timeIntervalSince1970: -62_135_596_800))
        == "0001-01-01T00:00:00Z")
    #expect(
      IncidentOutput.timestamp(Date(timeIntervalSince1970: -12_219_292_800))
        == "1582-10-15T00:00:00Z")
    #expect(
      IncidentOutput.timestamp(Date(timeIntervalSince1970: 1_800_000_000.75))
        == "2027-01-15T08:00:00Z"
    )
  }

  @Test func importReportsCountsAndIsIdempotent() async throws {
    defer { cleanUp() }
    let files = [fixture("here-v7/incidents.json"), fixture("wzdx/feed_v42.geojson")]
    let first = await runTraffic(["import", "--db", database] + files)
    #expect(first.status == .success, "\(first.errors)")
    #expect(first.output.contains("here-v7 incidents.json: 2 incidents (2 added, 0 updated"))
    #expect(first.output.contains("wzdx feed_v42.geojson: 3 incidents (3 added"))
    #expect(first.errors.contains("skipped: here-v7: results[2].location"))
    let second = await runTraffic(["import", "--db", database] + files)
    #expect(second.output.contains("2 incidents (0 added, 0 updated, 2 unchanged"))
    #expect(second.output.contains("3 incidents (0 added, 0 updated, 3 unchanged"))
  }

  @Test func aBrokenFileIsReportedAndTheOthersStillImport() async throws {
    defer { cleanUp() }
    let junk = FileManager.default.temporaryDirectory.appendingPathComponent("junk-\(UUID()).json")
    try Data("{\"hello\": 1}".utf8).write(to: junk)
    defer { try? FileManager.default.removeItem(at: junk) }
    // A missing file fails the command before anything is written.
    let missing = await runTraffic([
      "import", "--db", database, junk.path, "/nonexistent/feed.xml",
      fixture("here-v7/incidents.json"),
    ])
    #expect(missing.status == .usage)
    #expect(missing.errors == "traffic import: /nonexistent/feed.xml: no such file\n")
    #expect(missing.output.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: database))
    // A file that is there but no feed is reported; the others import.
    let result = await runTraffic([
      "import", "--db", database, junk.path, fixture("here-v7/incidents.json"),
    ])
    #expect(result.status == .usage)
    #expect(result.errors.contains("not a recognised feed format"))
    #expect(result.output.contains("here-v7 incidents.json: 2 incidents (2 added"))
    // Each failing file on a line of its own, each with the command's prefix.
    let twice = await runTraffic(["import", "--db", database, junk.path, junk.path])
    let lines = twice.errors.split(separator: "\n")
    #expect(lines.count == 2, "\(twice.errors)")
    #expect(lines.allSatisfy { $0.hasPrefix("traffic import: \(junk.path): ") }, "\(twice.errors)")
    let lookup = await runTraffic(["lookup", "--db", database, "555"])
    #expect(lookup.status == .success)
  }

  @Test func incidentsLookupAndNearestAnswerOverImportedData() async throws {
    defer { cleanUp() }
    _ = await runTraffic(["import", "--db", database, fixture("here-v7/incidents.json")])
    let since = [
      "--earliest-start", "2024-05-01T00:00:00Z", "--latest-end", "2024-06-30T00:00:00Z",
    ]
    let found = await runTraffic(
      ["incidents", "--db", database, "--circle", "53.9,13.05,5000"] + since)
    #expect(found.status == .success, "\(found.errors)")
    #expect(found.output.hasPrefix("1 incident\n"))
    #expect(
      found.output.contains("[roadClosure, critical] here:traffic:incident:3879526487457467809"))
    // Only active now by default: both fixture incidents lie in 2024.
    let now = await runTraffic([
      "incidents", "--db", database, "--circle", "53.9,13.05,5000", "--type", "roadClosure",
    ])
    #expect(now.output.hasPrefix("0 incidents"))

    let json = await runTraffic(
      ["incidents", "--db", database, "--box", "12.9,53.7,13.2,54.0", "--json"] + since)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
    let results = try #require(object["results"] as? [[String: Any]])
    #expect(results.count == 2)
    #expect(object.keys.contains("sourceUpdated"))

    let lookup = await runTraffic([
      "lookup", "--db", database, "--lang", "de-DE", "3879526487457467809",
    ])
    #expect(lookup.output.hasPrefix("here:traffic:incident:3879526487457467809"))
    #expect(lookup.output.contains("type:        roadClosure"))
    let lookupJSON = await runTraffic(["lookup", "--db", database, "555", "--json"])
    let one = try #require(
      try JSONSerialization.jsonObject(with: Data(lookupJSON.output.utf8)) as? [String: Any])
    #expect((one["incidentDetails"] as? [String: Any])?["originalId"] as? String == "555")

    let nearest = await runTraffic(
      ["nearest", "--db", database, "53.8,13.1001", "--radius", "1000"] + since)
    #expect(nearest.output.contains("555"), "\(nearest.output) \(nearest.errors)")
  }

  @Test(arguments: [
    (["import"], "at least one FILE"),
    (["import", "--format", "gtfs", "x"], "unknown format 'gtfs'"),
    (["import", "--axis-order", "up-down", "x"], "--axis-order expects"),
    (["incidents", "--circle", "52,13,100", "--type", "meteor"], "unknown incident type 'meteor'"),
    (["incidents", "--circle", "52,13,100", "--impact", "huge"], "unknown impact 'huge'"),
    (["incidents", "--circle", "52,13,100", "--lang", "!!"], "--lang"),
    (["incidents", "--circle", "52,13,100", "--limit", "0"], "--limit expects"),
    (["incidents", "--circle", "52,13,60000"], "exceeds the limit"),
    // Hexadecimal is refused, as the HTTP API refuses it (Double("0x10") is 16).
    (["incidents", "--circle", "52,13,0x10"], "--circle expects 3 comma-separated numbers"),
    (["nearest", "52,13", "--radius", "0x100"], "--radius"),
    (["render", "--center", "52,13", "--zoom", "0xe", "-o", "x.png"], "--zoom expects"),
    (
      ["incidents", "--corridor-coords", "47.16,9.51;47.17,9.52"],
      "the half width is missing in '47.16,9.51;47.17,9.52'"
    ),
    (["incidents", "--circle", "52,13,100", "--earliest-start", "yesterday"], "RFC 3339"),
    (["lookup"], "exactly one ORIGINAL_ID"),
    (["lookup", "no-such-id"], "no incident has the original id 'no-such-id'"),
    (["nearest", "91,13"], "latitude 91.0"),
    (["nearest", "52,13", "--radius", "-5"], "--radius expects"),
  ])
  func badInputExitsWith64AndSaysWhy(arguments: [String], message: String) async throws {
    defer { cleanUp() }
    _ = try SQLiteTrafficStore(path: database)  // an empty store: the input is at fault
    var withDatabase = arguments
    withDatabase.insert(contentsOf: ["--db", database], at: 1)
    let result = await runTraffic(withDatabase)
    #expect(result.status == .usage, "\(result)")
    #expect(result.errors.contains(message), "stderr was: \(result.errors)")
  }

  @Test func aFileThatIsNotATrafficDatabaseIsAUsageError() async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "not-db-\(UUID()).sqlite")
    try Data("definitely not sqlite".utf8).write(to: path)
    defer { try? FileManager.default.removeItem(at: path) }
    let result = await runTraffic(["incidents", "--db", path.path, "--circle", "52,13,100"])
    #expect(result.status == .usage)
    #expect(result.errors.contains(path.path))
  }
}
