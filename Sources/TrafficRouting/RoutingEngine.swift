import Codec
import Dispatch
import Foundation
import Geo
import Roads
import Synchronization
import Traffic

/// Routes on the live traffic of a `TrafficEngine` (HERE SDK `RoutingEngine`): the fastest
/// way from an origin to a destination through optional via points, with the speeds and
/// closures the options take into account, and up to three alternatives.
///
/// Every query reads one consistent picture of the engine (its network, flow and
/// incidents), so live speed changes reach routing with the next flow refresh: the
/// hierarchy that guides the searches is built once per network (at bound speeds that no
/// live speed can beat), never per refresh.
public final class RoutingEngine: Sendable {
  /// The traffic engine routed on.
  public let trafficEngine: TrafficEngine
  /// The most waypoints a route may have (origin, via points and destination; OSRM's
  /// `--max-viaroute-size` default).
  package static let maximumWaypoints = 500
  /// How far a waypoint may be from the nearest road open to cars, meters (OSRM's services
  /// give their own limits: none but their `radiuses`).
  public let snappingRadiusInMeters: Double
  /// The widest snapping radius, meters: half the Earth's circumference, so no limit.
  package static let unlimitedSnappingRadiusInMeters = 20_100_000.0
  private let scratches = Mutex<[SearchScratch]>([])
  let speedBound = Mutex<(key: SpeedBoundKey, limit: Double, speed: Double)?>(nil)
  let boundsState = Mutex<BoundsState>(BoundsState())
  let plainTable = Mutex<(graph: MatchingGraph, table: SegmentTable)?>(nil)
  let junctionGaps = Mutex<(graph: MatchingGraph, gapped: Bool)?>(nil)
  let componentsState = Mutex<(graph: MatchingGraph, components: RoadComponents)?>(nil)
  let tableWeightsState = Mutex<TableWeightsState>(TableWeightsState())
  let exclusionsState = Mutex<
    (graph: MatchingGraph, masks: [Set<RoadFeature>: ExcludedSegments])?
  >(nil)

  /// The network's routing bounds and whether a build is under way.
  struct BoundsState {
    var current: RoutingBounds?
    var building = false
  }

  /// Networks of up to this many segments get their routing bounds on the query that first
  /// needs them (well under a second); larger ones in the background, routing with the
  /// straight-line bound until they are ready.
  static let synchronousBoundsLimit = 200_000
  /// Bounds that predate new free-flow or typical speeds are rebuilt (in the background)
  /// once they are this old, seconds.
  static let boundsRefreshInterval = 600.0

  struct SpeedBoundKey: Equatable {
    var segments: Int
    var builtAt: Date
  }

  /// A routing engine on `trafficEngine` (embedded or remote).
  public init(trafficEngine: TrafficEngine, snappingRadiusInMeters: Double = 1_000) {
    self.trafficEngine = trafficEngine
    self.snappingRadiusInMeters = snappingRadiusInMeters
  }

  /// The fastest route through `waypoints` (origin, via points, destination), then up to
  /// `options.alternatives` others.
  ///
  /// - Throws: ``RoutingError`` naming the waypoint off the network, the leg without a
  ///   route, or the option out of range; on a remote engine also an option HERE Routing v8
  ///   cannot say (a departure time in planning mode, closures avoided without traffic).
  public func calculateRoute(
    from origin: GeoCoordinates, to destination: GeoCoordinates, via: [GeoCoordinates] = [],
    options: RouteOptions = RouteOptions()
  ) async throws(RoutingError) -> [Route] {
    if trafficEngine.isRemote {
      return try await remoteRoutes(
        from: Waypoint(origin), to: Waypoint(destination), via: via.map { Waypoint($0) },
        options: options)
    }
    return try routes(through: [origin] + via + [destination], options: options)
  }

  /// The fastest route through via points with options (stops, pass-through points), then
  /// up to `options.alternatives` others: a section ends at each via point but the
  /// pass-through ones, and the next starts after the stop.
  ///
  /// - Throws: ``RoutingError`` as ``calculateRoute(from:to:via:options:)``, and for a stop
  ///   out of range or on a pass-through point.
  public func calculateRoute(
    from origin: GeoCoordinates, to destination: GeoCoordinates, via: [Waypoint],
    options: RouteOptions = RouteOptions()
  ) async throws(RoutingError) -> [Route] {
    // The via points' headings count too.
    try await calculateRoute(
      from: Waypoint(origin), to: Waypoint(destination), via: via, options: options)
  }

