import Foundation
import Roads
import Synchronization
import Testing
import Traffic
import TrafficFeeds
import TrafficTestSupport

/// End to end on SUMO networks other than A10KW, each of a different kind: SUMO drives a
/// scenario for a few simulated minutes, its floating-car data goes through the probe
/// decoder, the matcher and the flow engine. Each network must import, nearly every probe
/// on a road must be matched to the edge SUMO says the vehicle was on, and the engine's
/// speeds must be SUMO's vehicles' speeds, not the speed limit.
// The time limits only guard against a hang. A run takes 2 s alone, but in `make test`'s
// parallel pass on two cores the DRT run exceeded 60 s while the crash tests held the pool.
@Suite("SUMO scenarios", .serialized)
struct SUMOScenarioTests {
  static let base = Date(timeIntervalSince1970: 1_750_000_000)

  /// What one scenario run gave.
  struct Outcome {
    var network: RoadNetwork
    var probes: Int
    /// Matched positions (stationary repeats are skipped) of probes on a normal SUMO edge.
    var judged = 0
    /// Of those, on a segment of that edge.
    var correct = 0
    /// Matched segments with a real-time speed and SUMO's mean speed on them.
    var compared = 0
    /// Of those, within 20 % or 2 m/s of SUMO's mean speed over the run.
    var agreeing = 0

    var accuracy: Double { Double(correct) / Double(max(judged, 1)) }
    var agreement: Double { Double(agreeing) / Double(max(compared, 1)) }
  }

