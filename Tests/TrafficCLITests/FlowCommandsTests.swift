import Codec
import Foundation
import Testing
import Traffic
import TrafficSQLite
import TrafficServer
import TrafficTestSupport

@testable import traffic

/// `network import`, `probes import`, `flow` and `route`, each a separate invocation on one
/// store, as a user runs them.
@Suite struct FlowCommandsTests {
  static let network = Fixtures.repositoryRoot.appendingPathComponent(
    "Tests/RoadsTests/Fixtures/crossing.osm"
  ).path

  /// Four cars driving north on road 28 (limit 60 km/h) at 8 m/s, a position every 3 s,
  /// the last 16 s ago: they stay in the 5-minute live window for 284 s of test.
  static func probes() throws -> String {
    let now = Int(Date().timeIntervalSince1970)
    var lines = ["id,time,lat,lng,speed,heading"]
    for car in 0..<4 {
      for step in 0..<9 {
        let latitude = 47.0991 + Double(step) * 0.000216
        lines.append("car\(car),\(now - 100 + car * 20 + step * 3),\(latitude),9.5010,8,0")
      }
    }
    lines.append("broken,not-a-time,47.1,9.501")
    lines.append("far,\(now - 10),95,9.501")
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("probes-\(UUID()).csv")
    try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
    return url.path
  }

