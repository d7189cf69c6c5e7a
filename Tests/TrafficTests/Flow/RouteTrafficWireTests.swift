import Foundation
import Roads
import Testing
import Traffic

/// The traffic-on-route answer (`POST /v1/route/traffic`) reads back what it writes, as the
/// remote engine reads the server's answer.
@Suite struct RouteTrafficWireTests {
  /// Spans of every kind the answer carries: named and unnamed, open and closed (no delay),
  /// faster than free flow (a negative delay), values with more digits than the wire keeps.
  static func spans() -> [TrafficOnRoute.Span] {
    [
      TrafficOnRoute.Span(
        offsetInMeters: 0, lengthInMeters: 499.96, segmentID: 0, roadName: "West \"28\" ✓",
        baseSpeedInMetersPerSecond: 13.89, trafficSpeedInMetersPerSecond: 5.123456,
        jamFactor: 6.31, confidence: 0.912, traversability: .open, delayInSeconds: 61.54),
      TrafficOnRoute.Span(
        offsetInMeters: 499.96, lengthInMeters: 500.04, segmentID: 2, roadName: nil,
        baseSpeedInMetersPerSecond: 13.89, trafficSpeedInMetersPerSecond: 0, jamFactor: 10,
        confidence: 0.7, traversability: .closed, delayInSeconds: nil),
      TrafficOnRoute.Span(
        offsetInMeters: 1000, lengthInMeters: 12.5, segmentID: 123_456_789, roadName: "",
        baseSpeedInMetersPerSecond: 8.333, trafficSpeedInMetersPerSecond: 9.75, jamFactor: 0,
        confidence: 0.5, traversability: .reversibleNotRoutable, delayInSeconds: -0.0001),
    ]
  }

  static func traffic() throws -> TrafficOnRoute {
    let incidents = try V7AnswerRoundTripTests.incidents(count: 24, seed: 11)
    return TrafficOnRoute(
      spans: spans(),
      incidents: incidents.enumerated().map { index, incident in
        TrafficOnRoute.IncidentOnRoute(incident: incident, offsetInMeters: Double(index) * 41.37)
      },
      lengthInMeters: 1012.54, baseDurationInSeconds: 73.456, trafficDurationInSeconds: 98.04,
      totalDelayInSeconds: 61.5399, isBlocked: true)
  }

  static func rounded(_ value: Double, _ decimals: Double) -> Double {
    let scale = pow(10, decimals)
    return (value * scale).rounded() / scale
  }

