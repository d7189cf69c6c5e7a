import Foundation
import Geo
import Testing
import Traffic
import TrafficRouting

@testable import TrafficServer

/// `GET /v8/routes`: the HERE Routing API v8 subset, and its errors in v8's shape.
@Suite struct V8RoutesTests {
  typealias F = FlowServerFixtures

  static let westToEast =
    "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01456"
    + "&return=summary,polyline,incidents&spans=length,duration,dynamicSpeedInfo"

  @Test func answersTheRoutingEnginesRouteInV8Shape() async throws {
    let server = try F.server()
    let response = server.handle(ServerFixtures.get(Self.westToEast))
    #expect(response.status == 200, "\(response.bodyText)")
    let body = try ServerFixtures.object(response.body)
    let routes = try #require(body["routes"] as? [[String: Any]])
    #expect(routes.count == 1)
    let sections = try #require(routes[0]["sections"] as? [[String: Any]])
    let section = try #require(sections.first)
    let summary = try #require(section["summary"] as? [String: Any])
    let expected = try await RoutingEngine(trafficEngine: server.engine).calculateRoute(
      from: GeoCoordinates(latitude: 52, longitude: 13),
      to: GeoCoordinates(latitude: 52, longitude: 13.01456))
    let route = try #require(expected.first)
    #expect(summary["duration"] as? Int == Int(route.durationInSeconds.rounded()))
    #expect(summary["length"] as? Int == Int(route.lengthInMeters.rounded()))
    #expect(summary["baseDuration"] as? Int == Int(route.baseDurationInSeconds.rounded()))
    let polyline = try #require(section["polyline"] as? String)
    let decoded = try FlexiblePolyline.decode(polyline).coordinates
    #expect(decoded.count == route.sections[0].polyline.vertices.count)
    let spans = try #require(section["spans"] as? [[String: Any]])
    #expect(spans.count == route.sections[0].traffic.spans.count)
    #expect(spans.first?["offset"] as? Int == 0)
    #expect(
      (spans.first?["dynamicSpeedInfo"] as? [String: Any])?["baseSpeed"] as? Double == F.limit)
    let departure = try #require(section["departure"] as? [String: Any])
    #expect(departure["time"] is String)
    #expect((section["transport"] as? [String: Any])?["mode"] as? String == "car")
    #expect(section["incidents"] as? [Any] != nil)
  }

  @Test(arguments: [
    ("/v8/routes?origin=52,13&destination=52,13.01", 400, "transportMode is required"),
    ("/v8/routes?transportMode=truck&origin=52,13&destination=52,13.01", 400, "truck"),
    ("/v8/routes?transportMode=car&destination=52,13.01", 400, "origin is required"),
    ("/v8/routes?transportMode=car&origin=52,13", 400, "destination is required"),
    ("/v8/routes?transportMode=car&origin=95,13&destination=52,13.01", 400, "origin 95,13"),
    ("/v8/routes?transportMode=car&origin=a,b&destination=52,13.01", 400, "is not LAT,LNG"),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01&alternatives=9", 400,
      "alternatives must be 0...3"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01&return=actions", 400,
      "return actions"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01&departureTime=soon", 400,
      "departureTime soon"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01&bogus=1", 400,
      "unknown parameter bogus"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&origin=52,13&destination=52,13.01", 400,
      "given more than once"
    ),
    (
      "/v8/routes?transportMode=car&origin=10,10&destination=52,13.01", 400,
      "more than 1000 m from any road"
    ),
  ])
  func refusesBadRequestsInV8Shape(target: String, status: Int, mentions: String) throws {
    let server = try F.server()
    let response = server.handle(ServerFixtures.get(target))
    #expect(response.status == status)
    let body = try ServerFixtures.object(response.body)
    #expect(body["status"] as? Int == status)
    #expect((body["cause"] as? String)?.contains(mentions) == true, "\(response.bodyText)")
    #expect(body["title"] is String)
    #expect(body["code"] is String)
    #expect((body["correlationId"] as? String)?.isEmpty == false)
  }

  @Test func withoutARoadNetworkTheAnswerIs404() throws {
    let server = try TrafficServer(engine: TrafficEngine(store: InMemoryTrafficStore()))
    let response = server.handle(
      ServerFixtures.get("/v8/routes?transportMode=car&origin=52,13&destination=52,13.01"))
    #expect(response.status == 404)
    #expect(response.bodyText.contains("no road network"))
  }
}

