import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficRouting

/// A waypoint whose nearest road is a piece cut off from the rest of the network (a tiny
/// component, as OSRM calls it) snaps to the nearest road of the big one instead, unless
/// every waypoint lies on that same piece: routes, tables and HERE's v8 answers all get a
/// route, where they got none.
@Suite struct TinyComponentTests {
  /// A grid of 17 × 17 junctions 400 m apart (1 088 one-way segments, two per road: one big
  /// component) and, in the middle of the cell south-west of the grid's centre, a two-way
  /// road 30 m long joined to nothing (a tiny component), 200 m from the grid's roads: beyond
  /// the 100 m the snapping widens to for a leg without a route.
  static func network() throws -> RoadNetwork {
    let size = 17
    let step = 400.0 / 111_320  // degrees of latitude per 400 m
    let lngStep = step / cos(47.0 * .pi / 180)
    var nodes: [RoadNode] = []
    for row in 0..<size {
      for column in 0..<size {
        nodes.append(
          RoadNode(
            id: nodes.count, sourceID: "\(nodes.count)",
            coordinates: try GeoCoordinates(
              latitude: 47 + Double(row) * step, longitude: 9 + Double(column) * lngStep)))
      }
    }
    var roads: [(Int, Int)] = []
    for row in 0..<size {
      for column in 0..<size {
        let node = row * size + column
        if column + 1 < size { roads.append((node, node + 1)) }
        if row + 1 < size { roads.append((node, node + size)) }
      }
    }
    // The island: 30 m east–west in the middle of the cell at row 7, column 7.
    let middle = (lat: 47 + 7.5 * step, lng: 9 + 7.5 * lngStep)
    for offset in [-0.15, 0.15] {
      nodes.append(
        RoadNode(
          id: nodes.count, sourceID: "\(nodes.count)",
          coordinates: try GeoCoordinates(
            latitude: middle.lat, longitude: middle.lng + offset / 4 * lngStep)))
    }
    roads.append((nodes.count - 2, nodes.count - 1))
    var segments: [RoadSegment] = []
    for (from, to) in roads {
      for (a, b) in [(from, to), (to, from)] {
        let id = segments.count
        segments.append(
          RoadSegment(
            id: id, sourceID: "\(id)", fromNode: a, toNode: b,
            geometry: try GeoPolyline(vertices: [nodes[a].coordinates, nodes[b].coordinates]),
            roadClass: .residential,
            speedLimit: SpeedLimit(metersPerSecond: 13.9, source: .posted),
            oppositeID: id ^ 1))
      }
    }
    return try RoadNetwork(nodes: nodes, segments: segments)
  }

  static func router(_ network: RoadNetwork) throws -> RoutingEngine {
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { Date(timeIntervalSince1970: 1_800_000_000) },
      network: network)
    return RoutingEngine(trafficEngine: engine)
  }

  /// The island's two segments.
  static func islandSegments(_ network: RoadNetwork) -> Set<Int> {
    [network.segments.count - 2, network.segments.count - 1]
  }

  /// A point 10 m north of the island's middle, and one on the grid far from it.
  static func places(
    _ network: RoadNetwork
  ) throws -> (island: GeoCoordinates, grid: GeoCoordinates) {
    let island = network.segments[network.segments.count - 1].geometry
    let middle = island.coordinates(atDistance: island.lengthInMeters / 2)
    return (
      try GeoCoordinates(latitude: middle.latitude + 10 / 111_320, longitude: middle.longitude),
      network.nodes[16 * 17 + 12].coordinates
    )
  }

  /// The nearest point of the grid's roads (every segment but the island's), found by
  /// measuring them all: the reference for where the island's waypoint must start.
  static func nearestGridDistance(_ point: GeoCoordinates, _ network: RoadNetwork) -> Double {
    let island = islandSegments(network)
    return network.segments.filter { !island.contains($0.id) }
      .map { $0.geometry.closestPoint(to: point).distanceInMeters }.min() ?? .infinity
  }

  @Test("a route from beside a cut-off road starts on the nearest road of the big network")
  func routeLeavesTheIsland() async throws {
    let network = try Self.network()
    let router = try Self.router(network)
    let (island, grid) = try Self.places(network)
    // The island's road is nearer than any of the grid's.
    let nearest = try #require(try network.segments(near: island, withinMeters: 1_000).first)
    #expect(Self.islandSegments(network).contains(nearest.segmentID))
    let gridDistance = Self.nearestGridDistance(island, network)
    #expect(nearest.distanceInMeters < gridDistance - 20)
    for (from, to) in [(island, grid), (grid, island)] {
      let route = try #require(try await router.calculateRoute(from: from, to: to).first)
      let spans = Set(route.sections.flatMap { $0.traffic.spans.map(\.segmentID) })
      #expect(spans.isDisjoint(with: Self.islandSegments(network)))
      // On a grid road: the nearest, or one within the 15 m the snapping also tries.
      let place = from == island ? route.sections[0].departure : route.sections[0].arrival
      let distance = place.location.distance(to: island)
      #expect(distance > gridDistance - 1 && distance < gridDistance + 15)
    }
  }

  @Test("a route between two points of the same cut-off road stays on it")
  func routeWithinTheIsland() async throws {
    let network = try Self.network()
    let router = try Self.router(network)
    let island = network.segments[network.segments.count - 1].geometry
    let start = island.coordinates(atDistance: 5)
    let end = island.coordinates(atDistance: 25)
    let route = try #require(try await router.calculateRoute(from: start, to: end).first)
    let spans = Set(route.sections.flatMap { $0.traffic.spans.map(\.segmentID) })
    #expect(spans.isSubset(of: Self.islandSegments(network)))
    #expect(abs(route.lengthInMeters - 20) < 1)
  }

  @Test("a table's cells from and to a place beside a cut-off road all have a route")
  func matrixLeavesTheIsland() async throws {
    let network = try Self.network()
    let router = try Self.router(network)
    let (island, grid) = try Self.places(network)
    let matrix = try await router.calculateMatrix(
      origins: [island, grid], destinations: [island, grid])
    for row in matrix.travelTimesInSeconds { #expect(row.allSatisfy { $0 != nil }) }
    #expect(
      abs(matrix.origins[0].distanceInMeters - Self.nearestGridDistance(island, network)) < 1)
    // The same routes as the route service finds.
    let route = try #require(try await router.calculateRoute(from: island, to: grid).first)
    #expect(abs((matrix.travelTimesInSeconds[0][1] ?? 0) - route.durationInSeconds) < 1)
  }

  @Test("the nearest road is still the cut-off one (OSRM's nearest service)")
  func nearestKeepsTheIsland() throws {
    let network = try Self.network()
    let router = try Self.router(network)
    let (island, _) = try Self.places(network)
    let road = try #require(try router.nearestRoads(to: island, count: 1).first)
    #expect(abs(road.distanceInMeters - 10) < 0.5)
  }
}