  @Test(arguments: [nil, Date(timeIntervalSince1970: 1_800_000_000.5)])
  func anAnswerReadsBackAndWritesTheSameBytes(sourceUpdated: Date?) throws {
    let original = try Self.traffic()
    let data = RouteTrafficWire.encode(original, sourceUpdated: sourceUpdated)
    let answer = try RouteTrafficWire.decode(data)
    #expect(answer.problems.isEmpty, "\(answer.problems.prefix(3))")
    #expect(answer.sourceUpdated == sourceUpdated)
    #expect(RouteTrafficWire.encode(answer.traffic, sourceUpdated: answer.sourceUpdated) == data)

    // The values, at the precision of the wire.
    let traffic = answer.traffic
    #expect(traffic.lengthInMeters == Self.rounded(original.lengthInMeters, 1))
    #expect(traffic.baseDurationInSeconds == Self.rounded(original.baseDurationInSeconds, 1))
    #expect(
      traffic.trafficDurationInSeconds == Self.rounded(original.trafficDurationInSeconds, 1))
    #expect(traffic.totalDelayInSeconds == Self.rounded(original.totalDelayInSeconds, 1))
    #expect(traffic.isBlocked)
    try #require(traffic.spans.count == original.spans.count)
    for (span, written) in zip(traffic.spans, original.spans) {
      #expect(span.segmentID == written.segmentID)
      #expect(span.roadName == written.roadName)
      #expect(span.offsetInMeters == Self.rounded(written.offsetInMeters, 1))
      #expect(span.lengthInMeters == Self.rounded(written.lengthInMeters, 1))
      #expect(
        span.baseSpeedInMetersPerSecond == Self.rounded(written.baseSpeedInMetersPerSecond, 2))
      #expect(
        span.trafficSpeedInMetersPerSecond
          == Self.rounded(written.trafficSpeedInMetersPerSecond, 2))
      #expect(span.jamFactor == Self.rounded(written.jamFactor, 1))
      #expect(span.confidence == Self.rounded(written.confidence, 2))
      #expect(span.traversability == written.traversability)
      #expect(span.delayInSeconds == written.delayInSeconds.map { Self.rounded($0, 1) })
      // Not on the wire.
      #expect(span.speedLimitInMetersPerSecond == nil && span.functionalClass == nil)
    }
    try #require(traffic.incidents.count == original.incidents.count)
    for (item, written) in zip(traffic.incidents, original.incidents) {
      #expect(item.offsetInMeters == Self.rounded(written.offsetInMeters, 1))
      V7AnswerRoundTripTests.expectSame(item.incident, written.incident, written: .shape)
    }
  }

  @Test func anEnginesAnswerReadsBackAndWritesTheSameBytes() throws {
    let accident = try TrafficIncident(
      id: "acc", type: .accident, impact: .major,
      location: TrafficLocation(point: FlowFixtures.coordinates(east: 700, north: 5)))
    let engine = try FlowFixtures.engine(incidents: [accident])
    let network = try #require(engine.roadNetwork)
    engine.ingest(probes: try FlowFixtures.fleet(3, along: [0], speed: 5, network: network))
    engine.flushProbes()
    let traffic = try engine.trafficOnRoute(TrafficOnRouteTests.route())
    #expect(traffic.spans.count == 2)
    #expect(traffic.incidents.count == 1)
    let data = RouteTrafficWire.encode(traffic, sourceUpdated: engine.flowLastUpdate)
    let answer = try RouteTrafficWire.decode(data)
    #expect(RouteTrafficWire.encode(answer.traffic, sourceUpdated: answer.sourceUpdated) == data)
    #expect(answer.traffic.spans.map(\.segmentID) == [0, 2])
    #expect(answer.traffic.incidents.map(\.incident.originalId) == ["acc"])
    #expect(abs(answer.traffic.totalDelayInSeconds - traffic.totalDelayInSeconds) <= 0.05)
  }

  @Test(arguments: [
    ("nope", "not valid JSON"),
    ("[1]", "expected an object"),
    ("{\"length\": 1}", "missing member"),
    (#"{"sourceUpdated": "today", "length": 1}"#, "RFC 3339"),
  ])
  func aBodyThatIsNoAnswerIsNamed(body: String, mentions: String) {
    let error = #expect(throws: V7WireError.self) {
      try RouteTrafficWire.decode(Data(body.utf8))
    }
    #expect(error?.description.contains(mentions) == true, "\(String(describing: error))")
  }

  @Test func aBadSpanFailsTheAnswerAndABadIncidentIsSkipped() throws {
    let original = try Self.traffic()
    let text = String(
      decoding: RouteTrafficWire.encode(original, sourceUpdated: nil), as: UTF8.self)
    for (good, bad, place) in [
      (#""traversability":"closed""#, #""traversability":"shut""#, "spans[1].traversability"),
      (#""jamFactor":10"#, #""jamFactor":11"#, "spans[1].jamFactor"),
      (#""segmentId":2}"#, #""segmentId":2.5}"#, "spans[1].segmentId"),
    ] {
      #expect(text.contains(good), "\(good)")
      let error = #expect(throws: V7WireError.self) {
        try RouteTrafficWire.decode(Data(text.replacingOccurrences(of: good, with: bad).utf8))
      }
      #expect(error?.location == place, "\(String(describing: error))")
    }
    // The first incident's id removed: that incident is skipped, the others read.
    let firstID = #""id":"\#(original.incidents[0].incident.id)","#
    #expect(text.contains(firstID))
    let answer = try RouteTrafficWire.decode(
      Data(text.replacingOccurrences(of: firstID, with: "").utf8))
    #expect(answer.traffic.incidents.count == original.incidents.count - 1)
    #expect(answer.problems.map(\.location) == ["incidents[0].incident.incidentDetails"])
  }
}
