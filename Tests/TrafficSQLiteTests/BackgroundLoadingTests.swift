import Dispatch
import Foundation
import Synchronization
import Testing
import Traffic
import TrafficStoreContract
import TrafficTestSupport

@testable import TrafficSQLite

/// An engine that loads its snapshot in the background answers from the SQLite store's
/// own index meanwhile (`BackgroundLoading`, shared with PostgreSQL).
@Suite struct BackgroundLoadingTests {
  typealias GatedStore = BackgroundLoading.GatedStore<SQLiteTrafficStore>
  static let now = BackgroundLoading.now

  static func incidents(count: Int, generator: inout SeededGenerator) throws -> [TrafficIncident] {
    try BackgroundLoading.incidents(count: count, generator: &generator)
  }

  @Test func queriesWhileTheSnapshotLoadsAnswerAsTheLoadedSnapshot() throws {
    let directory = try TemporaryDirectory()
    try BackgroundLoading.checkQueriesWhileLoading(
      on: try SQLiteTrafficStore(path: directory.path("store.sqlite")))
  }

  @Test func aLookupTheStoreCannotAnswerWaitsForTheSnapshot() throws {
    let directory = try TemporaryDirectory()
    let base = try SQLiteTrafficStore(path: directory.path("store.sqlite"))
    var generator = SeededGenerator(seed: 0x10AD_0002)
    try base.apply(IncidentBatch(upserts: try Self.incidents(count: 20, generator: &generator)))
    let gated = GatedStore(base)
    let engine = try TrafficEngine(
      store: gated, clock: { Self.now }, loading: .inBackground)
    let result = Mutex<Result<TrafficIncident, TrafficQueryError>?>(nil)
    let looking = DispatchGroup()
    DispatchQueue.global().async(group: looking) {
      let found = Result { () throws(TrafficQueryError) in
        try engine.incident(originalId: "unknown", options: .init())
      }
      result.withLock { $0 = found }
    }
    #expect(looking.wait(timeout: .now() + 0.3) == .timedOut, "an unknown id waits")
    gated.gate.signal()
    #expect(looking.wait(timeout: .now() + 30) == .success)
    let answer = result.withLock { $0 }
    guard case .failure(.incidentIdNotFound("unknown")) = answer else {
      Issue.record("an unknown id after the load: \(String(describing: answer))")
      return
    }
  }

  @Test func aFailedLoadIsReportedNotServedEmpty() throws {
    let directory = try TemporaryDirectory()
    let base = try SQLiteTrafficStore(path: directory.path("store.sqlite"))
    var generator = SeededGenerator(seed: 0x10AD_0003)
    let stored = try Self.incidents(count: 5, generator: &generator)
    try base.apply(IncidentBatch(upserts: stored))
    let gated = GatedStore(base, failing: true)
    let engine = try TrafficEngine(store: gated, clock: { Self.now }, loading: .inBackground)
    gated.gate.signal()
    #expect(throws: TrafficEngineError.self) { try engine.waitUntilLoaded() }
    #expect(!engine.isLoaded)
    // Nothing is written against the empty snapshot; the store still answers lookups.
    #expect(throws: TrafficStoreError.self) {
      try engine.apply(IncidentBatch(deletions: [stored[0].originalId]))
    }
    #expect(try base.currentIncidents().count == 5)
    #expect(
      try engine.incident(originalId: stored[1].originalId, options: .init()).id == stored[1].id)
  }

  @Test func otherStoresLoadBeforeTheEngineIsReturned() throws {
    let store = InMemoryTrafficStore()
    var generator = SeededGenerator(seed: 0x10AD_0004)
    try store.apply(IncidentBatch(upserts: try Self.incidents(count: 5, generator: &generator)))
    let engine = try TrafficEngine(store: store, loading: .inBackground)
    #expect(engine.isLoaded)
    #expect(engine.incidentCount == 5)
  }

  @Test func theSummaryCountsTheIncidentsAndFindsTheLatestEntry() throws {
    let directory = try TemporaryDirectory()
    try BackgroundLoading.checkSummary(
      of: try SQLiteTrafficStore(path: directory.path("store.sqlite")))
  }
}
