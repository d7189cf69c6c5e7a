import Codec
import Foundation
import Roads
import Testing
import Traffic
import TrafficTestSupport

@Suite struct FlowStateCoderTests {
  typealias Persisted = FlowState.Persisted

  static let aggregates = Persisted.Segment(
    segmentID: 12,
    contributions: [
      Persisted.Contribution(
        time: Date(timeIntervalSinceReferenceDate: 820_000_000.123456789), vehicleID: "tåxi 7",
        meters: 123.456, seconds: 9.87654321),
      Persisted.Contribution(
        time: Date(timeIntervalSinceReferenceDate: 820_000_005.5), vehicleID: "bus",
        meters: 0, seconds: 30),
      Persisted.Contribution(
        time: Date(timeIntervalSinceReferenceDate: 820_000_010.1), vehicleID: "tåxi 7",
        meters: -0.0, seconds: 1e-300),
    ],
    openBuckets: [
      Persisted.Bucket(index: -3, meters: 1, seconds: 2),
      Persisted.Bucket(index: 6_000_000, meters: 1000.5, seconds: 77.25),
    ],
    lastClosedBucket: 5_999_999, historyInMetersPerSecond: [13.1, 12.9, 0.1],
    learnedFreeFlowInMetersPerSecond: 13.05, percentile95InMetersPerSecond: nil)

  static let observation = Persisted.Observation(
    segmentID: 12, time: Date(timeIntervalSinceReferenceDate: 820_000_011),
    speedInMetersPerSecond: nil,
    jamFactor: 10, freeFlowSpeedInMetersPerSecond: 25)

