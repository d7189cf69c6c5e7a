// traffic-bench: R-tree, geodesy, incident engine, feed, store, flow and map benchmarks.
// Prints one JSON line per measurement, then an aligned table (unless --json-only); notes
// and failures go to standard error. --quick runs small sizes for smoke tests; --only=GROUP
// runs one group (geo, incidents, feeds, stores, flow, typical, map); --scale runs the
// region-size benchmarks instead (bench/scale*.sh on the release `traffic`, from the
// project's root; see RegionBenchmarks.swift); --table STORE PLACES times travel-time tables
// (TableBenchmark.swift).
import Codec
import Foundation

if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--table" {
  do {
    try await TableBenchmark.run(store: CommandLine.arguments[2], places: CommandLine.arguments[3])
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
  }
}
let groups = ["geo", "incidents", "feeds", "stores", "flow", "typical", "map"]
let arguments = Set(CommandLine.arguments.dropFirst())
let known = Set(
  ["--quick", "--json-only", "--help", "--scale", "--accuracy"] + groups.map { "--only=\($0)" })
if !arguments.isSubset(of: known) || arguments.contains("--help") {
  let unknown = arguments.subtracting(known).sorted().joined(separator: " ")
  if !unknown.isEmpty { FileHandle.standardError.write(Data("unknown option: \(unknown)\n".utf8)) }
  print(
    "usage: traffic-bench [--quick] [--json-only] [--only=\(groups.joined(separator: "|"))]\n"
      + "       traffic-bench --scale   (the region-size benchmarks, from the project's root)\n"
      + "       traffic-bench --accuracy   (flow and ETAs against SUMO over several days)\n"
      + "         environment: TRAFFIC_ACCURACY_NETWORK=NAME|FILE (one network; FILE: your"
      + " .net.xml[.gz] or .osm[.bz2]),\n"
      + "         TRAFFIC_ACCURACY_PEAK_RATE=VEHICLES/S (the usual day's peak; default the"
      + " network's own, 0.8 for a file),\n"
      + "         TRAFFIC_ACCURACY_HISTORY_DAYS=N (1...12, default 3),\n"
      + "         TRAFFIC_ACCURACY_DIAGNOSTICS=1 (every judged edge-interval and trip),"
      + " TRAFFIC_ACCURACY_SCRATCH=DIR (keep SUMO's files),\n"
      + "         TRAFFIC_ACCURACY_SPREADS=typical,vehicle,unusual share,unusual[,far share,far] (tuning)\n"
      + "       traffic-bench --table STORE.sqlite PLACES   (travel-time tables, PLACES a file of LAT,LNG;...)"
  )
  exit(arguments.contains("--help") ? 0 : 64)
}
if arguments.contains("--scale") {
  if arguments.count > 1 {
    FileHandle.standardError.write(Data("--scale takes no other option\n".utf8))
    exit(64)
  }
  do {
    let failed = try RegionBenchmarks.run { note in
      FileHandle.standardError.write(Data("note: \(note)\n".utf8))
    }
    if !failed.isEmpty {
      FileHandle.standardError.write(Data((failed.joined(separator: "\n") + "\n").utf8))
      exit(1)
    }
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(64)
  }
}
if arguments.contains("--accuracy") {
  if arguments.count > 1 {
    FileHandle.standardError.write(Data("--accuracy takes no other option\n".utf8))
    exit(64)
  }
  do {
    let report = try await AccuracyHarness.run { line in
      FileHandle.standardError.write(Data("\(line)\n".utf8))
    }
    print(report.markdown)
    print(String(format: "took %.0f s", report.seconds))
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit((error as? AccuracyError)?.isUsage == true ? 64 : 1)
  }
}
let only = Set(arguments.compactMap { $0.hasPrefix("--only=") ? String($0.dropFirst(7)) : nil })
/// Whether the group runs (all do unless --only names some).
func runs(_ group: String) -> Bool { only.isEmpty || only.contains(group) }

let quick = arguments.contains("--quick")
/// Which benchmark runs, on standard error (a terminal line, or a line every 10 s).
let progress = ProgressReporter.standardError(quiet: false)
var measurements: [Measurement] = []
var failures: [String] = []
@MainActor func record(_ measurement: Measurement) {
  progress.clear()
  progress.update(done: Int64(measurements.count + 1), detail: "\(measurement.name) done")
  print(measurement.json)
  measurements.append(measurement)
}
@MainActor func note(_ text: String) {
  progress.clear()
  fflush(nil)  // keeps the JSON lines whole when both streams go to one file
  FileHandle.standardError.write(Data("note: \(text)\n".utf8))
}
@MainActor func fail(_ text: String) {
  progress.clear()
  fflush(nil)
  FileHandle.standardError.write(Data("FAILED: \(text)\n".utf8))
  failures.append(text)
}

progress.begin("traffic-bench", detail: "starting", unit: .items("measurements"))
var sink = runs("geo") ? runBenchmarks(quick ? .quick : BenchmarkSizes(), report: record) : 0
do {
  if runs("incidents") {
    sink &+= try runIncidentBenchmarks(quick ? .quick : IncidentBenchmarkSizes(), report: record)
  }
  if runs("feeds") {
    sink &+= try runFeedBenchmarks(
      quick ? .quick : FeedBenchmarkSizes(), report: record, fail: fail)
  }
  if runs("stores") {
    sink &+= try runStoreBenchmarks(
      quick ? .quick : StoreBenchmarkSizes(), report: record, note: note)
  }
  let needsNetworks = runs("flow") || runs("typical") || runs("map")
  let a10 = needsNetworks ? try BenchmarkNetwork.loadA10KW(report: record) : nil
  let liechtenstein =
    needsNetworks ? try BenchmarkNetwork.loadLiechtenstein(report: record, note: note) : nil
  if runs("flow"), let a10 {
    sink &+= try runFlowBenchmarks(
      quick ? .quick : FlowBenchmarkSizes(), network: a10, report: record)
  }
  if runs("typical"), let network = liechtenstein ?? a10 {
    sink &+= try runTypicalBenchmarks(
      quick ? .quick : TypicalBenchmarkSizes(), network: network, report: record, note: note)
  }
  // The map wants many tiles of real density: the country when present.
  let mapNetwork =
    liechtenstein.map { ("Liechtenstein", $0) } ?? a10.map { ("A10KW", $0) }
  if runs("map"), let (name, network) = mapNetwork {
    note("map benchmarks on \(name) (\(network.segments.count) segments)")
    sink &+= try await runMapBenchmarks(
      quick ? .quick : MapBenchmarkSizes(), network: network, report: record)
  }
} catch {
  fail("\(error)")
}
progress.stop()
if !arguments.contains("--json-only") {
  print("")
  print(table(measurements))
}
// Keeps every result observable; never true in practice.
if sink == Int.min { print(sink) }
if !failures.isEmpty {
  FileHandle.standardError.write(
    Data("\(failures.count) benchmark(s) failed:\n\(failures.joined(separator: "\n"))\n".utf8))
  exit(1)
}
