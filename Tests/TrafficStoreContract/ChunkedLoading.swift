import Foundation
import Testing
import Traffic
import TrafficTestSupport

/// The persistent stores read their incidents at start-up in chunks of rows; whatever the
/// chunk size, they must read every current incident once, in the order first stored.
public enum ChunkedLoading {
  /// Fills `store` (new versions in place, removals leaving gaps in the keys) and checks
  /// that `load(chunkRows)` reads the same for chunks of 1 to 106 rows as in one chunk.
  public static func check(
    _ store: any TrafficStore, load: (Int) throws -> [TrafficIncident]
  ) throws {
    var generator = SeededGenerator(seed: 0x5EED_0006)
    let incidents = try AreaFixtures.incidents(count: 120, generator: &generator)
    try store.apply(IncidentBatch(upserts: incidents))
    try store.apply(
      IncidentBatch(
        upserts: try incidents[10..<20].map {
          try $0.updated(id: $0.id + "-v2", startTime: nil, endTime: nil)
        }, deletions: (30..<45).map { "i\($0)" }))
    let whole = try load(1_000)
    let removed = Set((30..<45).map { "i\($0)" })
    #expect(whole.map(\.originalId) == incidents.map(\.originalId).filter { !removed.contains($0) })
    #expect(whole == (try store.currentIncidents()))
    for chunk in [1, 7, 104, 105, 106] {
      #expect(try load(chunk) == whole, "chunks of \(chunk)")
    }
  }
}
