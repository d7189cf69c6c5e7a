import Foundation
import Roads
import Testing
import Traffic

@Suite struct TrafficEngineFlowTests {
  @Test("without data every segment reports free flow at the speed limit, confidence 0.5")
  func freeFlowWithoutData() async throws {
    let engine = try FlowFixtures.engine()
    let flows = try await engine.queryForFlow(inside: FlowFixtures.everywhere())
    #expect(flows.map(\.segmentID) == Array(0..<7))
    for flow in flows {
      #expect(flow.speedInMetersPerSecond == FlowFixtures.limit)
      #expect(flow.freeFlowSpeedInMetersPerSecond == FlowFixtures.limit)
      #expect(flow.jamFactor == 0)
      #expect(flow.confidence == 0.5)
      #expect(flow.traversability == .open)
      #expect(flow.functionalClass == 2)
      #expect(abs(flow.lengthInMeters - 500) < 1)
    }
    #expect(flows.first?.roadName == "West")
    // A small circle at the east end meets only the east road's two directions.
    let east = try GeoCircle(
      center: FlowFixtures.coordinates(east: 1000), radiusInMeters: 50)
    #expect(try engine.flow(inside: east, options: .init()).map(\.segmentID) == [2, 3])
  }

  @Test("an answer holds at most maxFlowResults segments; more is a 413 naming the count")
  func flowAnswersAreBounded() async throws {
    let store = InMemoryTrafficStore()
    let engine = try TrafficEngine(
      store: store, limits: TrafficQueryLimits(maxFlowResults: 6),
      network: FlowFixtures.network())
    var refusal: TrafficQueryError?
    do { _ = try await engine.queryForFlow(inside: FlowFixtures.everywhere()) } catch {
      refusal = error as? TrafficQueryError
    }
    #expect(refusal?.httpStatus == 413)
    #expect("\(refusal.map { "\($0)" } ?? "")".contains("7 road segments match, more than the 6"))
    // Filtered to fewer, it answers.
    let major = try await engine.queryForFlow(
      inside: FlowFixtures.everywhere(),
      queryOptions: TrafficFlowQueryOptions(functionalClasses: [1]))
    #expect(major.isEmpty)
  }

  @Test("probes give the segment's space-mean speed, its jam factor and confidence")
  func liveSpeed() throws {
    let engine = try FlowFixtures.engine()
    let network = try #require(engine.roadNetwork)
    let probes = try FlowFixtures.fleet(4, along: [0], speed: 5, network: network)
    let report = engine.ingest(probes: probes)
    #expect(report.accepted + report.skippedStationary == probes.count)
    #expect(report.unmatched == 0)
    engine.flushProbes()
    let flow = try #require(try FlowFixtures.flow(engine, 0))
    #expect(abs(flow.speedUncappedInMetersPerSecond - 5) < 0.25)
    #expect(flow.speedInMetersPerSecond == flow.speedUncappedInMetersPerSecond)
    let expectedJam = 10 * (1 - flow.speedUncappedInMetersPerSecond / FlowFixtures.limit)
    #expect(abs(flow.jamFactor - expectedJam) < 1e-9)
    #expect(abs(flow.confidence - (0.7 + 0.3 * 4 / 10)) < 1e-9)
    // All probes fell into the newer half of the window: no trend to tell.
    #expect(flow.jamTendency == nil)
    // The other direction and the other roads have no data.
    #expect(try FlowFixtures.flow(engine, 1)?.confidence == 0.5)
    #expect(try FlowFixtures.flow(engine, 2)?.confidence == 0.5)
    #expect(engine.flowLastUpdate != nil)
  }

  @Test("the latest probes count before map matching has decided them")
  func undecidedProbesCount() throws {
    let engine = try FlowFixtures.engine()
    let network = try #require(engine.roadNetwork)
    // Four probes: fewer than the decision lag, so none is decided yet.
    let probes = try FlowFixtures.drive("a", along: [0], speed: 8, interval: 5, network: network)
      .suffix(4)
    #expect(engine.ingest(probes: Array(probes)).decided == 0)
    let flow = try #require(try FlowFixtures.flow(engine, 0))
    #expect(abs(flow.speedUncappedInMetersPerSecond - 8) < 0.5)
    #expect(abs(flow.confidence - (0.7 + 0.3 * 1 / 10)) < 1e-9)
  }

