import Foundation
import Traffic

/// `traffic incidents AREA ...`: the incidents in a circle, box or corridor.
enum IncidentsCommand: Subcommand {
  static let name = "incidents"
  static let summary = "Incidents in a circle, box or corridor"
  static let synopsis = """
    Usage: traffic incidents AREA [--type T,...] [--impact I,...] [--lang L]
                             [--sort-from LAT,LNG] [--limit N]
                             [--db PATH | --server URL [--api-key KEY]] [--json]

    Prints the incidents active now whose geometry meets AREA, one of
    --circle, --box, --corridor and --corridor-coords.
    """
  static let options: [OptionDefinition] =
    AreaArgument.options + IncidentOptions.options + [
      OptionDefinition(
        "--sort-from", "LAT,LNG", "nearest first from this point (true distance to the road)"),
      OptionDefinition("--limit", "N", "at most N incidents"),
    ] + EngineArguments.options + [
      OptionDefinition(flag: "--json", "HERE Traffic API v7 JSON")
    ]

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    let area = try AreaArgument.take(from: &arguments)
    var options = try IncidentOptions.take(from: &arguments)
    if let from = try arguments.option("--sort-from") {
      options.sortOrigin = try AreaArgument.coordinates(from, option: "--sort-from")
    }
    if let limit = try arguments.option("--limit") {
      guard let value = Int(limit), value >= 1 else {
        throw UsageError("--limit expects a whole number >= 1, got '\(limit)'")
      }
      options.limit = value
    }
    let json = arguments.flag("--json")
    try arguments.requireNoPositionals(command: name)
    let engine = try EngineArguments.open(&arguments)
    _ = try arguments.positionals()
    let incidents = try await engine.queryForIncidents(inside: area, queryOptions: options)
    if json {
      console.print(IncidentOutput.v7JSON(incidents, sourceUpdated: engine.lastUpdate))
      return
    }
    console.print(incidents.count == 1 ? "1 incident" : "\(incidents.count) incidents")
    for incident in incidents {
      let distance = options.sortOrigin.map { origin in
        " " + IncidentOutput.meters(TrafficEngine.distance(from: origin, to: incident))
      }
      console.print(IncidentOutput.line(incident, suffix: distance ?? ""))
    }
  }
}

/// `traffic lookup ORIGINAL_ID`: one incident by its original id.
enum LookupCommand: Subcommand {
  static let name = "lookup"
  static let summary = "One incident by its original id"
  static let synopsis = """
    Usage: traffic lookup ORIGINAL_ID [--lang L] [--db PATH | --server URL [--api-key KEY]]
                          [--json]

    Prints the incident with this original id (stable across versions; HERE's prefix
    here:traffic:incident: is accepted).
    """
  static let options: [OptionDefinition] =
    [
      OptionDefinition("--lang", "L", "BCP 47 language of the texts (e.g. de-DE)")
    ] + EngineArguments.options + [
      OptionDefinition(flag: "--json", "HERE Traffic API v7 JSON")
    ]

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    let language = try IncidentOptions.language(from: &arguments)
    let json = arguments.flag("--json")
    // The id is checked before the store is looked for: it is what was forgotten.
    guard arguments.upcomingPositionals.count == 1 else {
      throw UsageError("expects exactly one ORIGINAL_ID")
    }
    let engine = try EngineArguments.open(&arguments)
    let ids = try arguments.positionals()
    guard ids.count == 1 else { throw UsageError("expects exactly one ORIGINAL_ID") }
    let incident: TrafficIncident
    do {
      incident = try await engine.lookupIncident(
        with: ids[0], lookupOptions: TrafficIncidentLookupOptions(languageCode: language))
    } catch .incidentIdNotFound(let id) {
      throw UsageError("no incident has the original id '\(id)'")
    }
    if json {
      console.print(IncidentOutput.v7LookupJSON(incident))
      return
    }
    console.print(IncidentOutput.details(incident))
  }
}

/// `traffic nearest LAT,LNG`: the incident nearest to a place.
enum NearestCommand: Subcommand {
  static let name = "nearest"
  static let summary = "The incident nearest to a place"
  static let synopsis = """
    Usage: traffic nearest LAT,LNG [--radius M] [--type T,...] [--impact I,...] [--lang L]
                           [--db PATH | --server URL [--api-key KEY]] [--json]

    Prints the active incident nearest to LAT,LNG within the radius (default 5000 m),
    measured to the road's segments, not only its vertices.
    """
  static let options: [OptionDefinition] =
    [
      OptionDefinition("--radius", "M", "how far to look, meters (at most 50000)")
    ] + IncidentOptions.options + EngineArguments.options + [
      OptionDefinition(flag: "--json", "HERE Traffic API v7 JSON")
    ]

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    var radius = 5_000.0
    if let text = try arguments.option("--radius") {
      guard let value = AreaArgument.decimal(text), value.isFinite, value >= 0 else {
        throw UsageError("--radius expects meters >= 0, got '\(text)'")
      }
      radius = value
    }
    let options = try IncidentOptions.take(from: &arguments)
    let json = arguments.flag("--json")
    // The place is checked before the store is looked for: it is what was forgotten.
    let places = arguments.upcomingPositionals
    guard places.count == 1 else { throw UsageError("expects exactly one LAT,LNG") }
    let place = try AreaArgument.coordinates(places[0], option: "LAT,LNG")
    let engine = try EngineArguments.open(&arguments)
    _ = try arguments.positionals()
    let nearest = try await engine.nearestIncident(
      to: place, within: radius, queryOptions: options)
    if json {
      console.print(
        IncidentOutput.v7JSON(nearest.map { [$0.incident] } ?? [], sourceUpdated: engine.lastUpdate)
      )
      return
    }
    guard let nearest else {
      console.print("no incident within \(IncidentOutput.meters(radius))")
      return
    }
    console.print(
      IncidentOutput.line(
        nearest.incident, suffix: " " + IncidentOutput.meters(nearest.distanceInMeters)))
  }
}
