// traffic-bench: R-tree and geodesy benchmarks. Prints one JSON line per measurement, then an
// aligned table (unless --json-only). --quick runs small sizes for smoke tests.
import Foundation

let arguments = Set(CommandLine.arguments.dropFirst())
let known: Set = ["--quick", "--json-only", "--help"]
if !arguments.isSubset(of: known) || arguments.contains("--help") {
  let unknown = arguments.subtracting(known).sorted().joined(separator: " ")
  if !unknown.isEmpty { FileHandle.standardError.write(Data("unknown option: \(unknown)\n".utf8)) }
  print("usage: traffic-bench [--quick] [--json-only]")
  exit(arguments.contains("--help") ? 0 : 2)
}

let sizes = arguments.contains("--quick") ? BenchmarkSizes.quick : BenchmarkSizes()
var measurements: [Measurement] = []
@MainActor func record(_ measurement: Measurement) {
  print(measurement.json)
  measurements.append(measurement)
}
var sink = runBenchmarks(sizes, report: record)
do {
  let incidentSizes =
    arguments.contains("--quick") ? IncidentBenchmarkSizes.quick : IncidentBenchmarkSizes()
  sink &+= try runIncidentBenchmarks(incidentSizes, report: record)
} catch {
  FileHandle.standardError.write(Data("incident benchmarks failed: \(error)\n".utf8))
  exit(1)
}
if !arguments.contains("--json-only") {
  print("")
  print(table(measurements))
}
// Keeps every result observable; never true in practice.
if sink == Int.min { print(sink) }
