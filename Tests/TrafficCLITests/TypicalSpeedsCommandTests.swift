import Codec
import Foundation
import Geo
import Roads
import Synchronization
import Testing
import TrafficTestSupport

@testable import traffic

/// Issue 18's scenario as a user runs it: a real network, four weeks of probes imported
/// with `traffic probes import`, then `traffic flow` now and `--at` six hours later — each
/// a separate process on one store, so the typical weeks survive the restarts between.
@Suite struct TypicalSpeedsCommandTests {
  static let pbf = Fixtures.liechtenstein()

  /// The v7 flow of a segment, from `traffic flow --json` on a 3 m circle at its middle.
  static func flow(
    db: String, network: RoadNetwork, segment: Int, extra: [String] = []
  ) async throws -> (speed: Double, uncapped: Double, confidence: Double, jam: Double) {
    let road = network.segments[segment]
    let middle = road.geometry.coordinates(atDistance: road.lengthInMeters / 2)
    // The middle's neighbourhood holds both directions; the answer's shapes tell them apart
    // by their first point.
    let result = await runTraffic(
      [
        "flow", "--db", db, "--circle", "\(middle.latitude),\(middle.longitude),3", "--json",
      ] + extra)
    #expect(result.status == .success, "\(result.errors)")
    let answer = try JSONParser.parse(Data(result.output.utf8))
    let first = road.geometry.vertices[0]
    for item in answer["results"]?.array ?? [] {
      let point = item["location"]?["shape"]?["links"]?.array?.first?["points"]?.array?.first
      guard let lat = point?["lat"]?.double, let lng = point?["lng"]?.double,
        abs(lat - first.latitude) < 1e-5, abs(lng - first.longitude) < 1e-5,
        let flow = item["currentFlow"]
      else { continue }
      return (
        try #require(flow["speed"]?.double), try #require(flow["speedUncapped"]?.double),
        try #require(flow["confidence"]?.double), try #require(flow["jamFactor"]?.double)
      )
    }
    Issue.record("segment \(segment) is not in the answer: \(result.output.prefix(400))")
    return (0, 0, 0, 0)
  }

  @Test("traffic flow answers the weekly jam at its hour and the other way round with --at")
  func scenario() async throws {
    let directory = try RoutingEngineExportTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let now = Date()
    let (db, pbf, network, scenario) = try await RoutingEngineExportTests.store(
      directory, now: now)

    let later = RFC3339.format(now.addingTimeInterval(6 * 3_600))
    for (extra, a, b) in [
      ([], TypicalWeekScenario.slow, TypicalWeekScenario.fast),
      (["--at", later], TypicalWeekScenario.fast, TypicalWeekScenario.slow),
      (["--at", "+6h"], TypicalWeekScenario.fast, TypicalWeekScenario.slow),
    ] {
      let roadA = try await Self.flow(
        db: db, network: network, segment: scenario.roadA, extra: extra)
      let roadB = try await Self.flow(
        db: db, network: network, segment: scenario.roadB, extra: extra)
      for (flow, expected) in [(roadA, a), (roadB, b)] {
        #expect(abs(flow.uncapped - expected) <= 0.3 * expected, "\(extra) \(flow)")
        #expect(flow.confidence > 0.5 && flow.confidence <= 0.7, "\(extra) \(flow)")
      }
    }
    let bad = await runTraffic(["flow", "--db", db, "--circle", "47.1,9.5,100", "--at", "soon"])
    #expect(bad.status == .usage)
    #expect(bad.errors.contains("--at expects an RFC 3339 time"))

    try await exports(
      db: db, pbf: pbf, network: network, scenario: scenario, directory: directory)
  }

