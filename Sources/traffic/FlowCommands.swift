import Codec
import Foundation
import Roads
import Traffic
import TrafficFeeds
import TrafficRouting
import TrafficSQLite

/// `traffic network import FILE`: the road network flow is computed on, into the store.
enum NetworkCommand: Subcommand {
  static let name = "network"
  static let summary = "Import a road network (OSM XML/bz2/PBF or SUMO .net.xml) into the store"
  static let synopsis = """
    Usage: traffic network import [--db PATH] [--country CC] [--json] FILE

    Imports the roads for motor traffic of FILE (.osm, .osm.bz2, .osm.pbf or SUMO .net.xml,
    told by its content; - reads standard input) into the store, replacing any network held
    there (and the flow computed on it).
    """
  static let options: [OptionDefinition] =
    [
      OptionDefinition("--country", "CC", "ISO country of the network, for default speed limits"),
      OptionDefinition(
        "--db", "PATH", "the SQLite store (default: $TRAFFIC_DB or ./traffic.sqlite)"),
      ProgressOption.definition,
      JSONSummary.option,
    ]

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    let json = arguments.flag("--json")
    let country = try arguments.option("--country")
    let path = try EngineArguments.databasePath(from: &arguments)
    let progress = ProgressOption.reporter(&arguments, console: console)
    defer { progress.stop() }
    let rest = try arguments.positionals()
    guard rest.first == "import" else { throw UsageError("expects 'import FILE'") }
    guard rest.count == 2 else { throw UsageError("expects exactly one FILE after import") }
    // Before the network is read, which takes long for a region.
    try EngineArguments.requireWritable(path)
    // A server's flow is tied to the network it loaded, and written back when it stops.
    let lock = try ServeLock(
      store: path,
      for: .importer(
        command: "traffic network import",
        instead: "stop it, import the network, then start it again"))
    defer { withExtendedLifetime(lock) {} }
    let started = ContinuousClock.now
    let (network, report) = try NetworkArguments.loadReporting(
      rest[1], countryCode: country, progress: progress)
    progress.begin(
      "network import",
      detail: "saving "
        + ProgressReporter.amount(Int64(network.segments.count), .items("segments"))
        + " to the store", unit: .items(""))
    do {
      try EngineArguments.sqliteStore(at: path, for: .creating).saveNetwork(network)
    } catch let error as UsageError {
      progress.finish()
      throw error
    } catch {
      progress.finish()
      throw UsageError("\(path): \(error)")
    }
    progress.finish()
    if json {
      var summary: [String: JSONValue] = [
        "file": .string(rest[1]), "store": .string(path),
        "nodes": JSONSummary.number(network.nodes.count),
        "segments": JSONSummary.number(network.segments.count),
        "kilometres": JSONSummary.number(network.totalLengthInMeters / 1000, decimals: 3),
      ]
      for (name, count) in report?.counts ?? [:] { summary[name] = JSONSummary.number(count) }
      JSONSummary.print(.object(summary), console: console)
      return
    }
    let shown = rest[1] == "-" ? "standard input" : rest[1]
    if let report, report.hasFindings {
      console.error("\(shown): \(report)")
    }
    let seconds = (ContinuousClock.now - started).components.seconds
    console.print(
      "\(shown): \(network.nodes.count) nodes, \(network.segments.count) directed segments, "
        + String(format: "%.1f km", network.totalLengthInMeters / 1000)
        + " of road, stored in \(path) (\(seconds) s)")
  }
}

