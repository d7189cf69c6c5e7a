import Codec
import Foundation
import Roads
import Traffic
import TrafficFeeds
import TrafficRouting
import TrafficSQLite

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
      RouteArguments.avoidOption,
      OptionDefinition("--lang", "L", "the language of the directions, such as de-DE (default en)"),
      OptionDefinition("--coords", "\"LAT,LNG;LAT,LNG;...\"", "the route's points, in order"),
      OptionDefinition("--polyline", "FLEXPOLY", "the route as a HERE flexible polyline"),
      OptionDefinition(
        "--half-width", "M", "how far from the route incidents count (default 30 m)"),
    ] + EngineArguments.options + [
      OptionDefinition(
        flag: "--json",
        "with --from/--to the HERE Routing v8 answer (GET /v8/routes);\n"
          + "with --coords or --polyline that of POST /v1/route/traffic")
    ]

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    if let from = try arguments.option("--from") {
      try await calculate(from: from, &arguments, console: console)
      return
    }
    // Without --from: --to alone is a route that lacks its start.
    let to = try arguments.option("--to")
    let coordinates = try arguments.option("--coords")
    let polyline = try arguments.option("--polyline")
    var halfWidth = 30.0
    if let text = try arguments.option("--half-width") {
      guard let value = AreaArgument.decimal(text), value.isFinite, value >= 0 else {
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
    case (nil, nil):
      // --from/--to is the main form: name it first.
      throw UsageError(
        to == nil
          ? "give --from and --to (or --coords, or --polyline)"
          : "--from is missing: --to needs --from LAT,LNG")
    case (_?, _?):
      throw UsageError("give --coords or --polyline, not both")
    }
    if to != nil {
      throw UsageError(
        "--to belongs to the other form of route; --coords or --polyline is the route")
    }
    try arguments.requireNoPositionals(command: name)
    let engine = try EngineArguments.open(&arguments)
    _ = try arguments.positionals()
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
    try RouteArguments.avoid(&arguments, into: &options)
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
    try arguments.requireNoPositionals(command: name)
    let engine = try EngineArguments.open(&arguments)
    _ = try arguments.positionals()
    let routes: [Route]
    do {
      routes = try await RoutingEngine(trafficEngine: engine).calculateRoute(
        from: origin, to: destination, via: via, options: options)
    } catch {
      // A server that cannot be reached ends the command as `incidents --server` ends.
      if case .unreachable(let transport) = error { throw transport }
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
