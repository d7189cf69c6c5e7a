import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficSQLite

@Suite struct SQLiteTrafficStoreFlowTests {
  /// An engine on `store` computing flow on the network the store holds, with the tests'
  /// flow configuration.
  static func engine(
    _ store: SQLiteTrafficStore, clock: NetworkFixtures.Clock
  ) throws -> TrafficEngine {
    let engine = try TrafficEngine(
      store: store, limits: .unlimited, clock: { clock.now }, network: try store.loadNetwork())
    try engine.configureFlow(NetworkFixtures.configuration())
    return engine
  }

  static func flows(_ engine: TrafficEngine) throws -> [TrafficFlow] {
    let network = try #require(engine.roadNetwork)
    return try engine.flow(
      inside: NetworkFixtures.everywhere(network), options: TrafficFlowQueryOptions())
  }

  /// Engine A ingests, saves; engine B opens the same file with a new connection, loads the
  /// network and the flow: both answer alike now and as time passes.
  func restart(network: RoadNetwork, paths: [[Int]], observed: Int) throws -> Double {
    let directory = try TemporaryDirectory()
    let path = directory.path("flow.sqlite")
    let clock = NetworkFixtures.Clock()
    let storeA = try SQLiteTrafficStore(path: path)
    try storeA.saveNetwork(network)
    let first = try Self.engine(storeA, clock: clock)
    try NetworkFixtures.drive(first, clock: clock, paths: paths, observed: observed)
    let before = try Self.flows(first)
    let live = before.filter { $0.confidence > 0.7 }.map(\.segmentID)
    #expect(Set(paths[1]).isSubset(of: live))
    #expect(live.contains(observed))
    #expect(
      before.contains { $0.freeFlowSpeedInMetersPerSecond != $0.speedUncappedInMetersPerSecond })
    #expect(
      paths[0].contains {
        before[$0].freeFlowSpeedInMetersPerSecond
          != network.segments[$0].speedLimitInMetersPerSecond
      })
    #expect(try first.saveFlow())

    let start = Date()
    let storeB = try SQLiteTrafficStore(path: path)
    let second = try Self.engine(storeB, clock: clock)
    #expect(try second.restoreFlow())
    let after = try Self.flows(second)
    let seconds = Date().timeIntervalSince(start)
    #expect(after == before)
    #expect(second.flowLastUpdate == first.flowLastUpdate)
    for step in [100.0, 200, 400] {
      clock.advance(step)
      #expect(try Self.flows(second) == Self.flows(first), "after \(step) s more")
    }
    return seconds
  }

  @Test("an engine restarted on the file answers flow queries as before (grid)")
  func restartGrid() throws {
    let network = try NetworkFixtures.grid()
    _ = try restart(
      network: network,
      paths: [
        NetworkFixtures.path(from: 0, count: 3, in: network),
        NetworkFixtures.path(from: 1, count: 2, in: network),
      ], observed: 20)
  }

  @Test(
    "an engine restarted on the file answers flow queries as before (Liechtenstein)")
  func restartLiechtenstein() throws {
    let network = try #require(NetworkFixtures.liechtenstein)
    let primary = network.segments.filter { $0.roadClass == .primary }.map(\.id)
    let first = try #require(primary.first), second = try #require(primary.dropFirst(40).first)
    let seconds = try restart(
      network: network,
      paths: [
        NetworkFixtures.path(from: first, count: 6, in: network),
        NetworkFixtures.path(from: second, count: 4, in: network),
      ], observed: try #require(primary.dropFirst(80).first))
    print(
      "Liechtenstein restart (debug build): open the store, load and index "
        + "\(network.segments.count) segments, start the engine, restore flow and answer "
        + "the first flow query in \(seconds) s")
  }

  @Test("saving writes only the rows that changed, unless another connection wrote")
  func incremental() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("flow.sqlite")
    let network = try NetworkFixtures.grid()
    let store = try SQLiteTrafficStore(path: path)
    try store.saveNetwork(network)
    let clock = NetworkFixtures.Clock()
    let engine = try Self.engine(store, clock: clock)
    try NetworkFixtures.drive(
      engine, clock: clock,
      paths: [
        NetworkFixtures.path(from: 0, count: 3, in: network),
        NetworkFixtures.path(from: 1, count: 2, in: network),
      ], observed: 20)
    let full = try #require(engine.persistedFlow())
    try store.saveFlow(full)
    #expect(try store.loadFlow() == full)
    func changes() throws -> Int {
      Int(try store.texts("SELECT total_changes()").first??.description ?? "") ?? -1
    }
    var before = try changes()
    try store.saveFlow(full)
    // Only the flow_state row.
    #expect(try changes() - before == 1)
    var fewer = full
    fewer.segments.removeLast()
    fewer.latest.removeFirst()
    fewer.savedAt += 1
    before = try changes()
    try store.saveFlow(fewer)
    #expect(try changes() - before == 3)
    #expect(try store.loadFlow() == fewer)
    // Another connection writes the full state; this one's memory of the rows is stale and
    // must not be trusted.
    try SQLiteTrafficStore(path: path).saveFlow(full)
    #expect(try store.loadFlow() == full)
    try store.saveFlow(fewer)
    #expect(try store.loadFlow() == fewer)
    #expect(try SQLiteTrafficStore(path: path).loadFlow() == fewer)
    #expect(try store.integrityCheck() == ["ok"])
  }

  @Test("the latest flow per segment is readable with plain SQL")
  func latestColumns() throws {
    let directory = try TemporaryDirectory()
    let network = try NetworkFixtures.grid()
    let store = try SQLiteTrafficStore(path: directory.path("flow.sqlite"))
    try store.saveNetwork(network)
    let clock = NetworkFixtures.Clock()
    let engine = try Self.engine(store, clock: clock)
    try NetworkFixtures.drive(
      engine, clock: clock,
      paths: [
        NetworkFixtures.path(from: 0, count: 3, in: network),
        NetworkFixtures.path(from: 1, count: 2, in: network),
      ], observed: 20)
    try engine.saveFlow()
    let flows = try Self.flows(engine)
    let observed = flows[20]
    #expect(
      try store.texts("SELECT speed_uncapped FROM flow_latest WHERE segment_id = 20")
        == ["\(observed.speedUncappedInMetersPerSecond)"])
    let live = flows.filter { $0.confidence > 0.7 }.map { "\($0.segmentID)" }
    #expect(try store.texts("SELECT segment_id FROM flow_latest ORDER BY segment_id") == live)
  }

  @Test("a damaged flow row fails with an error naming the segment and the file")
  func damagedRow() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("flow.sqlite")
    let network = try NetworkFixtures.grid()
    let store = try SQLiteTrafficStore(path: path)
    try store.saveNetwork(network)
    let clock = NetworkFixtures.Clock()
    let engine = try Self.engine(store, clock: clock)
    try NetworkFixtures.drive(
      engine, clock: clock,
      paths: [
        NetworkFixtures.path(from: 0, count: 3, in: network),
        NetworkFixtures.path(from: 1, count: 2, in: network),
      ], observed: 20)
    try engine.saveFlow()
    try store.execute("UPDATE flow_segments SET state = X'0101FF' WHERE segment_id = 20")
    #expect {
      try store.loadFlow()
    } throws: { error in
      guard case .operationFailed(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains("segment 20") && detail.contains(path)
    }
    // The engine refuses to start on a file it cannot read.
    #expect(throws: TrafficEngineError.self) { try TrafficEngine(databasePath: path) }
  }

  @Test("a damaged typical week fails with an error naming the segment and the file")
  func damagedTypicalWeek() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("flow.sqlite")
    let network = try NetworkFixtures.grid()
    let store = try SQLiteTrafficStore(path: path)
    try store.saveNetwork(network)
    var week = TypicalWeek()
    week.add(speed: 9, bin: 100, day: 0, memory: 8)
    var state = FlowState.Persisted(
      savedAt: Date(), segmentCount: network.segments.count, historyBucketInSeconds: 300,
      latestProbeTime: nil, segments: [], observations: [], latest: [],
      typical: [FlowState.Persisted.Typical(segmentID: 3, week: week, revision: 1)])
    try store.saveFlow(state)
    #expect(try store.loadFlow()?.typical.map(\.week) == [week])
    for (bytes, reason) in [
      ("X'0101'", "cannot fit"), ("X'020100000000'", "version"),
      ("X'010105000000'", "no samples"),
    ] {
      try store.execute("UPDATE typical_speeds SET bins = \(bytes) WHERE segment_id = 3")
      #expect {
        try store.loadFlow()
      } throws: { error in
        guard case .operationFailed(let detail) = error as? TrafficStoreError else { return false }
        return detail.contains("segment 3") && detail.contains(path) && detail.contains(reason)
      }
    }
    // A week of a segment the network does not have.
    state.typical = []
    try store.saveFlow(state)
    try store.execute("UPDATE typical_speeds SET segment_id = 999999 WHERE segment_id = 3")
    #expect(throws: TrafficStoreError.self) { try store.loadFlow() }
  }

  @Test("TrafficEngine(databasePath:) ignores a flow state of another network")
  func mismatch() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("flow.sqlite")
    let network = try NetworkFixtures.grid()
    let store = try SQLiteTrafficStore(path: path)
    try store.saveNetwork(network)
    try store.saveFlow(
      FlowState.Persisted(
        savedAt: NetworkFixtures.start, segmentCount: 5, historyBucketInSeconds: 300,
        latestProbeTime: NetworkFixtures.start, segments: [], observations: [], latest: []))
    let engine = try TrafficEngine(databasePath: path)
    #expect(engine.roadNetwork?.segments == network.segments)
    #expect(engine.flowLastUpdate == nil)
  }
}