/// `traffic probes import FILE...`: vehicle positions into flow.
enum ProbesCommand: Subcommand {
  static let name = "probes"
  static let summary = "Import vehicle probes (CSV, NDJSON, SUMO FCD) into flow"
  static let synopsis = """
    Usage: traffic probes import [--db PATH] [--format csv|ndjson|fcd]
                                 [--simulation-start T] [--json] FILE...   (- reads standard input)

    Map-matches the probes to the store's road network (import one first with traffic
    network import) and aggregates segment speeds; the flow is saved in the store.
    """
  static let options: [OptionDefinition] =
    [
      OptionDefinition(
        "--format", "F", "csv, ndjson or fcd (SUMO floating-car data); default: detected"),
      OptionDefinition(
        "--simulation-start", "T",
        """
        the wall-clock time (RFC 3339) of SUMO's time 0 (default: the
        last time step of each file is now, as if the simulation had
        just run)
        """),
      OptionDefinition(
        "--db", "PATH", "the SQLite store (default: $TRAFFIC_DB or ./traffic.sqlite)"),
      ProgressOption.definition,
      JSONSummary.option,
    ]
  static let notes = """
    Rejected rows are counted by reason and never stop the rest.
    """

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    let json = arguments.flag("--json")
    var summaries: [JSONValue] = []
    var format: ProbeFormat?
    if let name = try arguments.option("--format") {
      switch name {
      case "csv": format = .csv
      case "ndjson": format = .ndjson
      case "fcd": format = .sumoFCD
      default: throw UsageError("--format expects csv, ndjson or fcd, got '\(name)'")
      }
    }
    let simulationStart = try IncidentOptions.time(from: &arguments, option: "--simulation-start")
    let path = try EngineArguments.databasePath(from: &arguments)
    let progress = ProgressOption.reporter(&arguments, console: console)
    defer { progress.stop() }
    let rest = try arguments.positionals()
    guard rest.first == "import" else { throw UsageError("expects 'import FILE...'") }
    let files = Array(rest.dropFirst())
    guard !files.isEmpty else { throw UsageError("expects at least one FILE after import") }
    guard files.filter({ $0 == "-" }).count <= 1 else {
      throw UsageError("- (standard input) can be read once; give it once")
    }
    for file in files where file != "-" { try FileArguments.checkReadable(file) }
    let engine = try EngineArguments.sqliteEngine(at: path, for: .updating)
    // Held while importing: neither lost under a running server's save, nor under one
    // that starts meanwhile.
    let lock = try ServeLock(
      store: path,
      for: .importer(
        command: "traffic probes import",
        instead: "send the probes to the server (POST /v1/probes), or stop it first"))
    defer { withExtendedLifetime(lock) {} }
    guard engine.roadNetwork != nil else {
      throw UsageError("\(path) holds no road network; run traffic network import FILE first")
    }
    // Saved once at the end (and each minute of a longer import), not after the first file.
    engine.postponeFlowSave()
    let now = Date()
    let decoder = ProbeDecoder(now: now, simulationStart: simulationStart)
    var failures: [String] = []
    for file in files {
      let name = URL(fileURLWithPath: file).lastPathComponent
      progress.begin("probes import", detail: "\(name): reading", unit: .items(""))
      let data: Data
      do { data = try FileArguments.contents(file) } catch {
        failures.append(error.description)
        continue
      }
      progress.begin(
        "probes import",
        detail: "\(name): decoding \(ProgressReporter.amount(Int64(data.count), .bytes))",
        unit: .items(""))
      let batch: ProbeBatch
      do { batch = try decoder.decode(data, format: format) } catch {
        failures.append("\(file): \(error)")
        continue
      }
      guard batch.acceptedCount + batch.rejectedCount > 0 else {
        failures.append(
          "\(file): holds no probes; expects CSV (id,time,lat,lng,...), NDJSON or SUMO FCD")
        continue
      }
      // Not one row could be read: the file is not in the format it was read as (as the
      // server answers such a body with a 400).
      if batch.acceptedCount == 0, batch.rejectedCounts[.unparseable] == batch.rejectedCount {
        let first = batch.rejections.first.map { " (line \($0.line): \($0.detail))" } ?? ""
        failures.append(
          "\(file): none of its \(batch.rejectedCount) probe rows can be read\(first)")
        continue
      }
      progress.begin(
        "probes import", detail: "\(name): matching", total: Int64(batch.probes.count),
        unit: .items("probes"))
      let report = engine.ingest(probes: batch.probes, flush: false, progress: progress)
      progress.finish()
      // Probes an earlier file, import or node already gave are duplicates, as within one
      // file; those inside a span of time their vehicle already reported are out of order.
      var counts = batch.rejectedCounts
      for reason in ProbeRejectionReason.allCases where report.rejected(reason) > 0 {
        counts[reason, default: 0] += report.rejected(reason)
      }
      let accepted = batch.acceptedCount - report.rejected
      let rejected = batch.rejectedCount + report.rejected
      if json {
        summaries.append(
          .object([
            "file": .string(file),
            "accepted": JSONSummary.number(accepted),
            "rejected": JSONSummary.number(rejected),
            "rejections": .object(
              Dictionary(
                uniqueKeysWithValues: counts.map { ($0.key.wireName, JSONSummary.number($0.value)) }
              )),
            "matched": JSONSummary.number(report.accepted),
            "vehicles": JSONSummary.number(report.vehicles),
          ]))
        continue
      }
      let reasons = counts.sorted { $0.key.wireName < $1.key.wireName }
        .map { "\($0.value) \($0.key.wireName)" }.joined(separator: ", ")
      console.print(
        "\(file): \(accepted) accepted, \(rejected) rejected"
          + (reasons.isEmpty ? "" : " (\(reasons))")
          + ", \(report.accepted) matched to roads, \(report.vehicles) vehicles")
      // As many as `POST /v1/probes` lists, and how many more there are.
      for rejection in batch.rejections.prefix(20) {
        console.error("  line \(rejection.line): \(rejection.reason.wireName): \(rejection.detail)")
      }
      if rejected > min(20, batch.rejections.count) {
        console.error("  ... and \(rejected - min(20, batch.rejections.count)) more rejected rows")
      }
    }
    progress.begin("probes import", detail: "deciding the last positions, saving", unit: .items(""))
    engine.flushProbes()
    do { _ = try engine.saveFlow() } catch {
      progress.finish()
      throw UsageError("\(path): \(error)")
    }
    EngineArguments.finishWriting(engine, command: name, console: console)
    progress.finish()
    if json {
      JSONSummary.print(
        .object([
          "files": .array(summaries), "failures": JSONSummary.failures(failures, files: files),
        ]), console: console)
    }
    if !failures.isEmpty { throw UsageError(failures: failures) }
  }
}

