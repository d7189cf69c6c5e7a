import Foundation
import Testing
import Traffic
import TrafficStoreContract
import TrafficTestSupport

@testable import TrafficSQLite

/// Writes are checkpointed into the database file in the background, not left in the
/// write-ahead log until SQLite's backstop (16,384 pages) or the store's close.
@Suite struct WALCheckpointerTests {
  @Test func writesReachTheDatabaseFileWithoutClosingTheStore() async throws {
    var generator = SeededGenerator(seed: 0x5EED_0003)
    let directory = try TemporaryDirectory()
    let path = directory.path("wal.sqlite")
    let store = try SQLiteTrafficStore(path: path)
    func fileSize() throws -> Int {
      (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
    let empty = try fileSize()
    let incidents = try AreaFixtures.incidents(count: 300, generator: &generator)
    try store.apply(IncidentBatch(upserts: incidents))
    var size = try fileSize()
    for _ in 0..<100 where size <= empty + 100_000 {
      try await Task.sleep(for: .milliseconds(50))
      size = try fileSize()
    }
    #expect(size > empty + 100_000, "the file grew from \(empty) to \(size) bytes")
    #expect(try store.currentIncidents().count == 300)
    #expect(try store.texts("PRAGMA integrity_check") == ["ok"])
  }

  /// `checkpointCompletely()` right after a large write, while the background checkpoint of
  /// that write still runs, empties the log: the file alone (copied without its `-wal`)
  /// holds the write, and it is never left half copied into the file.
  @Test func checkpointingCompletelyWaitsForTheBackgroundCheckpoint() throws {
    var generator = SeededGenerator(seed: 0x5EED_0004)
    let directory = try TemporaryDirectory()
    let incidents = try AreaFixtures.incidents(count: 4_000, generator: &generator)
    for round in 0..<4 {
      let path = directory.path("full-\(round).sqlite")
      let store = try SQLiteTrafficStore(path: path)
      try store.apply(IncidentBatch(upserts: incidents))
      try store.checkpointCompletely()
      let log = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int
      #expect(log == 0, "round \(round): the log holds \(log ?? -1) bytes")
      let copy = directory.path("copy-\(round).sqlite")
      try FileManager.default.copyItem(atPath: path, toPath: copy)
      let copied = try SQLiteTrafficStore(path: copy, access: .readOnly)
      #expect(try copied.integrityCheck() == ["ok"], "round \(round)")
      #expect(try copied.currentIncidents().count == 4_000, "round \(round)")
    }
  }
}