  /// Runs SUMO on `network` with `routes` for `seconds`, every vehicle reporting every
  /// `period` seconds, then matches and aggregates its FCD.
  static func run(
    network networkFile: DebianFile, routes: [String], seconds: Int, period: Int = 5,
    extra: [String] = []
  ) throws -> Outcome {
    try DebianFile.require(.sumo, networkFile)
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("sumo-scenario-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let process = Process()
    process.executableURL = DebianFile.sumo.url
    process.currentDirectoryURL = directory
    process.arguments =
      [
        "-n", networkFile.path, "-r", routes.joined(separator: ","), "--begin", "0", "--end",
        "\(seconds)", "--seed", "42", "--ignore-route-errors", "true", "--no-step-log",
        "--no-warnings", "--xml-validation", "never", "--fcd-output",
        directory.appendingPathComponent("fcd.xml").path, "--fcd-output.geo", "true",
        "--device.fcd.period", "\(period)",
      ] + extra
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "sumo exited with \(process.terminationStatus)")
    let fcd = try Data(contentsOf: directory.appendingPathComponent("fcd.xml"))

    let network = try SUMONetworkImporter.importNetwork(from: networkFile.url)
    let decoder = ProbeDecoder(now: base + 100_000, simulationStart: base)
    let batch = try decoder.decode(fcd, format: .sumoFCD)
    #expect(batch.rejectedCount == 0)
    var outcome = Outcome(network: network, probes: batch.probes.count)

    let truth = SUMOFlowAccuracyTests.trueEdges(fcd)
    let matched = try SUMOFlowAccuracyTests.matchAll(batch.probes, on: network)
    var judgedKeys = Set<String>()
    for point in matched {
      let key = "\(point.vehicleID)@\(point.probe.time.timeIntervalSince(base))"
      guard let edge = truth[key], judgedKeys.insert(key).inserted else { continue }
      outcome.judged += 1
      if network.segments[point.position.segmentID].sourceID == edge {
        outcome.correct += 1
      } else if ProcessInfo.processInfo.environment["SUMO_MATCH_DIAGNOSTICS"] != nil {
        let near = (try? network.segments(near: point.probe.coordinates, withinMeters: 60)) ?? []
        print(
          "wrong:", key, point.probe.coordinates, "matched",
          network.segments[point.position.segmentID].sourceID, "true", edge, "near",
          near.prefix(4).map {
            "\(network.segments[$0.segmentID].sourceID)@\(Int($0.distanceInMeters))"
          })
      }
    }

    // SUMO's mean speed per edge over the run, from the FCD itself.
    var sums: [String: (speed: Double, count: Int)] = [:]
    for line in String(decoding: fcd, as: UTF8.self).split(separator: "\n")
    where line.contains("<vehicle") {
      guard let lane = SUMOFlowAccuracyTests.attribute("lane", in: line), !lane.hasPrefix(":"),
        let cut = lane.lastIndex(of: "_"),
        let speed = SUMOFlowAccuracyTests.attribute("speed", in: line).flatMap(Double.init)
      else { continue }
      sums[String(lane[..<cut]), default: (0, 0)].speed += speed
      sums[String(lane[..<cut]), default: (0, 0)].count += 1
    }
    let end = base + Double(seconds)
    let now = Mutex(end)
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { now.withLock { $0 } }, network: network)
    engine.ingest(probes: batch.probes)
    _ = engine.flushProbes()
    let box = try #require(GeoBox.enclosing(network.nodes.map(\.coordinates)))
    for flow in try engine.flow(inside: box, options: TrafficFlowQueryOptions())
    where flow.confidence >= FlowConfidence.threeVehicles {
      guard let reference = sums[flow.sourceID], reference.count >= 5 else { continue }
      let sumoSpeed = reference.speed / Double(reference.count)
      outcome.compared += 1
      let difference = abs(flow.speedUncappedInMetersPerSecond - sumoSpeed)
      if difference <= max(2, 0.2 * sumoSpeed) {
        outcome.agreeing += 1
      } else if ProcessInfo.processInfo.environment["SUMO_FLOW_DIAGNOSTICS"] != nil {
        print(
          "mismatch:", flow.sourceID, "engine", flow.speedUncappedInMetersPerSecond, "sumo",
          sumoSpeed, "n", reference.count, "conf", flow.confidence)
      }
    }
    print(
      "\(networkFile.path): \(network.segments.count) segments, \(outcome.probes) probes; matched "
        + "\(outcome.correct)/\(outcome.judged) on the true edge = "
        + String(format: "%.1f %%", outcome.accuracy * 100) + "; flow \(outcome.agreeing)/"
        + "\(outcome.compared) segments agree = "
        + String(format: "%.1f %%", outcome.agreement * 100))
    return outcome
  }

  @Test(
    "DRT: Berlin city with tram tracks, footways, crossings and walking areas",
    .timeLimit(.minutes(10)))
  func berlinCity() throws {
    try DebianFile.require(.drtNetwork)
    // Trips between spread-out motor edges; SUMO routes them and drops unroutable ones.
    let network = try SUMONetworkImporter.importNetwork(from: DebianFile.drtNetwork.url)
    let edges = network.segments.map(\.sourceID)
    var trips = "<routes>\n"
    for i in 0..<120 {
      let from = edges[(i * 37) % edges.count]
      let to = edges[(i * 53 + edges.count / 2) % edges.count]
      trips += "<trip id=\"t\(i)\" depart=\"\(i * 2)\" from=\"\(from)\" to=\"\(to)\"/>\n"
    }
    trips += "</routes>\n"
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("drt-trips-\(UUID().uuidString).xml")
    try Data(trips.utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let outcome = try Self.run(network: .drtNetwork, routes: [file.path], seconds: 300)
    #expect(outcome.judged > 300)
    #expect(outcome.accuracy >= 0.9)
    #expect(outcome.compared >= 10)
    #expect(outcome.agreement >= 0.8)
  }

  @Test(
    "highway: motorway with ramps near Bremen",
    .timeLimit(.minutes(10)))
  func bremenHighway() throws {
    try DebianFile.require(.highwayRoutes)
    let outcome = try Self.run(
      network: .highwayNetwork, routes: [DebianFile.highwayRoutes.path], seconds: 240)
    #expect(outcome.judged > 1000)
    #expect(outcome.accuracy >= 0.9)
    #expect(outcome.compared >= 5)
    #expect(outcome.agreement >= 0.8)
  }
}
