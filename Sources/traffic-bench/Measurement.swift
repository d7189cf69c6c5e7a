import Codec

/// One benchmark result, printed as a JSON line.
struct Measurement {
  let name: String
  let value: Double
  let unit: String
  /// Operations per timed run (items indexed, searches made, calls).
  let n: Int
  /// flatbush's published figure for the same workload (README, Node v14), when there is one.
  let flatbushMilliseconds: Double?
  /// Another published figure to read the value against (a tool and its number), shown in
  /// the table's reference column; not part of the JSON line.
  var reference: String? = nil

  var json: String {
    var writer = JSONWriter(capacity: 96)
    writer.beginObject()
    writer.member("name", name)
    writer.member("value", value >= 100 ? value.rounded() : value, decimals: 3)
    writer.member("unit", unit)
    writer.member("n", n)
    writer.endObject()
    return String(decoding: writer.bytes, as: UTF8.self)
  }
}

func rounded(_ value: Double) -> String {
  value >= 100 ? String(Int(value.rounded())) : String(Double(Int((value * 1000).rounded())) / 1000)
}

/// Runs `body` once to warm up, then `runs` times, and returns the median wall time in
/// milliseconds on the monotonic clock. `body` returns a value folded into `sink` so the
/// optimiser cannot drop the work.
func medianMilliseconds(runs: Int, sink: inout Int, _ body: () -> Int) -> Double {
  let clock = ContinuousClock()
  sink &+= body()
  var times: [Double] = []
  for _ in 0..<max(1, runs) {
    let start = clock.now
    sink &+= body()
    times.append(milliseconds(clock.now - start))
  }
  times.sort()
  return times[times.count / 2]
}

/// A duration in milliseconds.
func milliseconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// A duration in microseconds.
func microseconds(_ duration: Duration) -> Double { milliseconds(duration) * 1000 }

/// The wall time of one call of `body`, in milliseconds on the monotonic clock, with its
/// result.
func timed<T>(_ body: () throws -> T) rethrows -> (result: T, milliseconds: Double) {
  let clock = ContinuousClock()
  let start = clock.now
  let result = try body()
  return (result, milliseconds(clock.now - start))
}

/// Calls `body(i)` for `i` in `0..<count`, timing each call, and reports the throughput
/// (`<name>.per-second`) and the median and 99th percentile latencies (`<name>.p50`,
/// `<name>.p99`, microseconds).
///
/// - Returns: The sum of what `body` returned, to fold into a sink.
func measureLatencies(
  _ name: String, count: Int, unit: String = "queries/s", report: (Measurement) -> Void,
  _ body: (Int) throws -> Int
) rethrows -> Int {
  var series = LatencySeries(count: count)
  for i in 0..<count { try series.time { try body(i) } }
  series.report(name, unit: unit, report)
  return series.sink
}

/// `measureLatencies` of an asynchronous call; runs on the caller's actor, so that `body`
/// and `report` need not be sendable.
nonisolated(nonsending) func measureLatencies(
  _ name: String, count: Int, unit: String = "queries/s", report: (Measurement) -> Void,
  _ body: (Int) async throws -> Int
) async rethrows -> Int {
  var series = LatencySeries(count: count)
  for i in 0..<count {
    let start = series.clock.now
    series.add(try await body(i), since: start)
  }
  series.report(name, unit: unit, report)
  return series.sink
}

/// The latencies of a run of calls and the sum of what they returned.
private struct LatencySeries {
  let clock = ContinuousClock()
  let started: ContinuousClock.Instant
  /// Microseconds per call.
  var latencies: [Double] = []
  var sink = 0

  init(count: Int) {
    started = clock.now
    latencies.reserveCapacity(count)
  }

  /// Times one call.
  mutating func time(_ body: () throws -> Int) rethrows {
    let start = clock.now
    add(try body(), since: start)
  }

  /// Records a call that started at `start` and returned `value`.
  mutating func add(_ value: Int, since start: ContinuousClock.Instant) {
    latencies.append(microseconds(clock.now - start))
    sink &+= value
  }

  /// Reports the throughput and the median and 99th percentile latencies.
  func report(_ name: String, unit: String, _ report: (Measurement) -> Void) {
    guard !latencies.isEmpty else { return }
    let count = latencies.count
    let total = clock.now - started
    let sorted = latencies.sorted()
    report(
      Measurement(
        name: "\(name).per-second", value: Double(count) / (milliseconds(total) / 1000),
        unit: unit, n: count, flatbushMilliseconds: nil))
    report(
      Measurement(
        name: "\(name).p50", value: sorted[count / 2], unit: "us", n: count,
        flatbushMilliseconds: nil))
    report(
      Measurement(
        name: "\(name).p99", value: sorted[min(count - 1, count * 99 / 100)], unit: "us",
        n: count, flatbushMilliseconds: nil))
  }
}

/// A benchmark whose workload did not come out as generated: the figures would be wrong.
struct BenchmarkFailure: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) { self.description = description }
}

/// An aligned text table of the measurements with the published figures they are read
/// against (flatbush's for the R-tree, others named in the reference column).
func table(_ measurements: [Measurement]) -> String {
  var rows = [["benchmark", "n", "traffic-bench", "reference (published)", "ratio"]]
  for m in measurements {
    let reference =
      m.flatbushMilliseconds.map { "\(rounded($0)) ms (flatbush)" } ?? m.reference ?? "-"
    let ratio = m.flatbushMilliseconds.map { "\(rounded(m.value / $0))x" } ?? "-"
    rows.append([m.name, String(m.n), "\(rounded(m.value)) \(m.unit)", reference, ratio])
  }
  let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
  return rows.map { row in
    row.enumerated().map { column, cell in
      let padding = String(repeating: " ", count: widths[column] - cell.count)
      return column == 0 ? cell + padding : padding + cell
    }.joined(separator: "  ")
  }.joined(separator: "\n")
}
