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

  @Test func theReportSaysWhatHappenedToEachRecord() throws {
    func report(
      _ id: String, at latitude: Double, impact: TrafficIncidentImpact = .major,
      entry: Double? = nil
    ) throws
      -> TrafficIncident
    {
      var incident = try F.incident(id, [(latitude, 13.4)], impact: impact)
      incident.entryTime = entry.map { F.now + $0 }
      return incident
    }
    let engine = try F.engine([])
    try engine.ingest(
      [
        try report("a1", at: 52.50, entry: -300), try report("a2", at: 52.51),
        try report("a3", at: 52.52), try report("a6", at: 52.53),
      ], from: "feed-a", isFullRefresh: true)
    try engine.ingest([try report("b1", at: 52.60)], from: "feed-b", isFullRefresh: true)
    let second = try engine.ingest(
      [
        try report("a1", at: 52.50, impact: .critical, entry: -600),  // older than held
        try report("a2", at: 52.51, impact: .critical),  // changed
        try report("a4", at: 52.54),  // new
        try report("a5", at: 52.60018),  // ~20 m from feed B's b1
        try report("a6", at: 52.53),  // the same again
      ], from: "feed-a", isFullRefresh: true, recordingEach: true)  // a3 no longer carried
    #expect(
      second.records == [
        IngestRecord(id: "a1", outcome: .stale, incident: "a1"),
        IngestRecord(id: "a2", outcome: .updated, incident: "a2"),
        IngestRecord(id: "a4", outcome: .added, incident: "a4"),
        IngestRecord(id: "a5", outcome: .merged, incident: "b1"),
        IngestRecord(id: "a6", outcome: .unchanged, incident: "a6"),
        IngestRecord(id: "a3", outcome: .ended, incident: "a3"),
      ])
    #expect(
      [second.stale, second.updated, second.added, second.merged, second.unchanged, second.ended]
        as [Int]
        == [1, 1, 1, 1, 1, 1])
    // A later report of the merged record names the incident it went into; without
    // `recordingEach`, only the counts.
    let third = try engine.ingest(
      [try report("a5", at: 52.60018, impact: .critical)], from: "feed-a", isFullRefresh: false,
      recordingEach: true)
    #expect(third.records == [IngestRecord(id: "a5", outcome: .updated, incident: "b1")])
    let quiet = try engine.ingest(
      [try report("a5", at: 52.60018, impact: .minor)], from: "feed-a", isFullRefresh: false)
    #expect(quiet.updated == 1 && quiet.records.isEmpty)
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

/// Reports of one event from two feeds, merged into one incident: what later reports of
/// either feed do to it.
@Suite struct TrafficEngineMergedIngestTests {
  typealias F = EngineFixtures

  /// An `IngestReport` with the given counts.
  func counts(
    added: Int = 0, updated: Int = 0, unchanged: Int = 0, stale: Int = 0, merged: Int = 0,
    ended: Int = 0
  ) -> IngestReport {
    var report = IngestReport()
    report.added = added
    report.updated = updated
    report.unchanged = unchanged
    report.stale = stale
    report.merged = merged
    report.ended = ended
    return report
  }

  /// Feed A's accident a1, and feed B's report b7 of it ~20 m away.
  func a1(
    impact: TrafficIncidentImpact = .major, entryTime: Date? = nil
  ) throws -> TrafficIncident {
    var incident = try F.incident("a1", [(52.5, 13.4)], impact: impact)
    incident.entryTime = entryTime
    return incident
  }

  func b7(
    impact: TrafficIncidentImpact = .major, entryTime: Date? = nil
  ) throws -> TrafficIncident {
    var incident = try F.incident("b7", [(52.50018, 13.4)], impact: impact)
    incident.entryTime = entryTime
    return incident
  }

