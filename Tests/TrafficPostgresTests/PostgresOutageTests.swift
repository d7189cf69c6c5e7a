import Foundation
import Synchronization
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficPostgres

/// Nodes whose database is stopped and started again (`pg_ctl stop` / `start` on a cluster
/// of the test's own): each says once that it lost the database and once that it is back,
/// reads keep answering, writes fail as unreachable, and the nodes catch up afterwards.
@Suite(.serialized) struct PostgresOutageTests {
  typealias Event = PostgresConnectionHealth.Event

  /// A store's reachability events, as told.
  final class EventLog: Sendable {
    let events = Mutex<[Event]>([])

    init(_ engine: TrafficEngine) throws {
      let store = try #require(engine.store as? PostgresTrafficStore)
      store.connectionHealth.onChange { [events = self] event in
        events.events.withLock { $0.append(event) }
      }
    }

    var kinds: [String] {
      events.withLock {
        $0.map {
          switch $0 {
          case .lost: "lost"
          case .restored: "restored"
          }
        }
      }
    }

    var first: Event? { events.withLock { $0.first } }
    var last: Event? { events.withLock { $0.last } }
  }

  @Test func nodesSayOnceWhenTheDatabaseGoesAndComesBackAndCatchUpAfterwards() throws {
    let cluster = try PostgresCluster.dedicated(durable: false)
    defer { cluster.stop() }
    let network = try PostgresTrafficStoreFlowTests.network()
    let (a, syncA) = try PostgresTrafficStoreFlowTests.node(cluster.url, network: network)
    let (b, syncB) = try PostgresTrafficStoreFlowTests.node(cluster.url, network: network)
    defer {
      syncA.stop()
      syncB.stop()
    }
    let eventsA = try EventLog(a)
    let eventsB = try EventLog(b)
    try a.apply(IncidentBatch(upserts: [try PostgresSyncTests.point("before")]))
    #expect(
      PostgresSyncTests.eventually(within: 2) {
        (try? b.incident(originalId: "before", options: .init())) != nil
      })

    try cluster.stopServer()
    let stopped = Date()
    // Node B makes no request: its listener notices by itself.
    #expect(PostgresSyncTests.eventually(within: 5) { eventsB.kinds == ["lost"] })
    // Every write on A fails as unreachable, however often it is tried; one event only.
    for attempt in 0..<3 {
      #expect {
        try a.apply(IncidentBatch(upserts: [try PostgresSyncTests.point("during\(attempt)")]))
      } throws: { error in
        if case .cannotOpen = error as? TrafficStoreError { true } else { false }
      }
    }
    // Writes meanwhile are refused at once: one connection attempt each half second for the
    // whole store, not a series of them per write (20 writes made 20 or more before).
    let health = try #require(a.store as? PostgresTrafficStore).connectionHealth
    let attemptsBefore = health.attempts
    let burst = Date()
    for attempt in 0..<20 {
      #expect(throws: TrafficStoreError.self) {
        try a.apply(IncidentBatch(upserts: [try PostgresSyncTests.point("burst\(attempt)")]))
      }
    }
    let burstSeconds = Date().timeIntervalSince(burst)
    #expect(
      health.attempts - attemptsBefore <= Int(burstSeconds / 0.5) + 2,
      "\(health.attempts - attemptsBefore) attempts in \(burstSeconds) s")
    #expect(throws: TrafficStoreError.self) {
      try a.ingestSharing(
        probes: try PostgresTrafficStoreFlowTests.drive(vehicles: 1, speed: 8), flush: true)
    }
    #expect(eventsA.kinds == ["lost"])
    #expect(eventsB.kinds == ["lost"])
    let outage = try #require(a.storeOutage)
    #expect(!outage.reason.contains("\n"))
    #expect(outage.reason.contains("127.0.0.1"), "\(outage.reason)")
    if case .lost(_, let reason)? = eventsA.first {
      #expect(!reason.isEmpty && !reason.contains("\n"))
      #expect(reason == outage.reason)
    }
    // Reads answer from the snapshot meanwhile.
    #expect(try a.incident(originalId: "before", options: .init()).originalId == "before")
    #expect(try b.incident(originalId: "before", options: .init()).originalId == "before")
    #expect(try PostgresTrafficStoreFlowTests.eastbound(b) != nil)
    Thread.sleep(forTimeInterval: 1)

    try cluster.startAgain()
    #expect(
      PostgresSyncTests.eventually(within: 10) { eventsB.kinds == ["lost", "restored"] })
    if case .restored(_, let seconds)? = eventsB.last {
      #expect(seconds >= 1 && seconds <= Date().timeIntervalSince(stopped) + 0.5)
    }
    #expect(b.storeOutage == nil)
    // What A takes after the outage reaches B: incidents and probes.
    try a.apply(IncidentBatch(upserts: [try PostgresSyncTests.point("after")]))
    let report = try a.ingestSharing(
      probes: try PostgresTrafficStoreFlowTests.drive(vehicles: 3, speed: 8), flush: true)
    #expect(report.accepted > 0)
    #expect(
      PostgresSyncTests.eventually(within: 5) {
        (try? b.incident(originalId: "after", options: .init())) != nil
      }, "node B never caught up with A's write after the outage")
    #expect(
      PostgresSyncTests.eventually(within: 5) {
        ((try? PostgresTrafficStoreFlowTests.eastbound(b))??.confidence ?? 0) > 0.7
      }, "node B's flow never showed the probes A took after the outage")
    #expect((try? b.incident(originalId: "during0", options: .init())) == nil)
    #expect(eventsA.kinds == ["lost", "restored"])
    #expect(eventsB.kinds == ["lost", "restored"])
    #expect(syncB.lastError == nil)
  }
}
