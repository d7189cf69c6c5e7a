import Codec
import Foundation
import Geo
import Roads
import Testing
import TrafficTestSupport

@testable import traffic

/// Issue 18's scenario as a user runs it: a real network, four weeks of probes imported
/// with `traffic probes import`, then `traffic flow` now and `--at` six hours later — each
/// a separate process on one store, so the typical weeks survive the restarts between.
@Suite struct TypicalSpeedsCommandTests {
  static let pbf = Fixtures.shared?.appendingPathComponent(
    "osm/liechtenstein-2013-08-03.osm.pbf")

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
    let pbf = try #require(Self.pbf)
    let network = try OSMImporter.importNetwork(
      from: pbf, options: OSMImportOptions(countryCode: "LI"))
    let now = Date()
    let scenario = try #require(TypicalWeekScenario(network: network, now: now))
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "typical-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("store.sqlite").path
    let csv = directory.appendingPathComponent("weeks.csv")
    try Data(scenario.csv.utf8).write(to: csv)

    let imported = await runTraffic(["network", "import", "--db", db, pbf.path])
    #expect(imported.status == .success, "\(imported.errors)")
    let probes = await runTraffic(["probes", "import", "--db", db, csv.path])
    #expect(probes.status == .success, "\(probes.errors)")

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
  }
}
