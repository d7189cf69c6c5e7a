import Foundation
import Geo
import Traffic
import TrafficRouting

/// OSRM's HTTP API v5 (`/route/v1`, `/table/v1`, `/nearest/v1`) on the engine's live
/// traffic, for the clients that speak it (VROOM, routingpy, Leaflet Routing Machine). Answers
/// and errors in OSRM's shapes; every error is HTTP 400 with OSRM's `code`, as `osrm-routed`
/// answers.
extension TrafficServer {
  /// Answers an OSRM request: `rawPath` is the path after `/{service}/v1/`.
  func osrm(
    _ service: OSRMQuery.Service, rawPath: Substring, query: QueryParameters
  ) -> HTTPResponse {
    do throws(OSRMFailure) {
      let request = try OSRMQuery(
        service: service, path: rawPath,
        parameters: query.pairs.filter { $0.name != "apiKey" }.map { ($0.name, $0.value) })
      let body: Data
      switch service {
      case .route: body = try osrmRoute(request)
      case .table: body = try osrmTable(request)
      case .nearest: body = try osrmNearest(request)
      }
      var response = HTTPResponse.json(body)
      response.headers.add("Cache-Control", "no-store")
      return response
    } catch {
      return Self.osrmError(error)
    }
  }

  /// An OSRM error answer (HTTP 400, as `osrm-routed`; 413, 429, 503 and the like keep
  /// their status when the server's own limits refuse the request).
  static func osrmError(_ failure: OSRMFailure, status: Int = 400) -> HTTPResponse {
    var response = HTTPResponse.json(OSRMRouteWire.error(failure), status: status)
    response.headers.add("Cache-Control", "no-store")
    return response
  }

  /// OSRM's refusal of a path of its form (`/{service}/v{N}/{...}`) naming one of its
  /// services this server does not answer (`match`, `trip`, `tile`) or a version other
  /// than 1: `InvalidService` or `InvalidVersion`, "Service … not found!", as osrm-routed's
  /// service handler; `nil` for any other path.
  static func osrmServiceFailure(_ rawPath: Substring) -> OSRMFailure? {
    let parts = rawPath.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
    guard parts.count == 4, parts[0].isEmpty,
      ["route", "table", "nearest", "match", "trip", "tile"].contains(parts[1]),
      parts[2].count > 1, parts[2].first == "v",
      parts[2].dropFirst().allSatisfy({ $0.isASCII && $0.isNumber })
    else { return nil }
    let code =
      OSRMQuery.Service(rawValue: String(parts[1])) == nil
      ? "InvalidService" : "InvalidVersion"
    return OSRMFailure(code, "Service \(parts[1]) not found!")
  }

  /// A refusal of the server's own checks (key, rate, size, method) on an OSRM route, in
  /// OSRM's shape with the check's status.
  static func osrmError(
    _ error: TrafficQueryError, explaining explanation: String? = nil
  ) -> HTTPResponse {
    let code: String
    switch error.httpStatus {
    case 401, 403: code = "InvalidKey"
    case 404, 405: code = "InvalidUrl"
    case 413, 414: code = "TooBig"
    case 429, 503: code = "TooManyRequests"
    default: code = "InvalidQuery"
    }
    let message =
      error.detail == nil ? explanation.map { "\(error.title): \($0)" } : nil
    var response = osrmError(
      OSRMFailure(code, message ?? error.description), status: error.httpStatus)
    if case .authenticationFailed = error {
      response.headers.add("WWW-Authenticate", "Bearer realm=\"traffic\"")
    }
    return response
  }