  /// The fastest route from `origin` to `destination` through `via`, each a ``Waypoint``
  /// that may say the direction of travel there (``Waypoint/headingInDegrees``: a vehicle
  /// asking on its way leaves in the direction it drives), then up to `options.alternatives`
  /// others.
  ///
  /// - Throws: ``RoutingError`` as ``calculateRoute(from:to:via:options:)``, and for a
  ///   heading out of range or a stop at the origin or destination.
  public func calculateRoute(
    from origin: Waypoint, to destination: Waypoint, via: [Waypoint] = [],
    options: RouteOptions = RouteOptions()
  ) async throws(RoutingError) -> [Route] {
    for (end, name) in [(origin, "origin"), (destination, "destination")] {
      guard end.stopDurationInSeconds == 0, !end.isPassThrough else {
        throw .invalidOption("the \(name) cannot have a stop or be passed through")
      }
      try Waypoint.validate(
        heading: end.headingInDegrees, range: end.headingRangeInDegrees, name: name)
    }
    let all = [origin] + via + [destination]
    let points = all.map(\.coordinates)
    let headings = all.map(\.headingInDegrees)
    if trafficEngine.isRemote {
      return try await remoteRoutes(from: origin, to: destination, via: via, options: options)
    }
    return try routes(
      through: points, options: options, via: via, headings: headings,
      headingRanges: all.map(\.headingRangeInDegrees))
  }

