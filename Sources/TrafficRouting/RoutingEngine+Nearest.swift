import Geo
import Roads
import Traffic

/// The roads nearest a point (OSRM's `nearest` service, and its `radiuses`).
extension RoutingEngine {
  /// A road near a point: the point of the road nearest it, and the road.
  package struct NearbyRoad: Hashable, Sendable {
    /// The point on the road.
    package var location: GeoCoordinates
    /// Meters from the point asked for.
    package var distanceInMeters: Double
    /// The road's name, else its number.
    package var name: String?
    /// The source ids (OpenStreetMap node ids) of the segment's ends.
    package var nodes: (from: String, to: String)

    package static func == (a: NearbyRoad, b: NearbyRoad) -> Bool {
      a.location == b.location && a.distanceInMeters == b.distanceInMeters && a.name == b.name
        && a.nodes == b.nodes
    }

    package func hash(into hasher: inout Hasher) {
      hasher.combine(location)
      hasher.combine(distanceInMeters)
    }
  }

  /// The `count` roads open to cars nearest `point`, nearest first, within `meters` (`nil`:
  /// however far, as OSRM's `nearest` without `radiuses`): each road once (a two-way road's
  /// two directions are one road), none of the `avoiding` features (OSRM's `exclude` on its
  /// `nearest` service), none closed now.
  ///
  /// - Throws: ``RoutingError/noRoadNetwork`` without a network.
  package func nearestRoads(
    to point: GeoCoordinates, count: Int, withinMeters meters: Double? = nil,
    avoiding features: Set<RoadFeature> = []
  ) throws(RoutingError) -> [NearbyRoad] {
    guard let view = trafficEngine.routingView() else { throw .noRoadNetwork }
    let network = view.network
    let excluded = excludedSegments(features, view: view)
    // Closed roads are not where a route can start, as for routes and tables.
    let closed = view.flow.closed
    let limit = min(
      meters ?? Self.unlimitedSnappingRadiusInMeters, Self.unlimitedSnappingRadiusInMeters)
    // The nearest segments by a best-first search (fast however far the roads are), more
    // of them until `count` roads are found: a road's two directions, and parallel
    // segments between the same junctions, are one road.
    var wanted = 2 * max(count, 1)
    while true {
      let candidates = network.nearestSegments(to: point, count: wanted, withinMeters: limit) {
        network.segments[$0].isOpenToCars && excluded?.contains($0) != true
          && (closed.isEmpty || !closed.contains($0))
      }
      var seen = Set<[Int]>()
      var found: [NearbyRoad] = []
      for candidate in candidates {
        let segment = network.segments[candidate.segmentID]
        guard
          seen.insert([
            min(segment.fromNode, segment.toNode), max(segment.fromNode, segment.toNode),
          ])
          .inserted
        else { continue }
        found.append(
          NearbyRoad(
            location: candidate.closestPoint.coordinates,
            distanceInMeters: candidate.distanceInMeters, name: segment.name ?? segment.ref,
            nodes: (
              network.nodes[segment.fromNode].sourceID, network.nodes[segment.toNode].sourceID
            )))
        if found.count == count { return found }
      }
      guard candidates.count == wanted else { return found }
      wanted *= 2
    }
  }
}