  @Test("a vehicle that stopped in a queue counts with its drive up to the queue")
  func queueWithItsApproach() throws {
    let engine = try FlowFixtures.engine()
    // 200 m in 20 s (10 m/s) along the west road, then standing still for 80 s: while it
    // stands its positions stay undecided, yet the segment's speed is 200 m / 100 s.
    var probes: [Probe] = []
    for k in 0...20 {
      let east = 10 + 50 * Double(min(k, 4))
      probes.append(
        Probe(
          vehicleID: "q", time: FlowFixtures.now - 100 + 5 * Double(k),
          coordinates: try FlowFixtures.coordinates(east: east),
          speedInMetersPerSecond: k < 4 ? 10 : 0, headingInDegrees: 90))
    }
    let report = engine.ingest(probes: probes)
    #expect(report.skippedStationary == 16)
    #expect(report.decided == 0)
    let flow = try #require(try FlowFixtures.flow(engine, 0))
    #expect(abs(flow.speedUncappedInMetersPerSecond - 2) < 0.01)
    // Deciding the positions changes nothing.
    engine.flushProbes()
    let flushed = try #require(try FlowFixtures.flow(engine, 0))
    #expect(abs(flushed.speedUncappedInMetersPerSecond - 2) < 0.01)
  }

  @Test(
    "a vehicle standing just past a junction counts there; one at the stop line before it",
    arguments: [(512.0, 2, 8 / 60.8, 10.0), (498.0, 0, 242 / 84.2, nil)])
  func standingAtAJunction(
    standingEast: Double, standingSegment: Int, speed: Double, otherSpeed: Double?
  ) throws {
    let engine = try FlowFixtures.engine()
    // West road (segment 0) at 10 m/s; the last moving probe lies 8 m past the crossing B,
    // on the east road (segment 2), then twelve probes stand still at `standingEast`.
    var probes: [Probe] = []
    for k in 0..<18 {
      let east = k < 6 ? 258 + 50 * Double(k) : standingEast
      probes.append(
        Probe(
          vehicleID: "s", time: FlowFixtures.now - 90 + 5 * Double(k),
          coordinates: try FlowFixtures.coordinates(east: east),
          speedInMetersPerSecond: k < 6 ? 10 : 0, headingInDegrees: 90))
    }
    #expect(engine.ingest(probes: probes).skippedStationary == 12)
    engine.flushProbes()
    let stood = try #require(try FlowFixtures.flow(engine, standingSegment))
    let other = try #require(try FlowFixtures.flow(engine, 2 - standingSegment))
    // The 60 s standing still count on the segment the vehicle stood on, only there: 8 m
    // in 0.8 s + 60 s past the crossing, or 242 m in 24.2 s + 60 s before it (and then the
    // 8 m past the crossing, GPS noise at a junction, make no real-time value).
    #expect(abs(stood.speedUncappedInMetersPerSecond - speed) < 0.05)
    if let otherSpeed {
      #expect(abs(other.speedUncappedInMetersPerSecond - otherSpeed) < 0.1)
    } else {
      #expect(other.confidence == 0.5)
    }
  }

  @Test("the jam tendency compares the older and the newer half of the window")
  func tendency() throws {
    let network = try FlowFixtures.network()
    let fast = try FlowFixtures.fleet(
      2, along: [0], speed: 12, end: FlowFixtures.now - 200, prefix: "fast", network: network)
    let slow = try FlowFixtures.fleet(
      2, along: [0], speed: 2.5, end: FlowFixtures.now, prefix: "slow", network: network)
    let rising = try FlowFixtures.engine()
    rising.ingest(probes: fast + slow)
    rising.flushProbes()
    #expect(try FlowFixtures.flow(rising, 0)?.jamTendency == .rising)
    let fastLater = try FlowFixtures.fleet(
      2, along: [0], speed: 12, end: FlowFixtures.now, prefix: "fast", network: network)
    let slowEarlier = try FlowFixtures.fleet(
      2, along: [0], speed: 2.5, end: FlowFixtures.now - 160, prefix: "slow", network: network)
    let falling = try FlowFixtures.engine()
    falling.ingest(probes: fastLater + slowEarlier)
    falling.flushProbes()
    #expect(try FlowFixtures.flow(falling, 0)?.jamTendency == .falling)
  }

  @Test("speed is capped at the limit, speedUncapped is not")
  func capping() throws {
    let engine = try FlowFixtures.engine()
    let network = try #require(engine.roadNetwork)
    engine.ingest(probes: try FlowFixtures.fleet(3, along: [2], speed: 18, network: network))
    engine.flushProbes()
    let flow = try #require(try FlowFixtures.flow(engine, 2))
    #expect(abs(flow.speedUncappedInMetersPerSecond - 18) < 0.9)
    #expect(flow.speedInMetersPerSecond == FlowFixtures.limit)
    #expect(flow.jamFactor == 0)
  }