  /// The exports of the scenario's store: OSRM's node pairs, the profiles file read back
  /// into a store without probes, Valhalla's compressed weeks.
  func exports(
    db: String, pbf: URL, network: RoadNetwork, scenario: TypicalWeekScenario,
    directory: URL
  ) async throws {
    // OSRM: every node pair of road A at its typical 6 m/s (22 km/h), road B at 72 km/h.
    let osrm = directory.appendingPathComponent("speeds.csv").path
    let exported = await runTraffic(["export", "osrm", "--db", db, "-o", osrm])
    #expect(exported.status == .success, "\(exported.errors)")
    let rows = try String(contentsOfFile: osrm, encoding: .utf8).split(separator: "\n")
    var speeds: [String: Int] = [:]
    for row in rows {
      let fields = row.split(separator: ",")
      #expect(fields.count == 3)
      speeds["\(fields[0]),\(fields[1])"] = Int(fields[2])
    }
    for (segment, kmh) in [(scenario.roadA, 22), (scenario.roadB, 72)] {
      let road = network.segments[segment]
      let path = try #require(network.segmentNodeIDs?.path(of: road, in: network))
      #expect(path.count == road.geometry.vertices.count)
      #expect(path.first.map(String.init) == network.nodes[road.fromNode].sourceID)
      for (from, to) in zip(path, path.dropFirst()) {
        #expect(speeds["\(from),\(to)"] == kmh, "\(from),\(to)")
      }
    }

    // The profiles file, imported into a fresh store with the same network: the same
    // typical answers, now and six hours on.
    let profiles = directory.appendingPathComponent("profiles.csv").path
    let written = await runTraffic(["export", "profiles", "--db", db, "-o", profiles])
    #expect(written.status == .success, "\(written.errors)")
    #expect(written.output.contains("typical weeks of"))
    let fresh = directory.appendingPathComponent("fresh.sqlite").path
    _ = await runTraffic(["network", "import", "--db", fresh, pbf.path])
    let imported = await runTraffic(["profiles", "import", "--db", fresh, profiles])
    #expect(imported.status == .success, "\(imported.errors)")
    for (extra, a) in [
      ([String](), TypicalWeekScenario.slow), (["--at", "+6h"], TypicalWeekScenario.fast),
    ] {
      let roadA = try await Self.flow(
        db: fresh, network: network, segment: scenario.roadA, extra: extra)
      #expect(abs(roadA.uncapped - a) <= 0.3 * a, "\(extra) \(roadA)")
      #expect(roadA.confidence > 0.5 && roadA.confidence <= 0.7)
    }
    let broken = directory.appendingPathComponent("broken.csv")
    try Data(
      "way_id,from_node,to_node,weekday,time,speed_kmh,samples\n1,2,3,funday,08:00,20,1\n".utf8
    ).write(to: broken)
    let refused = await runTraffic(["profiles", "import", "--db", fresh, broken.path])
    #expect(refused.status == .usage)
    #expect(refused.errors.contains("line 2: weekday \"funday\""), "\(refused.errors)")

    // Valhalla: the week of road A's way, through the way_edges file of Valhalla's tool.
    let valhalla = directory.appendingPathComponent("valhalla.csv").path
    let noEdges = await runTraffic(["export", "valhalla", "--db", db, "-o", valhalla])
    #expect(noEdges.status == .usage)
    #expect(noEdges.errors.contains("--way-edges"))
    let road = network.segments[scenario.roadA]
    let edges = directory.appendingPathComponent("way_edges.txt")
    // Graph id 1/47701/130 = 1 | 47701 << 3 | 130 << 25.
    let graph = UInt64(1) | UInt64(47701) << 3 | UInt64(130) << 25
    try Data("\(road.sourceID),\(road.isReversed ? 0 : 1),\(graph)\n".utf8).write(to: edges)
    let made = await runTraffic([
      "export", "valhalla", "--db", db, "--way-edges", edges.path, "-o", valhalla,
    ])
    #expect(made.status == .success, "\(made.errors)")
    let lines = try String(contentsOfFile: valhalla, encoding: .utf8).split(separator: "\n")
    #expect(lines.first == "edge_id,freeflow_speed,constrained_speed,historical_speeds")
    let fields = try #require(lines.dropFirst().first).split(separator: ",")
    #expect(fields.count == 4)
    #expect(fields[0] == "1/47701/130")
    let bytes = try #require(Data(base64Encoded: String(fields[3])))
    #expect(bytes.count == 400)
  }
}

/// Progress of a long command, end to end: on a terminal a line redrawn in place and erased
/// before the summary, which stays as it was; nothing with --quiet.
@Suite struct ProgressCommandTests {
  static func run(
    _ arguments: [String], mode: ProgressReporter.Mode
  ) async -> (status: CommandStatus, output: String, errors: String) {
    let output = Mutex(""), errors = Mutex("")
    var console = Console(
      write: { text in output.withLock { $0 += text } },
      writeError: { text in errors.withLock { $0 += text } })
    console.progressMode = mode
    console.progressInterval = 0
    let status = await CommandLineTool.run(arguments, console: console)
    return (status, output.withLock { $0 }, errors.withLock { $0 })
  }

  @Test("network import shows its passes on a terminal and erases them before the summary")
  func networkImport() async throws {
    let pbf = TypicalSpeedsCommandTests.pbf
    let db = FileManager.default.temporaryDirectory.appendingPathComponent(
      "progress-\(UUID()).sqlite"
    ).path
    defer { try? FileManager.default.removeItem(atPath: db) }
    let shown = await Self.run(["network", "import", "--db", db, pbf.path], mode: .terminal)
    #expect(shown.status == .success, "\(shown.errors)")
    #expect(
      shown.errors.contains("\rnetwork import: ways (pass 1 of 2) · "),
      "\(shown.errors.prefix(300))")
    // Redrawn only when the line changes.
    #expect(shown.errors.components(separatedBy: "\r").count < 200)
    #expect(shown.errors.contains("\rnetwork import: saving 5,391 segments to the store"))
    #expect(shown.errors.hasSuffix("\r\u{1B}[K"))
    // The summary on standard output is what it always was, without progress.
    #expect(!shown.output.contains("\r"))
    #expect(shown.output.contains("directed segments"))
    let quiet = await Self.run(
      ["network", "import", "--db", db, "--quiet", pbf.path], mode: .terminal)
    #expect(quiet.status == .success)
    #expect(quiet.errors.isEmpty)
    #expect(quiet.output.contains("directed segments"))
  }
}