/// The v8 answer read back (`V8RouteWire.decode`), and the remote `RoutingEngine`, which
/// asks a server's `/v8/routes`.
@Suite(.serialized) struct RemoteRoutingTests {
  typealias F = FlowServerFixtures

  static let west = F.coordinates(east: 0)
  static let east = F.coordinates(east: 1000)

  @Test func theAnswerReadsBackIntoTheSameRoutes() async throws {
    let server = try F.server()
    let routes = try await RoutingEngine(trafficEngine: server.engine).calculateRoute(
      from: Self.west, to: Self.east)
    let data = V8RouteWire.encode(
      routes, returning: [.summary, .polyline, .incidents],
      spans: [.length, .duration, .dynamicSpeedInfo])
    let decoded = try V8RouteWire.decode(data)
    #expect(decoded.count == routes.count)
    for (read, written) in zip(decoded, routes) {
      #expect(read.sections.count == written.sections.count)
      for (a, b) in zip(read.sections, written.sections) {
        #expect(a.durationInSeconds == b.durationInSeconds.rounded())
        #expect(a.lengthInMeters == b.lengthInMeters.rounded())
        #expect(a.baseDurationInSeconds == b.baseDurationInSeconds.rounded())
        #expect(abs(a.departure.time.timeIntervalSince(b.departure.time)) < 0.001)
        #expect(a.polyline.vertices.count == b.polyline.vertices.count)
        for (p, q) in zip(a.polyline.vertices, b.polyline.vertices) {
          #expect(p.distance(to: q) < 1)
        }
        #expect(
          a.traffic.spans.map(\.trafficSpeedInMetersPerSecond)
            == b.traffic.spans.map { ($0.trafficSpeedInMetersPerSecond * 100).rounded() / 100 })
        #expect(
          a.traffic.incidents.map(\.incident.originalId)
            == b.traffic.incidents.map(\.incident.originalId))
      }
    }
    #expect(throws: RoutingError.self) { try V8RouteWire.decode(Data("{\"routes\": 3}".utf8)) }
    #expect(throws: RoutingError.self) { try V8RouteWire.decode(Data("nope".utf8)) }
  }

  @Test func aRemoteEngineRoutesThroughItsServer() async throws {
    let server = try F.server(configuration: HTTPFrontEndTests.quietLoopback())
    try server.start()
    defer { server.stop() }
    let port = try #require(server.port)
    let remote = try TrafficEngine(server: #require(URL(string: "http://127.0.0.1:\(port)")))
    let router = RoutingEngine(trafficEngine: remote)
    let through = try await router.calculateRoute(from: Self.west, to: Self.east)
    let local = try await RoutingEngine(trafficEngine: server.engine).calculateRoute(
      from: Self.west, to: Self.east)
    #expect(through.first?.durationInSeconds == local.first?.durationInSeconds.rounded())
    #expect(
      through.first?.sections.first?.traffic.spans.count
        == local.first?.sections.first?.traffic.spans.count)
    let far = try GeoCoordinates(latitude: 10, longitude: 10)
    let error = await #expect(throws: RoutingError.self) {
      try await router.calculateRoute(from: Self.west, to: far)
    }
    #expect(error?.description.contains("answered 400") == true, "\(String(describing: error))")
    #expect(error?.description.contains("more than 1000 m") == true)
  }
}