  static func database() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("flow-\(UUID()).sqlite").path
  }

  @Test func probesBecomeFlowThatLaterCommandsSee() async throws {
    let db = Self.database()
    defer { TemporaryFiles.removeDatabase(db) }
    let imported = await runTraffic(["network", "import", "--db", db, Self.network])
    #expect(imported.status == .success, "\(imported.errors)")
    #expect(imported.output.contains("8 directed segments"))
    let probesFile = try Self.probes()
    defer { try? FileManager.default.removeItem(atPath: probesFile) }
    let probes = await runTraffic(["probes", "import", "--db", db, probesFile])
    #expect(probes.status == .success, "\(probes.errors)")
    #expect(probes.output.contains("36 accepted, 2 rejected"))
    #expect(probes.output.contains("4 vehicles"))

    let flow = await runTraffic(["flow", "--db", db, "--circle", "47.1,9.501,300"])
    #expect(flow.status == .success, "\(flow.errors)")
    // 8 m/s against the 60 km/h limit: jam factor 10 x (1 - 28.8/60) = 5.2.
    #expect(flow.output.contains("28: 29 km/h (free flow 60), jam factor 5.2"), "\(flow.output)")
    let jammed = await runTraffic([
      "flow", "--db", db, "--circle", "47.1,9.501,300", "--min-jam", "4", "--json",
    ])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(jammed.output.utf8)) as? [String: Any])
    #expect((object["results"] as? [Any])?.count == 2)

    let route = await runTraffic(["route", "--db", db, "--coords", "47.0992,9.501;47.1008,9.501"])
    #expect(route.status == .success, "\(route.errors)")
    #expect(route.output.contains("28 jam factor 5.2"))
    let routeJSON = await runTraffic([
      "route", "--db", db, "--coords", "47.0992,9.501;47.1008,9.501", "--json",
    ])
    let answer = try #require(
      try JSONSerialization.jsonObject(with: Data(routeJSON.output.utf8)) as? [String: Any])
    #expect((answer["totalDelay"] as? Double ?? 0) > 5)

    // The fastest route from south to north along road 28: its ETA includes the jam.
    let fastest = await runTraffic([
      "route", "--db", db, "--from", "47.0992,9.501", "--to", "47.1008,9.501", "--json",
    ])
    #expect(fastest.status == .success, "\(fastest.errors)")
    let v8 = try #require(
      try JSONSerialization.jsonObject(with: Data(fastest.output.utf8)) as? [String: Any])
    let section = try #require(
      ((v8["routes"] as? [[String: Any]])?.first?["sections"] as? [[String: Any]])?.first)
    let summary = try #require(section["summary"] as? [String: Any])
    let duration = try #require(summary["duration"] as? Int)
    let base = try #require(summary["baseDuration"] as? Int)
    #expect(duration > base + 5, "\(summary)")
    // Planning mode: the same route at free flow.
    let planned = await runTraffic([
      "route", "--db", db, "--from", "47.0992,9.501", "--to", "47.1008,9.501", "--depart", "any",
      "--json",
    ])
    #expect(planned.status == .success, "\(planned.errors)")
    let plannedSummary = try #require(
      ((((try JSONSerialization.jsonObject(with: Data(planned.output.utf8)) as? [String: Any])?[
        "routes"] as? [[String: Any]])?.first?["sections"] as? [[String: Any]])?.first?["summary"])
        as? [String: Any])
    #expect(plannedSummary["duration"] as? Int == base, "\(plannedSummary)")
    let text = await runTraffic([
      "route", "--db", db, "--from", "47.0992,9.501", "--to", "47.1008,9.501",
    ])
    #expect(text.status == .success)
    #expect(text.output.contains("min with traffic"), "\(text.output)")
    #expect(text.output.contains("    Head north"), "\(text.output)")
    #expect(text.output.contains("    Arrive at"), "\(text.output)")
    // Directions in German; the shortest route; a stop at a via point (two sections).
    let german = await runTraffic([
      "route", "--db", db, "--from", "47.0992,9.501", "--to", "47.1008,9.501", "--lang", "de-DE",
      "--shortest",
    ])
    #expect(german.status == .success, "\(german.errors)")
    #expect(german.output.contains("    Fahren Sie Richtung Norden"), "\(german.output)")
    let stopping = await runTraffic([
      "route", "--db", db, "--from", "47.0992,9.501", "--to", "47.1008,9.501", "--via",
      "47.1,9.501!stopDuration=60", "--json",
    ])
    #expect(stopping.status == .success, "\(stopping.errors)")
    let legs =
      ((try JSONSerialization.jsonObject(with: Data(stopping.output.utf8)) as? [String: Any])?[
        "routes"] as? [[String: Any]])?.first?["sections"] as? [[String: Any]]
    #expect(legs?.count == 2)
    let actions = try #require(section["actions"] as? [[String: Any]])
    #expect(actions.first?["action"] as? String == "depart")
    #expect((actions.first?["instruction"] as? String)?.hasPrefix("Head north") == true)
  }

  /// `route --coords --server` asks the server's `POST /v1/route/traffic` and prints what
  /// `--db` prints on the server's store.
  @Test func routeAlongCoordinatesAnswersThroughAServerAsOnTheStore() async throws {
    let db = Self.database()
    defer { TemporaryFiles.removeDatabase(db) }
    #expect(await runTraffic(["network", "import", "--db", db, Self.network]).status == .success)
    let probesFile = try Self.probes()
    defer { try? FileManager.default.removeItem(atPath: probesFile) }
    #expect(await runTraffic(["probes", "import", "--db", db, probesFile]).status == .success)
    let server = try TrafficServer(
      engine: try TrafficEngine(databasePath: db),
      configuration: ServerConfiguration(port: 0, apiKeys: ["k1"], threads: 2, accessLog: .none))
    try server.start()
    defer { server.stop() }
    let url = "http://127.0.0.1:\(try #require(server.port))"
    let coordinates = ["--coords", "47.0992,9.501;47.1008,9.501"]

    let local = await runTraffic(["route", "--db", db, "--json"] + coordinates)
    let remote = await runTraffic(
      ["route", "--server", url, "--api-key", "k1", "--json"] + coordinates)
    #expect(remote.status == .success, "\(remote.errors)")
    let here = try #require(
      try JSONSerialization.jsonObject(with: Data(local.output.utf8)) as? [String: Any])
    let there = try #require(
      try JSONSerialization.jsonObject(with: Data(remote.output.utf8)) as? [String: Any])
    #expect(Set(there.keys) == Set(here.keys))
    let spans = try #require(there["spans"] as? [[String: Any]])
    #expect(!spans.isEmpty)
    #expect(
      spans.map { $0["segmentId"] as? Int }
        == (here["spans"] as? [[String: Any]])?.map { $0["segmentId"] as? Int })
    for key in ["length", "baseDuration", "trafficDuration", "totalDelay"] {
      let a = try #require(there[key] as? Double), b = try #require(here[key] as? Double)
      #expect(abs(a - b) <= 0.1, "\(key): \(a) through the server, \(b) on the store")
    }
    #expect((there["totalDelay"] as? Double ?? 0) > 5)

    let text = await runTraffic(["route", "--server", url, "--api-key", "k1"] + coordinates)
    #expect(text.status == .success, "\(text.errors)")
    #expect(text.output.contains("28 jam factor 5.2"), "\(text.output)")
  }

  /// The summary counts the matched positions as the HTTP answer's `matched` does and names
  /// the reasons as it does (`future`, not the Swift case name).
  @Test func probesImportNamesReasonsAsTheHTTPAnswer() async throws {
    let db = Self.database()
    defer { TemporaryFiles.removeDatabase(db) }
    _ = await runTraffic(["network", "import", "--db", db, Self.network])
    let now = Int(Date().timeIntervalSince1970)
    let csv = """
      id,time,lat,lng
      a,\(now - 20),47.0991,9.5010
      a,\(now - 17),47.0993,9.5010
      off,\(now - 15),47.2,9.7
      b,\(now + 3600),47.0991,9.5010
      """
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("p-\(UUID()).csv")
    try Data(csv.utf8).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let result = await runTraffic(["probes", "import", "--db", db, url.path])
    #expect(result.status == .success, "\(result.errors)")
    #expect(
      result.output.contains("3 accepted, 1 rejected (1 future), 2 matched to roads"),
      "\(result.output)")
    #expect(result.errors.contains("line 5: future: time "), "\(result.errors)")
    // The same rows read as NDJSON: not one can be read, so the file is refused (exit 64)
    // as the server refuses such a body, rather than imported as "0 accepted".
    let wrong = await runTraffic(["probes", "import", "--db", db, "--format", "ndjson", url.path])
    #expect(wrong.status == .usage, "\(wrong.output)")
    #expect(wrong.errors.contains("none of its 5 probe rows can be read"), "\(wrong.errors)")
  }

  /// A 20-minute SUMO run (a time step a minute) imported without `--simulation-start`:
  /// its last step is now, so no probe is in the future; with the start set to now, the
  /// steps more than the 5-minute clock skew ahead are rejected.
  @Test func fcdRunsEndNowByDefault() async throws {
    let db = Self.database()
    defer { TemporaryFiles.removeDatabase(db) }
    _ = await runTraffic(["network", "import", "--db", db, Self.network])
    var xml = "<fcd-export>\n"
    for minute in 0...20 {
      let latitude = 47.0991 + Double(minute) * 0.00008
      xml +=
        "<timestep time=\"\(minute * 60).00\"><vehicle id=\"v\" x=\"9.5010\" "
        + "y=\"\(latitude)\" speed=\"1.5\" angle=\"0\"/></timestep>\n"
    }
    xml += "</fcd-export>\n"
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("fcd-\(UUID()).xml")
    try Data(xml.utf8).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let aligned = await runTraffic(["probes", "import", "--db", db, url.path])
    #expect(aligned.status == .success, "\(aligned.errors)")
    #expect(aligned.output.contains("21 accepted, 0 rejected"), "\(aligned.output)")
    let db2 = Self.database()
    defer { TemporaryFiles.removeDatabase(db2) }
    _ = await runTraffic(["network", "import", "--db", db2, Self.network])
    let ahead = await runTraffic([
      "probes", "import", "--db", db2, "--simulation-start", RFC3339.format(Date()), url.path,
    ])
    // Minutes 0...5 are within the skew; 6...20 lie in the future.
    #expect(ahead.output.contains("6 accepted, 15 rejected"), "\(ahead.output)")
  }

  @Test(arguments: [
    (["network"], "expects 'import FILE'"),
    (["network", "import"], "exactly one FILE"),
    (["network", "import", "/nonexistent.osm.pbf"], "/nonexistent.osm.pbf"),
    (["probes", "import"], "at least one FILE"),
    (["probes", "import", "--format", "gpx", "x.gpx"], "--format expects"),
    (["probes", "import", "x.csv"], "x.csv: no such file"),
    (["probes", "import", "Samples/berlin-incidents.geojson"], "holds no road network"),
    (["flow", "--circle", "47,9,100", "--min-jam", "lots"], "--min-jam expects"),
    (["flow", "--circle", "47,9,100", "--min-jam", "11"], "minJamFactor"),
    (["flow", "--circle", "47,9,100", "--functional-classes", "1,x"], "--functional-classes"),
    (["route"], "give --from and --to (or --coords, or --polyline)"),
    (["route", "--coords", "47,9"], "--coords"),
    (["route", "--polyline", "!!!"], "--polyline"),
    (["route", "--from", "47.1,9.5"], "--from needs --to"),
    (["route", "--from", "47.1,9.5", "--to", "95,9"], "--to"),
    (["route", "--from", "47.1,9.5", "--to", "47.2,9.5", "--alternatives", "7"], "--alternatives"),
    (["route", "--from", "47.1,9.5", "--to", "47.2,9.5", "--depart", "soon"], "--depart expects"),
    (["route", "--from", "47.1,9.5", "--to", "47.2,9.5", "--arrive", "soon"], "--arrive expects"),
    (
      ["route", "--from", "47.1,9.5", "--to", "47.2,9.5", "--via", "47.15,9.5!wait=1"],
      "--via: via 0 option wait is not supported"
    ),
    (
      ["route", "--from", "47.1,9.5", "--to", "47.2,9.5", "--depart", "+1h", "--arrive", "+2h"],
      "not both"
    ),
    (["route", "--from", "47.1,9.5", "--to", "47.2,9.5"], "no road network"),
    (
      ["route", "--from", "47.1,9.5", "--to", "47.2,9.5", "--coords", "47,9;48,9"],
      "--coords belongs"
    ),
  ])
  func badInputExitsWith64(arguments: [String], message: String) async throws {
    let db = Self.database()
    defer { TemporaryFiles.removeDatabase(db) }
    _ = try SQLiteTrafficStore(path: db)  // an empty store: the input is at fault
    var withDatabase = arguments.map {
      $0.hasPrefix("Samples/") ? Fixtures.repositoryRoot.appendingPathComponent($0).path : $0
    }
    withDatabase.insert(contentsOf: ["--db", db], at: 1)
    let result = await runTraffic(withDatabase)
    #expect(result.status == .usage, "\(result)")
    #expect(result.errors.contains(message), "stderr was: \(result.errors)")
  }
}

