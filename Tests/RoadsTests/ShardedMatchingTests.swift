import Foundation
import Geo
import Testing

@testable import Roads

@Suite struct ShardedMatchingTests {
  /// Sixty vehicles on the fixture's roads, noisy, starting a few seconds apart, each probe
  /// with its vehicle, in time order (ties in vehicle order).
  func traffic(_ network: RoadNetwork) throws -> [ShardedStreamingMatcher.Item] {
    var items: [(time: Date, vehicle: Int, item: ShardedStreamingMatcher.Item)] = []
    for vehicle in 0..<60 {
      let drive = try MatchingFixtures.drive(
        network, along: vehicle % 3 == 0 ? [0] : [0, 2], speed: 8 + Double(vehicle % 7),
        interval: 4 + Double(vehicle % 3), noise: 4, seed: UInt64(vehicle + 1),
        start: Date(timeIntervalSince1970: 1_800_000_000 + 3 * Double(vehicle)))
      for step in drive {
        items.append(
          (step.probe.time, vehicle, .init(point: step.probe, vehicleID: "vehicle-\(vehicle)")))
      }
    }
    return items.sorted { ($0.time, $0.vehicle) < ($1.time, $1.vehicle) }.map(\.item)
  }

  @Test("three shards match a batch of many vehicles exactly as one stream does, in its order")
  func sameAsOneStream() throws {
    let matcher = try MapMatcher(
      network: try MatchingFixtures.network(), options: MapMatchingOptions())
    var single = StreamingMapMatcher(matcher: matcher)
    var sharded = ShardedStreamingMatcher(matcher: matcher, shardCount: 3)
    #expect(sharded.shardCount == 3)
    let items = try traffic(matcher.network)
    #expect(Set(items.map { sharded.shard(of: $0.vehicleID) }).count == 3)
    // Two batches, the second continuing the traces of the first.
    let half = items.count / 2
    var expectedDecided: [MatchedPoint] = []
    var decided: [MatchedPoint] = []
    for batch in [Array(items[..<half]), Array(items[half...])] {
      let expectedOutcomes = batch.map {
        single.add($0.point, vehicleID: $0.vehicleID, into: &expectedDecided)
      }
      let result = sharded.add(batch)
      #expect(result.outcomes == expectedOutcomes)
      decided += result.decided
    }
    #expect(decided.count > 500)
    // Compared apart from #expect, whose report of two unequal arrays would print them all.
    let sameDecided = decided == expectedDecided
    #expect(sameDecided, "the decided positions differ from one stream's")
    #expect(sharded.vehicleCount == single.vehicleCount)
    let sameUndecided = sharded.undecidedPoints == single.undecidedPoints
    #expect(sameUndecided, "the undecided positions differ from one stream's")
    // The first vehicles are idle at this time, the last ones not.
    let now = Date(timeIntervalSince1970: 1_800_000_000 + 420)
    var expired: [MatchedPoint] = []
    sharded.expire(now: now) { expired += $0 }
    let expectedExpired = single.expire(now: now)
    #expect(!expectedExpired.isEmpty)
    let sameExpired = expired == expectedExpired
    #expect(sameExpired, "the expired vehicles' positions differ from one stream's")
    #expect(sharded.vehicleCount == single.vehicleCount)
    #expect(sharded.vehicleCount > 0)
    var flushed: [MatchedPoint] = []
    sharded.flushAll { flushed += $0 }
    let sameFlushed = flushed == single.flushAll()
    #expect(sameFlushed, "the flushed positions differ from one stream's")
    #expect(sharded.undecidedPoints.isEmpty)
  }

  @Test("a small vehicle bound stays one shard, so that eviction keeps to it")
  func smallBoundIsOneShard() throws {
    var options = MapMatchingOptions()
    options.maxVehicles = 15_000
    let matcher = try MapMatcher(network: try MatchingFixtures.network(), options: options)
    #expect(ShardedStreamingMatcher(matcher: matcher, shardCount: 4).shardCount == 1)
    options.maxVehicles = 40_000
    let larger = try MapMatcher(network: try MatchingFixtures.network(), options: options)
    #expect(ShardedStreamingMatcher(matcher: larger, shardCount: 4).shardCount == 4)
    #expect(ShardedStreamingMatcher(matcher: larger, shardCount: 0).shardCount == 1)
  }
}
