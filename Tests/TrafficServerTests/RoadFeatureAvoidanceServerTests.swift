import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficRouting
import TrafficTestSupport

@testable import TrafficServer

/// OSRM's `exclude` and HERE v8's `avoid[features]` over a real loopback socket, on a grid
/// where the fastest routes take motorways and toll roads: each endpoint's answer is the best
/// one without them (a brute-force Dijkstra), and what the car profile cannot exclude is
/// refused with osrm-routed's error.
@Suite(.serialized) struct RoadFeatureAvoidanceServerTests {
  typealias Fetch = HTTPFrontEndTests

  /// The grid, and a pair of corners whose fastest route takes a motorway and whose best
  /// route without motorways is slower, with both times.
  static func scenario() throws -> (
    network: RoadNetwork, from: Int, to: Int, fastest: Double, withoutMotorways: Double
  ) {
    let network = try FeatureGrid.network(seed: 0)
    for from in FeatureGrid.corners {
      for to in FeatureGrid.corners where to != from {
        let fastest = FeatureGrid.reference(network, from: from, to: to)
        let without = FeatureGrid.reference(network, from: from, to: to, motorways: false)
        if without.isFinite, without > fastest + 10 {
          return (network, from, to, fastest, without)
        }
      }
    }
    throw ScenarioMissing()
  }

  struct ScenarioMissing: Error {}

  static func started(_ network: RoadNetwork) throws -> (TrafficServer, Int) {
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { Date() }, network: network)
    let server = try TrafficServer(engine: engine, configuration: Fetch.quietLoopback())
    try server.start()
    return (server, try #require(server.port))
  }

  static func object(_ data: Data) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  @Test func osrmRoutesTablesAndNearestLeaveOutTheExcludedClass() async throws {
    let (network, from, to, fastest, without) = try Self.scenario()
    let (server, port) = try Self.started(network)
    defer { server.stop() }
    let a = network.nodes[from].coordinates
    let b = network.nodes[to].coordinates
    let path = "\(a.longitude),\(a.latitude);\(b.longitude),\(b.latitude)"

    func duration(_ query: String) async throws -> Double {
      let answer = try await Fetch.fetch(port, "/route/v1/driving/\(path)\(query)")
      #expect(answer.status == 200)
      let routes = try #require(try Self.object(answer.body)["routes"] as? [[String: Any]])
      return try #require(routes.first?["duration"] as? Double)
    }
    #expect(abs(try await duration("") - fastest) < 0.1)
    #expect(abs(try await duration("?exclude=motorway") - without) < 0.1)

    let table = try await Fetch.fetch(port, "/table/v1/driving/\(path)?exclude=motorway")
    #expect(table.status == 200)
    let durations = try #require(try Self.object(table.body)["durations"] as? [[Any]])
    #expect(abs((durations[0][1] as? Double ?? 0) - without) < 0.1)

    let motorway = try #require(network.segments.first { $0.roadClass == .motorway })
    let middle = motorway.geometry.coordinates(atDistance: motorway.lengthInMeters / 2)
    let nearest = try await Fetch.fetch(
      port, "/nearest/v1/driving/\(middle.longitude),\(middle.latitude)?exclude=motorway")
    #expect(nearest.status == 200)
    let waypoints = try #require(try Self.object(nearest.body)["waypoints"] as? [[String: Any]])
    #expect((waypoints.first?["distance"] as? Double ?? 0) > 100)

    let refused = try await Fetch.fetch(
      port, "/route/v1/driving/\(path)?exclude=motorway,toll")
    #expect(refused.status == 400)
    let error = try Self.object(refused.body)
    #expect(error["code"] as? String == "InvalidValue")
    #expect(error["message"] as? String == "Exclude flag combination is not supported.")
  }

