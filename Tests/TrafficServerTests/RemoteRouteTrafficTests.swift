import Foundation
import Testing
import Traffic
import TrafficFeeds

@testable import TrafficServer

/// `queryForTrafficOnRoute` of a remote engine asks its server's `POST /v1/route/traffic`
/// and answers as the embedded engine on the server's store does.
@Suite(.serialized) struct RemoteRouteTrafficTests {
  typealias F = FlowServerFixtures

  /// W to E through B: segments 0 and 2.
  static func route() throws -> GeoPolyline {
    try GeoPolyline(vertices: [
      F.coordinates(east: 0), F.coordinates(east: 500), F.coordinates(east: 1000),
    ])
  }

  static func incidents(now: Date) throws -> [TrafficIncident] {
    let start = now.addingTimeInterval(-600), end = now.addingTimeInterval(3600)
    return [
      try TrafficIncident(
        id: "acc-v1", originalId: "acc", type: .accident, impact: .major, startTime: start,
        endTime: end, location: TrafficLocation(point: F.coordinates(east: 750, north: 5))),
      try TrafficIncident(
        id: "works-v1", originalId: "works", type: .construction, impact: .minor,
        startTime: start, endTime: end,
        location: TrafficLocation(
          polyline: GeoPolyline(vertices: [
            F.coordinates(east: 100, north: 3), F.coordinates(east: 300, north: 3),
          ]))),
      try TrafficIncident(
        id: "far-v1", originalId: "far", type: .accident, impact: .major, startTime: start,
        endTime: end, location: TrafficLocation(point: F.coordinates(east: 700, north: 400))),
    ]
  }

  /// A started server on the crossing with the incidents and a jam (probes at 6 m/s from W
  /// to E), its engine's clock stopped at the start so that every answer is computed at the
  /// same time, and a remote engine on it; stop the server after.
  static func started(
    apiKeys: Set<String> = []
  ) throws -> (server: TrafficServer, remote: TrafficEngine, url: URL) {
    let now = Date()
    let store = InMemoryTrafficStore()
    try store.apply(IncidentBatch(upserts: incidents(now: now)))
    let engine = try TrafficEngine(store: store, clock: { now }, network: try F.network())
    let server = try TrafficServer(
      engine: engine,
      configuration: ServerConfiguration(
        port: 0, apiKeys: apiKeys, threads: 2, accessLog: .none))
    // Probes ending about two seconds before `now`.
    let csv = Data(F.csvDrive(vehicles: 4, speed: 6).utf8)
    let report = engine.ingest(
      probes: try ProbeDecoder(now: now).decode(csv, format: .csv).probes, flush: true)
    #expect(report.accepted > 50, "\(report)")
    try server.start()
    let port = try #require(server.port)
    let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
    let remote = try TrafficEngine(server: url, apiKey: apiKeys.first, timeoutInSeconds: 10)
    return (server, remote, url)
  }

  @Test func aRemoteEngineAnswersAsTheEmbeddedEngineOnTheServersStore() async throws {
    let (server, remote, _) = try Self.started()
    defer { server.stop() }
    let route = try Self.route()
    let far = try await remote.queryForTrafficOnRoute(route)
    let local = try server.engine.trafficOnRoute(route)
    // The embedded engine's async query is its synchronous one.
    #expect(try await server.engine.queryForTrafficOnRoute(route) == local)
    // Exactly the embedded answer as the wire carries it.
    #expect(
      far
        == (try RouteTrafficWire.decode(RouteTrafficWire.encode(local, sourceUpdated: nil)).traffic)
    )

    #expect(local.spans.count == 2)
    #expect(far.spans.count == local.spans.count)
    #expect(far.spans.map(\.segmentID) == local.spans.map(\.segmentID))
    #expect(far.spans.map(\.roadName) == local.spans.map(\.roadName))
    #expect(far.spans.map(\.traversability) == local.spans.map(\.traversability))
    // A jam on the route: a real delay, which an empty answer would not have.
    #expect(local.totalDelayInSeconds > 20, "\(local.totalDelayInSeconds)")
    // Durations to the 0.1 s of the wire.
    #expect(abs(far.lengthInMeters - local.lengthInMeters) <= 0.05)
    #expect(abs(far.baseDurationInSeconds - local.baseDurationInSeconds) <= 0.05)
    #expect(abs(far.trafficDurationInSeconds - local.trafficDurationInSeconds) <= 0.051)
    #expect(abs(far.totalDelayInSeconds - local.totalDelayInSeconds) <= 0.051)
    for (a, b) in zip(far.spans, local.spans) {
      #expect(abs((a.delayInSeconds ?? .nan) - (b.delayInSeconds ?? .nan)) <= 0.051)
      #expect(abs(a.trafficSpeedInMetersPerSecond - b.trafficSpeedInMetersPerSecond) <= 0.0051)
    }
    #expect(far.isBlocked == local.isBlocked)
    #expect(local.incidents.map(\.incident.originalId) == ["works", "acc"])
    #expect(far.incidents.map(\.incident.originalId) == local.incidents.map(\.incident.originalId))
    #expect(far.incidents.map(\.incident.id) == local.incidents.map(\.incident.id))
    for (a, b) in zip(far.incidents, local.incidents) {
      #expect(abs(a.offsetInMeters - b.offsetInMeters) <= 0.05)
    }