  /// An engine where a1 (feed A) and b7 (feed B) are merged, both fed as full refreshes.
  func mergedEngine(
    a: TrafficIncident? = nil, b: TrafficIncident? = nil
  ) throws -> TrafficEngine {
    let engine = try F.engine([])
    #expect(
      try engine.ingest([a ?? a1()], from: "feed-a", isFullRefresh: true) == counts(added: 1))
    #expect(
      try engine.ingest([b ?? b7()], from: "feed-b", isFullRefresh: true) == counts(merged: 1))
    #expect(engine.incidentCount == 1)
    return engine
  }

  enum Change: String, CaseIterable, CustomTestStringConvertible {
    case text, endTime, impact, geometry
    var testDescription: String { rawValue }

    func apply(to report: inout TrafficIncident) throws {
      switch self {
      case .text:
        report.sourceTexts = [LocalizedText(text: "Two lanes closed", language: .enUS)]
      case .endTime:
        report = try report.updated(
          id: report.id, startTime: report.startTime, endTime: F.now + 2 * F.hour)
      case .impact:
        report.impact = .critical
      case .geometry:
        report.location = try TrafficLocation(
          polyline: GeoPolyline(vertices: [
            GeoCoordinates(latitude: 52.50018, longitude: 13.4),
            GeoCoordinates(latitude: 52.5004, longitude: 13.4012),
          ]))
      }
    }
  }

  @Test(arguments: Change.allCases)
  func aChangeOfTheSecondFeedIsRecordedButNeverShownInTheFirstsName(change: Change) async throws {
    let engine = try mergedEngine()
    var changed = try b7()
    try change.apply(to: &changed)
    #expect(try engine.ingest([changed], from: "feed-b", isFullRefresh: true) == counts(updated: 1))

    // The merged incident still says what A said, under A's original id; B's report is
    // recorded in B's entry, attributable.
    let merged = try await engine.lookupIncident(with: "a1")
    let first = try a1()
    #expect(merged.originalId == "a1")
    #expect(merged.sources.map(\.feed) == ["feed-a", "feed-b"])
    #expect(merged.impact == first.impact)
    #expect(merged.endTime == first.endTime)
    #expect(merged.sourceTexts == first.sourceTexts)
    #expect(merged.location == first.location)
    #expect(merged.sources[1].reportDigest == changed.contentDigest)
    #expect(try await engine.lookupIncident(with: "b7").id == merged.id)
    // Added, merged, B's report recorded: three versions.
    #expect(try engine.store.history(ofOriginalId: "a1").count == 3)

    // Idempotent: B's changed report again, or A's unchanged one, writes nothing.
    #expect(
      try engine.ingest([changed], from: "feed-b", isFullRefresh: true) == counts(unchanged: 1))
    #expect(try engine.ingest([a1()], from: "feed-a", isFullRefresh: true) == counts(unchanged: 1))
    #expect(try engine.store.history(ofOriginalId: "a1").count == 3)
    #expect(try await engine.lookupIncident(with: "a1").id == merged.id)
  }

  @Test func aJoiningReportNeverReplacesTheContentEvenWhenNewer() async throws {
    // B reports A's accident later, worse and longer: it joins, and A's report stays the
    // content (a feed's report never stands in another feed's name).
    var later = try b7(impact: .critical, entryTime: F.now - 60)
    later = try later.updated(
      id: later.id, startTime: later.startTime, endTime: F.now + 48 * F.hour)
    let engine = try mergedEngine(a: a1(entryTime: F.now - 600), b: later)
    let merged = try await engine.lookupIncident(with: "a1")
    #expect(merged.originalId == "a1")
    #expect(merged.sources.map(\.feed) == ["feed-a", "feed-b"])
    #expect(merged.impact == .major)
    #expect(merged.endTime == F.now + 24 * F.hour)
    #expect(merged.entryTime == F.now - 600)
    #expect(merged.location == (try a1()).location)
    #expect(merged.sources[1].reportEntryTime == F.now - 60)
    #expect(merged.sources[1].reportDigest == later.contentDigest)
  }

  @Test func anOlderOrUntimedReportJoinsWithoutChangingTheContent() async throws {
    for (a, b) in [
      (try a1(entryTime: F.now - 60), try b7(impact: .critical, entryTime: F.now - 600)),
      (try a1(entryTime: F.now - 60), try b7(impact: .critical)),
      (try a1(), try b7(impact: .critical, entryTime: F.now - 60)),
    ] {
      let engine = try mergedEngine(a: a, b: b)
      let merged = try await engine.lookupIncident(with: "a1")
      #expect(merged.impact == .major)
      #expect(merged.location == a.location)
      #expect(merged.sources.map(\.feed) == ["feed-a", "feed-b"])
    }
  }

  @Test func aClosureBySecondSourceStandsAsAnIncidentOfItsOwn() async throws {
    let engine = try F.engine([])
    var works = try F.incident("wz-a", [(52.5, 13.4), (52.501, 13.4)], type: .construction)
    works.entryTime = F.now - 3_600
    #expect(try engine.ingest([works], from: "feed-a", isFullRefresh: true) == counts(added: 1))
    // B says the road is closed where A says it is open: they do not agree on what users
    // act on, so B's closure is shown as B reports it, and A's work zone as A does.
    var closure = try F.incident(
      "wz-b", [(52.5, 13.4), (52.501, 13.4)], type: .roadClosure, impact: .critical)
    closure.isRoadClosed = true
    closure.entryTime = F.now - 60
    #expect(try engine.ingest([closure], from: "feed-b", isFullRefresh: true) == counts(added: 1))
    #expect(engine.incidentCount == 2)
    let closed = try await engine.lookupIncident(with: "wz-b")
    #expect(closed.isRoadClosed)
    #expect(closed.sources.map(\.feed) == ["feed-b"])
    #expect(try await engine.lookupIncident(with: "wz-a").isRoadClosed == false)
    // A lane restriction of a third feed, open as A says: the same work zone, merged.
    let lanes = try F.incident(
      "wz-c", [(52.5, 13.4), (52.501, 13.4)], type: .laneRestriction)
    #expect(try engine.ingest([lanes], from: "feed-c", isFullRefresh: true) == counts(merged: 1))
    // An accident at the same place stays an incident of its own.
    let accident = try F.incident("acc", [(52.5, 13.4), (52.501, 13.4)])
    #expect(try engine.ingest([accident], from: "feed-d", isFullRefresh: true) == counts(added: 1))
  }

  @Test func onlyTheFeedWhoseReportIsTheContentChangesIt() async throws {
    let engine = try mergedEngine()
    #expect(
      try engine.ingest([b7(impact: .critical)], from: "feed-b", isFullRefresh: true)
        == counts(updated: 1))
    #expect(try await engine.lookupIncident(with: "a1").impact == .major)
    // A's change is the content's own.
    #expect(
      try engine.ingest([a1(impact: .minor)], from: "feed-a", isFullRefresh: true)
        == counts(updated: 1))
    #expect(try await engine.lookupIncident(with: "a1").impact == .minor)
    // B repeating its own change writes nothing.
    #expect(
      try engine.ingest([b7(impact: .critical)], from: "feed-b", isFullRefresh: true)
        == counts(unchanged: 1))
    #expect(try await engine.lookupIncident(with: "a1").impact == .minor)
    #expect(
      try engine.store.history(ofOriginalId: "a1").map(\.impact)
        == [.major, .major, .major, .minor])
  }

  @Test func anOlderReportOfTheSecondFeedIsStale() async throws {
    let engine = try mergedEngine(
      a: a1(entryTime: F.now - 600), b: b7(entryTime: F.now - 300))
    #expect(
      try engine.ingest(
        [b7(impact: .critical, entryTime: F.now - 60)], from: "feed-b", isFullRefresh: true)
        == counts(updated: 1))
    let current = try await engine.lookupIncident(with: "a1")
    #expect(current.impact == .major)
    #expect(current.sources[1].reportEntryTime == F.now - 60)
    // Older than what B said last: ignored.
    #expect(
      try engine.ingest(
        [b7(impact: .minor, entryTime: F.now - 200)], from: "feed-b", isFullRefresh: true)
        == counts(stale: 1))
    #expect(try await engine.lookupIncident(with: "a1").id == current.id)
  }

  @Test func aChangeOlderThanTheContentIsRecordedButNotShown() async throws {
    let engine = try mergedEngine(
      a: a1(entryTime: F.now - 60), b: b7(entryTime: F.now - 600))
    // Newer than B's last report but older than A's, which the incident shows.
    #expect(
      try engine.ingest(
        [b7(impact: .critical, entryTime: F.now - 300)], from: "feed-b", isFullRefresh: true)
        == counts(updated: 1))
    let current = try await engine.lookupIncident(with: "a1")
    #expect(current.impact == .major)
    #expect(current.entryTime == F.now - 60)
    let entry = try #require(current.sources.last)
    #expect(entry.feed == "feed-b")
    #expect(entry.reportEntryTime == F.now - 300)
    #expect(entry.reportDigest == (try b7(impact: .critical)).contentDigest)
    #expect(
      try engine.ingest(
        [b7(impact: .critical, entryTime: F.now - 300)], from: "feed-b", isFullRefresh: true)
        == counts(unchanged: 1))
  }

  @Test func theSecondFeedEndingLeavesTheIncidentToTheFirst() async throws {
    let engine = try mergedEngine()
    #expect(
      try engine.ingest([b7(impact: .critical)], from: "feed-b", isFullRefresh: true)
        == counts(updated: 1))
    // B no longer carries its report: A still does, so nothing ends.
    #expect(try engine.ingest([], from: "feed-b", isFullRefresh: true) == counts())
    let left = try await engine.lookupIncident(with: "a1")
    #expect(left.sources.map(\.feed) == ["feed-a"])
    #expect(left.endTime == F.now + 24 * F.hour)
    #expect(try await engine.queryForIncidents(inside: F.circle(52.5, 13.4, 100)).count == 1)
    // The content was A's all along: A's next report is unchanged.
    let back = try await engine.lookupIncident(with: "a1")
    #expect(back.impact == .major)
    #expect(back.location == (try a1()).location)
    #expect(try engine.ingest([a1()], from: "feed-a", isFullRefresh: true) == counts(unchanged: 1))
    // The last source ending it ends it.
    #expect(try engine.ingest([], from: "feed-a", isFullRefresh: true) == counts(ended: 1))
    #expect(try await engine.lookupIncident(with: "a1").endTime == F.now)
    #expect(try await engine.queryForIncidents(inside: F.circle(52.5, 13.4, 100)).isEmpty)
  }

  @Test func aFeedLeavingWithoutHavingChangedAnythingChangesNothingElse() async throws {
    let engine = try mergedEngine()
    #expect(try engine.ingest([], from: "feed-b", isFullRefresh: true) == counts())
    // The content is A's own report: A's next unchanged report writes nothing.
    #expect(try engine.ingest([a1()], from: "feed-a", isFullRefresh: true) == counts(unchanged: 1))
    let left = try await engine.lookupIncident(with: "a1")
    #expect(left.sources == [TrafficIncidentSource(feed: "feed-a", id: "a1")])
    #expect(try engine.store.history(ofOriginalId: "a1").count == 3)  // added, merged, left
  }

  @Test func whenTheFirstFeedLeavesTheSecondFeedsViewTakesOver() async throws {
    let engine = try mergedEngine()
    #expect(try engine.ingest([], from: "feed-a", isFullRefresh: true) == counts())
    #expect(try await engine.lookupIncident(with: "b7").sourceTexts.isEmpty)
    #expect(try await engine.lookupIncident(with: "a1").location == (try a1()).location)
    // A's content has no feed left: B's next report, unchanged, supplies it.
    #expect(try engine.ingest([b7()], from: "feed-b", isFullRefresh: true) == counts(updated: 1))
    let now = try await engine.lookupIncident(with: "b7")
    #expect(now.originalId == "a1")
    #expect(now.location == (try b7()).location)
    #expect(try engine.ingest([b7()], from: "feed-b", isFullRefresh: true) == counts(unchanged: 1))
    #expect(try engine.ingest([], from: "feed-b", isFullRefresh: true) == counts(ended: 1))
    #expect(try await engine.lookupIncident(with: "a1").endTime == F.now)
  }

  @Test func theSameIdFromAnotherFeedIsMergedAndFollowsItsChanges() async throws {
    let engine = try F.engine([])
    let x = try F.incident("x1", [(52.5, 13.4)])
    #expect(try engine.ingest([x], from: "feed-a", isFullRefresh: true) == counts(added: 1))
    #expect(try engine.ingest([x], from: "feed-b", isFullRefresh: true) == counts(merged: 1))
    #expect(
      try await engine.lookupIncident(with: "x1").sources.map(\.feed) == ["feed-a", "feed-b"])
    #expect(try engine.ingest([x], from: "feed-b", isFullRefresh: true) == counts(unchanged: 1))
    var changed = x
    changed.impact = .critical
    #expect(try engine.ingest([changed], from: "feed-b", isFullRefresh: true) == counts(updated: 1))
    #expect(try engine.ingest([x], from: "feed-a", isFullRefresh: true) == counts(unchanged: 1))
    // B reports the same content as A: still A's report is the content, and B's change is
    // recorded in B's entry only.
    #expect(try await engine.lookupIncident(with: "x1").impact == x.impact)
    #expect(
      try await engine.lookupIncident(with: "x1").sources[1].reportDigest
        == changed.contentDigest)
  }

  @Test func whatEachFeedSaidSurvivesARestart() throws {
    let engine = try mergedEngine()
    try engine.ingest([b7(impact: .critical)], from: "feed-b", isFullRefresh: true)
    let restarted = try TrafficEngine(store: engine.store, clock: { F.now })
    #expect(
      try restarted.ingest([b7(impact: .critical)], from: "feed-b", isFullRefresh: true)
        == counts(unchanged: 1))
    #expect(
      try restarted.ingest([a1()], from: "feed-a", isFullRefresh: true) == counts(unchanged: 1))
    // And through the stores' JSON bodies.
    let stored = try #require(try engine.store.history(ofOriginalId: "a1").last)
    let decoded = try JSONDecoder().decode(
      TrafficIncident.self, from: JSONEncoder().encode(stored))
    #expect(decoded.sources == stored.sources)
    #expect(stored.sources.allSatisfy { $0.reportDigest?.count == 16 })
  }

  @Test func aReportInEffectDoesNotJoinAnEndedIncident() throws {
    let engine = try F.engine([])
    try engine.ingest([a1()], from: "feed-a", isFullRefresh: true)
    #expect(try engine.ingest([], from: "feed-a", isFullRefresh: true) == counts(ended: 1))
    #expect(try engine.ingest([b7()], from: "feed-b", isFullRefresh: true) == counts(added: 1))
    #expect(engine.incidentCount == 2)
  }
}

extension TrafficEngineIngestTests {
  @Test func versionIdsStayDistinctWithinOneMillisecond() throws {
    // The fixture clock never moves: every ingest happens at the same millisecond. The feed
    // gives no version ids (id = original id), so the engine makes each one.
    func report(_ impact: TrafficIncidentImpact) throws -> TrafficIncident {
      try F.incident("a", [(52.5, 13.4)], impact: impact).reidentified(id: "a", originalId: "a")
    }
    let engine = try F.engine([])
    try engine.ingest([try report(.minor)], from: "feed", isFullRefresh: false)
    for impact in [TrafficIncidentImpact.major, .critical, .minor] {
      #expect(
        try engine.ingest([try report(impact)], from: "feed", isFullRefresh: false).updated == 1)
    }
    let history = try engine.store.history(ofOriginalId: "a")
    #expect(history.map(\.impact) == [.minor, .major, .critical, .minor])
    #expect(Set(history.map(\.id)).count == 4)
  }
}
