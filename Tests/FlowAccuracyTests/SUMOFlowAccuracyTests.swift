import Foundation
import Roads
import Synchronization
import Testing
import Traffic
import TrafficFeeds
import TrafficTestSupport

/// Checks flow estimation against a simulator nobody here wrote: SUMO drives the A10KW
/// network (a motorway interchange south-east of Berlin, from Debian's `sumo-tools`) for 15
/// simulated minutes; 15 % of the vehicles report floating-car data every 5 s, to which this
/// test adds GPS noise (4 m per axis, Newson & Krumm's measured sigma). The engine's segment
/// speeds are compared with SUMO's own per-edge mean speeds over the same 5-minute
/// intervals, and the map matching with the lanes SUMO says each vehicle was on.
@Suite("SUMO flow accuracy", .serialized)
struct SUMOFlowAccuracyTests {
  static let base = Date(timeIntervalSince1970: 1_750_000_000)
  static let intervalInSeconds = 300.0

  /// One SUMO run's outputs.
  struct Simulation {
    var fcd: Data
    /// Per interval index (0, 1, 2): edge id -> (mean speed m/s, sampled vehicle-seconds).
    var edgeSpeeds: [Int: [String: (speed: Double, sampledSeconds: Double)]]
  }

  static func runSUMO() throws -> Simulation {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("sumo-flow-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let additional = directory.appendingPathComponent("edges.add.xml")
    try Data(
      """
      <additional><edgeData id="e" freq="300" file="edges.xml" excludeEmpty="true"/></additional>
      """.utf8
    ).write(to: additional)
    for file in [DebianFile.sumo, .a10kwNetwork] + DebianFile.a10kwRoutes { try file.require() }
    let routes = DebianFile.a10kwRoutes.map(\.path).joined(separator: ",")
    let process = Process()
    process.executableURL = DebianFile.sumo.url
    process.currentDirectoryURL = directory
    process.arguments = [
      "-n", DebianFile.a10kwNetwork.path, "-r", routes, "-a", additional.path,
      "--begin", "0", "--end", "900", "--step-length", "0.5", "--seed", "42",
      "--ignore-route-errors", "true", "--time-to-teleport", "0", "--no-step-log",
      "--no-warnings", "--xml-validation", "never",
      "--fcd-output", directory.appendingPathComponent("fcd.xml").path,
      "--fcd-output.geo", "true", "--device.fcd.probability", "0.15",
      "--device.fcd.period", "5",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "sumo exited with \(process.terminationStatus)")
    let fcd = try Data(contentsOf: directory.appendingPathComponent("fcd.xml"))
    let edges = try String(
      contentsOf: directory.appendingPathComponent("edges.xml"), encoding: .utf8)
    var speeds: [Int: [String: (speed: Double, sampledSeconds: Double)]] = [:]
    var interval = -1
    for line in edges.split(separator: "\n") {
      if line.contains("<interval") {
        interval = Int((Double(attribute("begin", in: line) ?? "") ?? 0) / intervalInSeconds)
      } else if line.contains("<edge "), let id = attribute("id", in: line),
        let speed = attribute("speed", in: line).flatMap(Double.init),
        let sampled = attribute("sampledSeconds", in: line).flatMap(Double.init)
      {
        speeds[interval, default: [:]][id] = (speed, sampled)
      }
    }
    return Simulation(fcd: fcd, edgeSpeeds: speeds)
  }

  /// The value of `name="..."` in one line of XML.
  static func attribute(_ name: String, in line: Substring) -> String? {
    guard let start = line.range(of: " \(name)=\"") else { return nil }
    let rest = line[start.upperBound...]
    guard let end = rest.firstIndex(of: "\"") else { return nil }
    return String(rest[..<end])
  }

  /// Every probe through the streaming matcher in time order, then flushed: what the engine
  /// decides for them.
  static func matchAll(_ probes: [Probe], on network: RoadNetwork) throws -> [MatchedPoint] {
    var stream = StreamingMapMatcher(matcher: try MapMatcher(network: network))
    var matched: [MatchedPoint] = []
    for probe in probes.sorted(by: { $0.time < $1.time }) {
      stream.add(
        ProbePoint(
          coordinates: probe.coordinates, time: probe.time,
          speedInMetersPerSecond: probe.speedInMetersPerSecond,
          headingInDegrees: probe.headingInDegrees),
        vehicleID: probe.vehicleID, into: &matched)
    }
    return matched + stream.flushAll()
  }

  /// The true edge of each FCD record: `"vehicle@seconds"` -> SUMO edge id (internal
  /// junction lanes, which belong to no edge, are left out).
  static func trueEdges(_ fcd: Data) -> [String: String] {
    var truth: [String: String] = [:]
    var time = ""
    for line in String(decoding: fcd, as: UTF8.self).split(separator: "\n") {
      if line.contains("<timestep") {
        time = attribute("time", in: line) ?? ""
      } else if line.contains("<vehicle"), let id = attribute("id", in: line),
        let lane = attribute("lane", in: line), !lane.hasPrefix(":"),
        let cut = lane.lastIndex(of: "_"), let seconds = Double(time)
      {
        truth["\(id)@\(seconds)"] = String(lane[..<cut])
      }
    }
    return truth
  }

  /// The probes with Gaussian noise of `sigma` meters per axis (Box–Muller, seeded).
  static func noisy(_ probes: [Probe], sigma: Double) throws -> [Probe] {
    var generator = SeededGenerator(seed: 7)
    func gaussian() -> Double {
      let u = Double.random(in: Double.ulpOfOne..<1, using: &generator)
      let v = Double.random(in: 0..<1, using: &generator)
      return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
    return try probes.map { probe in
      var copy = probe
      let latitude = probe.coordinates.latitude
      copy.coordinates = try GeoCoordinates(
        latitude: latitude + gaussian() * sigma / 111_200,
        longitude: probe.coordinates.longitude + gaussian() * sigma
          / (111_200 * cos(latitude * .pi / 180)))
      return copy
    }
  }

  @Test(
    "engine speeds agree with SUMO's edge speeds; matching finds the true edges",
    .timeLimit(.minutes(10)))
  func accuracyAgainstSUMO() throws {
    let started = Date()
    let simulation = try Self.runSUMO()
    let network = try SUMONetworkImporter.importNetwork(
      from: DebianFile.a10kwNetwork.url)
    let decoder = ProbeDecoder(now: Self.base + 100_000, simulationStart: Self.base)
    let batch = try decoder.decode(simulation.fcd, format: .sumoFCD)
    #expect(batch.rejectedCount == 0)
    let probes = try Self.noisy(batch.probes, sigma: 4)

    // Map matching accuracy against the lanes SUMO reports.
    let truth = Self.trueEdges(simulation.fcd)
    let matched = try Self.matchAll(probes, on: network)
    var correct = 0, judged = 0
    for point in matched {
      let key = "\(point.vehicleID)@\(point.probe.time.timeIntervalSince(Self.base))"
      guard let edge = truth[key] else { continue }
      judged += 1
      if network.segments[point.position.segmentID].sourceID == edge { correct += 1 }
    }
    let matchingAccuracy = Double(correct) / Double(max(judged, 1))

    // Flow: feed each 5-minute interval, then compare with SUMO's edge speeds for it.
    let now = Mutex(Self.base)
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { now.withLock { $0 } }, network: network)
    let box = try #require(GeoBox.enclosing(network.nodes.map(\.coordinates)))
    var compared = 0, within = 0, strictlyWithin = 0
    var errors: [Double] = []
    let diagnostics = ProcessInfo.processInfo.environment["SUMO_FLOW_DIAGNOSTICS"] != nil
    /// Diagnostics: (compared, strictly within 15 %) by road class, SUMO speed and length.
    var breakdown: [String: (compared: Int, strictly: Int)] = [:]
    for interval in 0..<3 {
      let end = Self.base + Double(interval + 1) * Self.intervalInSeconds
      let start = end - Self.intervalInSeconds
      now.withLock { $0 = end }
      engine.ingest(probes: probes.filter { $0.time > start && $0.time <= end })
      let flows = try engine.flow(inside: box, options: TrafficFlowQueryOptions())
      let reference = simulation.edgeSpeeds[interval] ?? [:]
      for flow in flows where flow.confidence >= FlowConfidence.threeVehicles {
        guard let sumo = reference[flow.sourceID], sumo.speed > 0 else { continue }
        let error = (flow.speedUncappedInMetersPerSecond - sumo.speed) / sumo.speed
        compared += 1
        errors.append(error)
        if abs(error) <= 0.15 { strictlyWithin += 1 }
        if diagnostics {
          let segment = network.segments[flow.segmentID]
          let speedBand =
            sumo.speed < 5 ? "SUMO < 5 m/s" : sumo.speed < 15 ? "5-15 m/s" : ">= 15 m/s"
          let length =
            segment.lengthInMeters < 50
            ? "< 50 m" : segment.lengthInMeters < 200 ? "50-200 m" : ">= 200 m"
          for key in ["class \(segment.roadClass)", speedBand, length] {
            breakdown[key, default: (0, 0)].compared += 1
            if abs(error) <= 0.15 { breakdown[key, default: (0, 0)].strictly += 1 }
          }
          if abs(error) > 0.15 {
            print(
              "strict miss: interval", interval, flow.sourceID, segment.roadClass,
              Int(flow.lengthInMeters), "engine", flow.speedUncappedInMetersPerSecond, "sumo",
              sumo.speed, "conf", flow.confidence)
          }
        }
        // In a standing queue SUMO's speeds are creeping values (0.01...2 m/s) whose relative
        // error means nothing; there, agreeing within 2 m/s (7 km/h) is agreeing.
        if abs(error) <= 0.15 || abs(flow.speedUncappedInMetersPerSecond - sumo.speed) <= 2 {
          within += 1
        } else if diagnostics {
          print(
            "mismatch: interval", interval, flow.sourceID,
            network.segments[flow.segmentID].roadClass, Int(flow.lengthInMeters), "engine",
            flow.speedUncappedInMetersPerSecond, "sumo", sumo.speed, "sampled", sumo.sampledSeconds,
            "conf", flow.confidence, "limit",
            network.segments[flow.segmentID].speedLimitInMetersPerSecond)
        }
      }
    }
    for (key, counts) in breakdown.sorted(by: { $0.key < $1.key }) {
      print("strictly within 15 % by \(key): \(counts.strictly)/\(counts.compared)")
    }
    let share = Double(within) / Double(max(compared, 1))
    let seconds = Date().timeIntervalSince(started)
    print(
      """
      SUMO A10KW, 15 min, 15 % FCD every 5 s + 4 m noise: \(probes.count) probes
        map matching: \(correct)/\(judged) points on the true edge = \
      \(String(format: "%.1f", matchingAccuracy * 100)) % (goal >= 95 %)
        flow: \(within)/\(compared) edge-intervals (>= 3 probe vehicles) within 15 % of SUMO = \
      \(String(format: "%.1f", share * 100)) % (goal >= 85 %) counting queues within 2 m/s; \
      strictly within 15 %: \(strictlyWithin)/\(compared) = \
      \(String(format: "%.1f", Double(strictlyWithin) / Double(max(compared, 1)) * 100)) %; \
      median |error| \
      \(String(format: "%.1f", (errors.map(abs).sorted().dropFirst(errors.count / 2).first ?? 0) * 100)) %
        took \(String(format: "%.1f", seconds)) s
      """)
    #expect(judged > 1000)
    #expect(compared >= 30)
    #expect(matchingAccuracy >= 0.95)
    #expect(share >= 0.85)
  }
}

/// Confidence thresholds of the engine's real-time values (0.7 + 0.3 × vehicles / 10).
enum FlowConfidence {
  /// The confidence of a value from three probe vehicles, less a rounding margin.
  static let threeVehicles = 0.7 + 0.3 * 3 / 10 - 1e-9
}