    // A wider corridor takes the far incident in too, on both.
    let wide = try await remote.queryForTrafficOnRoute(route, corridorHalfWidthInMeters: 500)
    #expect(
      wide.incidents.map(\.incident.originalId)
        == (try server.engine.trafficOnRoute(route, corridorHalfWidthInMeters: 500)).incidents
        .map(\.incident.originalId))
    #expect(wide.incidents.count == 3)

    // The completion handler form goes to the server too.
    let ids: [String] = await withCheckedContinuation { continuation in
      remote.queryForTrafficOnRoute(route) { error, traffic in
        continuation.resume(
          returning: error == nil
            ? (traffic?.spans ?? []).map { "\($0.segmentID)" } : ["\(String(describing: error))"])
      }
    }
    #expect(ids == ["0", "2"])

    // The synchronous read has nothing local to read on a remote engine (documented).
    let empty = try remote.trafficOnRoute(route)
    #expect(empty.spans.isEmpty && empty.incidents.isEmpty)
  }

  @Test func errorsMapAsTheOtherRemoteQueries() async throws {
    let (server, remote, url) = try Self.started(apiKeys: ["route-key"])
    defer { server.stop() }
    let route = try Self.route()
    #expect(try await remote.queryForTrafficOnRoute(route).spans.count == 2)
    // The server's own limit: its error comes back as the case it names.
    let wide = await Self.error {
      _ = try await remote.queryForTrafficOnRoute(route, corridorHalfWidthInMeters: 1e9)
    }
    #expect(wide?.name == "invalidParameter", "\(String(describing: wide))")
    #expect(wide?.description.contains("corridorHalfWidth") == true)
    // A wrong key.
    let stranger = try TrafficEngine(server: url, apiKey: "wrong")
    #expect(
      await Self.error { _ = try await stranger.queryForTrafficOnRoute(route) }
        == .authenticationFailed)
    // A path the server does not know (a base URL under another path): an HTTP error.
    let elsewhere = try TrafficEngine(
      server: url.appendingPathComponent("elsewhere"), apiKey: "route-key")
    let missing = await Self.error { _ = try await elsewhere.queryForTrafficOnRoute(route) }
    #expect(missing?.httpStatus == 404, "\(String(describing: missing))")
  }

  @Test func aBadHalfWidthFailsBeforeAnyRequestAndNoServerIsUnreachable() async throws {
    // Port 1 on loopback: nothing listens there.
    let remote = try TrafficEngine(
      server: try #require(URL(string: "http://127.0.0.1:1")), timeoutInSeconds: 5)
    let route = try Self.route()
    for width in [-1, Double.nan, .infinity] {
      let error = await Self.error {
        _ = try await remote.queryForTrafficOnRoute(route, corridorHalfWidthInMeters: width)
      }
      #expect(error?.name == "invalidGeometry", "\(width): \(String(describing: error))")
    }
    #expect(
      await Self.error { _ = try await remote.queryForTrafficOnRoute(route) }
        == .serverUnreachable)
  }

  @Test func theQueryTheRemoteEngineSendsIsTheRouteTheServerReads() throws {
    let route = try GeoPolyline(vertices: [
      GeoCoordinates(latitude: 47.140_000_123_456, longitude: 9.520_000_000_1),
      GeoCoordinates(latitude: 47.145_000_987, longitude: 9.522_000_000_03),
      GeoCoordinates(latitude: -0.000_001, longitude: -0.000_002),
    ])
    let parameters = try RouteTrafficParameters(
      RouteTrafficWire.encodeQuery(route, corridorHalfWidthInMeters: 42.5), limits: .unlimited)
    #expect(parameters.route.vertices == route.vertices)
    #expect(parameters.corridorHalfWidthInMeters == 42.5)
  }

  static func error(_ body: () async throws -> Void) async -> TrafficQueryError? {
    do {
      try await body()
      return nil
    } catch let error as TrafficQueryError {
      return error
    } catch {
      return .internalError("\(error)")
    }
  }
}
