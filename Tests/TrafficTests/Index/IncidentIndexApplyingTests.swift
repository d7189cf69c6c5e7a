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
      let (incidents, changes) = index.applying(
        upserts: upserts, deletions: deletions, skippingUnchanged: skipping)
      #expect(changes == expected, "round \(round)")
      #expect(
        Dictionary(incidents.map { ($0.originalId, $0) }, uniquingKeysWith: { a, _ in a }) == byId,
        "round \(round)")
      #expect(incidents.count == byId.count, "round \(round): no duplicates")
      index = IncidentIndex(incidents)
    }
  }
}
