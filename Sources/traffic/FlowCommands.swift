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
      if let report {
        summary["roadWays"] = JSONSummary.number(report.roadWays)
        summary["clippedWays"] = JSONSummary.number(report.clippedWays)
        summary["droppedWays"] = JSONSummary.number(report.droppedWays)
        summary["invalidNodes"] = JSONSummary.number(report.invalidNodes)
        summary["missingNodeReferences"] = JSONSummary.number(report.missingNodeReferences)
      }
      JSONSummary.print(.object(summary), console: console)
      return
    }
    let shown = rest[1] == "-" ? "standard input" : rest[1]
    if let report, report.clippedWays + report.droppedWays + report.invalidNodes > 0 {
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
      // Probes an earlier file already gave are duplicates, as within one file.
      var counts = batch.rejectedCounts
      if report.duplicates > 0 { counts[.duplicate, default: 0] += report.duplicates }
      if json {
        summaries.append(
          .object([
            "file": .string(file),
            "accepted": JSONSummary.number(batch.acceptedCount - report.duplicates),
            "rejected": JSONSummary.number(batch.rejectedCount + report.duplicates),
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
        "\(file): \(batch.acceptedCount - report.duplicates) accepted, "
          + "\(batch.rejectedCount + report.duplicates) rejected"
          + (reasons.isEmpty ? "" : " (\(reasons))")
          + ", \(report.accepted) matched to roads, \(report.vehicles) vehicles")
      for rejection in batch.rejections.prefix(10) {
        console.error("  line \(rejection.line): \(rejection.reason.wireName): \(rejection.detail)")
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
    if !failures.isEmpty { throw UsageError(failures.joined(separator: "\n")) }
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
        guard let value = Double(text), value.isFinite else {
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
    let engine = try EngineArguments.open(&arguments)
    guard try arguments.positionals().isEmpty else {
      throw UsageError("unexpected arguments; see traffic help flow")
    }
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

/// `traffic route`: the traffic along a route.
enum RouteCommand: Subcommand {
  static let name = "route"
  static let summary =
    "The fastest route on live traffic (ETA, directions), or traffic along a given one"
  static let synopsis = """
    Usage: traffic route --from LAT,LNG --to LAT,LNG [--via LAT,LNG[!OPTION=VALUE]...]...
                         [--depart TIME|any | --arrive TIME] [--alternatives N] [--shortest]
                         [--lang L] [--db PATH | --server URL] [--json]
           traffic route --coords "LAT,LNG;LAT,LNG;..." | --polyline FLEXPOLY
                         [--half-width M] [--db PATH | --server URL] [--json]

    With --from and --to: the fastest route on the live traffic of the store (or of the
    server, through its GET /v8/routes), closed roads never used, with its ETA, delay and
    incidents and directions; --json prints the HERE Routing v8 answer.
    With --coords or --polyline: matches the given route to the road network of the store (or
    of the server, through its POST /v1/route/traffic) and reports each span's speed, jam
    factor and delay, the incidents on it, and the total delay.
    """
  static let options: [OptionDefinition] =
    [
      OptionDefinition("--from", "LAT,LNG", "where the route starts"),
      OptionDefinition("--to", "LAT,LNG", "where it ends"),
      OptionDefinition(
        "--via", "LAT,LNG",
        "a point to pass; repeatable; v8's !stopDuration=S, !passThrough=true"),
      OptionDefinition(
        "--depart", "TIME", "departure, RFC 3339 or +2h (default now); any: v8's planning mode"),
      OptionDefinition("--arrive", "TIME", "arrival instead: leave when the route arrives then"),
      OptionDefinition("--alternatives", "N", "up to N other routes, 0...3 (default 0)"),
      OptionDefinition(flag: "--shortest", "the shortest route instead of the fastest"),
      OptionDefinition("--lang", "L", "the language of the directions, such as de-DE (default en)"),
      OptionDefinition("--coords", "\"LAT,LNG;LAT,LNG;...\"", "the route's points, in order"),
      OptionDefinition("--polyline", "FLEXPOLY", "the route as a HERE flexible polyline"),
      OptionDefinition(
        "--half-width", "M", "how far from the route incidents count (default 30 m)"),
    ] + EngineArguments.options + [
      OptionDefinition(flag: "--json", "the answer of POST /v1/route/traffic")
    ]

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    if let from = try arguments.option("--from") {
      try await calculate(from: from, &arguments, console: console)
      return
    }
    let coordinates = try arguments.option("--coords")
    let polyline = try arguments.option("--polyline")
    var halfWidth = 30.0
    if let text = try arguments.option("--half-width") {
      guard let value = Double(text), value.isFinite, value >= 0 else {
        throw UsageError("--half-width expects meters >= 0, got '\(text)'")
      }
      halfWidth = value
    }
    let json = arguments.flag("--json")
    let route: GeoPolyline
    switch (coordinates, polyline) {
    case (let text?, nil):
      let points = try text.split(separator: ";").map { pair throws(UsageError) in
        try AreaArgument.coordinates(String(pair), option: "--coords")
      }
      do { route = try GeoPolyline(vertices: points) } catch {
        throw UsageError("--coords: \(error)")
      }
    case (nil, let encoded?):
      do { route = try GeoPolyline(vertices: FlexiblePolyline.decode(encoded).coordinates) } catch {
        throw UsageError("--polyline: \(error)")
      }
    default:
      throw UsageError("give exactly one of --coords and --polyline")
    }
    let engine = try EngineArguments.open(&arguments)
    guard try arguments.positionals().isEmpty else {
      throw UsageError("unexpected arguments; see traffic help route")
    }
    let result = try await engine.queryForTrafficOnRoute(
      route, corridorHalfWidthInMeters: halfWidth)
    if json {
      console.print(
        String(
          decoding: RouteTrafficWire.encode(result, sourceUpdated: engine.flowLastUpdate),
          as: UTF8.self))
      return
    }
    console.print(
      String(
        format: "%.1f km: %.0f min at free flow, %.0f min with traffic, delay %.0f s%@",
        result.lengthInMeters / 1000, result.baseDurationInSeconds / 60,
        result.trafficDurationInSeconds / 60, result.totalDelayInSeconds,
        result.isBlocked ? ", BLOCKED" : ""))
    for span in result.spans where span.jamFactor >= 4 || span.traversability == .closed {
      console.print(
        String(
          format: "  at %.1f km: %@ jam factor %.1f, %.0f km/h",
          span.offsetInMeters / 1000, span.roadName ?? "segment \(span.segmentID)", span.jamFactor,
          span.trafficSpeedInMetersPerSecond * 3.6))
    }
    for item in result.incidents {
      console.print(
        String(format: "  incident at %.1f km: ", item.offsetInMeters / 1000)
          + IncidentOutput.line(item.incident))
    }
  }

  /// `--from ... --to ...`: the fastest route on the store's traffic.
  static func calculate(
    from: String, _ arguments: inout ArgumentList, console: Console
  ) async throws {
    guard let to = try arguments.option("--to") else {
      throw UsageError("--from needs --to LAT,LNG")
    }
    let origin = try AreaArgument.coordinates(from, option: "--from")
    let destination = try AreaArgument.coordinates(to, option: "--to")
    let via = try arguments.repeatedOption("--via").enumerated().map {
      index, text throws(UsageError) in
      do { return try V8RouteWire.waypoint(text, index: index) } catch {
        throw UsageError("--via: \(error)")
      }
    }
    var options = RouteOptions()
    try RouteArguments.departure(&arguments, into: &options)
    if let text = try arguments.option("--arrive") {
      guard options.departureTime == nil, options.trafficOptimization == .timeDependent else {
        throw UsageError("give --depart or --arrive, not both")
      }
      options.arrivalTime = try IncidentOptions.time(text, option: "--arrive")
    }
    if let text = try arguments.option("--alternatives") {
      guard let count = Int(text), (0...RouteOptions.maximumAlternatives).contains(count) else {
        throw UsageError(
          "--alternatives expects 0...\(RouteOptions.maximumAlternatives), got '\(text)'")
      }
      options.alternatives = count
    }
    if arguments.flag("--shortest") { options.routingMode = .short }
    let language = try arguments.option("--lang")
    let json = arguments.flag("--json")
    for other in ["--coords", "--polyline", "--half-width"] where try arguments.option(other) != nil
    {
      throw UsageError("\(other) belongs to the other form of route; --from/--to finds the route")
    }
    let engine = try EngineArguments.open(&arguments)
    guard try arguments.positionals().isEmpty else {
      throw UsageError("unexpected arguments; see traffic help route")
    }
    let routes: [Route]
    do {
      routes = try await RoutingEngine(trafficEngine: engine).calculateRoute(
        from: origin, to: destination, via: via, options: options)
    } catch {
      // A waypoint off the network that would lie on it in the other order: say so.
      var hint = ""
      if case .placeOffNetwork(_, let place, _) = error {
        hint = AreaArgument.swapHint(
          for: place, within: AreaArgument.bounds(of: engine.roadNetwork))
      }
      throw UsageError(error.description + hint)
    }
    if json {
      let body = V8RouteWire.encode(
        routes, returning: [.summary, .polyline, .incidents, .actions, .instructions],
        spans: [.length, .duration, .dynamicSpeedInfo], language: language)
      console.print(String(decoding: body, as: UTF8.self))
      return
    }
    for (index, route) in routes.enumerated() {
      let delay = route.durationInSeconds - route.baseDurationInSeconds
      console.print(
        String(
          format: "%@%.1f km, %.0f min with traffic (%.0f min at free flow, delay %.0f s)",
          index == 0 ? "" : "alternative \(index): ", route.lengthInMeters / 1000,
          route.durationInSeconds / 60, route.baseDurationInSeconds / 60, delay))
      for section in route.sections {
        console.print(
          "  \(IncidentOutput.timestamp(section.departure.time)) -> "
            + "\(IncidentOutput.timestamp(section.arrival.time))")
        for item in section.traffic.incidents {
          console.print(
            String(format: "  incident at %.1f km: ", item.offsetInMeters / 1000)
              + IncidentOutput.line(item.incident))
        }
        // The directions only for the fastest route (alternatives would repeat most).
        if index == 0 {
          for maneuver in section.maneuvers {
            console.print("    " + maneuver.instruction(language: language))
          }
        }
      }
    }
  }
}
