/// One benchmark result, printed as a JSON line.
struct Measurement {
  let name: String
  let value: Double
  let unit: String
  /// Operations per timed run (items indexed, searches made, calls).
  let n: Int
  /// flatbush's published figure for the same workload (README, Node v14), when there is one.
  let flatbushMilliseconds: Double?

  var json: String {
    "{\"name\":\"\(name)\",\"value\":\(rounded(value)),\"unit\":\"\(unit)\",\"n\":\(n)}"
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
    let elapsed = clock.now - start
    times.append(
      Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) * 1e-15)
  }
  times.sort()
  return times[times.count / 2]
}

/// An aligned text table of the measurements with flatbush's published figures.
func table(_ measurements: [Measurement]) -> String {
  var rows = [["benchmark", "n", "traffic-bench", "flatbush (published)", "ratio"]]
  for m in measurements {
    let reference = m.flatbushMilliseconds.map { "\(rounded($0)) ms" } ?? "-"
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