/// `traffic flow AREA`: how fast traffic moves on the roads of an area.
enum FlowCommand: Subcommand {
  static let name = "flow"
  static let summary = "Traffic flow (speed, jam factor) on the roads of an area"
  static let synopsis = """
    Usage: traffic flow AREA [--min-jam F] [--max-jam F] [--functional-classes C,...]
                        [--at TIME] [--db PATH | --server URL] [--json]
    """
  static let options: [OptionDefinition] =
    AreaArgument.options + [
      OptionDefinition("--min-jam", "F", "the least jam factor, 0...10"),
      OptionDefinition("--max-jam", "F", "the greatest jam factor, 0...10"),
      OptionDefinition(
        "--functional-classes", "C,...", "road classes 1 (motorways) ... 5 (local roads)"),
      OptionDefinition(
        "--at", "TIME",
        "the typical flow of another time: RFC 3339 or an offset such as +6h (default now)"),
    ] + EngineArguments.options + [
      OptionDefinition(flag: "--json", "HERE Traffic API v7 flow JSON")
    ]

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    let area = try AreaArgument.take(from: &arguments)
    var options = TrafficFlowQueryOptions()
    for (option, assign) in [
      ("--min-jam", { (value: Double) in options.minJamFactor = value }),
      ("--max-jam", { (value: Double) in options.maxJamFactor = value }),
    ] as [(String, (Double) -> Void)] {
      if let text = try arguments.option(option) {
        guard let value = AreaArgument.decimal(text), value.isFinite else {
          throw UsageError("\(option) expects a number 0...10, got '\(text)'")
        }
        assign(value)
      }
    }
    if let text = try arguments.option("--functional-classes") {
      let classes = text.split(separator: ",").compactMap { Int($0) }
      guard !classes.isEmpty, classes.count == text.split(separator: ",").count else {
        throw UsageError("--functional-classes expects numbers 1...5, got '\(text)'")
      }
      options.functionalClasses = Set(classes)
    }
    options.at = try IncidentOptions.time(from: &arguments, option: "--at")
    let json = arguments.flag("--json")
    try arguments.requireNoPositionals(command: name)
    let engine = try EngineArguments.open(&arguments)
    _ = try arguments.positionals()
    let flows = try await engine.queryForFlow(inside: area, queryOptions: options)
    // A store without roads has no flow to show: say so rather than "0 road segments".
    if !engine.isRemote, engine.roadNetwork == nil {
      throw UsageError(
        "the store holds no road network, so it has no flow; import one first: "
          + "traffic network import FILE (OSM .osm/.osm.bz2/.osm.pbf or SUMO .net.xml)")
    }
    if json {
      console.print(
        String(
          decoding: V7FlowWire.encode(flows, sourceUpdated: engine.flowLastUpdate), as: UTF8.self))
      return
    }
    console.print(flows.count == 1 ? "1 road segment" : "\(flows.count) road segments")
    for flow in flows {
      console.print(
        String(
          format: "%@: %.0f km/h (free flow %.0f), jam factor %.1f, confidence %.2f%@",
          flow.roadName ?? "segment \(flow.segmentID)", flow.speedInMetersPerSecond * 3.6,
          flow.freeFlowSpeedInMetersPerSecond * 3.6, flow.jamFactor, flow.confidence,
          flow.traversability == .closed ? ", closed" : ""))
    }
  }
}