  @Test func v8RoutesAndMatricesAvoidFeatures() async throws {
    let (network, from, to, _, without) = try Self.scenario()
    let (server, port) = try Self.started(network)
    defer { server.stop() }
    let a = network.nodes[from].coordinates
    let b = network.nodes[to].coordinates
    let route = try await Fetch.fetch(
      port,
      "/v8/routes?transportMode=car&origin=\(a.latitude),\(a.longitude)"
        + "&destination=\(b.latitude),\(b.longitude)&avoid[features]=controlledAccessHighway")
    #expect(route.status == 200)
    let routes = try #require(try Self.object(route.body)["routes"] as? [[String: Any]])
    let sections = try #require(routes.first?["sections"] as? [[String: Any]])
    let summary = try #require(sections.first?["summary"] as? [String: Any])
    #expect(abs((summary["duration"] as? Double ?? 0) - without) <= 1)

    let unsupported = try await Fetch.fetch(
      port,
      "/v8/routes?transportMode=car&origin=\(a.latitude),\(a.longitude)"
        + "&destination=\(b.latitude),\(b.longitude)&avoid[features]=tunnel")
    #expect(unsupported.status == 400)
    #expect(
      String(decoding: unsupported.body, as: UTF8.self).contains(
        "give controlledAccessHighway, tollRoad, ferry"))

    let body = """
      {"origins": [{"lat": \(a.latitude), "lng": \(a.longitude)}],
       "destinations": [{"lat": \(b.latitude), "lng": \(b.longitude)}],
       "regionDefinition": {"type": "world"},
       "avoid": {"features": ["controlledAccessHighway"]}}
      """
    let matrix = try await Fetch.fetch(
      port, "/v8/matrix?async=false", method: "POST",
      headers: ["Content-Type": "application/json"], body: Data(body.utf8))
    #expect(matrix.status == 200)
    let cells = try #require(try Self.object(matrix.body)["matrix"] as? [String: Any])
    let times = try #require(cells["travelTimes"] as? [Double])
    #expect(abs(times[0] - without) <= 1)
  }

  /// One two-way motorway, about 1.1 km: no route avoids it.
  static func motorwayOnly() throws -> RoadNetwork {
    let nodes = try [(52.5, 13.4), (52.51, 13.4)].enumerated().map { k, place in
      RoadNode(
        id: k, sourceID: "\(k)",
        coordinates: try GeoCoordinates(latitude: place.0, longitude: place.1))
    }
    let segments = try [(0, 1), (1, 0)].enumerated().map { id, ends in
      RoadSegment(
        id: id, sourceID: "1", fromNode: ends.0, toNode: ends.1,
        geometry: try GeoPolyline(vertices: [
          nodes[ends.0].coordinates, nodes[ends.1].coordinates,
        ]), roadClass: .motorway,
        speedLimit: SpeedLimit(metersPerSecond: 33, source: .posted), isReversed: id == 1,
        oppositeID: 1 - id)
    }
    return try RoadNetwork(nodes: nodes, segments: segments)
  }

  @Test func v8DrivesWhatCannotBeAvoidedWithANoticeAndTheRemoteEngineRefusesIt() async throws {
    let (server, port) = try Self.started(try Self.motorwayOnly())
    defer { server.stop() }
    let target =
      "/v8/routes?transportMode=car&origin=52.5001,13.4&destination=52.5099,13.4"
      + "&avoid[features]=controlledAccessHighway,tollRoad"
    let answer = try await Fetch.fetch(port, target)
    #expect(answer.status == 200)
    let routes = try #require(try Self.object(answer.body)["routes"] as? [[String: Any]])
    let sections = try #require(routes.first?["sections"] as? [[String: Any]])
    let notices = try #require(sections.first?["notices"] as? [[String: Any]])
    // The motorway is driven, no toll road.
    #expect(notices.map { $0["code"] as? String } == ["violatedAvoidControlledAccessHighway"])
    #expect(notices.first?["severity"] as? String == "critical")
    // OSRM's exclude is no preference: no route.
    let osrm = try await Fetch.fetch(
      port, "/route/v1/driving/13.4,52.5001;13.4,52.5099?exclude=motorway")
    #expect(osrm.status == 400)
    #expect(try Self.object(osrm.body)["code"] as? String == "NoSegment")
    // The SDK's avoidance is no preference either: a remote engine finds no route.
    let remote = RoutingEngine(
      trafficEngine: try TrafficEngine(server: #require(URL(string: "http://127.0.0.1:\(port)"))))
    var options = RouteOptions()
    options.avoidedFeatures = [.motorway]
    await #expect(throws: RoutingError.noRoute(fromIndex: 0, toIndex: 1)) {
      try await remote.calculateRoute(
        from: GeoCoordinates(uncheckedLatitude: 52.5001, longitude: 13.4),
        to: GeoCoordinates(uncheckedLatitude: 52.5099, longitude: 13.4), options: options)
    }
  }
}
