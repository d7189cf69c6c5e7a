import Foundation
import Geo
import Traffic
import TrafficPostgres
import TrafficSQLite
import TrafficTestSupport

/// Sizes of the store benchmarks.
struct StoreBenchmarkSizes {
  var incidents = 100_000
  var batchSize = 1_000
  /// Circle queries of 1 km per way of answering.
  var circleQueries = 1_000
  /// Circle queries of 10 km per way of answering (SQLite decodes ~60 bodies for each).
  var wideCircleQueries = 200

  static let quick = StoreBenchmarkSizes(
    incidents: 5_000, batchSize: 500, circleQueries: 50, wideCircleQueries: 10)
}

/// The stores (issue 5) with the incidents of the engine benchmarks (`makeBenchIncidents`,
/// the same 100,000 over Germany):
/// - importing them in batches into `InMemoryTrafficStore` and into `SQLiteTrafficStore`
///   (a temporary file, WAL mode, default durability: one transaction per batch);
/// - opening the SQLite file again and starting `TrafficEngine(store:)` on it (read and
///   decode every body, build the snapshot);
/// - a batch of new versions applied through the engine (store write plus snapshot
///   rebuild);
/// - circle queries answered from the engine's snapshot (`incidents(inside:options:)`)
///   and straight from the file (`SQLiteTrafficStore.incidents(meeting:)`: R*Tree
///   candidates, bodies decoded, exact test) — the reason the engine keeps a snapshot;
/// - the same on PostgreSQL + PostGIS (`runPostgresBenchmarks`), when it is installed.
///
/// - Throws: Store and query errors; `BenchmarkFailure` when the two ways of answering
///   disagree on how many incidents the circles hold.
/// - Returns: A sum to fold into the sink.
func runStoreBenchmarks(
  _ sizes: StoreBenchmarkSizes, report: (Measurement) -> Void, note: (String) -> Void
) throws
  -> Int
{
  var random = SplitMix64(seed: 11)
  let now = Date(timeIntervalSince1970: 1_811_851_200)
  let incidents = try makeBenchIncidents(count: sizes.incidents, random: &random, now: now)
  let batches = stride(from: 0, to: incidents.count, by: sizes.batchSize).map {
    IncidentBatch(upserts: Array(incidents[$0..<min($0 + sizes.batchSize, incidents.count)]))
  }
  var sink = 0
  func reportImport(_ store: String, milliseconds: Double) {
    report(
      Measurement(
        name: "stores.\(store).import", value: milliseconds, unit: "ms", n: incidents.count,
        flatbushMilliseconds: nil))
    report(
      Measurement(
        name: "stores.\(store).import-rate", value: Double(incidents.count) / (milliseconds / 1000),
        unit: "incidents/s", n: incidents.count, flatbushMilliseconds: nil))
  }

  let memory = InMemoryTrafficStore()
  let memoryImport = try timed { for batch in batches { try memory.apply(batch) } }
  reportImport("memory", milliseconds: memoryImport.milliseconds)

  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("traffic-bench-\(ProcessInfo.processInfo.processIdentifier)")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: directory) }
  let path = directory.appendingPathComponent("incidents.sqlite").path
  do {
    let store = try SQLiteTrafficStore(path: path)
    let sqliteImport = try timed { for batch in batches { try store.apply(batch) } }
    reportImport("sqlite", milliseconds: sqliteImport.milliseconds)
  }
  let fileBytes = ["", "-wal"].compactMap {
    (try? FileManager.default.attributesOfItem(atPath: path + $0))?[.size] as? Int
  }.reduce(0, +)
  report(
    Measurement(
      name: "stores.sqlite.file-size", value: Double(fileBytes) / 1e6, unit: "MB",
      n: incidents.count, flatbushMilliseconds: nil))

  // Start-up: the median of three, each on a fresh connection (the file is in the page
  // cache after the first, as on a server that restarts).
  var opens: [Double] = [], starts: [Double] = []
  var reopened: (store: SQLiteTrafficStore, engine: TrafficEngine)?
  for _ in 0..<3 {
    let opened = try timed { try SQLiteTrafficStore(path: path) }
    let started = try timed { try TrafficEngine(store: opened.result, clock: { now }) }
    guard started.result.incidentCount == incidents.count else {
      throw BenchmarkFailure(
        "the SQLite store gave \(started.result.incidentCount) of \(incidents.count) incidents")
    }
    opens.append(opened.milliseconds)
    starts.append(started.milliseconds)
    reopened = (opened.result, started.result)
  }
  guard let (store, engine) = reopened else { return sink }
  for (name, times) in [("open", opens), ("engine-start", starts)] {
    report(
      Measurement(
        name: "stores.sqlite.\(name)", value: times.sorted()[1], unit: "ms", n: incidents.count,
        flatbushMilliseconds: nil))
  }
  let memoryStart = try (0..<3).map { _ in
    try timed { try TrafficEngine(store: memory, clock: { now }) }.milliseconds
  }.sorted()[1]
  report(
    Measurement(
      name: "stores.memory.engine-start", value: memoryStart, unit: "ms", n: incidents.count,
      flatbushMilliseconds: nil))

  // A feed update on a full engine: the write, then the snapshot of all incidents again.
  // Three updates of the same incidents (new versions each time); the median is reported.
  let updated = try makeBenchIncidents(count: sizes.batchSize, random: &random, now: now)
  let updates = try (1...3).map { version in
    IncidentBatch(
      upserts: try updated.map {
        try TrafficIncident(
          id: "\($0.originalId)-v\(version + 1)", originalId: $0.originalId, type: $0.type,
          impact: $0.impact, description: $0.description, startTime: $0.startTime,
          endTime: $0.endTime, location: $0.location, details: $0.details)
      })
  }
  let memoryEngine = try TrafficEngine(store: memory, clock: { now })
  for (name, target) in [("memory", memoryEngine), ("sqlite", engine)] {
    sink &+= try measureApply(name, updates, on: target, sizes: sizes, report: report)
  }

  let options = TrafficIncidentsQueryOptions()
  let workloads = try circleWorkloads(sizes, random: &random)
  for (label, circles) in workloads {
    let count = circles.count
    let fromSnapshot = try measureLatencies(
      "stores.snapshot.\(label)", count: count, report: report
    ) {
      try engine.incidents(inside: circles[$0], options: options).count
    }
    let fromFile = try measureLatencies(
      "stores.sqlite-rtree.\(label)", count: count, report: report
    ) {
      try store.incidents(meeting: circles[$0]).count
    }
    guard fromSnapshot == fromFile else {
      throw BenchmarkFailure(
        "\(label): the snapshot found \(fromSnapshot) incidents, SQLite \(fromFile)")
    }
    report(
      Measurement(
        name: "stores.\(label).results", value: Double(fromSnapshot) / Double(count),
        unit: "incidents/query", n: count, flatbushMilliseconds: nil))
    sink &+= fromSnapshot
  }
  sink &+= try runPostgresBenchmarks(
    sizes, batches: batches, updates: updates, now: now, circles: workloads, report: report,
    note: note)
  return sink
}

