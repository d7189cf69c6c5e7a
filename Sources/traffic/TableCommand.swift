import Foundation
import Geo
import Roads
import Traffic
import TrafficRouting

/// `traffic table`: the travel times and distances of the fastest routes from many origins to
/// many destinations, on live traffic.
enum TableCommand: Subcommand {
  static let name = "table"
  static let summary = "Travel times and distances from many origins to many destinations"
  static let synopsis = """
    Usage: traffic table --from "LAT,LNG[;LAT,LNG...]" --to "LAT,LNG[;LAT,LNG...]"
                         [--depart TIME|any] [--network FILE] [--db PATH | --server URL]
                         [--json]

    The minutes and kilometres of the fastest route from each origin (a row) to each
    destination (a column) on the live traffic of the store, as traffic route finds them one
    by one; on a large network (from 2,000,000 origins × road segments) each road at its
    speed at the departure, without turn rules. - where no road leads there. At most 10,000
    cells (100 × 100). --json prints OSRM's table answer: durations in seconds, distances in
    meters, null for no route.
    """
  static let options: [OptionDefinition] =
    [
      OptionDefinition("--from", "\"LAT,LNG;...\"", "the origins, separated by ;"),
      OptionDefinition("--to", "\"LAT,LNG;...\"", "the destinations, separated by ;"),
      OptionDefinition(
        "--depart", "TIME", "departure, RFC 3339 or +2h (default now); any: v8's planning mode"),
      RouteArguments.avoidOption,
      OptionDefinition(
        "--network", "FILE", "route on this road network file instead of the store's"),
    ] + EngineArguments.options + [
      OptionDefinition(flag: "--json", "OSRM's table answer (durations s, distances m)")
    ]

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    guard let from = try arguments.option("--from") else {
      throw UsageError("give the origins: --from \"LAT,LNG;LAT,LNG...\"")
    }
    guard let to = try arguments.option("--to") else {
      throw UsageError("give the destinations: --to \"LAT,LNG;LAT,LNG...\"")
    }
    let origins = try places(from, option: "--from")
    let destinations = try places(to, option: "--to")
    var options = RouteOptions()
    try RouteArguments.departure(&arguments, into: &options)
    try RouteArguments.avoid(&arguments, into: &options)
    let json = arguments.flag("--json")
    try arguments.requireNoPositionals(command: name)
    var network: RoadNetwork?
    if let path = try arguments.option("--network") {
      // Looked at in a copy: the engine's arguments read --server.
      var probe = arguments
      if try probe.option("--server") != nil {
        throw UsageError("give --network or --server, not both")
      }
      network = try NetworkArguments.load(path)
    }
    let engine = try EngineArguments.open(&arguments, network: network)
    _ = try arguments.positionals()
    let matrix: RouteMatrix
    do {
      matrix = try await RoutingEngine(trafficEngine: engine).calculateMatrix(
        origins: origins.map { Waypoint($0) }, destinations: destinations.map { Waypoint($0) },
        options: options)
    } catch {
      // A server that cannot be reached ends the command as `incidents --server` ends.
      if case .unreachable(let transport) = error { throw transport }
      guard case .placeOffNetwork(let index, let place, let radius) = error else {
        throw UsageError(error.description)
      }
      // The place by its option and position; a hint when it would lie on the network in
      // the other order.
      let (option, number) =
        index < origins.count ? ("--from", index + 1) : ("--to", index - origins.count + 1)
      throw UsageError(
        "\(option): place \(number) (\(place.latitude),\(place.longitude)) is more than "
          + "\(Int(radius)) m from any road open to cars"
          + AreaArgument.swapHint(for: place, within: AreaArgument.bounds(of: engine.roadNetwork)))
    }
    if json {
      console.print(String(decoding: OSRMTableWire.encode(matrix), as: UTF8.self))
      return
    }
    for line in table(matrix) { console.print(line) }
  }

  /// The places of a `;`-separated list of `LAT,LNG`.
  static func places(_ text: String, option: String) throws(UsageError) -> [GeoCoordinates] {
    let parts = text.split(separator: ";", omittingEmptySubsequences: false)
      .map { $0.trimmingCharacters(in: .whitespaces) }
    guard parts.contains(where: { !$0.isEmpty }) else {
      throw UsageError("\(option) expects at least one LAT,LNG, got '\(text)'")
    }
    return try parts.enumerated().map { index, part throws(UsageError) in
      guard !part.isEmpty else {
        throw UsageError("\(option): place \(index + 1) is empty in '\(text)'")
      }
      return try AreaArgument.coordinates(part, option: option)
    }
  }

  /// The matrix as text: a header of destinations, then a row per origin of
  /// `minutes min kilometres km` cells (`-`: no route).
  static func table(_ matrix: RouteMatrix) -> [String] {
    let width = 20
    func pad(_ text: String) -> String {
      text.count >= width ? text + " " : text.padding(toLength: width, withPad: " ", startingAt: 0)
    }
    // Lines end where their last cell's text does.
    func trimmed(_ line: String) -> String {
      String(line.reversed().drop { $0 == " " }.reversed())
    }
    let header = pad("") + matrix.destinations.indices.map { pad("to \($0 + 1)") }.joined()
    var lines = [trimmed(header)]
    for (row, times) in matrix.travelTimesInSeconds.enumerated() {
      var line = pad("from \(row + 1)")
      for (column, seconds) in times.enumerated() {
        guard let seconds, let meters = matrix.distancesInMeters[row][column] else {
          line += pad("-")
          continue
        }
        line += pad(String(format: "%.1f min %.2f km", seconds / 60, meters / 1000))
      }
      lines.append(trimmed(line))
    }
    return lines
  }
}
