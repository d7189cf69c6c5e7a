import Foundation
import Roads
import Synchronization
import Testing
import Traffic

/// A store keeping incidents in memory and flow as JSON bytes, as a durable store would keep
/// them outside the process.
final class JSONFlowStore: TrafficStore, FlowPersistence {
  private let incidents = InMemoryTrafficStore()
  private let network = Mutex<RoadNetwork?>(nil)
  let flow = Mutex<Data?>(nil)
  let saves = Mutex(0)

  func currentIncidents() throws(TrafficStoreError) -> [TrafficIncident] {
    try incidents.currentIncidents()
  }
  func apply(_ batch: IncidentBatch) throws(TrafficStoreError) { try incidents.apply(batch) }
  func history(ofOriginalId id: String) throws(TrafficStoreError) -> [TrafficIncident] {
    try incidents.history(ofOriginalId: id)
  }
  func purge(endedBefore cutoff: Date) throws(TrafficStoreError) -> [String] {
    try incidents.purge(endedBefore: cutoff)
  }
  func saveNetwork(_ network: RoadNetwork) throws(TrafficStoreError) {
    self.network.withLock { $0 = network }
    flow.withLock { $0 = nil }
  }
  func loadNetwork() throws(TrafficStoreError) -> RoadNetwork? { network.withLock { $0 } }
  func saveFlow(_ state: FlowState.Persisted) throws(TrafficStoreError) {
    do {
      let data = try JSONEncoder().encode(state)
      flow.withLock { $0 = data }
      saves.withLock { $0 += 1 }
    } catch {
      throw .operationFailed("\(error)")
    }
  }
  func loadFlow() throws(TrafficStoreError) -> FlowState.Persisted? {
    guard let data = flow.withLock({ $0 }) else { return nil }
    do { return try JSONDecoder().decode(FlowState.Persisted.self, from: data) } catch {
      throw .operationFailed("\(error)")
    }
  }
}

@Suite struct FlowPersistenceTests {
  /// Short history buckets, so that free flow is learned within the test's half hour.
  static func configuration() -> FlowConfiguration {
    var configuration = FlowConfiguration()
    configuration.historyBucketInSeconds = 60
    configuration.minimumHistoryBuckets = 3
    return configuration
  }

  static func engine(
    store: JSONFlowStore, clock: FlowFixtures.Clock, network: RoadNetwork
  ) throws -> TrafficEngine {
    let engine = try TrafficEngine(store: store, clock: { clock.now }, network: network)
    try engine.configureFlow(configuration())
    return engine
  }

  /// Feeds engine A half an hour of probes on several segments (free flow learned on one),
  /// a slow fleet on another, and feed observations; returns the clock at the end.
  static func drive(_ engine: TrafficEngine, clock: FlowFixtures.Clock) throws {
    let network = try #require(engine.roadNetwork)
    for round in 0..<6 {
      let end = FlowFixtures.now + Double(round) * 120
      clock.set(end)
      engine.ingest(
        probes: try FlowFixtures.fleet(
          2, along: [2], speed: 11 - Double(round % 2), end: end, prefix: "r\(round)-",
          network: network))
      engine.flushProbes()
    }
    let end = FlowFixtures.now + 900
    clock.set(end)
    engine.ingest(
      probes: try FlowFixtures.fleet(3, along: [0], speed: 4, end: end, network: network)
        + FlowFixtures.fleet(2, along: [2], speed: 6, end: end, prefix: "late", network: network))
    engine.flushProbes()
    let northbound = try GeoPolyline(vertices: [
      FlowFixtures.coordinates(east: 500, north: 10),
      FlowFixtures.coordinates(east: 500, north: 490),
    ])
    engine.ingest(observations: [
      FlowObservation(polyline: northbound, speedInMetersPerSecond: 3, time: end - 30)
    ])
  }

  static func flows(_ engine: TrafficEngine) throws -> [TrafficFlow] {
    try engine.flow(inside: FlowFixtures.everywhere(), options: TrafficFlowQueryOptions())
  }

  @Test("an engine restarted from the saved state answers flow queries as before")
  func restart() throws {
    let store = JSONFlowStore()
    let network = try FlowFixtures.network()
    let clock = FlowFixtures.Clock()
    let first = try Self.engine(store: store, clock: clock, network: network)
    try Self.drive(first, clock: clock)
    let before = try Self.flows(first)
    // The scenario is not trivial: live values, a learned free flow and an observation.
    #expect(before.filter { $0.confidence > 0.7 }.map(\.segmentID) == [0, 2, 4])
    #expect(before[2].freeFlowSpeedInMetersPerSecond != FlowFixtures.limit)
    #expect(try first.saveFlow())

    let second = try Self.engine(store: store, clock: clock, network: network)
    #expect(try Self.flows(second) != before)
    #expect(try second.restoreFlow())
    #expect(try Self.flows(second) == before)
    #expect(second.flowLastUpdate == first.flowLastUpdate)
    // Both age alike: values leave the window and the observation expires at the same time.
    for step in [100.0, 200, 400] {
      clock.advance(step)
      #expect(try Self.flows(second) == Self.flows(first), "after \(step) s more")
    }
    #expect(try Self.flows(second)[2].freeFlowSpeedInMetersPerSecond != FlowFixtures.limit)
  }

