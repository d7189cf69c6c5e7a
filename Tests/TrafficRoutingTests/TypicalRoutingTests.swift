import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficRouting

/// Routes on typical speeds: a departure with nothing live drives each segment at its
/// typical speed for the time it is reached; later departures at the typical speeds of
/// their hour.
@Suite struct TypicalRoutingTests {
  static let now = Date(timeIntervalSince1970: 1_800_000_000)

  /// An engine that learned the four weeks of the typical-speeds scenario.
  static func engine() throws -> (TrafficEngine, TypicalWeekScenario, RoadNetwork) {
    let network = try #require(RoutingEngineTests.liechtenstein)
    let scenario = try #require(TypicalWeekScenario(network: network, now: now))
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { now }, network: network)
    engine.ingest(
      probes: scenario.rows.map {
        Probe(vehicleID: $0.vehicle, time: $0.time, coordinates: $0.coordinates)
      }, flush: true)
    return (engine, scenario, network)
  }

  @Test("a route along the weekly jam takes its typical time now and the fast time later")
  func departures() async throws {
    let (engine, scenario, network) = try Self.engine()
    let router = RoutingEngine(trafficEngine: engine)
    let road = network.segments[scenario.roadA]
    // From 50 m into road A to 50 m before its end: the route drives road A only.
    let origin = road.geometry.coordinates(atDistance: 50)
    let destination = road.geometry.coordinates(atDistance: road.lengthInMeters - 50)
    let meters = road.lengthInMeters - 100
    for (departure, speed) in [
      (nil, TypicalWeekScenario.slow),
      (Self.now.addingTimeInterval(6 * 3_600), TypicalWeekScenario.fast),
      (Self.now.addingTimeInterval(7 * 86_400), TypicalWeekScenario.slow),
    ] as [(Date?, Double)] {
      let routes = try await router.calculateRoute(
        from: origin, to: destination, options: RouteOptions(departureTime: departure))
      let section = try #require(routes.first?.sections.first)
      #expect(abs(section.lengthInMeters - meters) < 1)
      let expected = meters / speed
      #expect(abs(section.durationInSeconds - expected) <= 0.3 * expected, "\(departure as Any)")
      let typical = try #require(section.typicalDurationInSeconds)
      #expect(abs(typical - expected) <= 0.3 * expected)
      #expect(section.departure.time == departure ?? Self.now)
    }
    // Without traffic the free flow (the fast periods) counts at any hour.
    let free = try await router.calculateRoute(
      from: origin, to: destination, options: RouteOptions(trafficOptimization: .disabled))
    let section = try #require(free.first?.sections.first)
    #expect(section.durationInSeconds < meters / TypicalWeekScenario.slow / 2)
  }

  @Test("live speeds count near the start and give way to typical ones an hour on")
  func liveBlendsIntoTypical() async throws {
    #expect(TravelTimes.liveWeight(-600) == 1)
    #expect(TravelTimes.liveWeight(900) == 1)
    #expect(abs(TravelTimes.liveWeight(2_250) - 0.5) < 1e-9)
    #expect(TravelTimes.liveWeight(3_600) == 0)
    let (engine, scenario, network) = try Self.engine()
    let road = network.segments[scenario.roadA]
    // Live now: three cars crawling along road A at 3 m/s over the last four minutes.
    var probes: [Probe] = []
    for car in 0..<3 {
      var offset = 5.0
      var time = Self.now.addingTimeInterval(-240 + Double(car) * 30)
      while offset <= road.lengthInMeters - 5, time <= Self.now {
        probes.append(
          Probe(
            vehicleID: "live-\(car)", time: time,
            coordinates: road.geometry.coordinates(atDistance: offset)))
        offset += 9
        time = time.addingTimeInterval(3)
      }
    }
    engine.ingest(probes: probes, flush: true)
    let router = RoutingEngine(trafficEngine: engine)
    let origin = road.geometry.coordinates(atDistance: 50)
    let destination = road.geometry.coordinates(atDistance: road.lengthInMeters - 50)
    let meters = road.lengthInMeters - 100
    func duration(_ departure: Date?) async throws -> Double {
      let routes = try await router.calculateRoute(
        from: origin, to: destination, options: RouteOptions(departureTime: departure))
      return try #require(routes.first?.sections.first?.durationInSeconds)
    }
    let now = try await duration(nil)
    let blended = try await duration(Self.now.addingTimeInterval(40 * 60))
    let later = try await duration(Self.now.addingTimeInterval(6 * 3_600))
    let live = try #require(
      try await engine.queryForFlow(
        inside: GeoCircle(
          center: road.geometry.coordinates(atDistance: road.lengthInMeters / 2),
          radiusInMeters: 3)
      ).first { $0.segmentID == road.id })
    #expect(live.confidence > 0.7)
    #expect(abs(now - meters / live.speedUncappedInMetersPerSecond) < 1)
    #expect(blended < now - 1 && blended > later + 1, "\(now) \(blended) \(later)")
    #expect(abs(later - meters / TypicalWeekScenario.fast) <= 0.3 * later)
  }
}
