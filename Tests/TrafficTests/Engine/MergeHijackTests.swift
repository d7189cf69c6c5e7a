import Foundation
import Testing

@testable import Traffic

/// A feed (a key scoped to one source) trying to change, end or hide another feed's
/// incidents through merging: reusing its ids, reporting first ("squatting"), copying its
/// report and then changing it, dating reports ahead.
@Suite struct MergeHijackTests {
  typealias F = EngineFixtures

  /// The real feed's accident x1 at (52.5, 13.4), active now.
  static func real(_ id: String = "x1") throws -> TrafficIncident {
    try F.incident(id, [(52.5, 13.4)])
  }

  static func visible(_ engine: TrafficEngine) async throws -> [TrafficIncident] {
    try await engine.queryForIncidents(inside: F.circle(52.5, 13.4, 200))
  }

  @Test func anIdReusedElsewhereIsKeptApartAndChangesNothingOfTheOwner() async throws {
    let engine = try F.engine([])
    try engine.ingest([Self.real()], from: "demo", isFullRefresh: true)
    // 700 km away, another type, starting in 2100: not the same event.
    let fake = try F.incident(
      "x1", [(47.0, 8.0)], type: .roadClosure, impact: .critical,
      start: Date(timeIntervalSince1970: 4_102_444_800), end: nil)
    let pushed = try engine.ingest([fake], from: "evil", isFullRefresh: false, recordingEach: true)
    #expect(pushed.added == 1 && pushed.merged == 0)
    #expect(pushed.records == [IngestRecord(id: "x1", outcome: .added, incident: "x1@evil")])
    let held = try await engine.lookupIncident(with: "x1")
    #expect(held.location == (try Self.real()).location)
    #expect(held.type == .accident)
    #expect(held.sources.map(\.feed) == ["demo"])
    #expect(try await Self.visible(engine).map(\.originalId) == ["x1"])
    // The owner's update applies; the reuser's goes to its own incident.
    var update = try Self.real()
    update.impact = .critical
    #expect(try engine.ingest([update], from: "demo", isFullRefresh: true).updated == 1)
    var again = fake
    again.impact = .minor
    #expect(try engine.ingest([again], from: "evil", isFullRefresh: false).updated == 1)
    #expect(try await engine.lookupIncident(with: "x1").impact == .critical)
    #expect(try await engine.lookupIncident(with: "x1@evil").impact == .minor)
    // The reuser's full refresh ends its own report only.
    #expect(try engine.ingest([], from: "evil", isFullRefresh: true).ended == 1)
    #expect(try await Self.visible(engine).map(\.originalId) == ["x1"])
    #expect(try await engine.lookupIncident(with: "x1").endTime == F.now + 24 * F.hour)
    // And after a restart the same holds.
    let restarted = try TrafficEngine(store: engine.store, clock: { F.now })
    #expect(try await Self.visible(restarted).map(\.originalId) == ["x1"])
  }

  @Test(arguments: [("x1", "here:traffic:incident:x1"), ("here:traffic:incident:x1", "x1")])
  func anIdInTheOtherNamespaceFormIsKeptApartSoLookupsStayTheOwners(
    owner: String, reuser: String
  ) async throws {
    // A lookup finds an incident by its id with or without v7's namespace: a report under
    // the other form would otherwise answer the owner's lookups in one of the two forms.
    let engine = try F.engine([])
    try engine.ingest([Self.real(owner)], from: "demo", isFullRefresh: true)
    let fake = try F.incident(reuser, [(47.0, 8.0)], type: .roadClosure, impact: .critical)
    let pushed = try engine.ingest([fake], from: "evil", isFullRefresh: false, recordingEach: true)
    #expect(pushed.records.map(\.incident) == ["\(reuser)@evil"])
    for form in ["x1", "here:traffic:incident:x1"] {
      let found = try await engine.lookupIncident(with: form)
      #expect(found.originalId == owner, "\(form)")
      #expect(found.sources.map(\.feed) == ["demo"], "\(form)")
    }
    #expect(try await engine.lookupIncident(with: "\(reuser)@evil").type == .roadClosure)
  }

  /// A feed publishing `ID@OTHER` as an id of its own keeps it: the other feed's report
  /// of `ID`, kept apart from a third feed's `ID`, takes the next free apart id instead of
  /// replacing it (it replaced it in place), and each feed's updates go to its own.
  @Test func anApartIdPublishedByAnotherFeedIsNeitherTakenNorChanged() async throws {
    let engine = try F.engine([])
    let squatter = try F.incident("R1@srcA", [(52.5, 13.9)])
    try engine.ingest([squatter], from: "srcB", isFullRefresh: false)
    let third = try F.incident("R1", [(52.51, 13.91)], type: .weather)
    try engine.ingest([third], from: "wzdx:x", isFullRefresh: false)
    let closure = try F.incident("R1", [(47.0, 8.0)], type: .roadClosure, impact: .critical)
    let pushed = try engine.ingest(
      [closure], from: "srcA", isFullRefresh: false, recordingEach: true)
    #expect(pushed.records == [IngestRecord(id: "R1", outcome: .added, incident: "R1@srcA#2")])
    let kept = try await engine.lookupIncident(with: "R1@srcA")
    #expect(kept.type == .accident)
    #expect(kept.sources.map(\.feed) == ["srcB"])
    // srcA's update finds its own incident, srcB's its own.
    var update = closure
    update.impact = .major
    let updated = try engine.ingest(
      [update], from: "srcA", isFullRefresh: false, recordingEach: true)
    #expect(updated.records.map(\.incident) == ["R1@srcA#2"])
    #expect(updated.updated == 1)
    var own = squatter
    own.impact = .minor
    let again = try engine.ingest([own], from: "srcB", isFullRefresh: false, recordingEach: true)
    #expect(again.records.map(\.incident) == ["R1@srcA"])
    #expect(try await engine.lookupIncident(with: "R1@srcA").impact == .minor)
    #expect(try await engine.lookupIncident(with: "R1@srcA#2").impact == .major)
    #expect(try await engine.lookupIncident(with: "R1").type == .weather)
  }

