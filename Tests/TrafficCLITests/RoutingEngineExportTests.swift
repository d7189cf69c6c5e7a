import Codec
import Foundation
import Geo
import Roads
import Testing
import TrafficTestSupport

@testable import traffic

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The speed exports loaded into the routing engines they are for, run here as their
/// official builds ship them (`make routing-tools` fetches them into `.build/tools`): OSRM
/// routes along the scenario's weekly jam at the exported typical speed; Valhalla, given the
/// exported week, takes the jam's time at its hour and the fast time six hours later.
@Suite(.serialized) struct RoutingEngineExportTests {
  static let tools = Fixtures.repositoryRoot.appendingPathComponent(".build/tools")
  static let hasTools =
    FileManager.default.isExecutableFile(
      atPath: tools.appendingPathComponent("osrm/bin/osrm-extract").path)
    && FileManager.default.isExecutableFile(
      atPath: tools.appendingPathComponent("valhalla/bin/valhalla_build_tiles").path)

  /// A store that learned the four weeks of the typical-speeds scenario, in `directory`.
  static func store(
    _ directory: URL, now: Date
  ) async throws -> (db: String, pbf: URL, network: RoadNetwork, scenario: TypicalWeekScenario) {
    let pbf = Fixtures.liechtenstein()
    let network = try OSMImporter.importNetwork(
      from: pbf, options: OSMImportOptions(countryCode: "LI"))
    let scenario = try #require(TypicalWeekScenario(network: network, now: now))
    let db = directory.appendingPathComponent("store.sqlite").path
    let csv = directory.appendingPathComponent("weeks.csv")
    try Data(scenario.csv.utf8).write(to: csv)
    let imported = await runTraffic(["network", "import", "--db", db, pbf.path])
    #expect(imported.status == .success, "\(imported.errors)")
    let probes = await runTraffic(["probes", "import", "--db", db, csv.path])
    #expect(probes.status == .success, "\(probes.errors)")
    return (db, pbf, network, scenario)
  }

  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "routing-export-\(UUID())")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// Runs a program to its end; its standard output, or a recorded issue with its errors.
  @discardableResult
  static func run(
    _ program: String, _ arguments: [String], in directory: URL
  ) throws -> String {
    let process = Process()
    process.executableURL =
      program.hasPrefix("/") ? URL(fileURLWithPath: program) : tools.appendingPathComponent(program)
    process.arguments = arguments
    process.currentDirectoryURL = directory
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let problems = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(
      process.terminationStatus == 0,
      "\(program) \(arguments.joined(separator: " ")): \(String(decoding: problems.suffix(600), as: UTF8.self))"
    )
    return String(decoding: data, as: UTF8.self)
  }

  /// 50 m into road A and 50 m before its end.
  static func endpoints(
    _ network: RoadNetwork, _ scenario: TypicalWeekScenario
  ) -> (GeoCoordinates, GeoCoordinates, Double) {
    let road = network.segments[scenario.roadA]
    return (
      road.geometry.coordinates(atDistance: 50),
      road.geometry.coordinates(atDistance: road.lengthInMeters - 50), road.lengthInMeters - 100
    )
  }

  @Test(
    "OSRM, customised with the exported segment speeds, drives the jam at its typical speed",
    .enabled(if: hasTools, "needs the routing tools: make routing-tools"))
  func osrm() async throws {
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (db, pbf, network, scenario) = try await Self.store(directory, now: Date())
    let speeds = directory.appendingPathComponent("speeds.csv").path
    let exported = await runTraffic(["export", "osrm", "--db", db, "-o", speeds])
    #expect(exported.status == .success, "\(exported.errors)")
    try FileManager.default.copyItem(
      at: pbf, to: directory.appendingPathComponent("li.osm.pbf"))
    let profile = Self.tools.appendingPathComponent("osrm/share/profiles/car.lua").path
    try Self.run("osrm/bin/osrm-extract", ["-p", profile, "li.osm.pbf"], in: directory)
    try Self.run("osrm/bin/osrm-partition", ["li.osrm"], in: directory)
    let (origin, destination, meters) = Self.endpoints(network, scenario)
    func duration() async throws -> Double {
      let port = Int.random(in: 20_000..<40_000)
      let routed = Process()
      routed.executableURL = Self.tools.appendingPathComponent("osrm/bin/osrm-routed")
      routed.arguments = ["--algorithm", "mld", "-i", "127.0.0.1", "-p", String(port), "li.osrm"]
      routed.currentDirectoryURL = directory
      routed.standardOutput = FileHandle.nullDevice
      routed.standardError = FileHandle.nullDevice
      try routed.run()
      defer {
        routed.terminate()
        routed.waitUntilExit()
      }
      let url = try #require(
        URL(
          string:
            "http://127.0.0.1:\(port)/route/v1/driving/\(origin.longitude),\(origin.latitude);"
            + "\(destination.longitude),\(destination.latitude)?overview=false"))
      for _ in 0..<100 {
        if let (data, _) = try? await URLSession.shared.data(from: url),
          let answer = try? JSONParser.parse(data),
          let seconds = answer["routes"]?.array?.first?["duration"]?.double
        {
          #expect(abs((answer["routes"]?.array?.first?["distance"]?.double ?? 0) - meters) < 30)
          return seconds
        }
        try await Task.sleep(for: .milliseconds(100))
      }
      Issue.record("osrm-routed did not answer on port \(port)")
      return 0
    }
    try Self.run("osrm/bin/osrm-customize", ["li.osrm"], in: directory)
    let before = try await duration()
    try Self.run(
      "osrm/bin/osrm-customize", ["li.osrm", "--segment-speed-file", speeds], in: directory)
    let after = try await duration()
    // Road A's typical speed now: 6 m/s (22 km/h in whole km/h).
    let expected = meters / (22 / 3.6)
    #expect(abs(after - expected) <= 0.15 * expected, "before \(before) s, after \(after) s")
    #expect(after > 1.5 * before)
  }

  @Test(
    "Valhalla, given the exported weeks, takes the jam at its hour and runs free six hours on",
    .enabled(if: hasTools, "needs the routing tools: make routing-tools"))
  func valhalla() async throws {
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let now = Date()
    let (db, pbf, network, scenario) = try await Self.store(directory, now: now)
    let tiles = directory.appendingPathComponent("tiles").path
    let config = try Self.run(
      "/usr/bin/python3",
      [
        Self.tools.appendingPathComponent("valhalla/valhalla_build_config.py").path,
        "--mjolnir-tile-dir", tiles, "--mjolnir-concurrency", "1", "--mjolnir-tile-extract", "",
        "--mjolnir-traffic-extract", "", "--mjolnir-admin", "", "--mjolnir-timezone", "",
      ], in: directory)
    try Data(config.utf8).write(to: directory.appendingPathComponent("config.json"))
    try Self.run(
      "valhalla/bin/valhalla_build_tiles", ["-c", "config.json", pbf.path], in: directory)

    // The way_edges file valhalla_ways_to_edges would write for road A (that tool is not
    // in the build): Valhalla's edges along it, found with locate every 20 m.
    let road = network.segments[scenario.roadA]
    let (origin, destination, _) = Self.endpoints(network, scenario)
    var graphIDs: [UInt64] = []
    for offset in stride(from: 10.0, to: road.lengthInMeters - 10, by: 20) {
      let point = road.geometry.coordinates(atDistance: offset)
      let answer = try JSONParser.parse(
        Data(
          try Self.run(
            "valhalla/bin/valhalla_service",
            [
              "config.json", "locate",
              "{\"locations\":[{\"lat\":\(point.latitude),\"lon\":\(point.longitude)}],"
                + "\"verbose\":true,\"costing\":\"auto\"}",
            ], in: directory
          ).utf8))
      for edge in answer.array?.first?["edges"]?.array ?? [] {
        guard edge["edge_info"]?["way_id"]?.identifier == road.sourceID,
          edge["edge"]?["forward"]?.bool == !road.isReversed,
          let value = edge["edge_id"]?["value"]?.double
        else { continue }
        let id = UInt64(value)
        if !graphIDs.contains(id) { graphIDs.append(id) }
      }
    }
    #expect(!graphIDs.isEmpty)
    let edges = directory.appendingPathComponent("way_edges.txt")
    let direction = road.isReversed ? 0 : 1
    try Data(
      ([road.sourceID] + graphIDs.map { "\(direction),\($0)" }).joined(separator: ",").utf8
    ).write(to: edges)
    let traffic = directory.appendingPathComponent("traffic").path + "/"
    let exported = await runTraffic([
      "export", "valhalla", "--db", db, "--way-edges", edges.path, "-o", traffic,
    ])
    #expect(exported.status == .success, "\(exported.errors)")
    try Self.run(
      "valhalla/bin/valhalla_add_predicted_traffic", ["-c", "config.json", traffic],
      in: directory)

    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = network.localTimeZone
    func seconds(departing time: Date) throws -> Double {
      let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: time)
      let local = String(
        format: "%04d-%02d-%02dT%02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!,
        parts.minute!)
      let request =
        "{\"locations\":[{\"lat\":\(origin.latitude),\"lon\":\(origin.longitude)},"
        + "{\"lat\":\(destination.latitude),\"lon\":\(destination.longitude)}],"
        + "\"costing\":\"auto\",\"date_time\":{\"type\":1,\"value\":\"\(local)\"}}"
      let answer = try JSONParser.parse(
        Data(
          try Self.run(
            "valhalla/bin/valhalla_service", ["config.json", "route", request], in: directory
          ).utf8))
      return try #require(answer["trip"]?["summary"]?["time"]?.double)
    }
    let jam = try seconds(departing: now)
    let free = try seconds(departing: now.addingTimeInterval(6 * 3_600))
    // Valhalla keeps a week in 200 coefficients: a jam an hour wide keeps most of its depth.
    #expect(jam > 1.8 * free, "jam \(jam) s, six hours later \(free) s")
  }
}
