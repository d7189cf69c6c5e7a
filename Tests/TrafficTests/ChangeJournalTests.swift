import Foundation
import Testing

@testable import Traffic

/// The engine's memory of changes behind DATEX II deltas: what changed after a time, and
/// whether it still reaches back that far.
@Suite struct ChangeJournalTests {
  static let start = Date(timeIntervalSince1970: 1_800_000_000)

  static func change(_ id: String, _ kind: IncidentChange.Kind = .updated) throws -> IncidentChange
  {
    IncidentChange(
      kind: kind,
      incident: try TrafficIncident(
        id: id + "-v", originalId: id, type: .accident, impact: .major,
        location: TrafficLocation(point: try GeoCoordinates(latitude: 50, longitude: 8))))
  }

  @Test func changesAfterATimeAndTheRemovalsAmongThem() throws {
    var journal = ChangeJournal(horizon: Self.start)
    journal.record([try Self.change("a"), try Self.change("b")], at: Self.start + 1)
    journal.record([try Self.change("b", .removed)], at: Self.start + 2)
    journal.record([try Self.change("c")], at: Self.start + 3)

    let all = journal.changes(after: Self.start)
    #expect(all.isComplete)
    #expect(all.ids == ["a", "b", "c"])
    #expect(all.removed.map(\.1.originalId) == ["b"])
    #expect(all.removed.first?.0 == Self.start + 2)

    // A change at exactly the time asked was already in the document of that time.
    let later = journal.changes(after: Self.start + 2)
    #expect(later.ids == ["c"])
    #expect(later.removed.isEmpty)
    #expect(journal.changes(after: Self.start + 3).ids.isEmpty)
  }

  @Test func theHorizonIsAWholeMillisecondSoADocumentsTimeNeverFallsBeforeIt() {
    let started = Date(timeIntervalSince1970: 1_800_000_000.123_456)
    let journal = ChangeJournal(horizon: started)
    #expect(journal.horizon == Date(timeIntervalSince1970: 1_800_000_000.123))
    #expect(journal.changes(after: journal.horizon).isComplete)
  }

  @Test func purgedIncidentsAreNotKeptAndADeltaFromBeforeTheirEndIsIncomplete() throws {
    var journal = ChangeJournal(horizon: Self.start)
    let ended = try TrafficIncident(
      id: "old-v", originalId: "old", type: .accident, impact: .major,
      startTime: Self.start + 1, endTime: Self.start + 10,
      location: TrafficLocation(point: try GeoCoordinates(latitude: 50, longitude: 8)))
    journal.record([IncidentChange(kind: .removed, incident: ended)], at: Self.start + 100)
    #expect(journal.forgottenEnd == Self.start + 10)
    let before = journal.changes(after: Self.start + 5)
    #expect(!before.isComplete, "its end is not remembered")
    #expect(before.removed.isEmpty)
    let after = journal.changes(after: Self.start + 10)
    #expect(after.isComplete)
    #expect(after.ids == ["old"])
    #expect(after.removed.isEmpty, "ended before it was removed: nothing to tell")
  }

  @Test func aReportAfterARemovalBringsTheIncidentBack() throws {
    var journal = ChangeJournal(horizon: Self.start)
    journal.record([try Self.change("a", .removed)], at: Self.start + 1)
    journal.record([try Self.change("a", .added)], at: Self.start + 2)
    let changes = journal.changes(after: Self.start)
    #expect(changes.ids == ["a"])
    #expect(changes.removed.isEmpty)
  }

  @Test func beyondItsCapacityTheOldestHalfIsForgottenAndSaidSo() throws {
    var journal = ChangeJournal(horizon: Self.start, capacity: 4)
    for second in 1...5 {
      journal.record([try Self.change("i\(second)")], at: Self.start + Double(second))
    }
    // 5 > 4: the oldest are dropped until 2 remain (i4, i5); the horizon moves to the time
    // of the last one forgotten (i3).
    #expect(journal.horizon == Self.start + 3)
    let early = journal.changes(after: Self.start + 2.5)
    #expect(!early.isComplete, "i3 is forgotten")
    let recent = journal.changes(after: Self.start + 3)
    #expect(recent.isComplete)
    #expect(recent.ids == ["i4", "i5"])
  }
}
