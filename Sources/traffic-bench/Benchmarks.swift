import Geo

/// Sizes of one benchmark run.
struct BenchmarkSizes {
  var items = 1_000_000
  var queries = 1_000
  var nearestQueries = 100_000
  var geodesicPairs = 200_000
  var runs = 5

  /// Whether these are bench.js's sizes, so that flatbush's published figures apply.
  var matchesFlatbush: Bool { items == 1_000_000 && queries == 1_000 && nearestQueries == 100_000 }

  static let quick = BenchmarkSizes(
    items: 20_000, queries: 100, nearestQueries: 2_000, geodesicPairs: 5_000, runs: 1)
}

/// The flatbush bench.js workload on `RTree`, then geodesic inverse throughput.
func runBenchmarks(_ sizes: BenchmarkSizes, report: (Measurement) -> Void) -> Int {
  var sink = 0
  let published = sizes.matchesFlatbush
  let workload = RTreeWorkload(itemCount: sizes.items, queryCount: sizes.queries)
  let items = workload.items

  let buildTime = medianMilliseconds(runs: sizes.runs, sink: &sink) {
    RTree(items, nodeSize: 16).count
  }
  report(
    Measurement(
      name: "rtree.build", value: buildTime, unit: "ms", n: items.count,
      flatbushMilliseconds: published ? 273 : nil))
  let tree = RTree(items, nodeSize: 16)

  let searches: [(String, [RTreeBox], Double)] = [
    ("rtree.search-10%", workload.queries10Percent, 575),
    ("rtree.search-1%", workload.queries1Percent, 63),
    ("rtree.search-0.01%", workload.queries001Percent, 6),
  ]
  for (name, queries, reference) in searches {
    let time = medianMilliseconds(runs: sizes.runs, sink: &sink) {
      var found = 0
      for query in queries { found &+= tree.search(intersecting: query).count }
      return found
    }
    report(
      Measurement(
        name: name, value: time, unit: "ms", n: queries.count,
        flatbushMilliseconds: published ? reference : nil))
  }

  // Neighbours of the items' own lower-left corners, as in bench.js.
  let nearest: [(String, Int, Int, Double)] = [
    ("rtree.nearest-100", sizes.queries, 100, 24),
    ("rtree.nearest-all", 1, items.count, 133),
    ("rtree.nearest-1", sizes.nearestQueries, 1, 710),
  ]
  for (name, queryCount, k, reference) in nearest {
    let time = medianMilliseconds(runs: sizes.runs, sink: &sink) {
      var found = 0
      for i in 0..<queryCount {
        let box = items[i % items.count].box
        found &+= tree.nearest(x: box.minX, y: box.minY, k: k).count
      }
      return found
    }
    report(
      Measurement(
        name: name, value: time, unit: "ms", n: queryCount,
        flatbushMilliseconds: published ? reference : nil))
  }

  var random = SplitMix64(seed: 7)
  let pairs = (0..<sizes.geodesicPairs).map { _ in
    (
      GeoCoordinates(
        uncheckedLatitude: random.nextUnit() * 180 - 90, longitude: random.nextUnit() * 360 - 180),
      GeoCoordinates(
        uncheckedLatitude: random.nextUnit() * 180 - 90, longitude: random.nextUnit() * 360 - 180)
    )
  }
  var total = 0.0
  let geodesicTime = medianMilliseconds(runs: sizes.runs, sink: &sink) {
    for (a, b) in pairs { total += a.distance(to: b) }
    return Int(total.truncatingRemainder(dividingBy: 1024))
  }
  report(
    Measurement(
      name: "geodesic.inverse", value: Double(pairs.count) / (geodesicTime / 1000), unit: "calls/s",
      n: pairs.count, flatbushMilliseconds: nil))
  return sink
}