  private func osrmRoute(_ query: OSRMQuery) throws(OSRMFailure) -> Data {
    let maximum = configuration.maxRouteCoordinates
    guard query.coordinates.count <= maximum else {
      throw OSRMFailure(
        "TooBig",
        "Number of entries \(query.coordinates.count) is higher than current maximum "
          + "(\(maximum)) (--max-route-coordinates)")
    }
    try checkRadiuses(query)
    var options = RouteOptions()
    options.alternatives = query.alternatives
    options.avoidedFeatures = query.exclude
    let count = query.coordinates.count
    let legEnds = Set(query.waypoints ?? Array(0..<count))
    let directions = (0..<count).map { index in direction(query, index) }
    let headings = directions.map { $0?.heading }
    let ranges = directions.map { $0?.range }
    let via = (1..<(count - 1)).map { index in
      Waypoint(
        query.coordinates[index], isPassThrough: !legEnds.contains(index),
        headingInDegrees: headings[index])
    }
    let routes: [TrafficRouting.Route]
    do throws(RoutingError) {
      // OSRM's car profile goes on straight at via points unless told otherwise.
      routes = try router.routes(
        through: query.coordinates, options: options, via: via, headings: headings,
        headingRanges: ranges, continuingStraight: query.continueStraight ?? true,
        detail: query.steps ? .maneuvers : [], snappingRadii: (0..<count).map(radius(query)))
    } catch {
      throw Self.osrmFailure(error)
    }
    // The waypoints as the best route meets them: where its legs start and end, and where
    // it passes nearest a point passed through (on the section driving past it).
    var waypoints: [OSRMWaypoint] = []
    let sections = routes[0].sections
    var section = 0
    for index in 0..<count {
      let point = query.coordinates[index]
      if legEnds.contains(index), section <= sections.count {
        let place =
          section < sections.count ? sections[section].departure : sections[section - 1].arrival
        let spans =
          section < sections.count
          ? sections[section].traffic.spans : sections[section - 1].traffic.spans
        let name = (section < sections.count ? spans.first : spans.last)?.roadName
        waypoints.append(
          OSRMWaypoint(
            location: place.location, distanceInMeters: place.location.distance(to: point),
            name: name ?? ""))
        section += 1
      } else if section >= 1, section <= sections.count {
        let passing = sections[section - 1]
        let nearest = passing.polyline.closestPoint(to: point)
        // The span under that point (its offset along the section, from the section's start).
        let start = passing.traffic.spans.first?.offsetInMeters ?? 0
        let span = passing.traffic.spans.last {
          $0.offsetInMeters - start <= nearest.distanceAlongInMeters
        }
        waypoints.append(
          OSRMWaypoint(
            location: nearest.coordinates, distanceInMeters: nearest.distanceInMeters,
            name: span?.roadName ?? ""))
      }
    }
    // The junctions' OpenStreetMap ids, for the `nodes` annotation.
    let network = router.trafficEngine.routingView()?.network
    return OSRMRouteWire.encode(routes, waypoints: waypoints, query: query) { segment in
      guard let network, segment < network.segments.count else { return (0, 0) }
      let road = network.segments[segment]
      return (
        Self.nodeNumber(network.nodes[road.fromNode].sourceID),
        Self.nodeNumber(network.nodes[road.toNode].sourceID)
      )
    }
  }

  private func osrmTable(_ query: OSRMQuery) throws(OSRMFailure) -> Data {
    let sources = query.sources ?? Array(query.coordinates.indices)
    let destinations = query.destinations ?? Array(query.coordinates.indices)
    let maximum = configuration.maxTableSize
    guard sources.count * destinations.count <= maximum * maximum else {
      throw OSRMFailure(
        "TooBig",
        "Too many table coordinates: \(sources.count) sources x \(destinations.count) "
          + "destinations, more than \(maximum) x \(maximum) (--max-table-size)")
    }
    try checkRadiuses(query)
    func waypoint(_ index: Int) -> Waypoint {
      let wanted = direction(query, index)
      var waypoint = Waypoint(query.coordinates[index], headingInDegrees: wanted?.heading)
      waypoint.headingRangeInDegrees = wanted?.range
      return waypoint
    }
    let matrix: RouteMatrix
    var options = RouteOptions()
    options.avoidedFeatures = query.exclude
    do throws(RoutingError) {
      matrix = try router.matrix(
        origins: sources.map(waypoint), destinations: destinations.map(waypoint),
        options: options, maximumCells: maximum * maximum,
        snappingRadii: (sources + destinations).map(radius(query)))
    } catch {
      // A waypoint's index counts the origins, then the destinations: back to coordinates.
      if case .placeOffNetwork(let index, _, _) = error {
        let coordinate =
          index < sources.count ? sources[index] : destinations[index - sources.count]
        throw OSRMFailure(
          "NoSegment", "Could not find a matching segment for coordinate \(coordinate)")
      }
      throw Self.osrmFailure(error)
    }
    var wire = OSRMTableWire.Options()
    wire.annotations = query.annotations
    wire.scaleFactor = query.scaleFactor
    wire.fallbackSpeed = query.fallbackSpeed
    wire.fallbackFromSnapped = query.fallbackCoordinateSnapped
    wire.hints = query.generateHints
    wire.skipWaypoints = query.skipWaypoints
    return OSRMTableWire.encode(matrix, options: wire)
  }

