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

  @Test("the typical week learns the traffic, not a probe parked among it")
  func theTypicalWeekLeavesAParkedProbeOut() throws {
    // Everything inside one five-minute bucket of history: up to 20 s before `now`, which
    // begins a bucket.
    let end = FlowFixtures.now - 20
    /// Segment 0 a week after `probes`, at the same time of the week: the typical week.
    func typical(_ probes: (RoadNetwork) throws -> [Probe]) throws -> Double {
      let clock = FlowFixtures.Clock()
      let engine = try FlowFixtures.engine(clock: clock)
      let network = try #require(engine.roadNetwork)
      engine.ingest(probes: try probes(network).sorted { $0.time < $1.time })
      engine.flushProbes()
      clock.advance(400)
      _ = try FlowFixtures.flow(engine, 0)
      clock.set(end + 7 * 86_400)
      return try #require(try FlowFixtures.flow(engine, 0)).speedUncappedInMetersPerSecond
    }
    func passers(_ count: Int, _ network: RoadNetwork) throws -> [Probe] {
      try FlowFixtures.fleet(count, along: [0], speed: 12, end: end, prefix: "p", network: network)
    }
    let passing = try typical { try passers(5, $0) }
    let withParked = try typical { network in
      try passers(5, network) + standing("parked", seconds: 270, end: end, network: network)
    }
    // Learned with its standing, the week said 5.1 m/s at that hour.
    #expect(abs(passing - 12) < 0.6, "\(passing)")
    #expect(abs(withParked - passing) < 0.3, "\(withParked) against \(passing)")
    // A queue, as many standing as passing, is what the week learns.
    let queue = try typical { network in
      try passers(2, network) + standing("a", seconds: 270, end: end, at: 0.8, network: network)
        + standing("b", seconds: 270, end: end, at: 0.7, network: network)
    }
    #expect(queue < 5, "\(queue)")
  }

  @Test("a restart in the middle of a stand takes no standing out of the week twice")
  func restartTakesNothingOutTwice() throws {
    let start = FlowFixtures.now - 290
    let network = try FlowFixtures.network()
    /// The typical week a week later, after probes sent in two batches with a save and a
    /// restart between them; with `parked`, a probe stands the whole time.
    func typical(parked: Bool) throws -> Double {
      let store = JSONFlowStore()
      let clock = FlowFixtures.Clock()
      clock.set(start + 150)
      let first = try TrafficEngine(store: store, clock: { clock.now }, network: network)
      var early = try FlowFixtures.fleet(
        3, along: [0], speed: 12, end: start + 100, prefix: "a", network: network)
      if parked { early += standing("parked", seconds: 150, end: start + 150, network: network) }
      first.ingest(probes: early.sorted { $0.time < $1.time })
      first.flushProbes()
      // Past the window of the first probes: the parked probe is weighed, then saved.
      clock.set(start + 310)
      var late = try FlowFixtures.fleet(
        2, along: [0], speed: 12, end: start + 260, prefix: "b", network: network)
      if parked { late += standing("parked", seconds: 115, end: start + 270, network: network) }
      first.ingest(probes: late.sorted { $0.time < $1.time })
      first.flushProbes()
      #expect(try first.saveFlow())
      let second = try TrafficEngine(store: store, clock: { clock.now }, network: network)
      #expect(try second.restoreFlow())
      clock.advance(400)
      _ = try FlowFixtures.flow(second, 0)
      clock.set(start + 200 + 7 * 86_400)
      return try #require(try FlowFixtures.flow(second, 0)).speedUncappedInMetersPerSecond
    }
    let passing = try typical(parked: false)
    let withParked = try typical(parked: true)
    #expect(abs(passing - 12) < 0.6, "\(passing)")
    // Taken out twice, the standing would make the week faster than the traffic itself.
    #expect(abs(withParked - passing) < 0.3, "\(withParked) against \(passing)")
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
      return Set(
        SpeedAggregator.overtakenWhileStanding(
          passers + [stand], from: now - 300, to: now, byVehicle: sums, limit: 13.89,
          substantial: 20
        ).keys)
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
