import Foundation
import Roads
import Testing
import TrafficTestSupport

@testable import Traffic

/// How the flow pipeline weighs its evidence: the way across junctions a network leaves out
/// of its segments, the time a braking vehicle spends on each segment, and live evidence
/// fused with the typical week.
@Suite struct FlowEvidenceTests {
  @Test("the way across a junction between segments counts on neither: both keep the speed driven")
  func junctionGapCountsOnNoSegment() throws {
    let network = try GappedNetwork.network(gap: 100)
    #expect(abs(network.junctionGap(from: 0, to: 1) - 100) < 0.5)
    #expect(network.junctionGap(from: 1, to: 1) > 400)
    let engine = try FlowFixtures.engine(network: network)
    // Three vehicles at 10 m/s along the whole line, the gap included, a probe every 5 s.
    var probes: [Probe] = []
    for vehicle in 0..<3 {
      for k in 0...20 {
        let east = Double(k) * 50
        probes.append(
          Probe(
            vehicleID: "v\(vehicle)",
            time: FlowFixtures.now - Double(20 - k) * 5 - Double(vehicle) * 3,
            coordinates: try FlowFixtures.coordinates(east: min(east, 999)),
            speedInMetersPerSecond: 10, headingInDegrees: 90))
      }
    }
    engine.ingest(probes: probes.sorted { $0.time < $1.time })
    engine.flushProbes()
    let box = try GeoCircle(center: FlowFixtures.coordinates(east: 500), radiusInMeters: 2000)
    let flows = try engine.flow(inside: box, options: TrafficFlowQueryOptions())
    #expect(flows.count == 2)
    for flow in flows {
      // Counting the 10 s across the junction on the segments would give them 9 m/s or
      // less (900 m in 100 s); the probes inside the junction, placed on the nearest end,
      // leave a few percent either way.
      #expect(abs(flow.speedUncappedInMetersPerSecond - 10) < 0.5, "\(flow.sourceID)")
    }
  }

