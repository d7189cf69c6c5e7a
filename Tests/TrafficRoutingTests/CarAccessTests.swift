import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficRouting

/// Car routes keep to roads open to cars: a bus or delivery road (kept in the network for
/// map matching) is neither snapped to nor driven through.
@Suite struct CarAccessTests {
  /// A road A–B (two-way, about 740 m) and a road B–C (two-way, about 555 m) heading north
  /// from B, open to cars or not.
  static func network(branchOpenToCars: Bool) throws -> RoadNetwork {
    let places = [(52.5, 13.4), (52.5, 13.411), (52.505, 13.411)]
    let nodes = try places.enumerated().map { i, place in
      RoadNode(
        id: i, sourceID: "\(i)",
        coordinates: try GeoCoordinates(latitude: place.0, longitude: place.1))
    }
    var segments: [RoadSegment] = []
    for (from, to, cars) in [
      (0, 1, true), (1, 0, true), (1, 2, branchOpenToCars), (2, 1, branchOpenToCars),
    ] {
      let id = segments.count
      segments.append(
        RoadSegment(
          id: id, sourceID: "\(id)", fromNode: from, toNode: to,
          geometry: try GeoPolyline(vertices: [nodes[from].coordinates, nodes[to].coordinates]),
          roadClass: .residential, speedLimit: SpeedLimit(metersPerSecond: 13.9, source: .posted),
          oppositeID: id ^ 1, isOpenToCars: cars))
    }
    return try RoadNetwork(nodes: nodes, segments: segments)
  }

  static func route(branchOpenToCars: Bool, to destination: GeoCoordinates) async throws -> Route {
    let network = try network(branchOpenToCars: branchOpenToCars)
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { Date(timeIntervalSince1970: 1_800_000_000) },
      network: network)
    let routes = try await RoutingEngine(trafficEngine: engine).calculateRoute(
      from: try GeoCoordinates(latitude: 52.5, longitude: 13.4005), to: destination)
    return try #require(routes.first)
  }

  @Test("a destination on a delivery road is reached by car as far as cars may go")
  func destinationOnADeliveryRoad() async throws {
    let destination = try GeoCoordinates(latitude: 52.504, longitude: 13.411)
    let open = try await Self.route(branchOpenToCars: true, to: destination)
    let closed = try await Self.route(branchOpenToCars: false, to: destination)
    let segments = { (route: Route) in
      Set(route.sections.flatMap { $0.traffic.spans.map(\.segmentID) })
    }
    // Open to cars: along A–B, then north to the destination (about 705 + 444 m).
    #expect(segments(open) == [0, 2])
    #expect(abs(open.lengthInMeters - 1_149) < 15)
    // Closed: the destination snaps to A–B at B, 444 m from it; B–C is never driven.
    #expect(segments(closed) == [0])
    #expect(abs(closed.lengthInMeters - 705) < 15)
  }
}
