import Foundation
import Testing
import TrafficTestSupport

@testable import Traffic

/// `IncidentIndex.applying` patches the previous incidents by position; it must give what
/// replaying the batch on a dictionary by original id gives, with the same changes.
@Suite struct IncidentIndexApplyingTests {
  typealias F = EngineFixtures

  static func incident(_ number: Int, version: Int) throws -> TrafficIncident {
    let latitude = 52.5 + Double(number % 50) * 0.001
    return try F.incident(
      "i\(number)", [(latitude, 13.4), (latitude + 0.0005, 13.401)],
      impact: version % 2 == 0 ? .major : .minor, version: version)
  }

  @Test func batchesGiveWhatADictionaryByIdGives() throws {
    var generator = SeededGenerator(seed: 9)
    var index = IncidentIndex(try (0..<60).map { try Self.incident($0, version: 1) })
    for round in 0..<200 {
      let deletions = (0..<Int.random(in: 0...4, using: &generator)).map { _ in
        "i\(Int.random(in: 0..<90, using: &generator))"
      }
      let upserts = try (0..<Int.random(in: 0...6, using: &generator)).map { _ in
        try Self.incident(
          Int.random(in: 0..<90, using: &generator),
          version: Int.random(in: 1...3, using: &generator))
      }
      let skipping = round % 3 == 0
      // The oracle: the previous incidents by original id, the batch replayed on it.
      var byId = Dictionary(
        index.incidents.map { ($0.originalId, $0) }, uniquingKeysWith: { _, last in last })
      var expected: [IncidentChange] = []
      for originalId in deletions {
        if let removed = byId.removeValue(forKey: originalId) {
          expected.append(IncidentChange(kind: .removed, incident: removed))
        }
      }
      for incident in upserts {
        let old = byId[incident.originalId]
        if skipping, old == incident { continue }
        byId[incident.originalId] = incident
        expected.append(IncidentChange(kind: old == nil ? .added : .updated, incident: incident))
      }
      let (next, changes) = index.applying(
        upserts: upserts, deletions: deletions, skippingUnchanged: skipping, updatedAt: nil)
      let incidents = next.incidents
      #expect(changes == expected, "round \(round)")
      #expect(
        Dictionary(incidents.map { ($0.originalId, $0) }, uniquingKeysWith: { a, _ in a }) == byId,
        "round \(round)")
      #expect(incidents.count == byId.count, "round \(round): no duplicates")
      index = next
    }
  }

  /// What each feed holds (an incident once per feed) stays what a count of the incidents
  /// gives, through patches, whole builds (removals) and compaction.
  @Test func heldByFeedStaysTheCountOfTheIncidents() throws {
    var generator = SeededGenerator(seed: 21)
    let choices: [[String]] = [[], ["a"], ["b"], ["a", "b"], ["a", "a"]]
    func incident(_ number: Int) throws -> TrafficIncident {
      var incident = try Self.incident(number, version: Int.random(in: 1...3, using: &generator))
      incident.sources = choices[Int.random(in: 0..<choices.count, using: &generator)].enumerated()
        .map { TrafficIncidentSource(feed: $0.element, id: "r\(number)-\($0.offset)") }
      return incident
    }
    func recount(_ index: IncidentIndex) -> [String: Int] {
      var counts: [String: Int] = [:]
      for incident in index.incidents {
        for feed in Set(incident.sources.map(\.feed)) { counts[feed, default: 0] += 1 }
      }
      return counts
    }
    var index = IncidentIndex(try (0..<40).map { try incident($0) })
    #expect(index.heldByFeed == recount(index))
    #expect(!index.heldByFeed.isEmpty)
    for round in 0..<150 {
      let deletions =
        round % 10 == 0 ? ["i\(Int.random(in: 0..<60, using: &generator))"] : []
      let upserts = try (0..<Int.random(in: 1...5, using: &generator)).map { _ in
        try incident(Int.random(in: 0..<60, using: &generator))
      }
      index = index.applying(upserts: upserts, deletions: deletions, updatedAt: nil).index
      if round % 25 == 0 { index = index.compacted() }
      #expect(index.heldByFeed == recount(index), "round \(round)")
    }
  }

  /// A snapshot patched by many batches (sharing its R-tree, the changed incidents indexed
  /// apart) answers every area, nearest and id query as a snapshot built whole from the same
  /// incidents, through rebuilds when the changes pile up.
  @Test func patchedSnapshotsAnswerAsWholeOnes() throws {
    var generator = SeededGenerator(seed: 21)
    var index = IncidentIndex(try (0..<400).map { try Self.incident($0, version: 1) })
    for round in 0..<150 {
      // Upserts move incidents (a new version lies elsewhere) and add new ones; every tenth
      // batch also removes some.
      let upserts = try (0..<Int.random(in: 1...40, using: &generator)).map { _ in
        let number = Int.random(in: 0..<700, using: &generator)
        let latitude = 52.5 + Double.random(in: 0...0.06, using: &generator)
        let longitude = 13.4 + Double.random(in: 0...0.06, using: &generator)
        return try F.incident(
          "i\(number)", [(latitude, longitude), (latitude + 0.0007, longitude + 0.0009)],
          version: round + 2)
      }
      let deletions =
        round % 10 == 9 ? (0..<5).map { _ in "i\(Int.random(in: 0..<700, using: &generator))" } : []
      index = index.applying(upserts: upserts, deletions: deletions, updatedAt: nil).index
      let whole = IncidentIndex(Array(index.incidents))
      // The background rebuild without sorting must answer the same.
      let compact = index.compacted()
      #expect(compact.changedSinceWholeBuild == 0)
      func ids(_ snapshot: IncidentIndex, _ positions: [Int]) -> [String] {
        positions.map { snapshot.incidents[$0].originalId }.sorted()
      }
      for _ in 0..<5 {
        let center = try GeoCoordinates(
          latitude: 52.5 + Double.random(in: 0...0.06, using: &generator),
          longitude: 13.4 + Double.random(in: 0...0.06, using: &generator))
        let circle = try GeoCircle(
          center: center, radiusInMeters: Double.random(in: 50...2_000, using: &generator))
        #expect(
          ids(index, index.positions(meeting: circle))
            == ids(whole, whole.positions(meeting: circle)),
          "round \(round)")
        #expect(
          ids(compact, compact.positions(meeting: circle))
            == ids(whole, whole.positions(meeting: circle)),
          "round \(round)")
        #expect(
          compact.nearest(to: center, maxDistanceInMeters: 3_000) { _ in true }?.distanceInMeters
            == whole.nearest(to: center, maxDistanceInMeters: 3_000) { _ in true }?.distanceInMeters
        )
        let near = index.nearest(to: center, maxDistanceInMeters: 3_000) { _ in true }
        let nearWhole = whole.nearest(to: center, maxDistanceInMeters: 3_000) { _ in true }
        #expect(near?.distanceInMeters == nearWhole?.distanceInMeters, "round \(round)")
      }
      for number in [0, 399, 650] {
        #expect(
          index.incident(originalId: "i\(number)") == whole.incident(originalId: "i\(number)"))
        #expect(
          compact.incident(originalId: "i\(number)") == whole.incident(originalId: "i\(number)"))
      }
    }
  }

  /// Merged reports' feed ids find the incident they went into, and an incident's own id
  /// wins over a feed id, whether the id came with the whole build or with a later batch.
  @Test func feedIdsOfMergedReportsAcrossPatches() throws {
    func merged(_ number: Int, version: Int, feedIds: [String]) throws -> TrafficIncident {
      var incident = try Self.incident(number, version: version)
      incident.sources =
        [TrafficIncidentSource(feed: "own", id: incident.originalId)]
        + feedIds.map { TrafficIncidentSource(feed: "other", id: $0) }
      return incident
    }
    var index = IncidentIndex([
      try merged(1, version: 1, feedIds: ["x1"]), try Self.incident(2, version: 1),
    ])
    #expect(index.incident(originalId: "x1")?.originalId == "i1")
    #expect(index.incident(exactOriginalId: "x1") == nil)
    // A later batch merges a report into i2 and adds an incident of i1's feed id.
    index =
      index.applying(
        upserts: [
          try merged(2, version: 2, feedIds: ["x2"]),
          try F.incident("x1", [(52.6, 13.5), (52.6005, 13.501)]),
        ],
        deletions: [], updatedAt: nil
      ).index
    let whole = IncidentIndex(Array(index.incidents))
    for id in ["i1", "i2", "x1", "x2", "x3"] {
      #expect(index.incident(originalId: id) == whole.incident(originalId: id), "\(id)")
      #expect(
        index.incident(exactOriginalId: id) == whole.incident(exactOriginalId: id), "\(id)")
    }
    #expect(index.incident(originalId: "x2")?.originalId == "i2")
    #expect(index.incident(originalId: "x1")?.originalId == "x1")
    let compact = index.compacted()
    for id in ["i1", "i2", "x1", "x2", "x3"] {
      #expect(compact.incident(originalId: id) == whole.incident(originalId: id), "\(id)")
    }
  }
}
