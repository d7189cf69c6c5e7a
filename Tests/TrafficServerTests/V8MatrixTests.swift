import Codec
import Foundation
import Geo
import Testing
import Traffic
import TrafficRouting
import Zlib

@testable import TrafficServer

/// `POST /v8/matrix?async=false`: HERE Matrix Routing v8, synchronous, and its errors in
/// v8's shape.
@Suite struct V8MatrixTests {
  typealias F = FlowServerFixtures

  /// W, E, N and S of the crossing network (S is reached one way only: no route leaves it).
  static let places = [
    F.coordinates(east: 0), F.coordinates(east: 1000), F.coordinates(east: 500, north: 500),
    F.coordinates(east: 500, north: -500),
  ]

  static func json(_ points: [GeoCoordinates]) -> String {
    "["
      + points.map { "{\"lat\": \($0.latitude), \"lng\": \($0.longitude)}" }
      .joined(separator: ", ") + "]"
  }

  static func post(_ body: String, query: String = "?async=false") -> HTTPRequest {
    ServerFixtures.post("/v8/matrix" + query, body)
  }

  @Test func answersTheEmbeddedEnginesMatrixInV8Shape() async throws {
    let server = try F.server()
    let response = server.handle(
      Self.post(
        "{\"origins\": \(Self.json(Self.places)), \"regionDefinition\": {\"type\": \"world\"}, "
          + "\"matrixAttributes\": [\"travelTimes\", \"distances\"]}"))
    #expect(response.status == 200, "\(response.bodyText)")
    let body = try ServerFixtures.object(response.body)
    #expect((body["matrixId"] as? String)?.isEmpty == false)
    #expect((body["regionDefinition"] as? [String: Any])?["type"] as? String == "world")
    let matrix = try #require(body["matrix"] as? [String: Any])
    #expect(matrix["numOrigins"] as? Int == 4)
    #expect(matrix["numDestinations"] as? Int == 4)
    let times = try #require(matrix["travelTimes"] as? [Int])
    let distances = try #require(matrix["distances"] as? [Int])
    let codes = try #require(matrix["errorCodes"] as? [Int])
    let expected = try await RoutingEngine(trafficEngine: server.engine).calculateMatrix(
      origins: Self.places, destinations: Self.places)
    for row in 0..<4 {
      for column in 0..<4 {
        let k = 4 * row + column
        if let seconds = expected.travelTimesInSeconds[row][column],
          let meters = expected.distancesInMeters[row][column]
        {
          #expect(codes[k] == 0)
          #expect(times[k] == Int(seconds.rounded()), "cell \(row), \(column)")
          #expect(distances[k] == Int(meters.rounded()), "cell \(row), \(column)")
        } else {
          #expect(codes[k] == 1, "cell \(row), \(column): no route is code 1")
          #expect(times[k] == 0)
        }
      }
    }
    // S leads nowhere: its row has no route but to itself.
    #expect(codes[12..<15].allSatisfy { $0 == 1 })
    #expect(times[1] > 0)
  }