  @Test("a vehicle far faster than the rest and the limit is dropped as an outlier")
  func outlier() throws {
    let engine = try FlowFixtures.engine()
    let network = try #require(engine.roadNetwork)
    var probes = try FlowFixtures.fleet(3, along: [0], speed: 8, network: network)
    probes += try FlowFixtures.drive("racer", along: [0], speed: 30, network: network)
    engine.ingest(probes: probes)
    engine.flushProbes()
    let flow = try #require(try FlowFixtures.flow(engine, 0))
    #expect(abs(flow.speedUncappedInMetersPerSecond - 8) < 0.4)
    #expect(abs(flow.confidence - 0.79) < 1e-9)
  }

  @Test("values leave the window: after it, the segment is back at free flow")
  func slidingWindow() throws {
    let clock = FlowFixtures.Clock()
    let engine = try FlowFixtures.engine(clock: clock)
    let network = try #require(engine.roadNetwork)
    engine.ingest(probes: try FlowFixtures.fleet(2, along: [0], speed: 4, network: network))
    engine.flushProbes()
    #expect(try FlowFixtures.flow(engine, 0)?.confidence ?? 0 > 0.7)
    clock.advance(400)
    let flow = try #require(try FlowFixtures.flow(engine, 0))
    #expect(flow.confidence == 0.5)
    #expect(flow.speedInMetersPerSecond == FlowFixtures.limit)
    // A week later, at the same time of the week, that crawl is what the segment typically
    // does (one week of history: the lowest historical confidence).
    clock.advance(7 * 86_400 - 400)
    let typical = try #require(try FlowFixtures.flow(engine, 0))
    #expect(abs(typical.speedUncappedInMetersPerSecond - 4) < 0.4)
    #expect(typical.confidence > 0.6 && typical.confidence <= 0.7)
    #expect(typical.jamFactor > 6)
  }

  @Test("free flow is learned from the segment's own history once it has enough")
  func learnedFreeFlow() throws {
    let clock = FlowFixtures.Clock()
    let engine = try FlowFixtures.engine(clock: clock)
    let network = try #require(engine.roadNetwork)
    for round in 0..<8 {
      let end = FlowFixtures.now + Double(round) * 300
      clock.set(end)
      engine.ingest(
        probes: try FlowFixtures.fleet(
          2, along: [2], speed: 11, end: end, prefix: "r\(round)-", network: network))
      engine.flushProbes()
    }
    clock.advance(600)
    let flow = try #require(try FlowFixtures.flow(engine, 2))
    #expect(abs(flow.freeFlowSpeedInMetersPerSecond - 11) < 0.6)
    #expect(flow.confidence == 0.6)
    #expect(flow.jamFactor == 0)
  }

  @Test("a queue standing for hours teaches no free flow: the segment keeps its speed limit")
  func noFreeFlowFromAStandingQueue() throws {
    let clock = FlowFixtures.Clock()
    let engine = try FlowFixtures.engine(clock: clock)
    let network = try #require(engine.roadNetwork)
    let segment = network.segments[2]
    let heading = segment.geometry.vertices[0].bearing(to: segment.geometry.vertices[1])
    // Two vehicles creeping at 0.2 m/s, 5 m apart, for eight five-minute buckets.
    for round in 0..<8 {
      let end = FlowFixtures.now + Double(round) * 300
      clock.set(end)
      var probes: [Probe] = []
      for vehicle in 0..<2 {
        for k in 0..<60 {
          let along = 15 - Double(vehicle) * 5 + Double(round * 60 + k)
          probes.append(
            Probe(
              vehicleID: "q\(vehicle)", time: end - 295 + Double(k) * 5,
              coordinates: segment.geometry.coordinates(atDistance: along),
              speedInMetersPerSecond: 0.2, headingInDegrees: heading))
        }
      }
      engine.ingest(probes: probes.sorted { $0.time < $1.time })
      engine.flushProbes()
    }
    clock.advance(600)
    let flow = try #require(try FlowFixtures.flow(engine, 2))
    // Learned from the queue, the free flow was 0.2 m/s.
    #expect(flow.freeFlowSpeedInMetersPerSecond == FlowFixtures.limit, "\(flow)")
  }

  @Test("a road-closure incident closes the segments it covers, in its direction")
  func closure() throws {
    let closure = try TrafficIncident(
      id: "c1", type: .roadClosure, impact: .critical, isRoadClosed: true,
      location: TrafficLocation(
        polyline: GeoPolyline(vertices: [
          FlowFixtures.coordinates(east: 20), FlowFixtures.coordinates(east: 480),
        ])))
    let engine = try FlowFixtures.engine(incidents: [closure])
    let closed = try #require(try FlowFixtures.flow(engine, 0))
    #expect(closed.traversability == .closed)
    #expect(closed.jamFactor == 10)
    #expect(closed.speedInMetersPerSecond == 0)
    #expect(try FlowFixtures.flow(engine, 1)?.traversability == .open)
    #expect(try FlowFixtures.flow(engine, 2)?.traversability == .open)
    // Closed roads pass a minJamFactor of 10; open ones do not.
    let jammed = try engine.flow(
      inside: FlowFixtures.everywhere(), options: TrafficFlowQueryOptions(minJamFactor: 10))
    #expect(jammed.map(\.segmentID) == [0])
  }

