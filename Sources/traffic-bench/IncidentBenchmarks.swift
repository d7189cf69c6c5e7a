import Foundation
import Traffic

/// Sizes of the incident-engine benchmarks.
struct IncidentBenchmarkSizes {
  var incidents = 100_000
  var circleQueries = 1_000
  var corridorQueries = 200
  var lookups = 100_000

  static let quick = IncidentBenchmarkSizes(
    incidents: 5_000, circleQueries: 50, corridorQueries: 10, lookups: 1_000)
}

/// 100,000 incidents over a country-sized area (Germany's extent): snapshot build, circle
/// queries of 1 km and 10 km, corridor queries along 50 km routes, lookups. Latencies are
/// measured per call; each query includes the exact geometry test, filtering, sorting and
/// localisation, as a user of `TrafficEngine` sees it.
func runIncidentBenchmarks(
  _ sizes: IncidentBenchmarkSizes, report: (Measurement) -> Void
) throws
  -> Int
{
  var random = SplitMix64(seed: 11)
  let now = Date(timeIntervalSince1970: 1_811_851_200)
  let incidents = try makeBenchIncidents(count: sizes.incidents, random: &random, now: now)

  var sink = 0
  let store = InMemoryTrafficStore()
  try store.apply(IncidentBatch(upserts: incidents))
  let clock = ContinuousClock()
  var engine = try TrafficEngine(store: store, clock: { now })
  let buildTimes = try (0..<3).map { _ -> Double in
    let start = clock.now
    engine = try TrafficEngine(store: store, clock: { now })
    return milliseconds(clock.now - start)
  }.sorted()
  report(
    Measurement(
      name: "incidents.snapshot-build", value: buildTimes[1], unit: "ms", n: incidents.count,
      flatbushMilliseconds: nil))

  func measure(_ name: String, count: Int, _ body: (Int) throws -> Int) rethrows {
    sink &+= try measureLatencies(name, count: count, report: report, body)
  }

  for radius in [1_000.0, 10_000.0] {
    let circles = try (0..<sizes.circleQueries).map { _ in
      try GeoCircle(
        center: randomGermanPlace(&random),
        radiusInMeters: radius)
    }
    try measure("incidents.circle-\(Int(radius / 1000))km", count: circles.count) { i in
      try engine.incidents(inside: circles[i], options: TrafficIncidentsQueryOptions()).count
    }
  }

  let corridors = try (0..<sizes.corridorQueries).map { _ -> GeoCorridor in
    var vertices = [randomGermanPlace(&random)]
    var bearing = random.nextUnit() * 360
    for _ in 0..<50 {
      bearing += random.nextUnit() * 20 - 10
      vertices.append(
        vertices[vertices.count - 1].destination(bearing: bearing, distanceInMeters: 1_000))
    }
    return try GeoCorridor(polyline: vertices, halfWidthInMeters: 30)
  }
  try measure("incidents.corridor-50km", count: corridors.count) { i in
    try engine.incidents(inside: corridors[i], options: TrafficIncidentsQueryOptions()).count
  }

  let ids = (0..<sizes.lookups).map { _ in "bench-\(Int(random.next() % UInt64(sizes.incidents)))" }
  try measure("incidents.lookup", count: ids.count) { i in
    try engine.incident(originalId: ids[i], options: TrafficIncidentLookupOptions()).codes.count
  }
  return sink
}