  @Test("a vehicle braking evenly spends its slow seconds where it drives slowly")
  func kinematicShares() throws {
    // From 20 m/s to a stop over 10 s: 100 m. The first 75 m take 5 s, the last 25 m 5 s
    // (s(t) = 20 t - t²).
    let shares = try #require(
      SpeedAggregator.kinematicShares([75, 25], seconds: 10, from: 20, to: 0))
    #expect(abs(shares[0] - 5) < 1e-9 && abs(shares[1] - 5) < 1e-9)
    // Accelerating from a stop: s(t) = t²; 16 m take 4 s, the other 84 m 6 s.
    let starting = try #require(
      SpeedAggregator.kinematicShares([16, 84], seconds: 10, from: 0, to: 20))
    #expect(abs(starting[0] - 4) < 1e-9 && abs(starting[1] - 6) < 1e-9)
    // Speeds scaled to the distance driven: half the speeds, the same shares.
    let scaled = try #require(
      SpeedAggregator.kinematicShares([75, 25], seconds: 10, from: 10, to: 0))
    #expect(abs(scaled[0] - 5) < 1e-9)
    // Speeds that say nothing of the distance (four times too fast) or are missing: none.
    #expect(SpeedAggregator.kinematicShares([75, 25], seconds: 10, from: 80, to: 0) == nil)
    #expect(SpeedAggregator.kinematicShares([75, 25], seconds: 10, from: nil, to: 0) == nil)
  }

  @Test("evidence near the typical speed is pulled toward it; a queue far from it is believed")
  func fusionWithTheTypicalWeek() throws {
    let configuration = FlowConfiguration()
    let prior = (speed: 12.0, variance: 0.25 * 0.25 * 1.125)
    // One vehicle 10 % slower than usual: pulled well toward 12, confidence in the live band.
    let near = FlowPipeline.fuse(prior: prior, evidence: 10.8, weight: 1, configuration)
    #expect(near.speed > 10.8 && near.speed < 12)
    #expect(near.speed > 11.3)
    // The same with ten vehicles: closer to the evidence, more confident.
    let nearMany = FlowPipeline.fuse(prior: prior, evidence: 10.8, weight: 10, configuration)
    #expect(nearMany.speed < near.speed && nearMany.confidence > near.confidence)
    #expect(near.confidence > 0.7 && nearMany.confidence <= 1)
    // One vehicle in a queue at 2 m/s: the unusual day explains it; it stays near 2.
    let queue = FlowPipeline.fuse(prior: prior, evidence: 2, weight: 1, configuration)
    #expect(queue.speed < 3)
    // A single Gaussian prior (no unusual days) would have pulled it to 5 m/s or more.
    var gaussian = configuration
    gaussian.unusualShare = 0
    gaussian.farShare = 0
    #expect(FlowPipeline.fuse(prior: prior, evidence: 2, weight: 1, gaussian).speed > 5)
    // A standing queue stays standing.
    #expect(FlowPipeline.fuse(prior: prior, evidence: 0, weight: 3, configuration).speed == 0)
  }

  @Test("the fusion's shares and spreads are checked, each named when wrong")
  func fusionSettingsAreChecked() throws {
    try FlowConfiguration().validate()
    func refusal(_ change: (inout FlowConfiguration) -> Void) -> String? {
      var configuration = FlowConfiguration()
      change(&configuration)
      do {
        try configuration.validate()
        return nil
      } catch {
        return "\(error)"
      }
    }
    #expect(refusal { $0.farShare = -0.1 }?.contains("farShare") == true)
    #expect(refusal { $0.farSpreadInLogSpeed = 0 }?.contains("farSpreadInLogSpeed") == true)
    #expect(refusal { $0.farSpreadInLogSpeed = .nan }?.contains("farSpreadInLogSpeed") == true)
    #expect(
      refusal {
        $0.unusualShare = 0.5; $0.farShare = 0.5
      }?.contains("sum below 1") == true)
    #expect(
      refusal {
        $0.unusualShare = 0.5; $0.farShare = 0.4
      } == nil)
  }

  @Test("a road that flows today where it usually stands still is believed, and the reverse")
  func fusionFarFromTheTypicalWeek() {
    let configuration = FlowConfiguration()
    let standing = (speed: 0.2, variance: 0.25 * 0.25 * 1.125)
    // Two vehicles at 30 m/s: the unusual day's Gaussian alone answered 19 m/s.
    let flowing = FlowPipeline.fuse(prior: standing, evidence: 30, weight: 2, configuration)
    #expect(flowing.speed > 27 && flowing.speed <= 30, "\(flowing.speed)")
    var thin = configuration
    thin.farShare = 0
    #expect(FlowPipeline.fuse(prior: standing, evidence: 30, weight: 2, thin).speed < 22)
    // Both standing still: weighed below the crawl speed, not answered as the crawl speed.
    let still = FlowPipeline.fuse(
      prior: (speed: 0.1, variance: 0.25 * 0.25), evidence: 0.02, weight: 3, configuration)
    #expect(still.speed >= 0.02 && still.speed <= 0.1, "\(still.speed)")
    // Near the typical speed the heavy tail changes nothing that matters.
    let usual = (speed: 12.0, variance: 0.25 * 0.25 * 1.125)
    let near = FlowPipeline.fuse(prior: usual, evidence: 10.8, weight: 1, configuration)
    #expect(
      abs(near.speed - FlowPipeline.fuse(prior: usual, evidence: 10.8, weight: 1, thin).speed)
        < 0.05)
  }

  /// An engine that learned last week, at this time of day, half an hour of vehicles at
  /// 12 m/s on segment 0; its clock set to now.
  private func engineWithHistory() throws -> (TrafficEngine, RoadNetwork) {
    let clock = FlowFixtures.Clock()
    let engine = try FlowFixtures.engine(clock: clock)
    let network = try #require(engine.roadNetwork)
    let lastWeek = FlowFixtures.now - 7 * 86_400
    for k in 0..<6 {
      let end = lastWeek - 1_800 + Double(k + 1) * 300
      clock.set(end)
      engine.ingest(
        probes: try FlowFixtures.fleet(
          3, along: [0], speed: 12, end: end, prefix: "h\(k)-", network: network))
      engine.flushProbes()
    }
    clock.set(lastWeek + 3_600)
    _ = try FlowFixtures.flow(engine, 0)
    clock.set(FlowFixtures.now)
    return (engine, network)
  }

  @Test("a week of history makes a lone probe count less than many")
  func typicalWeekFromHistory() throws {
    let (engine, network) = try engineWithHistory()
    // Today one vehicle at 10 m/s: between the two, and less confident than five.
    engine.ingest(probes: try FlowFixtures.drive("a", along: [0], speed: 10, network: network))
    engine.flushProbes()
    let one = try #require(try FlowFixtures.flow(engine, 0))
    #expect(one.speedUncappedInMetersPerSecond > 10.1)
    #expect(one.speedUncappedInMetersPerSecond < 12)
    engine.ingest(
      probes: try FlowFixtures.fleet(5, along: [0], speed: 10, prefix: "b", network: network))
    engine.flushProbes()
    let many = try #require(try FlowFixtures.flow(engine, 0))
    #expect(many.speedUncappedInMetersPerSecond < one.speedUncappedInMetersPerSecond)
    #expect(many.confidence > one.confidence)
  }

  @Test("vehicles that agree give a surer answer than as many that disagree, at the same speed")
  func confidenceFollowsTheVehiclesAgreement() throws {
    // Four vehicles at 10 m/s, against two at 7 and two at 17.5 m/s: the same space-mean
    // speed (2 / (1/7 + 1/17.5) = 10), so the same evidence for the speed.
    let (agreeing, network) = try engineWithHistory()
    agreeing.ingest(
      probes: try FlowFixtures.fleet(4, along: [0], speed: 10, prefix: "a", network: network))
    agreeing.flushProbes()
    let (disagreeing, _) = try engineWithHistory()
    disagreeing.ingest(
      probes: try FlowFixtures.fleet(2, along: [0], speed: 7, prefix: "s", network: network)
        + FlowFixtures.fleet(2, along: [0], speed: 17.5, prefix: "f", network: network))
    disagreeing.flushProbes()
    let sure = try #require(try FlowFixtures.flow(agreeing, 0))
    let unsure = try #require(try FlowFixtures.flow(disagreeing, 0))
    #expect(
      abs(sure.speedUncappedInMetersPerSecond - unsure.speedUncappedInMetersPerSecond)
        < 0.05 * sure.speedUncappedInMetersPerSecond)
    #expect(sure.confidence > unsure.confidence + 0.03, "\(sure.confidence) \(unsure.confidence)")
    #expect(unsure.confidence > 0.7)
  }

  @Test("the vehicles' disagreement changes the confidence of a fused answer, never its speed")
  func disagreementMovesOnlyTheConfidence() throws {
    let configuration = FlowConfiguration()
    let prior = (speed: 12.0, variance: 0.25 * 0.25 * 1.125)
    let fixed = FlowPipeline.fuse(prior: prior, evidence: 10, weight: 4, configuration)
    let agreeing = FlowPipeline.fuse(
      prior: prior, evidence: 10, weight: 4, disagreement: (4, 0.01), configuration)
    let disagreeing = FlowPipeline.fuse(
      prior: prior, evidence: 10, weight: 4, disagreement: (4, 0.6), configuration)
    #expect(agreeing.speed == fixed.speed && disagreeing.speed == fixed.speed)
    #expect(agreeing.confidence > fixed.confidence)
    #expect(disagreeing.confidence < fixed.confidence)
    // Vehicles that disagree exactly as much as the fixed spread assumes: as without.
    let usual = FlowPipeline.fuse(
      prior: prior, evidence: 10, weight: 4,
      disagreement: (
        4, configuration.vehicleSpreadInLogSpeed * configuration.vehicleSpreadInLogSpeed
      ),
      configuration)
    #expect(abs(usual.confidence - fixed.confidence) < 1e-12)
    // A disagreement that is not a number says nothing (the update finds it impossible):
    // the confidence stays a number.
    let broken = FlowPipeline.fuse(
      prior: prior, evidence: 10, weight: 4, disagreement: (4, .nan), configuration)
    #expect(broken.speed == fixed.speed && broken.confidence == fixed.confidence)
  }
}
