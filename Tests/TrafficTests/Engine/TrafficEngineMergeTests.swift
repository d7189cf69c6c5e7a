import Foundation
import Testing
import TrafficTestSupport

@testable import Traffic

/// Writes patch the snapshot; past `IncidentIndex.mergeDirty` changes the engine rebuilds it
/// whole in the background and replays what was written meanwhile. Nothing may be lost or
/// stale after such merges, whatever they overlap.
@Suite struct TrafficEngineMergeTests {
  typealias F = EngineFixtures

  static func incident(
    _ number: Int, version: Int, generator: inout SeededGenerator
  ) throws
    -> TrafficIncident
  {
    let latitude = 52.3 + Double.random(in: 0...0.4, using: &generator)
    let longitude = 13.1 + Double.random(in: 0...0.6, using: &generator)
    return try F.incident(
      "i\(number)", [(latitude, longitude), (latitude + 0.001, longitude + 0.001)],
      impact: version % 2 == 0 ? .major : .minor, version: version)
  }

  @Test func mergesInTheBackgroundLoseNoWrite() async throws {
    var generator = SeededGenerator(seed: 77)
    let engine = try F.engine(
      try (0..<3_000).map { try Self.incident($0, version: 1, generator: &generator) })
    var written = 0
    for round in 0..<40 {
      // Moves, new incidents, and now and then removals, while merges run.
      let upserts = try (0..<150).map { _ in
        try Self.incident(
          Int.random(in: 0..<3_600, using: &generator), version: round + 2, generator: &generator)
      }
      let deletions =
        round % 9 == 8
        ? (0..<5).map { _ in "i\(Int.random(in: 0..<3_600, using: &generator))" } : []
      try engine.apply(
        IncidentBatch(
          upserts: upserts.filter { !deletions.contains($0.originalId) }, deletions: deletions))
      written += upserts.count
      if round % 4 == 0 { try await Task.sleep(for: .milliseconds(20)) }
    }
    // Let the last merge finish.
    for _ in 0..<200 where engine.currentSnapshot.needsMerge {
      try await Task.sleep(for: .milliseconds(20))
    }
    let snapshot = engine.currentSnapshot
    #expect(snapshot.changedSinceWholeBuild < written / 2, "merges ran")
    let stored = try engine.store.currentIncidents()
    #expect(snapshot.count == stored.count)
    for incident in stored {
      #expect(snapshot.incident(exactOriginalId: incident.originalId) == incident)
    }
    for _ in 0..<50 {
      let circle = try F.circle(
        52.3 + Double.random(in: 0...0.4, using: &generator),
        13.1 + Double.random(in: 0...0.6, using: &generator), 3_000)
      let expected = stored.filter { circle.intersects($0.location.polyline) }
        .map(\.originalId).sorted()
      #expect(
        snapshot.positions(meeting: circle).map { snapshot.incidents[$0].originalId }.sorted()
          == expected)
    }
  }
}