  @Test func reportingAnIdFirstDoesNotHideTheRealReport() async throws {
    let engine = try F.engine([])
    // The squatter reports x1 first, at the place, but starting in 2100.
    let squat = try F.incident(
      "x1", [(52.5, 13.4)], start: Date(timeIntervalSince1970: 4_102_444_800), end: nil)
    try engine.ingest([squat], from: "evil", isFullRefresh: false)
    // The real report (active now) is not merged into it: it stands, visible.
    let report = try engine.ingest([Self.real()], from: "demo", isFullRefresh: true)
    #expect(report.added == 1 && report.merged == 0)
    let shown = try await Self.visible(engine)
    #expect(shown.map(\.sources.first?.feed) == ["demo"])
    // A nearby copy of the real report under another id does join: and stays A's content.
    var copy = try F.incident("c9", [(52.5001, 13.4)])
    copy.sourceTexts = [LocalizedText(text: "all clear", language: .enUS)]
    #expect(try engine.ingest([copy], from: "evil2", isFullRefresh: false).merged == 1)
    let merged = try #require(try await Self.visible(engine).first)
    #expect(merged.sources.map(\.feed) == ["demo", "evil2"])
    #expect(merged.sourceTexts == (try Self.real()).sourceTexts)
  }

  @Test func aReporterWhoseReportStopsAgreeingLeavesTheOthersTheirs() async throws {
    let engine = try F.engine([])
    // The squatter reports first what the real feed will say; the real feed joins it.
    try engine.ingest([Self.real("s1")], from: "evil", isFullRefresh: false)
    #expect(try engine.ingest([Self.real()], from: "demo", isFullRefresh: true).merged == 1)
    // The squatter, whose report is the content, moves it to 2100, or ends it, or moves
    // it 700 km: each time it leaves, and the real feed's event stays shown.
    let changes: [TrafficIncident] = [
      try F.incident(
        "s1", [(52.5, 13.4)], start: Date(timeIntervalSince1970: 4_102_444_800), end: nil),
      try F.incident("s1", [(52.5, 13.4)], start: F.now - 2 * F.hour, end: F.now - F.hour),
      try F.incident("s1", [(47.0, 8.0)]),
    ]
    for change in changes {
      _ = try engine.ingest([change], from: "evil", isFullRefresh: false)
      let shown = try await Self.visible(engine)
      #expect(shown.count == 1)
      #expect(shown.first?.sources.map(\.feed) == ["demo"])
      #expect(shown.first?.location == (try Self.real()).location)
      // The squatter's report is an incident of its own now, under its own id.
      #expect(try await engine.lookupIncident(with: "s1@evil").sources.map(\.feed) == ["evil"])
      // Back to the real feed's report, it stays its own: shown beside the real one, never
      // again its content.
      _ = try engine.ingest([Self.real("s1")], from: "evil", isFullRefresh: false)
      #expect(
        try await Self.visible(engine).map { $0.sources.map(\.feed) }.sorted { $0[0] < $1[0] }
          == [["demo"], ["evil"]])
    }
  }

  @Test func aJoinersChangeThatStopsAgreeingMakesAnIncidentOfItsOwn() async throws {
    let engine = try F.engine([])
    try engine.ingest([Self.real()], from: "demo", isFullRefresh: true)
    #expect(try engine.ingest([Self.real("j1")], from: "other", isFullRefresh: true).merged == 1)
    // The joiner says the road is now closed: its own incident, shown as it says.
    var closed = try Self.real("j1")
    closed.isRoadClosed = true
    #expect(try engine.ingest([closed], from: "other", isFullRefresh: true).updated == 1)
    let shown = try await Self.visible(engine).sorted { $0.originalId < $1.originalId }
    #expect(shown.map(\.isRoadClosed) == [true, false])
    #expect(shown.map { $0.sources.map(\.feed) } == [["other"], ["demo"]])
    #expect(try await engine.lookupIncident(with: "j1").isRoadClosed)
  }

  @Test func aReportDatedAheadIsTakenAsArrivedNow() async throws {
    let engine = try F.engine([])
    var ahead = try Self.real()
    ahead.entryTime = Date(timeIntervalSince1970: 4_102_444_800)
    try engine.ingest([ahead], from: "evil", isFullRefresh: false)
    #expect(try await engine.lookupIncident(with: "x1").entryTime == F.now)
    // The latest entry, what `sourceUpdated` says after a restart, is not in 2100.
    let restarted = try TrafficEngine(store: engine.store, clock: { F.now })
    #expect((restarted.lastUpdate ?? .distantFuture) <= F.now)
    // An older report of the same feed, dated correctly, is not stale against it.
    var later = try Self.real()
    later.impact = .critical
    later.entryTime = F.now
    #expect(try engine.ingest([later], from: "evil", isFullRefresh: false).updated == 1)
  }
}
