import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficRouting

/// Routes and tables that avoid road features (``RouteOptions/avoidedFeatures``, OSRM's
/// `exclude`) are the best ones on the network without those roads: checked against a
/// brute-force Dijkstra on seeded random grids of motorways, main roads and streets with tolls.
@Suite struct RoadFeatureAvoidanceTests {
  static func grid(seed: UInt64) throws -> RoadNetwork { try FeatureGrid.network(seed: seed) }

  static let corners = FeatureGrid.corners

  /// The reference of ``FeatureGrid`` without the `avoided` features' roads.
  static func reference(
    _ network: RoadNetwork, from: Int, to: Int, avoiding avoided: Set<RoadFeature>
  ) -> Double {
    FeatureGrid.reference(
      network, from: from, to: to, motorways: !avoided.contains(.motorway),
      tolls: !avoided.contains(.toll))
  }

  /// Whether a waypoint at `node` meets a road that is none of `avoided`.
  static func isReachable(
    _ network: RoadNetwork, _ node: Int, avoiding avoided: Set<RoadFeature>
  ) -> Bool {
    network.segments.contains { segment in
      (segment.fromNode == node || segment.toNode == node)
        && !avoided.contains { $0.contains(segment) }
    }
  }

  static func engine(_ network: RoadNetwork) throws -> RoutingEngine {
    RoutingEngine(
      trafficEngine: try TrafficEngine(
        store: InMemoryTrafficStore(), clock: { Date(timeIntervalSince1970: 1_800_000_000) },
        network: network))
  }

  static let avoidances: [Set<RoadFeature>] = [
    [], [.motorway], [.toll], [.motorway, .toll], [.ferry],
  ]

  @Test("a route avoiding motorways or tolls is the best route without them", arguments: 0..<6)
  func routesAreTheReference(seed: Int) async throws {
    let network = try Self.grid(seed: UInt64(seed))
    let router = try Self.engine(network)
    var avoidedSomething = false
    for avoided in Self.avoidances {
      var options = RouteOptions()
      options.avoidedFeatures = avoided
      for from in Self.corners {
        for to in Self.corners where to != from {
          guard Self.isReachable(network, from, avoiding: avoided),
            Self.isReachable(network, to, avoiding: avoided)
          else { continue }
          let expected = Self.reference(network, from: from, to: to, avoiding: avoided)
          let plain = Self.reference(network, from: from, to: to, avoiding: [])
          if expected > plain + 1 { avoidedSomething = true }
          do {
            let route = try #require(
              try await router.calculateRoute(
                from: network.nodes[from].coordinates, to: network.nodes[to].coordinates,
                options: options
              ).first)
            #expect(
              abs(route.durationInSeconds - expected) < 0.05,
              "seed \(seed) \(avoided) \(from)→\(to): \(route.durationInSeconds) s, not \(expected)"
            )
            let driven = route.sections.flatMap { $0.traffic.spans.map(\.segmentID) }
            #expect(
              !driven.contains { id in avoided.contains { $0.contains(network.segments[id]) } },
              "seed \(seed) \(avoided) \(from)→\(to) drives an avoided road")
          } catch RoutingError.noRoute {
            #expect(expected == .infinity, "seed \(seed) \(avoided) \(from)→\(to) has a route")
          }
        }
      }
    }
    // The grids are such that avoiding changes routes (the test checks something).
    if seed == 0 { #expect(avoidedSomething) }
  }

  @Test(
    "a table avoiding features has the cells of the routes avoiding them",
    arguments: [MatrixMethod.exact, .buckets], 0..<3)
  func tablesAreTheRoutes(method: MatrixMethod, seed: Int) async throws {
    let network = try Self.grid(seed: UInt64(seed) + 100)
    let router = try Self.engine(network)
    for avoided in Self.avoidances {
      var options = RouteOptions()
      options.avoidedFeatures = avoided
      let corners = Self.corners.filter { Self.isReachable(network, $0, avoiding: avoided) }
      let waypoints = corners.map { Waypoint(network.nodes[$0].coordinates) }
      guard !waypoints.isEmpty else { continue }
      let matrix = try router.matrix(
        origins: waypoints, destinations: waypoints, options: options, method: method)
      for (i, from) in corners.enumerated() {
        for (j, to) in corners.enumerated() where i != j {
          let expected = Self.reference(network, from: from, to: to, avoiding: avoided)
          let cell = matrix.travelTimesInSeconds[i][j]
          if expected.isFinite {
            let seconds = try #require(cell, "seed \(seed) \(avoided) \(from)→\(to): no cell")
            #expect(abs(seconds - expected) < 0.05, "seed \(seed) \(avoided) \(from)→\(to)")
          } else {
            #expect(cell == nil, "seed \(seed) \(avoided) \(from)→\(to): a cell without a route")
          }
        }
      }
    }
  }

  @Test("tables without avoidance keep their weights while others are customised")
  func plainWeightsStay() throws {
    let network = try Self.grid(seed: 7)
    let router = try Self.engine(network)
    let waypoints = Self.corners.map { Waypoint(network.nodes[$0].coordinates) }
    _ = try router.matrix(
      origins: waypoints, destinations: waypoints, options: RouteOptions(), method: .buckets)
    let plain = try #require(router.tableWeightsState.withLock { $0.current })
    for avoided in Self.avoidances where !avoided.isEmpty {
      var options = RouteOptions()
      options.avoidedFeatures = avoided
      _ = try router.matrix(
        origins: waypoints, destinations: waypoints, options: options, method: .buckets)
    }
    let (kept, count) = router.tableWeightsState.withLock { ($0.current, $0.weights.count) }
    #expect(kept === plain)
    #expect(count == 1 + RoutingEngine.avoidingTableWeightsLimit)
  }

  @Test("a waypoint on an avoided road meets the network on another road")
  func snapsAvoidTheFeature() async throws {
    let network = try Self.grid(seed: 0)
    let router = try Self.engine(network)
    let motorway = try #require(network.segments.first { $0.roadClass == .motorway })
    let middle = motorway.geometry.coordinates(atDistance: motorway.lengthInMeters / 2)
    let plain = try router.nearestRoads(to: middle, count: 1)
    #expect(plain.first?.distanceInMeters ?? 1 < 0.01)
    let avoiding = try router.nearestRoads(to: middle, count: 1, avoiding: [.motorway])
    #expect(avoiding.first?.distanceInMeters ?? 0 > 100)
  }
}