/// The circle queries of the store benchmarks, 1 km and 10 km, at random places in Germany:
/// the same ones for every store.
private func circleWorkloads(
  _ sizes: StoreBenchmarkSizes, random: inout SplitMix64
) throws -> [(label: String, circles: [GeoCircle])] {
  try [(1_000.0, sizes.circleQueries), (10_000.0, sizes.wideCircleQueries)].map {
    radius, count in
    let circles = try (0..<count).map { _ in
      try GeoCircle(center: randomGermanPlace(&random), radiusInMeters: radius)
    }
    return ("circle-\(Int(radius / 1000))km", circles)
  }
}

/// Applies each update batch through `engine` (store write plus snapshot rebuild) and
/// reports the median time as `stores.NAME.engine-apply-batch`.
///
/// - Returns: A sum to fold into the sink.
private func measureApply(
  _ name: String, _ updates: [IncidentBatch], on engine: TrafficEngine,
  sizes: StoreBenchmarkSizes, report: (Measurement) -> Void
) throws -> Int {
  var sink = 0
  let times = try updates.map { batch in
    let applied = try timed { try engine.apply(batch).count }
    sink &+= applied.result
    return applied.milliseconds
  }
  report(
    Measurement(
      name: "stores.\(name).engine-apply-batch", value: times.sorted()[1], unit: "ms",
      n: sizes.batchSize, flatbushMilliseconds: nil))
  return sink
}

/// The same import, start-up, update and circle queries on `PostgresTrafficStore`, against
/// a throw-away PostgreSQL + PostGIS cluster on loopback with PostgreSQL's default
/// durability (every commit flushed), started here and stopped after. Skipped with a note
/// when PostgreSQL is not installed.
private func runPostgresBenchmarks(
  _ sizes: StoreBenchmarkSizes, batches: [IncidentBatch], updates: [IncidentBatch], now: Date,
  circles workloads: [(label: String, circles: [GeoCircle])], report: (Measurement) -> Void,
  note: (String) -> Void
) throws -> Int {
  let cluster: PostgresCluster
  do { cluster = try PostgresCluster.dedicated(durable: true) } catch {
    note("PostgreSQL benchmarks skipped: \(error)")
    return 0
  }
  defer { cluster.stop() }
  let count = batches.reduce(0) { $0 + $1.upserts.count }
  let store = try PostgresTrafficStore(url: cluster.url)
  let imported = try timed { for batch in batches { try store.apply(batch) } }
  report(
    Measurement(
      name: "stores.postgres.import", value: imported.milliseconds, unit: "ms", n: count,
      flatbushMilliseconds: nil))
  report(
    Measurement(
      name: "stores.postgres.import-rate", value: Double(count) / (imported.milliseconds / 1000),
      unit: "incidents/s", n: count, flatbushMilliseconds: nil))
  let starts = try (0..<3).map { _ in
    try timed { try TrafficEngine(store: PostgresTrafficStore(url: cluster.url), clock: { now }) }
  }
  guard let engine = starts.last?.result, engine.incidentCount == count else {
    throw BenchmarkFailure(
      "the PostgreSQL store gave \(starts.last?.result.incidentCount ?? 0) of \(count) incidents")
  }
  report(
    Measurement(
      name: "stores.postgres.engine-start", value: starts.map(\.milliseconds).sorted()[1],
      unit: "ms", n: count, flatbushMilliseconds: nil))
  var sink = try measureApply("postgres", updates, on: engine, sizes: sizes, report: report)
  let options = TrafficIncidentsQueryOptions()
  for (label, circles) in workloads {
    let queries = circles.count
    let fromSnapshot = try (0..<queries).reduce(0) {
      $0 + (try engine.incidents(inside: circles[$1], options: options).count)
    }
    let fromDatabase = try measureLatencies(
      "stores.postgres-gist.\(label)", count: queries, report: report
    ) {
      try store.incidents(meeting: circles[$0]).count
    }
    guard fromSnapshot == fromDatabase else {
      throw BenchmarkFailure(
        "\(label): the snapshot found \(fromSnapshot) incidents, PostgreSQL \(fromDatabase)")
    }
    sink &+= fromDatabase
  }
  return sink
}
