import Foundation
import Roads
import Testing
import Traffic

@Suite struct TrafficOnRouteTests {
  static func route() throws -> GeoPolyline {
    try GeoPolyline(vertices: [
      FlowFixtures.coordinates(east: 0), FlowFixtures.coordinates(east: 500),
      FlowFixtures.coordinates(east: 1000),
    ])
  }

  @Test("spans follow the route with their speeds; delays add up to the total")
  func spansAndDelay() throws {
    let engine = try FlowFixtures.engine()
    let network = try #require(engine.roadNetwork)
    engine.ingest(probes: try FlowFixtures.fleet(3, along: [0], speed: 5, network: network))
    engine.flushProbes()
    let traffic = try engine.trafficOnRoute(Self.route())
    #expect(traffic.spans.map(\.segmentID) == [0, 2])
    #expect(traffic.spans.allSatisfy { abs($0.lengthInMeters - 500) < 2 })
    #expect(abs(traffic.spans[1].offsetInMeters - traffic.spans[0].lengthInMeters) < 1e-9)
    let jammed = traffic.spans[0]
    #expect(abs(jammed.trafficSpeedInMetersPerSecond - 5) < 0.3)
    #expect(jammed.baseSpeedInMetersPerSecond == FlowFixtures.limit)
    let expectedDelay =
      jammed.lengthInMeters / jammed.trafficSpeedInMetersPerSecond
      - jammed.lengthInMeters / jammed.baseSpeedInMetersPerSecond
    #expect(abs((jammed.delayInSeconds ?? 0) - expectedDelay) < 1e-9)
    #expect(jammed.delayInSeconds ?? 0 > 50)
    #expect(traffic.spans[1].delayInSeconds == 0)
    #expect(abs(traffic.totalDelayInSeconds - expectedDelay) < 1e-9)
    #expect(
      abs(traffic.trafficDurationInSeconds - traffic.baseDurationInSeconds - expectedDelay) < 1e-6)
    #expect(!traffic.isBlocked)
    #expect(abs(traffic.lengthInMeters - 1000) < 2)
  }

  @Test("a route faster than free flow has a negative delay")
  func negativeDelay() throws {
    let engine = try FlowFixtures.engine()
    let network = try #require(engine.roadNetwork)
    engine.ingest(probes: try FlowFixtures.fleet(3, along: [2], speed: 17, network: network))
    engine.flushProbes()
    let traffic = try engine.trafficOnRoute(Self.route())
    #expect(traffic.spans[1].delayInSeconds ?? 0 < -5)
    #expect(traffic.totalDelayInSeconds < -5)
  }

  @Test("incidents on the route come with their offsets; closures block it")
  func incidents() throws {
    let accident = try TrafficIncident(
      id: "acc", type: .accident, impact: .major,
      location: TrafficLocation(point: FlowFixtures.coordinates(east: 700, north: 5)))
    let far = try TrafficIncident(
      id: "far", type: .accident, impact: .major,
      location: TrafficLocation(point: FlowFixtures.coordinates(east: 700, north: 400)))
    let closure = try TrafficIncident(
      id: "closed", type: .roadClosure, impact: .critical, isRoadClosed: true,
      location: TrafficLocation(
        polyline: GeoPolyline(vertices: [
          FlowFixtures.coordinates(east: 520), FlowFixtures.coordinates(east: 980),
        ])))
    let engine = try FlowFixtures.engine(incidents: [accident, far, closure])
    let traffic = try engine.trafficOnRoute(Self.route())
    #expect(traffic.incidents.map(\.incident.originalId) == ["closed", "acc"])
    #expect(abs(traffic.incidents[1].offsetInMeters - 700) < 2)
    #expect(abs(traffic.incidents[0].offsetInMeters - 520) < 2)
    #expect(traffic.isBlocked)
    #expect(traffic.spans[1].traversability == .closed)
    #expect(traffic.spans[1].delayInSeconds == nil)
    #expect(traffic.spans[1].trafficSpeedInMetersPerSecond == 0)
    #expect(traffic.totalDelayInSeconds == 0)
    #expect(throws: TrafficQueryError.self) {
      try engine.trafficOnRoute(Self.route(), corridorHalfWidthInMeters: -1)
    }
  }

  @Test("without a network, a route has no spans but still its incidents")
  func withoutNetwork() throws {
    let accident = try TrafficIncident(
      id: "acc", type: .accident, impact: .major,
      location: TrafficLocation(point: FlowFixtures.coordinates(east: 300)))
    let store = InMemoryTrafficStore()
    try store.apply(IncidentBatch(upserts: [accident]))
    let engine = try TrafficEngine(store: store, clock: { FlowFixtures.now })
    let traffic = try engine.trafficOnRoute(Self.route())
    #expect(traffic.spans.isEmpty)
    #expect(traffic.incidents.map(\.incident.originalId) == ["acc"])
  }
}
