import Foundation
import Geo
import Roads
import Traffic
import TrafficFeeds
import TrafficSQLite

/// Sizes of the typical-speeds benchmarks.
struct TypicalBenchmarkSizes {
  /// Historical probes map-matched, spread over `weeks` past weeks.
  var probes = 100_000
  var weeks = 4
  /// Segments given a full week (all 2,016 bins) for the size figures.
  var denseSegments = 5_000
  /// Lookups of a typical speed.
  var lookups = 1_000_000
  /// Flow queries of 1 km circles answered from typical weeks.
  var flowQueries = 1_000

  static let quick = TypicalBenchmarkSizes(
    probes: 4_000, weeks: 2, denseSegments: 200, lookups: 10_000, flowQueries: 50)
}

/// Typical speeds (issue 18), on a real network:
/// - learning: synthetic trips (`ProbeWorkload`) in each of the past weeks at this time,
///   fed to `TrafficEngine.ingest(probes:)` as `traffic probes import` does (the engine's
///   clock at now), so that every probe is history: points per second, beside
///   `flow.map-matching` (live probes), and the bin updates a probe causes;
/// - the cost of one bin update (`TypicalSpeeds.add`);
/// - size: full weeks (all 2,016 bins) of `denseSegments` segments — bytes per segment in
///   memory (the packed bins) and on disk (the SQLite store's `typical_speeds` rows, the file
///   growth of a save), beside Valhalla's DCT form (200 int16 coefficients, 400 bytes) and
///   the error that form has on a week of commute jams;
/// - lookups: a typical speed with borrowing (`TypicalWeek.typical(atBin:today:)`) in a full
///   week of eight samples a bin (mature: each bin answers alone), a full week of three (young:
///   each pools the hour around it) and a sparse week, and flow queries of 1 km circles
///   answered from typical weeks.
func runTypicalBenchmarks(
  _ sizes: TypicalBenchmarkSizes, network: RoadNetwork, report: (Measurement) -> Void,
  note: (String) -> Void
) throws -> Int {
  let now = Date(timeIntervalSince1970: 1_811_851_200)
  var sink = 0

  // Learning from history.
  var probes: [Probe] = []
  for week in 1...sizes.weeks {
    let start = now.addingTimeInterval(-Double(week) * 7 * 86_400 - 900)
    probes += try ProbeWorkload(
      network: network, count: sizes.probes / sizes.weeks, start: start, seed: UInt64(week)
    ).probes.map {
      // Vehicle ids unique per week.
      Probe(vehicleID: "w\(week)-\($0.vehicleID)", time: $0.time, coordinates: $0.coordinates)
    }
  }
  probes.sort { $0.time < $1.time }
  let engine = try TrafficEngine(store: InMemoryTrafficStore(), clock: { now }, network: network)
  let (_, learning) = timed {
    for first in stride(from: 0, to: probes.count, by: 1_000) {
      sink &+=
        engine.ingest(probes: Array(probes[first..<min(first + 1_000, probes.count)]))
        .accepted
    }
    sink &+= engine.flushProbes()
  }
  report(
    Measurement(
      name: "typical.learn-history", value: Double(probes.count) / (learning / 1000),
      unit: "points/s", n: probes.count, flatbushMilliseconds: nil))
  let picture = try engine.speedPicture(inside: nil, at: nil)
  let typical = picture?.snapshot.typical
  let updates = Double(typical?.revision ?? 0)
  report(
    Measurement(
      name: "typical.bin-updates-per-probe", value: updates / Double(probes.count),
      unit: "updates", n: probes.count, flatbushMilliseconds: nil))
  note(
    "typical: \(typical?.count ?? 0) segments learned \(typical?.binCount ?? 0) bins from "
      + "\(probes.count) probes of \(sizes.weeks) past weeks")

  // One bin update.
  var speeds = TypicalSpeeds(clock: WeekClock(timeZone: network.localTimeZone), memory: 8)
  var random = SplitMix64(seed: 3)
  let updateCount = sizes.lookups
  let (_, updating) = timed {
    for k in 0..<updateCount {
      let segment = Int(random.next() % UInt64(network.segments.count))
      let time = now.addingTimeInterval(-Double(k % 8_064) * 300)
      speeds.add(segment: segment, speed: 5 + Double(k % 20), at: time)
    }
  }
  report(
    Measurement(
      name: "typical.bin-update", value: updating * 1_000_000 / Double(updateCount), unit: "ns",
      n: updateCount, flatbushMilliseconds: nil))

  // Size of full weeks, in memory and on disk.
  let dense = min(sizes.denseSegments, network.segments.count)
  let week = commuteWeek()
  var full = TypicalWeek()
  for (bin, speed) in week.enumerated() {
    for sample in 0..<8 { full.add(speed: speed, bin: bin, day: sample * 7, memory: 8) }
  }
  report(
    Measurement(
      name: "typical.memory-per-full-week", value: Double(full.entries.count * 4), unit: "bytes",
      n: 1, flatbushMilliseconds: nil))
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "typical-bench-\(UUID())")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: directory) }
  let path = directory.appendingPathComponent("store.sqlite").path
  let store = try SQLiteTrafficStore(path: path)
  try store.saveNetwork(network)
  let empty = FlowState.Persisted(
    savedAt: now, segmentCount: network.segments.count, historyBucketInSeconds: 300,
    latestProbeTime: nil, segments: [], observations: [], latest: [])
  try store.saveFlow(empty)
  // The store's size as SQLite counts it (pages, the write-ahead log's included).
  func bytes() throws -> Int {
    let pages = try store.texts("PRAGMA page_count").first??.description ?? ""
    let size = try store.texts("PRAGMA page_size").first??.description ?? ""
    return (Int(pages) ?? 0) * (Int(size) ?? 0)
  }
  let before = try bytes()
  var withWeeks = empty
  withWeeks.typical = (0..<dense).map {
    FlowState.Persisted.Typical(segmentID: $0, week: full, revision: 1)
  }
  let (_, saving) = try timed { try store.saveFlow(withWeeks) }
  let after = try bytes()
  report(
    Measurement(
      name: "typical.disk-per-full-week", value: Double(after - before) / Double(dense),
      unit: "bytes", n: dense, flatbushMilliseconds: nil))
  report(
    Measurement(
      name: "typical.save-full-weeks", value: saving, unit: "ms", n: dense,
      flatbushMilliseconds: nil))
  let (loaded, loading) = try timed { try store.loadFlow() }
  sink &+= loaded?.typical.count ?? 0
  report(
    Measurement(
      name: "typical.load-full-weeks", value: loading, unit: "ms", n: dense,
      flatbushMilliseconds: nil))

  // Valhalla's DCT form of the same week: 400 bytes, and its error.
  let coefficients = ValhallaSpeedExport.compress(week.map { $0 * 3.6 })
  var squares = 0.0, worst = 0.0
  for (bin, speed) in week.enumerated() {
    let error = abs(ValhallaSpeedExport.decompress(coefficients, bin: bin) / 3.6 - speed)
    squares += error * error
    worst = max(worst, error)
  }
  report(
    Measurement(
      name: "typical.dct200-rms-error", value: (squares / Double(week.count)).squareRoot(),
      unit: "m/s", n: week.count, flatbushMilliseconds: nil))
  report(
    Measurement(
      name: "typical.dct200-max-error", value: worst, unit: "m/s", n: week.count,
      flatbushMilliseconds: nil))

  // Lookups.
  var sparse = TypicalWeek()
  for bin in stride(from: 0, to: TypicalWeek.binCount, by: 36) {
    sparse.add(speed: 10, bin: bin, day: 0, memory: 8)
  }
  // Every bin held, three samples each (three weeks of history): each lookup pools the hour
  // around its bin.
  var young = TypicalWeek()
  for (bin, speed) in week.enumerated() {
    for sample in 0..<3 { young.add(speed: speed, bin: bin, day: sample * 7, memory: 8) }
  }
  let today = TypicalSpeeds.day(of: now)
  for (name, subject) in [("full", full), ("young-full", young), ("sparse", sparse)] {
    var total = 0.0
    let (_, looking) = timed {
      for k in 0..<sizes.lookups {
        total +=
          subject.typical(atBin: (k &* 7919) % TypicalWeek.binCount, today: today)?.speed ?? 0
      }
    }
    sink &+= Int(total)
    report(
      Measurement(
        name: "typical.lookup-\(name)-week", value: looking * 1_000_000 / Double(sizes.lookups),
        unit: "ns", n: sizes.lookups, flatbushMilliseconds: nil))
  }
  var circles: [GeoCircle] = []
  for _ in 0..<sizes.flowQueries {
    let segment = network.segments[Int(random.next() % UInt64(network.segments.count))]
    circles.append(
      try GeoCircle(
        center: segment.geometry.coordinates(atDistance: segment.lengthInMeters / 2),
        radiusInMeters: 1_000))
  }
  let options = TrafficFlowQueryOptions()
  sink &+= try engine.flow(inside: circles[0], options: options).count
  sink &+= try measureLatencies("typical.flow-circle-1km", count: circles.count, report: report) {
    try engine.flow(inside: circles[$0], options: options).count
  }
  return sink
}

/// A week of a busy road, m/s: 25 m/s, down to 8 m/s in the weekday rush hours (07:00–09:00
/// and 16:30–18:30, ramping over 30 minutes), 20 m/s on weekend afternoons, and ±1 m/s of
/// seeded noise per bin.
private func commuteWeek() -> [Double] {
  var random = SplitMix64(seed: 11)
  return (0..<TypicalWeek.binCount).map { bin in
    let day = bin / 288
    let minute = Double(bin % 288 * 5)
    var speed = 25.0
    if day < 5 {
      for (start, end) in [(420.0, 540.0), (990, 1110)] {
        let depth = min(1, max(0, min(minute - (start - 30), (end + 30) - minute) / 30))
        speed -= 17 * depth
      }
    } else if minute >= 780 && minute < 1080 {
      speed = 20
    }
    return speed + (random.nextUnit() * 2 - 1)
  }
}