  private func osrmNearest(_ query: OSRMQuery) throws(OSRMFailure) -> Data {
    var results: [[OSRMWaypoint]] = []
    for (index, point) in query.coordinates.enumerated() {
      let roads: [RoutingEngine.NearbyRoad]
      do throws(RoutingError) {
        roads = try router.nearestRoads(
          to: point, count: query.number, withinMeters: query.radiuses?[index] ?? nil,
          avoiding: query.exclude)
      } catch {
        throw Self.osrmFailure(error)
      }
      guard !roads.isEmpty else {
        throw OSRMFailure("NoSegment", "Could not find a matching segment for coordinate \(index)")
      }
      results.append(
        roads.map { road in
          OSRMWaypoint(
            location: road.location, distanceInMeters: road.distanceInMeters,
            name: road.name ?? "",
            nodes: [Self.nodeNumber(road.nodes.from), Self.nodeNumber(road.nodes.to)])
        })
    }
    return OSRMRouteWire.encodeNearest(results, query: query)
  }

  /// The direction of travel at a coordinate and how far the road may differ from it: its
  /// bearing with its range, else the one its approach asks within 60° (`curb`: the place on
  /// the right of the road, as traffic drives on the right; `opposite`: on the left), else
  /// none.
  private func direction(_ query: OSRMQuery, _ index: Int) -> (heading: Double, range: Double)? {
    if let bearing = query.bearings?[index] {
      return (Double(bearing.degrees % 360), Double(bearing.range))
    }
    guard let approach = query.approaches?[index], approach != "unrestricted" else { return nil }
    let point = query.coordinates[index]
    // The way from the road to the place is square to the road: the road runs 90° to its
    // left when the place is on the right.
    guard let road = try? router.nearestRoads(to: point, count: 1, avoiding: query.exclude).first,
      road.distanceInMeters >= 1
    else { return nil }
    let across = road.location.bearing(to: point)
    let heading = approach == "curb" ? across - 90 : across + 90
    return (
      (heading.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360),
      60
    )
  }

  /// How far each coordinate's road may be: its `radiuses` element, else no limit (OSRM's
  /// default).
  private func radius(_ query: OSRMQuery) -> (Int) -> Double? {
    { index in query.radiuses?[index] ?? RoutingEngine.unlimitedSnappingRadiusInMeters }
  }

  /// OSRM's `nodes` are numbers: an OpenStreetMap node id, else 0 (a SUMO junction's name).
  private static func nodeNumber(_ sourceID: String) -> Int { Int(sourceID) ?? 0 }

  /// `NoSegment` for a coordinate whose `radiuses` element has no road open to cars within it.
  private func checkRadiuses(_ query: OSRMQuery) throws(OSRMFailure) {
    guard let radiuses = query.radiuses else { return }
    for (index, radius) in radiuses.enumerated() {
      guard let radius else { continue }
      let roads: [RoutingEngine.NearbyRoad]
      do throws(RoutingError) {
        roads = try router.nearestRoads(
          to: query.coordinates[index], count: 1, withinMeters: radius, avoiding: query.exclude)
      } catch {
        throw Self.osrmFailure(error)
      }
      guard !roads.isEmpty else {
        throw OSRMFailure("NoSegment", "Could not find a matching segment for coordinate \(index)")
      }
    }
  }

  private static func osrmFailure(_ error: RoutingError) -> OSRMFailure {
    switch error {
    case .noRoadNetwork: return OSRMFailure("NoSegment", error.description)
    case .placeOffNetwork(let index, _, _):
      return OSRMFailure("NoSegment", "Could not find a matching segment for coordinate \(index)")
    case .noRoute: return OSRMFailure("NoRoute", "Impossible route between points: \(error)")
    case .invalidOption(let reason): return .options(reason)
    case .remote(let reason): return OSRMFailure("InternalError", reason)
    case .unreachable(let error): return OSRMFailure("InternalError", "\(error)")
    }
  }
}