  @Test(
    "a segment row round-trips exactly",
    arguments: [(true, true), (true, false), (false, true), (false, false)])
  func segmentRow(withAggregates: Bool, withObservation: Bool) throws {
    let aggregates = withAggregates ? Self.aggregates : nil
    let observation = withObservation ? Self.observation : nil
    let row = FlowStateCoder.segment(aggregates, observation)
    let (decodedAggregates, decodedObservation) = try FlowStateCoder.segment(
      [UInt8](row), id: 12, name: "row")
    #expect(decodedAggregates == aggregates)
    #expect(decodedObservation == observation)
    // Bit-exact: -0.0 stays -0.0.
    #expect(
      decodedAggregates?.contributions[2].meters.sign == aggregates?.contributions[2].meters.sign)
  }

  @Test("a header round-trips exactly, with and without a probe time", arguments: [true, false])
  func header(withProbeTime: Bool) throws {
    let state = Persisted(
      savedAt: Date(timeIntervalSinceReferenceDate: 820_000_020.000001), segmentCount: 1_000_000,
      historyBucketInSeconds: 300,
      latestProbeTime: withProbeTime ? Date(timeIntervalSinceReferenceDate: 820_000_019.75) : nil,
      segments: [], observations: [], latest: [])
    let header = try FlowStateCoder.header([UInt8](FlowStateCoder.header(state)), name: "h")
    #expect(header.savedAt == state.savedAt)
    #expect(header.segmentCount == state.segmentCount)
    #expect(header.historyBucketInSeconds == state.historyBucketInSeconds)
    #expect(header.latestProbeTime == state.latestProbeTime)
  }

  @Test("every truncation and a wrong version are refused with the row's name")
  func truncated() throws {
    let row = [UInt8](FlowStateCoder.segment(Self.aggregates, Self.observation))
    for length in 0..<row.count {
      #expect {
        try FlowStateCoder.segment(Array(row.prefix(length)), id: 12, name: "segment 12 of db")
      } throws: { error in
        guard let name = (error as? BinaryDataError)?.name else { return false }
        return name == "segment 12 of db"
      }
    }
    var future = row
    future[0] = 2
    #expect(throws: BinaryDataError.self) { try FlowStateCoder.segment(future, id: 12, name: "r") }
    #expect(throws: BinaryDataError.self) {
      try FlowStateCoder.segment(row + [0], id: 12, name: "r")
    }
  }

  @Test("a non-finite time or an out-of-range bucket is refused")
  func badValues() throws {
    var writer = BinaryWriter()
    writer.byte(FlowStateCoder.version)
    writer.byte(2)  // an observation only
    writer.double(.nan)
    writer.byte(0)
    #expect(throws: BinaryDataError.self) {
      try FlowStateCoder.segment(writer.bytes, id: 1, name: "r")
    }
    var bucket = BinaryWriter()
    bucket.byte(FlowStateCoder.version)
    bucket.byte(1)
    bucket.count(0)  // vehicles
    bucket.count(0)  // contributions
    bucket.count(1)  // buckets
    bucket.signedVarint(.min)
    bucket.double(1)
    bucket.double(1)
    #expect(throws: BinaryDataError.self) {
      try FlowStateCoder.segment(bucket.bytes, id: 1, name: "r")
    }
  }

  static let latest = Persisted.Latest(
    segmentID: 12, speedInMetersPerSecond: 8, speedUncappedInMetersPerSecond: 8.25,
    freeFlowSpeedInMetersPerSecond: 13.05, jamFactor: 4.2, confidence: 0.9,
    traversability: .open, jamTendency: .rising)

  @Test("a whole state round-trips exactly, and every truncation is refused by name")
  func wholeState() throws {
    var other = Self.latest
    other.segmentID = 3
    other.jamTendency = nil
    other.traversability = .closed
    var observed = Self.observation
    observed.segmentID = 3
    let state = Persisted(
      savedAt: Date(timeIntervalSinceReferenceDate: 820_000_020.5), segmentCount: 20,
      historyBucketInSeconds: 300, latestProbeTime: nil, segments: [Self.aggregates],
      observations: [observed, Self.observation], latest: [other, Self.latest])
    let bytes = [UInt8](FlowStateCoder.state(state))
    #expect(try FlowStateCoder.state(bytes, name: "s") == state)
    for length in 0..<bytes.count {
      #expect {
        try FlowStateCoder.state(Array(bytes.prefix(length)), name: "the state of net")
      } throws: { error in
        guard let name = (error as? BinaryDataError)?.name else { return false }
        return name.contains("the state of net")
      }
    }
    // A segment id beyond the network's segment count is refused.
    var small = state
    small.segmentCount = 12
    #expect(throws: BinaryDataError.self) {
      try FlowStateCoder.state([UInt8](FlowStateCoder.state(small)), name: "s")
    }
  }

  @Test("a network's fingerprint is stable and changes with the network")
  func fingerprint() throws {
    let network = try FlowFixtures.network()
    let fingerprint = FlowStateCoder.fingerprint(of: network)
    #expect(fingerprint == FlowStateCoder.fingerprint(of: try FlowFixtures.network()))
    #expect(fingerprint.hasPrefix("7-"))
    let smaller = try RoadNetwork(nodes: network.nodes, segments: Array(network.segments.prefix(6)))
    #expect(FlowStateCoder.fingerprint(of: smaller) != fingerprint)
  }

  @Test("a network's fingerprint does not change with its toll roads")
  func tollsLeaveTheFingerprint() throws {
    let network = try FeatureGrid.network(seed: 1)
    #expect(network.segments.contains { $0.isToll })
    let tollFree = try RoadNetwork(
      nodes: network.nodes,
      segments: network.segments.map { segment in
        RoadSegment(
          id: segment.id, sourceID: segment.sourceID, fromNode: segment.fromNode,
          toNode: segment.toNode, geometry: segment.geometry, roadClass: segment.roadClass,
          speedLimit: SpeedLimit(
            metersPerSecond: segment.speedLimitInMetersPerSecond,
            source: segment.speedLimitSource),
          isReversed: segment.isReversed, oppositeID: segment.oppositeID)
      })
    #expect(FlowStateCoder.fingerprint(of: network) == FlowStateCoder.fingerprint(of: tollFree))
    // The stored network itself keeps them.
    #expect(network.binaryChunks() != tollFree.binaryChunks())
  }
}