  @Test("filters by jam factor and functional class; bad filters are invalidFilterOptions")
  func filters() throws {
    let engine = try FlowFixtures.engine()
    let network = try #require(engine.roadNetwork)
    engine.ingest(probes: try FlowFixtures.fleet(3, along: [0], speed: 4, network: network))
    engine.flushProbes()
    let area = try FlowFixtures.everywhere()
    #expect(try engine.flow(inside: area, options: .init(minJamFactor: 5)).map(\.segmentID) == [0])
    #expect(try engine.flow(inside: area, options: .init(maxJamFactor: 1)).count == 6)
    #expect(try engine.flow(inside: area, options: .init(functionalClasses: [1])).isEmpty)
    #expect(try engine.flow(inside: area, options: .init(functionalClasses: [2, 5])).count == 7)
    for bad in [
      TrafficFlowQueryOptions(minJamFactor: 11), TrafficFlowQueryOptions(maxJamFactor: -1),
      TrafficFlowQueryOptions(minJamFactor: 6, maxJamFactor: 2),
      TrafficFlowQueryOptions(functionalClasses: [0]),
      TrafficFlowQueryOptions(minJamFactor: .nan),
    ] {
      #expect(throws: TrafficQueryError.self) { try engine.flow(inside: area, options: bad) }
      do {
        _ = try engine.flow(inside: area, options: bad)
      } catch {
        #expect(error.name == "invalidFilterOptions")
      }
    }
    let huge = try GeoCircle(
      center: FlowFixtures.coordinates(east: 0), radiusInMeters: 60_000)
    #expect(throws: TrafficQueryError.self) { try engine.flow(inside: huge, options: .init()) }
  }

  @Test("feed observations set speeds; a jam factor of 10 blocks the road")
  func observations() throws {
    let engine = try FlowFixtures.engine()
    let eastbound = try GeoPolyline(vertices: [
      FlowFixtures.coordinates(east: 510), FlowFixtures.coordinates(east: 990),
    ])
    let westbound = try GeoPolyline(vertices: eastbound.vertices.reversed())
    let observed = engine.ingest(observations: [
      FlowObservation(polyline: eastbound, speedInMetersPerSecond: 4, time: FlowFixtures.now),
      FlowObservation(polyline: westbound, jamFactor: 10, time: FlowFixtures.now),
    ])
    #expect(observed == 2)
    let east = try #require(try FlowFixtures.flow(engine, 2))
    #expect(east.speedUncappedInMetersPerSecond == 4)
    #expect(east.confidence == 0.8)
    let west = try #require(try FlowFixtures.flow(engine, 3))
    #expect(west.jamFactor == 10)
    #expect(west.traversability == .closed)
  }

  @Test("the completion form returns what the async form returns")
  func completion() async throws {
    let engine = try FlowFixtures.engine()
    let area = try FlowFixtures.everywhere()
    let expected = try await engine.queryForFlow(inside: area)
    let result: [TrafficFlow]? = await withCheckedContinuation { continuation in
      engine.queryForFlow(inside: area) { error, flows in
        #expect(error == nil)
        continuation.resume(returning: flows)
      }
    }
    #expect(result == expected)
  }

  @Test("an engine without a network has no flow and ignores probes")
  func withoutNetwork() throws {
    let engine = try TrafficEngine(store: InMemoryTrafficStore())
    #expect(try engine.flow(inside: FlowFixtures.everywhere(), options: .init()).isEmpty)
    let network = try FlowFixtures.network()
    let report = engine.ingest(
      probes: try FlowFixtures.drive("a", along: [0], speed: 5, network: network))
    #expect(report == ProbeIngestReport())
    #expect(engine.roadNetwork == nil)
  }

  @Test(
    "jam factor: 10 × (1 − speed / free flow), clamped to 0...9.9",
    arguments: [
      (13.89, 13.89, 0.0), (20, 13.89, 0), (5, 10, 5), (2.5, 10, 7.5), (0, 10, 9.9), (1, 0, 0),
    ] as [(Double, Double, Double)])
  func jamFactorFormula(speed: Double, freeFlow: Double, expected: Double) {
    #expect(abs(FlowSnapshot.jamFactor(speed: speed, freeFlow: freeFlow) - expected) < 1e-12)
  }
}