  /// ``calculateRoute(from:to:via:options:)`` on the caller's thread (the HTTP server's).
  ///
  /// - Parameter via: the via points' options, in order (none: plain stopovers).
  /// - Parameter headings: the direction of travel at each waypoint, in order (none: any).
  /// - Parameter headingRanges: how far the road's direction may differ from each heading,
  ///   degrees (none: ``Waypoint/headingToleranceInDegrees``).
  /// - Parameter continuingStraight: whether a leg leaves a via point the way the leg before
  ///   reached it (no U-turn there, OSRM's `continue_straight`), where a way on exists.
  /// - Parameter detail: what the sections carry besides their times, geometry and spans
  ///   (an answer that shows no maneuvers or incidents need not find them).
  /// - Parameter snappingRadii: how far each waypoint's road may be, meters, in order (none:
  ///   ``snappingRadiusInMeters``; ``unlimitedSnappingRadiusInMeters``: no limit).
  package func routes(
    through waypoints: [GeoCoordinates], options: RouteOptions, via: [Waypoint] = [],
    headings: [Double?] = [], headingRanges: [Double?] = [], continuingStraight: Bool = false,
    detail: RouteDetail = .all, snappingRadii: [Double?] = [], aligningArrivalTo: Date? = nil
  ) throws(RoutingError) -> [Route] {
    guard (0...RouteOptions.maximumAlternatives).contains(options.alternatives) else {
      throw .invalidOption(
        "alternatives must be 0...\(RouteOptions.maximumAlternatives), got \(options.alternatives)")
    }
    try options.validateTimes()
    guard waypoints.count >= 2, waypoints.count <= Self.maximumWaypoints else {
      throw .invalidOption(
        "a route needs 2 to \(Self.maximumWaypoints) waypoints, got \(waypoints.count)")
    }
    for (k, point) in via.enumerated() { try point.validate(index: k) }
    // Seconds stopped at the end of each leg (at its via point).
    let stops = (0..<(waypoints.count - 1)).map { k in
      k < via.count ? via[k].stopDurationInSeconds : 0
    }
    if let arrival = options.arrivalTime {
      return try routes(
        through: waypoints, options: options, via: via, headings: headings,
        headingRanges: headingRanges, continuingStraight: continuingStraight, detail: detail,
        snappingRadii: snappingRadii, arrivingAt: arrival)
    }
    guard var view = trafficEngine.routingView() else { throw .noRoadNetwork }
    let departure = options.departureTime ?? view.now
    // A departure beyond the live horizon, or as far in the past (the live picture now is
    // not what was then), drives on the typical picture of its time, with the closures of
    // the incidents active then.
    if abs(departure.timeIntervalSince(view.now)) > TravelTimes.typicalHorizon,
      options.trafficOptimization != .disabled,
      let later = trafficEngine.routingView(at: departure)
    {
      view = later
    }
    let traffic = options.trafficOptimization == .timeDependent
    let closures = Self.closures(options)
    let shortest = options.routingMode == .short
    // The hierarchy's potentials are times; a search for the shortest route takes the
    // straight line at 1 m/s instead (meters, a tight bound for lengths).
    let bounds = shortest ? nil : bounds(for: view)
    let segmentTable = bounds?.segments ?? plainSegments(view)
    var times = TravelTimes(
      view: view, departure: departure, usesTraffic: traffic, closures: closures,
      segments: segmentTable)
    times.measuresDistance = shortest
    let excluded = excludedSegments(options.avoidedFeatures, view: view)
    times.excluded = excluded
    // The times the routes are valued with (no penalties, seconds also when the search
    // minimises meters).
    let exact = TravelTimes(
      view: view, departure: departure, usesTraffic: traffic, closures: closures,
      segments: segmentTable)
    // The seconds a leg takes (the search's cost is meters when it looks for the shortest).
    func seconds(of leg: Leg, after start: Double) -> Double {
      guard shortest else { return leg.seconds }
      return leg.pieces(in: view.network).reduce(0) { total, piece in
        total
          + (exact.seconds(piece.segmentID, meters: piece.lengthInMeters, after: start + total)
            ?? 0)
      }
    }
    func heading(_ index: Int) -> Double? { index < headings.count ? headings[index] : nil }
    func range(_ index: Int) -> Double {
      (index < headingRanges.count ? headingRanges[index] : nil)
        ?? Waypoint.headingToleranceInDegrees
    }
    let limits = waypoints.indices.map { $0 < snappingRadii.count ? snappingRadii[$0] : nil }
    // A waypoint whose nearest road lies in a tiny part of the network (cut off from the
    // rest) takes the nearest road of a big one, as OSRM does.
    let closed = Self.closedSegments(closures, view: view)
    let nearby = NearbyRoads(
      waypoints, limits: limits, defaultLimit: snappingRadiusInMeters, network: view.network)
    let big = snapsToBigComponents(
      waypoints, view: view, limits: limits, excluded: excluded, closed: closed, nearby: nearby)
    let snaps = try waypoints.enumerated().map { index, point throws(RoutingError) in
      try snap(
        point, index: index, view: view, within: 15, heading: heading(index),
        tolerance: range(index), arriving: index == waypoints.count - 1, limit: limits[index],
        bigComponent: big[index], excluded: excluded, closed: closed, nearby: nearby)
    }
    // Wider snaps, for a leg whose nearest roads lead nowhere (a one-way ramp out of the
    // network's edge, a dead end): the roads within 100 m, looked up only when needed.
    var wide: [Int: [Snap]] = [:]
    func widened(_ index: Int) -> [Snap] {
      if let known = wide[index] { return known }
      let snaps =
        (try? snap(
          waypoints[index], index: index, view: view, within: 100, heading: heading(index),
          tolerance: range(index), arriving: index == waypoints.count - 1, limit: limits[index],
          bigComponent: big[index], excluded: excluded, closed: closed)) ?? snaps[index]
      wide[index] = snaps
      return snaps
    }
    let fastest = shortest ? 1 : bounds?.fastest ?? fastestSpeed(view)
    let scratch = takeScratch(segmentCount: view.network.segments.count)
    defer { returnScratch(scratch) }

    var legSets: [[Leg]] = []
    for attempt in 0...(options.alternatives == 0 ? 0 : options.alternatives * 3) {
      var legs: [Leg] = []
      times.legStart = 0
      for k in 0..<(snaps.count - 1) {
        // From where the leg before arrived (an alternative may arrive at another of the
        // via point's roads than the fastest does; the next leg must not start 100 m away),
        // and going on straight, from the road it arrived on.
        func onward(_ candidates: [Snap]) -> [Snap] {
          guard let previous = legs.last, let arrived = previous.segmentIDs.last else {
            return candidates
          }
          let there = view.network.segments[arrived].geometry.coordinates(
            atDistance: previous.endOffsetInMeters)
          let here = candidates.filter { $0.point.distance(to: there) < 1 }
          let starts = here.isEmpty ? candidates : here
          guard continuingStraight else { return starts }
          let kept = starts.filter { $0.segmentID == arrived }
          return kept.isEmpty ? starts : kept
        }
        guard
          let leg = RouteSearch.fastest(
            from: onward(snaps[k]), to: snaps[k + 1], times: times, fastestSpeed: fastest,
            bounds: bounds, scratch: scratch)
            ?? RouteSearch.fastest(
              from: onward(widened(k)), to: widened(k + 1), times: times,
              fastestSpeed: fastest, bounds: bounds, scratch: scratch)
            // No way on from where the leg before arrived (it reached the via point on a
            // road that leads nowhere the next one does), or turning back where no way
            // leads on: from any of the via point's roads.
            ?? (continuingStraight || !legs.isEmpty
              ? RouteSearch.fastest(
                from: snaps[k], to: snaps[k + 1], times: times, fastestSpeed: fastest,
                bounds: bounds, scratch: scratch)
                ?? RouteSearch.fastest(
                  from: widened(k), to: widened(k + 1), times: times, fastestSpeed: fastest,
                  bounds: bounds, scratch: scratch) : nil)
        else {
          if attempt == 0 { throw .noRoute(fromIndex: k, toIndex: k + 1) }
          legs = []
          break
        }
        legs.append(leg)
        times.legStart += seconds(of: leg, after: times.legStart) + stops[k]
      }
      if !legs.isEmpty, Self.isDistinct(legs, from: legSets, network: view.network) {
        legSets.append(legs)
        if legSets.count > options.alternatives { break }
      }
      // The next attempt avoids what the routes found so far share.
      for leg in legs {
        for segment in leg.segmentIDs { times.penalties[segment, default: 1] *= 1.4 }
      }
    }
    let passThrough = Set(via.indices.filter { via[$0].isPassThrough }.map { $0 + 1 })
    let routes = legSets.map { legs in
      var start = departure
      var made = route(
        legs, waypoints: waypoints, stops: stops, passThrough: passThrough, departure: start,
        times: exact, detail: detail)
      // For an arrival time, each route leaves when it arrives then (an alternative is
      // slower or faster than the route the departure was found for), its times those of
      // its own departure.
      guard let arrival = aligningArrivalTo else { return made }
      for _ in 0..<6 {
        guard let end = made.sections.last?.arrival.time else { break }
        let miss = end.timeIntervalSince(arrival)
        if abs(miss) < 1 { break }
        start = start.addingTimeInterval(-miss)
        let timed = TravelTimes(
          view: view, departure: start, usesTraffic: traffic, closures: closures,
          segments: segmentTable)
        made = route(
          legs, waypoints: waypoints, stops: stops, passThrough: passThrough, departure: start,
          times: timed, detail: detail)
      }
      return made
    }
    return routes.sorted { $0.durationInSeconds < $1.durationInSeconds }
  }

