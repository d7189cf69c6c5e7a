import Foundation
import Testing
import TrafficTestSupport

@testable import Traffic

/// The compact id table finds every incident by its original id, the merged reports by
/// their feed ids, nothing else — and nothing for an id whose position now holds another
/// incident.
@Suite struct OriginalIDTableTests {
  typealias F = EngineFixtures

  @Test func findsEveryIdAndOnlyThose() throws {
    let incidents = try (0..<500).map { number in
      try F.incident("id-\(number)", [(52.5, 13.4), (52.501, 13.401)])
    }
    let stored = PersistentArray(incidents)
    let table = OriginalIDTable(incidents, aliases: ["feed-7": 7, "feed-9": 9])
    for (position, incident) in incidents.enumerated() {
      #expect(table.position(of: incident.originalId, in: stored) == position)
    }
    #expect(table.position(of: "feed-7", in: stored) == 7)
    #expect(table.position(of: "feed-9", in: stored) == 9)
    for missing in ["", "id-500", "id-", "ID-1", "feed-8"] {
      #expect(table.position(of: missing, in: stored) == nil, "\(missing)")
    }
    // A position that now holds another incident no longer answers for the old id.
    var patched = stored
    patched[3] = try F.incident("other", [(52.5, 13.4), (52.501, 13.401)])
    #expect(table.position(of: "id-3", in: patched) == nil)
    #expect(table.position(of: "id-4", in: patched) == 4)
    let replaced = table.replacingAliases(with: ["feed-1": 1])
    #expect(replaced.position(of: "feed-7", in: stored) == nil)
    #expect(replaced.position(of: "feed-1", in: stored) == 1)
    #expect(replaced.position(of: "id-42", in: stored) == 42)
  }
}