  @Test func distancesOnlyWhenAskedAndNoErrorCodesWhenEveryCellHasARoute() throws {
    let server = try F.server()
    let points = Array(Self.places.prefix(3))
    let response = server.handle(
      Self.post(
        "{\"origins\": \(Self.json(points)), \"destinations\": \(Self.json([points[1]])), "
          + "\"regionDefinition\": {\"type\": \"autoCircle\"}, \"departureTime\": \"any\"}"))
    #expect(response.status == 200, "\(response.bodyText)")
    let body = try ServerFixtures.object(response.body)
    let matrix = try #require(body["matrix"] as? [String: Any])
    #expect(matrix["numDestinations"] as? Int == 1)
    #expect((matrix["travelTimes"] as? [Int])?.count == 3)
    #expect(matrix["distances"] == nil)
    #expect(matrix["errorCodes"] == nil)
    // The autoCircle comes back as the circle it became, with v8's 10 km margin.
    let region = try #require(body["regionDefinition"] as? [String: Any])
    #expect(region["type"] as? String == "circle")
    #expect((region["radius"] as? Double ?? 0) > 10_000)
    let only = server.handle(
      Self.post(
        "{\"origins\": \(Self.json(points)), \"regionDefinition\": {\"type\": \"world\"}, "
          + "\"matrixAttributes\": [\"distances\"]}"))
    let onlyMatrix = try #require(
      try ServerFixtures.object(only.body)["matrix"] as? [String: Any])
    #expect(onlyMatrix["travelTimes"] == nil)
    #expect((onlyMatrix["distances"] as? [Int])?.count == 9)
  }

  @Test func aWaypointOutsideTheRegionOrOffTheNetworkGetsCode4() throws {
    let server = try F.server()
    // A box around W and E (1 km east of W), not N (500 m north).
    let w = Self.places[0]
    let e = Self.places[1]
    let box =
      "{\"type\": \"boundingBox\", \"north\": \(w.latitude + 0.001), \"south\": "
      + "\(w.latitude - 0.001), \"west\": \(w.longitude - 0.001), \"east\": \(e.longitude + 0.001)}"
    let far = GeoCoordinates(uncheckedLatitude: 53, longitude: 13)
    let response = server.handle(
      Self.post(
        "{\"origins\": \(Self.json([w, Self.places[2], e])), \"destinations\": "
          + "\(Self.json([e, w, far])), \"regionDefinition\": \(box)}"))
    #expect(response.status == 200, "\(response.bodyText)")
    let matrix = try #require(
      try ServerFixtures.object(response.body)["matrix"] as? [String: Any])
    let codes = try #require(matrix["errorCodes"] as? [Int])
    // Row 1 (N) is outside the box; column 2 (53° N) is outside and off the network.
    #expect(codes == [0, 0, 4, 4, 4, 4, 0, 0, 4])
    // Off the network but inside the region: code 2 (no valid start or end), not a failed
    // request.
    let world = server.handle(
      Self.post(
        "{\"origins\": \(Self.json([w, far])), \"regionDefinition\": {\"type\": \"world\"}}"))
    #expect(world.status == 200, "\(world.bodyText)")
    let worldMatrix = try #require(
      try ServerFixtures.object(world.body)["matrix"] as? [String: Any])
    #expect(worldMatrix["errorCodes"] as? [Int] == [0, 2, 2, 2])
  }

  @Test func aGzippedBodyIsRead() throws {
    let server = try F.server()
    let body =
      "{\"origins\": \(Self.json(Array(Self.places.prefix(2)))), \"regionDefinition\": "
      + "{\"type\": \"world\"}}"
    let response = server.handle(Self.gzipped(Gzip.compress(Data(body.utf8))))
    #expect(response.status == 200, "\(response.bodyText)")
  }

  /// A matrix request whose body is said to be gzip.
  static func gzipped(_ body: Data) -> HTTPRequest {
    var headers = HTTPHeaders()
    headers.add("Content-Encoding", "gzip")
    headers.add("Content-Type", "application/json")
    return HTTPRequest(
      method: "POST", target: "/v8/matrix?async=false", headers: headers, body: body)
  }

  /// A body that cannot be inflated is malformed, in v8's shape.
  @Test func aBrokenGzipBodyIsAV8Error() throws {
    let server = try F.server()
    let response = server.handle(Self.gzipped(Data("not gzip at all".utf8)))
    #expect(response.status == 400)
    let body = try ServerFixtures.object(response.body)
    #expect(body["code"] as? String == "E605001", "\(response.bodyText)")
    #expect(body["cause"] is String)
  }

  static let one = "{\"lat\": 52, \"lng\": 13}"

  @Test(arguments: [
    ("{", "?async=false", "not JSON"),
    ("{\"regionDefinition\": {\"type\": \"world\"}}", "?async=false", "origins is required"),
    (
      "{\"origins\": [\(one)], \"regionDefinition\": {\"type\": \"polygon\"}}", "?async=false",
      "type polygon is not supported"
    ),
    (
      "{\"origins\": [\(one)], \"regionDefinition\": {\"type\": \"hexagon\"}}", "?async=false",
      "regionDefinition type \"hexagon\" is unknown"
    ),
    (
      "{\"origins\": [\(one)], \"regionDefinition\": {\"type\": \"world\"}, "
        + "\"transportMode\": \"pedestrian\"}", "?async=false",
      "transportMode pedestrian is not supported"
    ),
    (
      "{\"origins\": [\(one)], \"regionDefinition\": {\"type\": \"world\"}}", "",
      "async=false is required"
    ),
    (
      "{\"origins\": [\(one)], \"regionDefinition\": {\"type\": \"world\"}}", "?async=true",
      "only synchronous matrices"
    ),
    (
      "{\"origins\": [{\"lat\": 91, \"lng\": 13}], \"regionDefinition\": {\"type\": \"world\"}}",
      "?async=false", "origins[0] (91.0, 13.0)"
    ),
    (
      "{\"origins\": [\(one)], \"regionDefinition\": {\"type\": \"world\"}, \"avoid\": {\"areas\": []}}",
      "?async=false", "avoid has an unsupported member areas"
    ),
    (
      "{\"origins\": [\(one)], \"regionDefinition\": {\"type\": \"world\"}}",
      "?async=false&color=red", "unknown parameter"
    ),
    (
      "{\"origins\": [\(one)], \"regionDefinition\": {\"type\": \"world\"}, "
        + "\"departureTime\": \"9999-12-31T23:59:59Z\"}", "?async=false",
      "departureTime must lie before the year 5000"
    ),
  ])
  func badInputIsA400InV8Shape(_ body: String, _ query: String, _ mention: String) throws {
    let server = try F.server()
    let response = server.handle(Self.post(body, query: query))
    #expect(response.status == 400, "\(response.bodyText)")
    let error = try ServerFixtures.object(response.body)
    #expect(error["code"] as? String == "E605001")
    #expect(error["title"] as? String == "Malformed request")
    #expect(error["status"] as? Int == 400)
    #expect(error["action"] is String)
    #expect(error["correlationId"] is String)
    #expect((error["cause"] as? String)?.contains(mention) == true, "\(response.bodyText)")
  }

  @Test func tooManyCellsAreA400NamingTheCount() throws {
    let server = try F.server()
    let origins = Self.json(Array(repeating: Self.places[0], count: 101))
    let destinations = Self.json(Array(repeating: Self.places[1], count: 100))
    let response = server.handle(
      Self.post(
        "{\"origins\": \(origins), \"destinations\": \(destinations), "
          + "\"regionDefinition\": {\"type\": \"world\"}}"))
    #expect(response.status == 400)
    #expect(response.bodyText.contains("10100 cells, more than the 10000 allowed"))
  }

  @Test func onlyPostIsAnsweredAndWithoutANetworkTheAnswerIs404() throws {
    let server = try F.server()
    #expect(server.handle(ServerFixtures.get("/v8/matrix?async=false")).status == 405)
    let bare = try TrafficServer(engine: TrafficEngine(store: InMemoryTrafficStore()))
    let response = bare.handle(
      Self.post("{\"origins\": [\(Self.one)], \"regionDefinition\": {\"type\": \"world\"}}"))
    #expect(response.status == 404)
    #expect(response.bodyText.contains("E605101"))
  }

  @Test func matricesWaitInTheRoutesLane() throws {
    let server = try F.server()
    let request = Self.post("{}")
    #expect(server.admission(for: request)?.lane == .routes)
  }
}