  // MARK: Pieces

  /// The closures a route under `options` leaves out: all of them with live traffic, the
  /// long-term ones with `longTermClosuresOnly`, and without traffic all or none as
  /// `avoidsClosures` says.
  static func closures(_ options: RouteOptions) -> TravelTimes.Closures {
    switch options.trafficOptimization {
    case .timeDependent: return .all
    case .longTermClosuresOnly: return .longTerm
    case .disabled: return options.avoidsClosures ? .all : .ignored
    }
  }

  /// Whether a route shares at most 70 % of its length with each route kept.
  private static func isDistinct(
    _ legs: [Leg], from kept: [[Leg]], network: RoadNetwork
  )
    -> Bool
  {
    let segments = Set(legs.flatMap(\.segmentIDs))
    let length = segments.reduce(0) { $0 + network.segments[$1].lengthInMeters }
    for other in kept {
      let shared = Set(other.flatMap(\.segmentIDs)).intersection(segments)
      let sharedLength = shared.reduce(0) { $0 + network.segments[$1].lengthInMeters }
      if sharedLength > 0.7 * length { return false }
    }
    return true
  }

  /// The route of the legs found: sections with their geometry, times, spans and incidents,
  /// one per leg but where a pass-through waypoint joins two legs into one; after a leg the
  /// clock moves on by its stop.
  ///
  /// - Parameters:
  ///   - stops: Seconds stopped at the end of each leg.
  ///   - passThrough: The indices in `waypoints` of the pass-through via points.
  private func route(
    _ legs: [Leg], waypoints: [GeoCoordinates], stops: [Double], passThrough: Set<Int>,
    departure: Date, times: TravelTimes, detail: RouteDetail
  ) -> Route {
    let view = times.view
    var clock = departure
    var sections: [RouteSection] = []
    // The legs of each section: a new one starts after every waypoint that is not passed
    // through.
    var groups: [Range<Int>] = []
    var first = 0
    for k in legs.indices where k == legs.count - 1 || !passThrough.contains(k + 1) {
      groups.append(first..<(k + 1))
      first = k + 1
    }
    for group in groups {
      var pieces: [FlowIndex.Piece] = []
      for leg in legs[group] {
        for (index, piece) in leg.pieces(in: view.network).enumerated() {
          // A leg going on where the last one stopped on the same segment: one piece.
          if index == 0, let last = pieces.last, last.segmentID == piece.segmentID,
            abs(last.endOffsetInMeters - piece.startOffsetInMeters) < 0.01
          {
            pieces[pieces.count - 1].endOffsetInMeters = piece.endOffsetInMeters
          } else {
            pieces.append(piece)
          }
        }
      }
      let polyline = Self.polyline(pieces, network: view.network)
      // Each piece's meters with the way across the junction before it (a SUMO network's),
      // which the polyline draws and the piece's time counts: the length is the polyline's.
      let pieceMeters = pieces.indices.map { k in
        pieces[k].lengthInMeters
          + (k > 0 && pieces[k - 1].segmentID != pieces[k].segmentID
            ? view.network.junctionGap(from: pieces[k - 1].segmentID, to: pieces[k].segmentID)
            : 0)
      }
      let length = pieceMeters.reduce(0, +)
      var traffic = TrafficEngine.valued(
        pieces, network: view.network, snapshot: view.flow, lengthInMeters: length)
      if detail.contains(.incidents) {
        traffic.incidents = TrafficEngine.incidents(
          along: polyline, corridorHalfWidthInMeters: 30, in: view.incidents,
          at: max(clock, view.now))
      }
      // Each piece at the time it is entered; the typical duration drives the same pieces
      // at typical speeds (free flow where a segment has no typical week) and is reported
      // when at least one segment has one.
      var seconds = 0.0
      var pieceSeconds: [Double] = []
      var typical = 0.0
      var typicalKnown = false
      let start = clock.timeIntervalSince(departure)
      for (k, piece) in pieces.enumerated() {
        // The way across the junction before the piece at the piece's speed.
        let meters = pieceMeters[k]
        let driven = times.seconds(piece.segmentID, meters: meters, after: start + seconds) ?? 0
        pieceSeconds.append(driven)
        seconds += driven
        if let usual = times.typicalSeconds(piece.segmentID, meters: meters, after: start + typical)
        {
          typical += usual
          typicalKnown = true
        } else {
          let free =
            view.flow.freeFlow[piece.segmentID]
            ?? view.network.segments[piece.segmentID].speedLimitInMetersPerSecond
          typical += meters / max(free, 0.1)
        }
      }
      let begin = polyline.vertices[0]
      let end = polyline.vertices[polyline.vertices.count - 1]
      let arrival = clock.addingTimeInterval(seconds)
      sections.append(
        RouteSection(
          departure: RoutePlace(
            location: begin, originalLocation: waypoints[group.lowerBound], time: clock),
          arrival: RoutePlace(
            location: end, originalLocation: waypoints[group.upperBound], time: arrival),
          durationInSeconds: seconds, baseDurationInSeconds: traffic.baseDurationInSeconds,
          typicalDurationInSeconds: typicalKnown ? typical : nil,
          lengthInMeters: length, polyline: polyline,
          traffic: traffic,
          maneuvers: detail.contains(.maneuvers)
            ? Guidance.maneuvers(
              pieces, meters: pieceMeters, seconds: pieceSeconds, network: view.network,
              graph: view.graph) : []))
      clock = arrival.addingTimeInterval(stops[group.upperBound - 1])
    }
    return Route(sections: sections)
  }

