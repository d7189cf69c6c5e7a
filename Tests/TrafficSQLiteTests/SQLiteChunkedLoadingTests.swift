import Foundation
import Testing
import Traffic
import TrafficStoreContract
import TrafficTestSupport

@testable import TrafficSQLite

/// Start-up reads the incidents in chunks of rows; whatever the chunk size, it must read
/// every current incident once, in the order first stored.
@Suite struct SQLiteChunkedLoadingTests {
  @Test func chunksReadWhatOneReadReads() throws {
    let directory = try TemporaryDirectory()
    let store = try SQLiteTrafficStore(path: directory.path("chunks.sqlite"))
    try ChunkedLoading.check(store) { try store.currentIncidents(chunkRows: $0) }
  }

  /// Bodies are encoded ahead of the writing: an incident that cannot be encoded late in a
  /// batch rolls back what the batch already wrote.
  @Test func anIncidentThatCannotBeEncodedStoresNothingOfItsBatch() throws {
    var generator = SeededGenerator(seed: 0x5EED_0005)
    let directory = try TemporaryDirectory()
    let store = try SQLiteTrafficStore(path: directory.path("encode.sqlite"))
    let incidents = try AreaFixtures.incidents(count: 20, generator: &generator)
    try store.apply(IncidentBatch(upserts: Array(incidents[0..<10])))
    let before = try store.currentIncidents()
    var endless = incidents[15]
    endless.entryTime = Date(timeIntervalSinceReferenceDate: .infinity)
    let batch = IncidentBatch(
      upserts: try incidents[0..<5].map {
        try $0.updated(id: $0.id + "-v2", startTime: nil, endTime: nil)
      } + Array(incidents[10..<15]) + [endless])
    #expect(throws: TrafficStoreError.self) { try store.apply(batch) }
    #expect(try store.currentIncidents() == before)
    #expect(try store.history(ofOriginalId: incidents[0].originalId).count == 1)
    #expect(try store.texts("PRAGMA integrity_check") == ["ok"])
  }
}
