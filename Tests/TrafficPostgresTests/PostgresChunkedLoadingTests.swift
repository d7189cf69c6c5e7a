import Foundation
import Testing
import Traffic
import TrafficStoreContract
import TrafficTestSupport

@testable import TrafficPostgres

/// Start-up reads the incidents in chunks of rows; whatever the chunk size, it must read
/// every current incident once, in the order first stored.
@Suite struct PostgresChunkedLoadingTests {
  @Test func chunksReadWhatOneReadReads() throws {
    let store = try PostgresTestDatabase.freshStore()
    try ChunkedLoading.check(store) { try store.currentIncidents(chunkRows: $0) }
  }
}
