import Dispatch
import Foundation
import Geo
import Roads
import Synchronization
import Traffic

/// Where waypoints meet the road network: the positions a route may start or end at.
extension RoutingEngine {
  /// The road positions near a waypoint: the nearest segment open to cars and the others
  /// within `meters` of it (15 m: the other direction of a two-way road), at most 12; with
  /// a heading, those driven within `tolerance` degrees of it (by default
  /// ``Waypoint/headingToleranceInDegrees``) where there are any (`arriving`: the direction in which the position is reached, which at a
  /// segment's start is the way the segment before it ends), and of those the ones inside
  /// their segment rather than at the junction behind the vehicle, where there are any.
  ///
  /// `limit`: how far the road may be, meters (`nil`: ``snappingRadiusInMeters``);
  /// `bigComponent`: only roads of the network's big components (see ``snapsToBigComponents``);
  /// `excluded`: roads never met (a route's avoided features, as OSRM's `exclude` snaps);
  /// `closed`: segments the route's closures close (a waypoint on a closed road takes the
  /// nearest open one, as it would in a network without the closed road).
  func snap(
    _ point: GeoCoordinates, index: Int, view: RoutingView, within meters: Double,
    heading: Double?, tolerance: Double = Waypoint.headingToleranceInDegrees, arriving: Bool,
    limit: Double? = nil, bigComponent: Bool = false, excluded: ExcludedSegments? = nil,
    closed: Set<Int> = [], nearby: NearbyRoads? = nil
  ) throws(RoutingError) -> [Snap] {
    let all = try snap(
      point, index: index, view: view, within: meters, limit: limit ?? snappingRadiusInMeters,
      bigComponent: bigComponent, excluded: excluded, closed: closed, nearby: nearby)
    guard let heading else { return all }
    let segments = view.network.segments
    let matching = all.filter { snap in
      let geometry = segments[snap.segmentID].geometry
      let length = segments[snap.segmentID].lengthInMeters
      // The direction over up to 10 m from the position: ahead when leaving, behind when
      // arriving (a position at a segment's very end or start looks the other way).
      var from = arriving ? snap.offsetInMeters - 10 : snap.offsetInMeters
      var to = arriving ? snap.offsetInMeters : snap.offsetInMeters + 10
      if from < 0 { (from, to) = (0, min(length, 10)) }
      if to > length { (from, to) = (max(0, length - 10), length) }
      guard to > from else { return false }
      let bearing = geometry.coordinates(atDistance: from).bearing(
        to: geometry.coordinates(atDistance: to))
      let difference = abs((bearing - heading).truncatingRemainder(dividingBy: 360))
      return min(difference, 360 - difference) <= tolerance
    }
    guard !matching.isEmpty else { return all }
    // A vehicle on its way is past the junction behind it: a position at the very end of a
    // segment (leaving) or at its very start (arriving) is that junction, within the margin
    // only because the segment touches it, and starting there would let a route begin by
    // turning back behind the vehicle. Such positions stay only where nothing else matches.
    let inside = matching.filter { snap in
      arriving
        ? snap.offsetInMeters > 0.01
        : snap.offsetInMeters < segments[snap.segmentID].lengthInMeters - 0.01
    }
    return inside.isEmpty ? matching : inside
  }

  /// The road positions near a waypoint, with its own heading and range.
  func snap(
    _ waypoint: Waypoint, index: Int, view: RoutingView, within meters: Double, arriving: Bool,
    limit: Double? = nil, bigComponent: Bool = false, excluded: ExcludedSegments? = nil,
    closed: Set<Int> = [], nearby: NearbyRoads? = nil
  ) throws(RoutingError) -> [Snap] {
    try snap(
      waypoint.coordinates, index: index, view: view, within: meters,
      heading: waypoint.headingInDegrees,
      tolerance: waypoint.headingRangeInDegrees ?? Waypoint.headingToleranceInDegrees,
      arriving: arriving, limit: limit, bigComponent: bigComponent, excluded: excluded,
      closed: closed, nearby: nearby)
  }

  /// The segments closed for a route of `closures` on `view`: every closure's, the
  /// long-term ones', or none.
  static func closedSegments(_ closures: TravelTimes.Closures, view: RoutingView) -> Set<Int> {
    switch closures {
    case .all: return view.flow.closed
    case .longTerm: return view.flow.longTermClosed
    case .ignored: return []
    }
  }

  /// Which waypoints snap only to roads of big components (OSRM's rule): those whose
  /// nearest road lies in a tiny component (``RoadComponents``) and that have a road of a
  /// big one within their `limits` (meters; `nil`: ``snappingRadiusInMeters``), unless every
  /// waypoint's nearest road lies in the same tiny component (a route within it). A waypoint
  /// with no road within its limit (or in `skipping`) counts for nothing.
  func snapsToBigComponents(
    _ points: [GeoCoordinates], view: RoutingView, limits: [Double?], skipping: Set<Int> = [],
    excluded: ExcludedSegments? = nil, closed: Set<Int> = [], nearby: NearbyRoads? = nil
  ) -> [Bool] {
    let components = components(view)
    // Nothing is moved on a network without a big part: no waypoint is snapped twice.
    guard components.hasBigComponent else { return points.map { _ in false } }
    var nearest: [Int?] = []
    for (index, point) in points.enumerated() {
      let limit = index < limits.count ? limits[index] : nil
      let found =
        skipping.contains(index)
        ? nil
        : (try? snap(
          point, index: index, view: view, within: 0, limit: limit ?? snappingRadiusInMeters,
          bigComponent: false, excluded: excluded, closed: closed, nearby: nearby))?.first
      nearest.append(found.map { components.component($0.segmentID) })
    }
    let known = nearest.compactMap { $0 }
    guard let first = known.first else {
      return points.map { _ in false }
    }
    if known.allSatisfy({ $0 == first }), components.isTinyComponent[first] {
      return points.map { _ in false }
    }
    return points.indices.map { index in
      guard let component = nearest[index], components.isTinyComponent[component] else {
        return false
      }
      let limit = index < limits.count ? limits[index] : nil
      return
        (try? snap(
          points[index], index: index, view: view, within: 0,
          limit: limit ?? snappingRadiusInMeters, bigComponent: true, excluded: excluded,
          closed: closed, nearby: nearby)) != nil
    }
  }