/// The remote `RoutingEngine`'s matrices, asked of a server's `/v8/matrix`.
@Suite(.serialized) struct RemoteMatrixTests {
  typealias F = FlowServerFixtures

  @Test func aRemoteEnginesMatrixIsTheEmbeddedOnesCellByCell() async throws {
    let server = try F.server(configuration: HTTPFrontEndTests.quietLoopback())
    try server.start()
    defer { server.stop() }
    let port = try #require(server.port)
    let remote = RoutingEngine(
      trafficEngine: try TrafficEngine(server: #require(URL(string: "http://127.0.0.1:\(port)"))))
    let local = RoutingEngine(trafficEngine: server.engine)
    let places = V8MatrixTests.places
    let through = try await remote.calculateMatrix(origins: places, destinations: places)
    let expected = try await local.calculateMatrix(origins: places, destinations: places)
    #expect(through.travelTimesInSeconds.count == 4)
    for row in 0..<4 {
      for column in 0..<4 {
        #expect(
          through.travelTimesInSeconds[row][column]
            == expected.travelTimesInSeconds[row][column]?.rounded(), "cell \(row), \(column)")
        #expect(
          through.distancesInMeters[row][column]
            == expected.distancesInMeters[row][column]?.rounded(), "cell \(row), \(column)")
      }
    }
    #expect(through.origins.map(\.originalLocation) == places)
    // Planning mode goes through as departureTime=any.
    var planning = RouteOptions()
    planning.trafficOptimization = .longTermClosuresOnly
    let planned = try await remote.calculateMatrix(
      origins: [places[0]], destinations: [places[1]], options: planning)
    let plannedLocally = try await local.calculateMatrix(
      origins: [places[0]], destinations: [places[1]], options: planning)
    #expect(
      planned.travelTimesInSeconds[0][0] == plannedLocally.travelTimesInSeconds[0][0]?.rounded())
    // A waypoint off the network fails as it does locally, with its index.
    let far = GeoCoordinates(uncheckedLatitude: 53, longitude: 13)
    await #expect(throws: RoutingError.placeOffNetwork(index: 1, far, radiusInMeters: 1_000)) {
      try await remote.calculateMatrix(origins: [places[0]], destinations: [far])
    }
    // Bad options are refused before asking, as locally.
    await #expect(throws: RoutingError.self) {
      try await remote.calculateMatrix(
        origins: [places[0]], destinations: [places[1]], options: RouteOptions(alternatives: 1))
    }
  }

  @Test func anUnreachableServerIsUnreachableWithTheTransportsError() async throws {
    let remote = RoutingEngine(
      trafficEngine: try TrafficEngine(server: try #require(URL(string: "http://127.0.0.1:9"))))
    let west = V8MatrixTests.places[0]
    do {
      _ = try await remote.calculateMatrix(origins: [west], destinations: [west])
      Issue.record("an unreachable server answered a matrix")
    } catch {
      guard case .unreachable(.serverUnreachable) = error else {
        Issue.record("not the server unreachable: \(error)")
        return
      }
    }
  }
}