  @Test("the saved state survives JSON exactly and holds the latest flow")
  func codable() throws {
    let store = JSONFlowStore()
    let clock = FlowFixtures.Clock()
    let engine = try Self.engine(store: store, clock: clock, network: FlowFixtures.network())
    try Self.drive(engine, clock: clock)
    try engine.saveFlow()
    let saved = try #require(try store.loadFlow())
    let again = try JSONDecoder().decode(
      FlowState.Persisted.self, from: JSONEncoder().encode(saved))
    #expect(again == saved)
    #expect(saved.segmentCount == 7)
    #expect(saved.savedAt == clock.now)
    #expect(saved.observations.map(\.segmentID) == [4])
    #expect(saved.segments.map(\.segmentID) == saved.segments.map(\.segmentID).sorted())
    let flows = try Self.flows(engine)
    #expect(saved.latest.map(\.segmentID) == [0, 2, 4])
    for latest in saved.latest {
      #expect(latest == FlowState.Persisted.Latest(flows[latest.segmentID]))
    }
  }

  @Test("a state of another network or with damaged values is refused, changing nothing")
  func refused() throws {
    let store = JSONFlowStore()
    let clock = FlowFixtures.Clock()
    let network = try FlowFixtures.network()
    let engine = try Self.engine(store: store, clock: clock, network: network)
    try Self.drive(engine, clock: clock)
    try engine.saveFlow()
    let saved = try #require(try store.loadFlow())
    let persisting = JSONFlowStore()
    let target = try Self.engine(store: persisting, clock: clock, network: network)
    try persisting.saveFlow(saved)
    #expect(try target.restoreFlow())
    let good = try Self.flows(target)
    #expect(try good == Self.flows(engine))
    var damaged: [FlowState.Persisted] = []
    var other = saved
    other.segmentCount = 8
    damaged.append(other)
    var missing = saved
    missing.segments[missing.segments.count - 1].segmentID = 7
    damaged.append(missing)
    var negative = saved
    negative.segments[0].contributions[0].seconds = -1
    damaged.append(negative)
    // (JSON cannot carry a non-finite number; FlowStateCoderTests covers those.)
    var negativeSpeed = saved
    negativeSpeed.segments[0].historyInMetersPerSecond.append(-3)
    damaged.append(negativeSpeed)
    var twice = saved
    twice.observations.append(twice.observations[0])
    damaged.append(twice)
    for state in damaged {
      try persisting.saveFlow(state)
      #expect(throws: TrafficEngineError.self) { try target.restoreFlow() }
      #expect(try Self.flows(target) == good)
    }
  }

  @Test("saveFlowIfDue saves at most once per interval of the engine's clock")
  func throttled() throws {
    let store = JSONFlowStore()
    let clock = FlowFixtures.Clock()
    let engine = try Self.engine(store: store, clock: clock, network: FlowFixtures.network())
    #expect(try engine.saveFlowIfDue(intervalInSeconds: 60))
    clock.advance(59)
    #expect(try !engine.saveFlowIfDue(intervalInSeconds: 60))
    clock.advance(1)
    #expect(try engine.saveFlowIfDue(intervalInSeconds: 60))
    #expect(store.saves.withLock { $0 } == 2)
    // Without a network, or on a store that does not keep flow, nothing is saved.
    let plain = try TrafficEngine(store: InMemoryTrafficStore(), network: FlowFixtures.network())
    #expect(try !plain.saveFlow())
    #expect(try !plain.restoreFlow())
    let noNetwork = try TrafficEngine(store: store)
    #expect(try !noNetwork.saveFlowIfDue())
  }

  @Test("the ingests of a quiet spell's start are saved by the timer, once")
  func pendingSaves() throws {
    let store = JSONFlowStore()
    let clock = FlowFixtures.Clock()
    let engine = try Self.engine(store: store, clock: clock, network: FlowFixtures.network())
    // Nothing ingested: the timer saves nothing.
    #expect(try !engine.saveFlowIfPending(intervalInSeconds: 60))
    #expect(try engine.saveFlowIfDue(intervalInSeconds: 60))  // an ingest, saved
    clock.advance(10)
    #expect(try !engine.saveFlowIfDue(intervalInSeconds: 60))  // the last one: not yet
    #expect(try !engine.saveFlowIfPending(intervalInSeconds: 60))
    clock.advance(50)
    // No batch follows: before, only a planned stop saved it.
    #expect(try engine.saveFlowIfPending(intervalInSeconds: 60))
    clock.advance(600)
    #expect(try !engine.saveFlowIfPending(intervalInSeconds: 60))
    #expect(store.saves.withLock { $0 } == 2)
  }
}