  /// The components of `view`'s network, found once per network.
  func components(_ view: RoutingView) -> RoadComponents {
    if let known = componentsState.withLock({ $0 }), known.graph === view.graph {
      return known.components
    }
    let built = RoadComponents(network: view.network, graph: view.graph)
    componentsState.withLock { $0 = (view.graph, built) }
    return built
  }

  /// The snaps within `limit` meters (at most ``unlimitedSnappingRadiusInMeters``), of the
  /// big components' roads only with `bigComponent`.
  private func snap(
    _ point: GeoCoordinates, index: Int, view: RoutingView, within meters: Double,
    limit: Double, bigComponent: Bool, excluded: ExcludedSegments?, closed: Set<Int>,
    nearby: NearbyRoads?
  ) throws(RoutingError) -> [Snap] {
    let limit = min(limit, Self.unlimitedSnappingRadiusInMeters)
    let components = bigComponent ? components(view) : nil
    let segments = view.network.segments
    func isAllowed(_ id: Int) -> Bool {
      segments[id].isOpenToCars && components?.isTiny(id) != true
        && excluded?.contains(id) != true && (closed.isEmpty || !closed.contains(id))
    }
    let count = meters > 15 ? 12 : 6
    // Beside a road (most waypoints): every segment within 50 m, measured; enough when
    // the nearest and its margin lie inside.
    let radius = min(NearbyRoads.radiusInMeters, limit)
    let near =
      (nearby?.roads(index, of: point, within: radius, on: view.network)
      ?? NearbyRoads.measure(point, within: radius, on: view.network)).filter {
        isAllowed($0.segmentID)
      }
    // Else the nearest roads by a best-first search of the R-tree: as fast for a point on
    // another continent as for one beside a road (a radius widened until it met a road
    // measured every segment within it: minutes for a few hundred far points).
    let candidates =
      near.first.map { $0.distanceInMeters + meters <= radius } == true
      ? Array(near.prefix(count))
      : view.network.nearestSegments(
        to: point, count: count, withinMeters: limit, where: isAllowed)
    guard let nearest = candidates.first else {
      throw .placeOffNetwork(index: index, point, radiusInMeters: limit)
    }
    return candidates.filter { $0.distanceInMeters <= nearest.distanceInMeters + meters }.map {
      Snap(
        segmentID: $0.segmentID, offsetInMeters: $0.offsetInMeters,
        point: $0.closestPoint.coordinates, distanceInMeters: $0.distanceInMeters)
    }
  }
}

/// The segments within 50 m (or a waypoint's smaller limit) of each waypoint, measured once
/// for all the snaps of a route or matrix: the check for a tiny component and the snap
/// itself look at the same roads (measured: 44 % of a 10 000-origin matrix went into
/// measuring them twice).
struct NearbyRoads: Sendable {
  /// How far from a waypoint every road is measured, meters (farther, the nearest are found
  /// by a best-first search).
  static let radiusInMeters = 50.0

  private let points: [GeoCoordinates]
  private let radii: [Double]
  private let found: [[RoadNetwork.Candidate]?]

  /// Measures the roads near each of `points` (those in `skipping` are left out), within
  /// `min(50, limit)` (`nil` limits: `defaultLimit`), on every core.
  init(
    _ points: [GeoCoordinates], limits: [Double?], defaultLimit: Double, skipping: Set<Int> = [],
    network: RoadNetwork
  ) {
    let radii = points.indices.map { index in
      min(
        Self.radiusInMeters, (index < limits.count ? limits[index] : nil) ?? defaultLimit,
        RoutingEngine.unlimitedSnappingRadiusInMeters)
    }
    let results = Mutex([[RoadNetwork.Candidate]?](repeating: nil, count: points.count))
    let workers = max(1, min(points.count / 64, ProcessInfo.processInfo.activeProcessorCount))
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
      var own: [(Int, [RoadNetwork.Candidate])] = []
      for index in stride(from: worker, to: points.count, by: workers)
      where !skipping.contains(index) {
        own.append((index, Self.measure(points[index], within: radii[index], on: network)))
      }
      results.withLock { all in for (index, roads) in own { all[index] = roads } }
    }
    self.points = points
    self.radii = radii
    self.found = results.withLock { $0 }
  }

  /// The roads measured near waypoint `index`, if they are those of `point` within
  /// `radius` (`nil`: measure them).
  func roads(
    _ index: Int, of point: GeoCoordinates, within radius: Double, on network: RoadNetwork
  ) -> [RoadNetwork.Candidate]? {
    guard index < found.count, points[index] == point, radii[index] == radius else {
      return nil
    }
    return found[index]
  }

  /// Every segment within `radius` meters of `point`, nearest first.
  static func measure(
    _ point: GeoCoordinates, within radius: Double, on network: RoadNetwork
  ) -> [RoadNetwork.Candidate] {
    (try? network.segments(near: point, withinMeters: radius)) ?? []
  }
}
