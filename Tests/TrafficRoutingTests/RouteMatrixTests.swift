import Foundation
import Geo
import Roads
import Synchronization
import Testing
import Traffic
import TrafficRouting
import TrafficTestSupport

/// Travel-time matrices against an independent reference: every cell is the route
/// `calculateRoute` (the A* of a route's legs) finds for the same pair, on free and on live
/// traffic.
@Suite struct RouteMatrixTests {
  static let now = RoutingEngineTests.now

  /// Every cell of `matrix` against the route `router` finds for its pair: the same seconds
  /// and meters, or no route for `nil`.
  static func expectCellsMatchRoutes(
    _ matrix: RouteMatrix, origins: [GeoCoordinates], destinations: [GeoCoordinates],
    router: RoutingEngine, options: RouteOptions = RouteOptions()
  ) async throws {
    #expect(matrix.travelTimesInSeconds.count == origins.count)
    #expect(matrix.distancesInMeters.count == origins.count)
    for (row, origin) in origins.enumerated() {
      #expect(matrix.travelTimesInSeconds[row].count == destinations.count)
      for (column, destination) in destinations.enumerated() {
        let seconds = matrix.travelTimesInSeconds[row][column]
        let meters = matrix.distancesInMeters[row][column]
        let routes: [Route]
        do {
          routes = try await router.calculateRoute(
            from: origin, to: destination, options: options)
        } catch .noRoute {
          #expect(seconds == nil, "\(row) to \(column): the route found none")
          #expect(meters == nil)
          continue
        }
        let route = try #require(routes.first)
        let found = try #require(seconds, "\(row) to \(column): the route found one")
        let driven = try #require(meters)
        let reference = route.durationInSeconds
        #expect(
          abs(found - reference) <= 1e-6 * max(1, reference),
          "\(row) to \(column): \(found) s, the route \(reference) s")
        #expect(
          abs(driven - route.lengthInMeters) <= 1e-6 * max(1, route.lengthInMeters),
          "\(row) to \(column): \(driven) m, the route \(route.lengthInMeters) m")
      }
    }
  }

  @Test("on a real network every cell is the route found for its pair")
  func cellsAreTheRoutesOnARealNetwork() async throws {
    let network = try #require(RoutingEngineTests.liechtenstein)
    let router = RoutingEngine(trafficEngine: try RoutingEngineTests.engine(network: network))
    var generator = SeededGenerator(seed: 54)
    func randomPoint() -> GeoCoordinates {
      network.nodes[Int.random(in: 0..<network.nodes.count, using: &generator)].coordinates
    }
    let origins = (0..<10).map { _ in randomPoint() }
    let destinations = (0..<10).map { _ in randomPoint() }
    let clock = ContinuousClock()
    var matrix: RouteMatrix?
    let elapsed = try await clock.measure {
      matrix = try await router.calculateMatrix(origins: origins, destinations: destinations)
    }
    let table = try #require(matrix)
    // The first query builds the network's routing bounds; the second only searches.
    let again = try await clock.measure {
      _ = try await router.calculateMatrix(origins: origins, destinations: destinations)
    }
    print("10 x 10 matrix on Liechtenstein: \(elapsed) (bounds built), then \(again)")
    try await Self.expectCellsMatchRoutes(
      table, origins: origins, destinations: destinations, router: router)
    #expect(table.travelTimesInSeconds.joined().contains { $0 != nil })
    #expect(table.origins.count == 10 && table.destinations.count == 10)
    // Without traffic, too.
    let disabled = RouteOptions(trafficOptimization: .disabled)
    let free = try await router.calculateMatrix(
      origins: origins, destinations: destinations, options: disabled)
    try await Self.expectCellsMatchRoutes(
      free, origins: origins, destinations: destinations, router: router, options: disabled)
  }

  @Test("on typical weeks, departures now, hours and a week ahead give the routes' times")
  func timeDependentCellsAreTheRoutes() async throws {
    let (engine, scenario, network) = try TypicalRoutingTests.engine()
    let router = RoutingEngine(trafficEngine: engine)
    let road = network.segments[scenario.roadA]
    var generator = SeededGenerator(seed: 7)
    let points =
      [
        road.geometry.coordinates(atDistance: 50),
        road.geometry.coordinates(atDistance: road.lengthInMeters - 50),
      ]
      + (0..<3).map { _ in
        network.nodes[Int.random(in: 0..<network.nodes.count, using: &generator)].coordinates
      }
    for departure in [nil, Self.now + 6 * 3_600, Self.now + 7 * 86_400] as [Date?] {
      let options = RouteOptions(departureTime: departure)
      let matrix = try await router.calculateMatrix(
        origins: points, destinations: points, options: options)
      try await Self.expectCellsMatchRoutes(
        matrix, origins: points, destinations: points, router: router, options: options)
    }
    // Along the weekly jam: slow now, fast six hours on.
    let now = try #require(
      try await router.calculateMatrix(origins: [points[0]], destinations: [points[1]])
        .travelTimesInSeconds[0][0])
    let later = try #require(
      try await router.calculateMatrix(
        origins: [points[0]], destinations: [points[1]],
        options: RouteOptions(departureTime: Self.now + 6 * 3_600)
      ).travelTimesInSeconds[0][0])
    #expect(later < now / 2)
  }

  @Test("the way across a junction a network leaves out of its segments takes time and meters")
  func junctionGapsCountAsInRoutes() async throws {
    let network = try GappedNetwork.network(gap: 100)
    let router = RoutingEngine(trafficEngine: try RoutingEngineTests.engine(network: network))
    let points = [CrossingNetwork.coordinates(east: 10), CrossingNetwork.coordinates(east: 990)]
    let matrix = try await router.calculateMatrix(origins: points, destinations: points)
    try await Self.expectCellsMatchRoutes(
      matrix, origins: points, destinations: points, router: router)
    // 980 m at the limit, of which 880 m on segments and 100 m across the junction.
    let seconds = try #require(matrix.travelTimesInSeconds[0][1])
    #expect(abs(seconds - 980 / CrossingNetwork.speedLimitInMetersPerSecond) < 0.5)
    let meters = try #require(matrix.distancesInMeters[0][1])
    #expect(abs(meters - 980) < 1)
  }

  /// The crossing's five ends and two points along W–B.
  static let crossingPoints = [
    CrossingNetwork.coordinates(east: 0), CrossingNetwork.coordinates(east: 1000),
    CrossingNetwork.coordinates(east: 500, north: 500),
    CrossingNetwork.coordinates(east: 500, north: -500), CrossingNetwork.coordinates(east: 100),
    CrossingNetwork.coordinates(east: 300),
  ]

  @Test("a place to itself is 0, one further along the same road its stretch, a dead end nil")
  func sameSegmentAndUnreachable() async throws {
    let network = try CrossingNetwork.network()
    let router = RoutingEngine(trafficEngine: try RoutingEngineTests.engine(network: network))
    let points = Self.crossingPoints
    let matrix = try await router.calculateMatrix(
      origins: points.map { Waypoint($0) }, destinations: points.map { Waypoint($0) })
    try await Self.expectCellsMatchRoutes(
      matrix, origins: points, destinations: points, router: router)
    for index in points.indices {
      #expect(matrix.travelTimesInSeconds[index][index] == 0)
      #expect(matrix.distancesInMeters[index][index] == 0)
    }
    // 100 m to 300 m east on W→B, and back on B→W: 200 m each way.
    let limit = CrossingNetwork.speedLimitInMetersPerSecond
    for (row, column) in [(4, 5), (5, 4)] {
      let meters = try #require(matrix.distancesInMeters[row][column])
      #expect(abs(meters - 200) < 0.5)
      let seconds = try #require(matrix.travelTimesInSeconds[row][column])
      #expect(abs(seconds - 200 / limit) < 0.05)
    }
    // S is the end of the one-way B→S: reached from everywhere, left to nowhere.
    #expect(matrix.travelTimesInSeconds[3] == [nil, nil, nil, 0, nil, nil])
    #expect(matrix.distancesInMeters[3] == [nil, nil, nil, 0, nil, nil])
    #expect(matrix.travelTimesInSeconds.allSatisfy { $0[3] != nil })
    // The places as routed: on the road, as far from the points asked as they are.
    #expect(matrix.origins[4].distanceInMeters < 1)
    #expect(matrix.destinations[2].originalLocation == points[2])
  }

  @Test("a live queue and a closure change the cells as they change the routes")
  func liveTrafficChangesCellsAsRoutes() async throws {
    let network = try CrossingNetwork.network()
    let points = Self.crossingPoints
    let waypoints = points.map { Waypoint($0) }
    let free = try await RoutingEngine(
      trafficEngine: try RoutingEngineTests.engine(network: network)
    ).calculateMatrix(origins: waypoints, destinations: waypoints)

    // Three vehicles stand in a queue 200 m into B→E for ten minutes (as in
    // RoutingEngineTests): B→E is driven at a crawl.
    let engine = try RoutingEngineTests.standingQueueEngine(network: network)
    let jammedRouter = RoutingEngine(trafficEngine: engine)
    let jammed = try await jammedRouter.calculateMatrix(origins: waypoints, destinations: waypoints)
    try await Self.expectCellsMatchRoutes(
      jammed, origins: points, destinations: points, router: jammedRouter)
    // W to E drives through the queue: far slower, as long.
    let before = try #require(free.travelTimesInSeconds[0][1])
    let after = try #require(jammed.travelTimesInSeconds[0][1])
    #expect(after > before + 500)
    #expect(jammed.distancesInMeters[0][1] == free.distancesInMeters[0][1])
    // E to W does not: unchanged.
    #expect(jammed.travelTimesInSeconds[1][0] == free.travelTimesInSeconds[1][0])

    // The road from B to E closed (no other way leads to E): no route from W to E.
    let closure = try TrafficIncident(
      id: "closed", type: .roadClosure, impact: .critical, isRoadClosed: true,
      location: TrafficLocation(
        polyline: GeoPolyline(vertices: [
          CrossingNetwork.coordinates(east: 600), CrossingNetwork.coordinates(east: 900),
        ])))
    let closedRouter = RoutingEngine(
      trafficEngine: try RoutingEngineTests.engine(network: network, incidents: [closure]))
    let closed = try await closedRouter.calculateMatrix(origins: waypoints, destinations: waypoints)
    try await Self.expectCellsMatchRoutes(
      closed, origins: points, destinations: points, router: closedRouter)
    #expect(closed.travelTimesInSeconds[0][1] == nil)
    #expect(closed.distancesInMeters[0][1] == nil)
  }

  @Test("too many cells, no places, a place off the network, a serverless remote are refused")
  func refusesBadInput() async throws {
    let network = try CrossingNetwork.network()
    let router = RoutingEngine(trafficEngine: try RoutingEngineTests.engine(network: network))
    let west = Waypoint(CrossingNetwork.coordinates(east: 0))
    await #expect(
      throws: RoutingError.invalidOption(
        "a matrix of 101 origins × 100 destinations has 10100 cells, more than the 10000 allowed")
    ) {
      try await router.calculateMatrix(
        origins: Array(repeating: west, count: 101),
        destinations: Array(repeating: west, count: 100))
    }
    await #expect(throws: RoutingError.self) {
      try await router.calculateMatrix(origins: [], destinations: [west])
    }
    let far = GeoCoordinates(uncheckedLatitude: 53, longitude: 13)
    await #expect(
      throws: RoutingError.placeOffNetwork(index: 1, far, radiusInMeters: 1_000)
    ) {
      try await router.calculateMatrix(origins: [west, Waypoint(far)], destinations: [west])
    }
    // A destination's index counts after the origins.
    await #expect(
      throws: RoutingError.placeOffNetwork(index: 2, far, radiusInMeters: 1_000)
    ) {
      try await router.calculateMatrix(origins: [west, west], destinations: [Waypoint(far)])
    }
    await #expect(throws: RoutingError.self) {
      try await router.calculateMatrix(
        origins: [west], destinations: [west], options: RouteOptions(alternatives: 1))
    }
    let remote = RoutingEngine(
      trafficEngine: try TrafficEngine(server: try #require(URL(string: "http://127.0.0.1:9"))))
    // A remote engine asks its server (here none): a remote error.
    do {
      _ = try await remote.calculateMatrix(origins: [west], destinations: [west])
      Issue.record("a remote engine without a server computed a matrix")
    } catch {
      #expect(error.description.contains("cannot be reached"), "\(error)")
    }
  }
}