/// `--json` on the import commands: one object a script reads, the same counts as the lines.
@Suite struct ImportSummaryTests {
  static func object(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  @Test func networkProbesAndFeedImportsSumUpAsJSON() async throws {
    let db = FlowCommandsTests.database()
    defer { TemporaryFiles.removeDatabase(db) }
    let network = await runTraffic([
      "network", "import", "--db", db, "--json", FlowCommandsTests.network,
    ])
    #expect(network.status == .success, "\(network.errors)")
    let roads = try Self.object(network.output)
    #expect(roads["segments"] as? Int == 8)
    #expect(roads["store"] as? String == db)
    #expect(network.output.split(separator: "\n").count == 1)

    let probesFile = try FlowCommandsTests.probes()
    defer { try? FileManager.default.removeItem(atPath: probesFile) }
    let probes = await runTraffic(["probes", "import", "--db", db, "--json", probesFile])
    #expect(probes.status == .success, "\(probes.errors)")
    let file = try #require((try Self.object(probes.output)["files"] as? [[String: Any]])?.first)
    #expect(file["accepted"] as? Int == 36 && file["rejected"] as? Int == 2)
    #expect(file["vehicles"] as? Int == 4)

    let feed = Fixtures.repositoryRoot.appendingPathComponent(
      "Tests/TrafficFeedsTests/Fixtures/here-v7/incidents.json"
    ).path
    let junk = Fixtures.repositoryRoot.appendingPathComponent("Samples/berlin-incidents.geojson")
      .path
    let imported = await runTraffic(["import", "--db", db, "--json", feed, junk])
    #expect(imported.status == .usage, "a file that is no feed still fails the command")
    let summary = try Self.object(imported.output)
    let first = try #require((summary["files"] as? [[String: Any]])?.first)
    #expect(first["format"] as? String == "here-v7")
    #expect(first["added"] as? Int == 2 && first["skipped"] as? Int == 1)
    let failure = try #require((summary["failures"] as? [[String: Any]])?.first)
    #expect(failure["file"] as? String == junk)
    #expect((failure["error"] as? String)?.contains("not a recognised feed format") == true)
  }
}
