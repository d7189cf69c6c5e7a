import Foundation
import Geo
import Roads
import Traffic

/// Sizes of the flow benchmarks.
struct FlowBenchmarkSizes {
  /// Synthetic probes map-matched.
  var probes = 100_000
  /// Probes per `ingest(probes:)` call (a feed's batch).
  var batchSize = 1_000
  /// Flow queries of 1 km circles.
  var flowQueries = 1_000

  static let quick = FlowBenchmarkSizes(probes: 3_000, batchSize: 500, flowQueries: 50)
}

/// Flow (issue 7) on the A10KW network:
/// - map matching: synthetic trips (`ProbeWorkload`, a position every 5 s with 4 m noise)
///   fed to `TrafficEngine.ingest(probes:)` in batches, then `flushProbes()`, on one
///   thread; points per second against FMM's published 25,000–45,000 (Yang & Gidófalvi
///   2018, "Fast map matching, an algorithm integrating hidden Markov model with
///   precomputation", with its precomputed upper-bounded origin–destination table);
/// - flow queries of 1 km circles centred on roads (`flow(inside:options:)`), after the
///   first query has built the flow snapshot (timed on its own).
///
/// The network imports are timed by `BenchmarkNetwork`.
/// - Parameters:
///   - sizes: Probe and query counts.
///   - network: The A10KW network.
///   - report: Receives each measurement.
/// - Throws: Routing and engine errors.
/// - Returns: A sum to fold into the sink.
func runFlowBenchmarks(
  _ sizes: FlowBenchmarkSizes, network: RoadNetwork, report: (Measurement) -> Void
) throws -> Int {
  let start = Date(timeIntervalSince1970: 1_811_851_200)
  let workload = try ProbeWorkload(network: network, count: sizes.probes, start: start)
  let probes = workload.probes
  let clock = BenchmarkClock(start)
  let engine = try TrafficEngine(
    store: InMemoryTrafficStore(), clock: { clock.now }, network: network)

  var accepted = 0, decided = 0
  let (_, matching) = timed {
    for first in stride(from: 0, to: probes.count, by: sizes.batchSize) {
      let batch = Array(probes[first..<min(first + sizes.batchSize, probes.count)])
      if let last = batch.last { clock.set(last.time) }
      let outcome = engine.ingest(probes: batch)
      accepted += outcome.accepted
      decided += outcome.decided
    }
    decided += engine.flushProbes()
  }
  report(
    Measurement(
      name: "flow.map-matching", value: Double(probes.count) / (matching / 1000), unit: "points/s",
      n: probes.count, flatbushMilliseconds: nil,
      reference: "FMM 25,000-45,000 points/s"))
  report(
    Measurement(
      name: "flow.map-matching.matched-share", value: 100 * Double(decided) / Double(probes.count),
      unit: "%", n: workload.trips, flatbushMilliseconds: nil))

  // Circles centred on roads (segment midpoints), so that every query finds flow.
  var random = SplitMix64(seed: 17)
  let circles = try (0..<sizes.flowQueries).map { _ -> GeoCircle in
    let segment = network.segments[Int(random.next() % UInt64(network.segments.count))]
    let middle = segment.geometry.coordinates(atDistance: segment.lengthInMeters / 2)
    return try GeoCircle(center: middle, radiusInMeters: 1_000)
  }
  let options = TrafficFlowQueryOptions()
  let (firstFlows, snapshotTime) = try timed {
    try engine.flow(inside: circles[0], options: options)
  }
  report(
    Measurement(
      name: "flow.snapshot-build", value: snapshotTime, unit: "ms", n: network.segments.count,
      flatbushMilliseconds: nil))
  let flows = try measureLatencies("flow.circle-1km", count: circles.count, report: report) {
    try engine.flow(inside: circles[$0], options: options).count
  }
  report(
    Measurement(
      name: "flow.circle-1km.results", value: Double(flows) / Double(circles.count),
      unit: "flows/query", n: circles.count, flatbushMilliseconds: nil))
  return accepted &+ firstFlows.count &+ flows
}
