import Foundation
import Testing

@testable import Traffic

@Suite struct TrafficEngineIngestTests {
  typealias F = EngineFixtures

  @Test func reimportingTheSameDocumentChangesNothing() throws {
    let engine = try F.engine([])
    let document = [try F.incident("a", [(52.5, 13.4)]), try F.incident("b", [(52.6, 13.5)])]
    let first = try engine.ingest(document, from: "feed", isFullRefresh: true)
    #expect(first.added == 2)
    let again = try engine.ingest(document, from: "feed", isFullRefresh: true)
    #expect(again.unchanged == 2)
    #expect(again.added + again.updated + again.ended + again.merged == 0)
    #expect(try engine.store.history(ofOriginalId: "a").count == 1)
  }

  @Test func aChangedIncidentGetsANewVersionIdAndKeepsItsOriginalId() async throws {
    let engine = try F.engine([])
    try engine.ingest(
      [try F.incident("a", [(52.5, 13.4)], impact: .minor)], from: "feed", isFullRefresh: false)
    let report = try engine.ingest(
      [try F.incident("a", [(52.5, 13.4)], impact: .critical)], from: "feed", isFullRefresh: false)
    #expect(report.updated == 1)
    let now = try await engine.lookupIncident(with: "a")
    #expect(now.impact == .critical)
    #expect(now.id != "a-v1")
    #expect(try engine.store.history(ofOriginalId: "a").map(\.impact) == [.minor, .critical])
  }

  @Test func anOlderVersionNeverReplacesANewerOne() async throws {
    let engine = try F.engine([])
    var newer = try F.incident("a", [(52.5, 13.4)], impact: .critical)
    newer.entryTime = F.now
    var older = try F.incident("a", [(52.5, 13.4)], impact: .minor)
    older.entryTime = F.now - 600
    try engine.ingest([newer], from: "feed", isFullRefresh: false)
    #expect(try engine.ingest([older], from: "feed", isFullRefresh: false).stale == 1)
    #expect(try await engine.lookupIncident(with: "a").impact == .critical)
  }

  @Test func reportsOfTheSameEventFromTwoFeedsAreMerged() async throws {
    let engine = try F.engine([])
    try engine.ingest([try F.incident("a1", [(52.5, 13.4)])], from: "feed-a", isFullRefresh: false)
    // ~20 m away, same type, overlapping time: the same accident.
    let report = try engine.ingest(
      [try F.incident("b7", [(52.50018, 13.4)])], from: "feed-b", isFullRefresh: false)
    #expect(report.merged == 1)
    #expect(engine.incidentCount == 1)
    let merged = try await engine.lookupIncident(with: "b7")
    #expect(merged.originalId == "a1")
    #expect(merged.sources.map(\.feed) == ["feed-a", "feed-b"])
    #expect(
      try engine.ingest(
        [try F.incident("b7", [(52.50018, 13.4)])], from: "feed-b", isFullRefresh: false
      ).unchanged == 1)
    // Another type, or farther than 50 m, is another incident.
    let other = try engine.ingest(
      [
        try F.incident("b8", [(52.5, 13.4)], type: .construction),
        try F.incident("b9", [(52.5009, 13.4)]),
      ], from: "feed-b", isFullRefresh: false)
    #expect(other.added == 2)
  }

  @Test func aFullRefreshEndsWhatTheFeedNoLongerCarries() async throws {
    let engine = try F.engine([])
    try engine.ingest(
      [try F.incident("a", [(52.5, 13.4)]), try F.incident("b", [(52.6, 13.5)])],
      from: "feed", isFullRefresh: true)
    try engine.ingest([try F.incident("x", [(48.1, 11.5)])], from: "other", isFullRefresh: true)
    // A delta document ends nothing.
    #expect(
      try engine.ingest([try F.incident("a", [(52.5, 13.4)])], from: "feed", isFullRefresh: false)
        .ended == 0)
    let report = try engine.ingest(
      [try F.incident("a", [(52.5, 13.4)])], from: "feed", isFullRefresh: true)
    #expect(report.ended == 1)
    #expect(report.unchanged == 1)
    let ended = try await engine.lookupIncident(with: "b")
    #expect(ended.endTime == F.now)
    #expect(try await engine.queryForIncidents(inside: F.circle(52.6, 13.5, 100)).isEmpty)
    // Another feed's incidents are untouched.
    #expect(try await engine.lookupIncident(with: "x").endTime == F.now + 24 * F.hour)
  }

  @Test func aMergedIncidentOutlivesOneOfItsFeeds() async throws {
    let engine = try F.engine([])
    try engine.ingest([try F.incident("a1", [(52.5, 13.4)])], from: "feed-a", isFullRefresh: true)
    try engine.ingest(
      [try F.incident("b1", [(52.5001, 13.4)])], from: "feed-b", isFullRefresh: true)
    let report = try engine.ingest([], from: "feed-a", isFullRefresh: true)
    #expect(report.ended == 0)
    let still = try await engine.lookupIncident(with: "a1")
    #expect(still.sources.map(\.feed) == ["feed-b"])
    #expect(try await engine.queryForIncidents(inside: F.circle(52.5, 13.4, 100)).count == 1)
  }
}