  /// The geometry driven over the pieces.
  static func polyline(_ pieces: [FlowIndex.Piece], network: RoadNetwork) -> GeoPolyline {
    var vertices: [GeoCoordinates] = []
    for piece in pieces {
      let segment = network.segments[piece.segmentID]
      let geometry = segment.geometry
      // A whole segment (every piece but a leg's first and last) is its vertices.
      if piece.startOffsetInMeters <= 0, piece.endOffsetInMeters >= segment.lengthInMeters {
        for vertex in geometry.vertices where vertices.last != vertex { vertices.append(vertex) }
        continue
      }
      var part = [geometry.coordinates(atDistance: piece.startOffsetInMeters)]
      var along = 0.0
      for (a, b) in zip(geometry.vertices, geometry.vertices.dropFirst()) {
        along += a.distance(to: b)
        if along > piece.startOffsetInMeters, along < piece.endOffsetInMeters { part.append(b) }
      }
      part.append(geometry.coordinates(atDistance: piece.endOffsetInMeters))
      for vertex in part where vertices.last != vertex { vertices.append(vertex) }
    }
    if vertices.count == 1 { vertices.append(vertices[0]) }
    // Two or more vertices by construction.
    return (try? GeoPolyline(vertices: vertices)) ?? network.segments[pieces[0].segmentID].geometry
  }

  func takeScratch(segmentCount: Int) -> SearchScratch {
    let pooled = scratches.withLock { pool -> SearchScratch? in
      guard let index = pool.lastIndex(where: { $0.cost.count == segmentCount }) else { return nil }
      return pool.remove(at: index)
    }
    return pooled ?? SearchScratch(segmentCount: segmentCount)
  }

  func returnScratch(_ scratch: SearchScratch) {
    scratches.withLock { pool in
      if pool.count < 4 { pool.append(scratch) }
    }
  }
}
