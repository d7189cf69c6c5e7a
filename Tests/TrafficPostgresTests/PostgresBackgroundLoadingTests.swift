import Dispatch
import Foundation
import Testing
import Traffic
import TrafficStoreContract
import TrafficTestSupport

@testable import TrafficPostgres

/// A node on PostgreSQL starts answering before its snapshot is loaded: area queries and
/// lookups from PostGIS meanwhile, the same answers as the loaded snapshot gives, and what
/// other nodes commit while it loads reaches it once it has.
@Suite struct PostgresBackgroundLoadingTests {
  @Test func queriesWhileTheSnapshotLoadsAnswerAsTheLoadedSnapshot() throws {
    try BackgroundLoading.checkQueriesWhileLoading(on: try PostgresTestDatabase.freshStore())
  }

  @Test func theSummaryCountsTheIncidentsAndFindsTheLatestEntry() throws {
    try BackgroundLoading.checkSummary(of: try PostgresTestDatabase.freshStore())
  }

  @Test func aNodeLoadingInTheBackgroundFollowsWhatOthersWroteMeanwhile() throws {
    let url = try PostgresTestDatabase.freshURL()
    var generator = SeededGenerator(seed: 0x10AD_0010)
    let stored = try BackgroundLoading.incidents(count: 20_000, generator: &generator)
    let nodeA = try TrafficEngine(store: PostgresTrafficStore(url: url))
    try nodeA.apply(IncidentBatch(upserts: stored))
    let syncA = try PostgresSync(engine: nodeA)
    defer { syncA.stop() }

    // Node B starts; A writes after B's load has read the database and before the load ends
    // (B's store holds the load there), and nothing after: what A committed reaches B only
    // through the catch-up that follows the load (notifications during the load are left
    // to it).
    let storeB = try PostgresTrafficStore(url: url)
    let loadRead = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    storeB.afterLoadingRead.withLock {
      $0 = {
        loadRead.signal()
        _ = release.wait(timeout: .now() + 60)
      }
    }
    let nodeB = try TrafficEngine(store: storeB, loading: .inBackground)
    let syncB = try PostgresSync(engine: nodeB)
    defer { syncB.stop() }
    let written = try (0..<5).map { round in
      try stored[round].updated(
        id: "\(stored[round].originalId)-r\(round)", startTime: nil, endTime: nil)
    }
    #expect(loadRead.wait(timeout: .now() + 60) == .success, "B's load never read the store")
    try nodeA.apply(
      IncidentBatch(upserts: written, deletions: stored[100..<105].map(\.originalId)))
    #expect(!nodeB.isLoaded, "B's load is held until A's write has committed")
    release.signal()
    try nodeB.waitUntilLoaded()
    let expected = try nodeA.store.currentIncidents().sorted { $0.originalId < $1.originalId }
    #expect(expected.count == 20_000 - 5)
    let deadline = Date().addingTimeInterval(5)
    var held: [TrafficIncident] = []
    repeat {
      held = nodeB.currentSnapshot.incidents.sorted { $0.originalId < $1.originalId }
      if held == expected { break }
      usleep(20_000)
    } while Date() < deadline
    let differing = Set(held.map(\.id)).symmetricDifference(expected.map(\.id))
    let same = held == expected
    #expect(same, "node B differs from the database in \(differing.sorted().prefix(10))")
    #expect(syncB.sequence == syncA.sequence)
    for incident in written {
      #expect(
        try nodeB.incident(originalId: incident.originalId, options: .init()).id == incident.id)
    }
  }

  @Test func anOlderDatabaseGetsTheEntryTimeColumnFilledFromItsBodies() throws {
    let url = try PostgresTestDatabase.freshURL()
    let store = try PostgresTrafficStore(url: url)
    var generator = SeededGenerator(seed: 0x10AD_0011)
    let incidents = try BackgroundLoading.incidents(count: 40, generator: &generator)
    try store.apply(IncidentBatch(upserts: incidents))
    // Back to schema 3, as a node of the previous version left it.
    try PostgresAdmin.run(
      """
      DROP INDEX incidents_entry_time; ALTER TABLE incidents DROP COLUMN entry_time;
      DELETE FROM schema_migrations WHERE version = 4
      """, url: url)
    #expect(try store.schemaVersion() == 3)
    let upgraded = try PostgresTrafficStore(url: url)
    #expect(try upgraded.schemaVersion() == 4)
    #expect(
      try upgraded.summary()
        == TrafficStoreSummary(count: 40, latestEntry: incidents.compactMap(\.entryTime).max()))
  }
}
