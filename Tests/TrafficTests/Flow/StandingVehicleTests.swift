import Foundation
import Roads
import Testing
import TrafficTestSupport

@testable import Traffic

/// A vehicle standing on a segment while the traffic passes it (a probe parked with its app
/// on, or one waiting in a lane of its own) is no jam; a queue, which the others join, is.
@Suite struct StandingVehicleTests {
  /// Probes of a vehicle standing at the middle of segment 0 for `seconds` up to `end`.
  private func standing(
    _ vehicleID: String, seconds: Double, end: Date = FlowFixtures.now, at fraction: Double = 0.5,
    network: RoadNetwork
  ) -> [Probe] {
    let segment = network.segments[0]
    let spot = segment.geometry.coordinates(atDistance: segment.lengthInMeters * fraction)
    let heading = segment.geometry.vertices[0].bearing(to: segment.geometry.vertices[1])
    return (0...Int(seconds / 5)).map { k in
      Probe(
        vehicleID: vehicleID, time: end - seconds + Double(k) * 5, coordinates: spot,
        speedInMetersPerSecond: 0, headingInDegrees: heading)
    }
  }

  /// The speed of segment 0 after `probes` (no history: the live evidence alone).
  private func speed(_ probes: (RoadNetwork) throws -> [Probe]) throws -> Double {
    let engine = try FlowFixtures.engine()
    let network = try #require(engine.roadNetwork)
    engine.ingest(probes: try probes(network).sorted { $0.time < $1.time })
    engine.flushProbes()
    return try #require(try FlowFixtures.flow(engine, 0)).speedUncappedInMetersPerSecond
  }

  @Test("a probe parked for minutes while five vehicles pass at 12 m/s leaves the speed at 12")
  func aParkedProbeIsNoJam() throws {
    let speed = try speed { network in
      try FlowFixtures.fleet(5, along: [0], speed: 12, prefix: "p", network: network)
        + standing("parked", seconds: 270, network: network)
    }
    // Counted, its 270 s standing made the 500 m segment 5.1 m/s.
    #expect(abs(speed - 12) < 0.6, "\(speed)")
  }

  @Test("as many standing as passing are a queue: the segment stays slow")
  func aQueueInALaneStays() throws {
    let speed = try speed { network in
      try FlowFixtures.fleet(2, along: [0], speed: 12, prefix: "p", network: network)
        + standing("a", seconds: 270, at: 0.8, network: network)
        + standing("b", seconds: 270, at: 0.7, network: network)
    }
    #expect(speed < 5, "\(speed)")
  }

  @Test("a wait shorter than two minutes (a red light) counts")
  func aShortWaitCounts() throws {
    let passing = try speed { network in
      try FlowFixtures.fleet(5, along: [0], speed: 12, prefix: "p", network: network)
    }
    let waiting = try speed { network in
      try FlowFixtures.fleet(5, along: [0], speed: 12, prefix: "p", network: network)
        + standing("w", seconds: 60, network: network)
    }
    #expect(waiting < passing - 1, "\(waiting) against \(passing)")
  }

  @Test("only vehicles passing while it stood count against a standing vehicle")
  func passersMustOverlapTheStand() {
    let now = FlowFixtures.now
    typealias Contribution = SpeedAggregator.Contribution
    // It stood from now - 200 to now; two vehicles drove 300 m in 25 s each.
    func passer(_ id: String, at time: Date) -> Contribution {
      Contribution(time: time, vehicleID: id, meters: 300, seconds: 25)
    }
    let stand = Contribution(time: now, vehicleID: "s", meters: 0, seconds: 200)
    func left(_ passers: [Contribution]) -> Set<String> {
      var sums: [String: (meters: Double, seconds: Double)] = [:]
      for c in passers + [stand] {
        sums[c.vehicleID, default: (0, 0)].meters += c.meters
        sums[c.vehicleID, default: (0, 0)].seconds += c.seconds
      }
      return SpeedAggregator.overtakenWhileStanding(
        passers + [stand], from: now - 300, to: now, byVehicle: sums, limit: 13.89,
        substantial: 20)
    }
    #expect(left([passer("a", at: now - 100), passer("b", at: now - 50)]) == ["s"])
    // Before it stood: they did not pass it.
    #expect(left([passer("a", at: now - 290), passer("b", at: now - 250)]).isEmpty)
    // One is not enough; nor are two that crawl (a queue moving past).
    #expect(left([passer("a", at: now - 100)]).isEmpty)
    let crawling = [
      Contribution(time: now - 100, vehicleID: "a", meters: 100, seconds: 60),
      Contribution(time: now - 50, vehicleID: "b", meters: 100, seconds: 60),
    ]
    #expect(left(crawling).isEmpty)
  }
}
