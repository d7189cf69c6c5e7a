import Foundation

/// What one feed document changed.
public struct IngestReport: Hashable, Sendable {
  /// Incidents seen for the first time.
  public var added = 0
  /// Known incidents that came with new content (a new version each).
  public var updated = 0
  /// Known incidents that came again unchanged (nothing written).
  public var unchanged = 0
  /// Versions older (by entry time) than the version held, ignored.
  public var stale = 0
  /// Reports merged into an incident another feed reported first.
  public var merged = 0
  /// Incidents of this feed that a full-refresh document no longer carries, now ended.
  public var ended = 0

  /// What happened to each record of the document and to each incident a full refresh
  /// ended, in that order; empty unless asked for (`recordingEach`).
  public var records: [IngestRecord] = []

  /// Creates an empty report.
  public init() {}
}

/// What one ingest did with one record of a feed document (or with an incident a full
/// refresh ended).
public struct IngestRecord: Hashable, Sendable {
  /// The outcomes, one for each count of ``IngestReport``.
  public enum Outcome: String, Hashable, Sendable, CaseIterable {
    case added, updated, unchanged, stale, merged, ended
  }

  /// The record's id in its feed.
  public var id: String
  /// What the ingest did with it.
  public var outcome: Outcome
  /// The `originalId` of the incident the record went into: its own, or for `merged` (and
  /// for a later report of a merged incident) the incident another feed reported first.
  public var incident: String

  /// Creates a record's outcome.
  public init(id: String, outcome: Outcome, incident: String) {
    self.id = id
    self.outcome = outcome
    self.incident = incident
  }
}

extension TrafficEngine {
  /// Distance within which reports of the same kind (``isSameKind(_:_:)``) and time from
  /// different feeds are taken to be the same event, meters.
  static let duplicateDistanceInMeters = 50.0

  /// Ingests the incidents of one feed document as one atomic batch.
  ///
  /// - An incident whose `originalId` is known gets a new version (a new `id`) when its
  ///   content changed, and nothing when it did not: importing the same document twice
  ///   changes nothing. A version whose entry time is older than the held one's is ignored.
  /// - An incident of a new id that agrees with one reported by another feed (the same kind
  ///   of event, geometry within 50 m, time intervals overlapping, both active now or not,
  ///   both closing the road or not; and that incident not ended while the report is in
  ///   effect) is merged into it: the existing incident gains this feed in `sources` and
  ///   keeps its `originalId` and its content; each source entry records a digest of its
  ///   feed's report. The same kind: the same type, or both roadworks (`construction`,
  ///   `laneRestriction`, `roadClosure`: feeds such as WZDx and DATEX II type a work zone by
  ///   its impact). The same id from another feed merges the same way when it agrees, and
  ///   is otherwise kept apart as an incident of its own under `ID@FEED`.
  /// - A later report of a merged incident is compared with what its own feed said last:
  ///   unchanged, it writes nothing; changed, it is `updated`: the feed's source entry
  ///   records it, and it becomes the content only when the content is this feed's report;
  ///   a change that no longer agrees with the incident takes the feed out, as an incident
  ///   of its own; older than the feed's last report, it is stale. So one feed can neither
  ///   change, end nor hide what another feed reports.
  /// - An entry time after the ingest's time is taken as the ingest's time.
  /// - With `isFullRefresh`, incidents this feed reported before but no longer carries are
  ///   ended now (a new version whose end time is now); an incident other feeds also report
  ///   just loses this feed from its sources, and when its content was this feed's report,
  ///   the next report of the remaining feed that reported last becomes the content.
  /// - Parameters:
  ///   - incidents: The decoded incidents, `originalId` = the feed's own id.
  ///   - feed: The feed's name.
  ///   - isFullRefresh: Whether the document is the feed's complete current picture.
  ///   - recordingEach: Whether the report lists what happened to each record
  ///     (``IngestReport/records``), beside the counts.
  /// - Returns: Counts of what happened.
  /// - Throws: `TrafficStoreError`; nothing is stored then.
  /// - Complexity: O(n log m) for n incoming and m held incidents, plus rebuilding the
  ///   snapshot and a digest of each report that concerns a merged incident.
  @discardableResult
  public func ingest(
    _ incidents: consuming [TrafficIncident], from feed: String, isFullRefresh: Bool,
    recordingEach: Bool = false
  )
    throws(TrafficStoreError) -> IngestReport
  {
    try ingest(
      incidents, from: feed, isFullRefresh: isFullRefresh, building: .now,
      recordingEach: recordingEach)
  }

  /// `ingest(_:from:isFullRefresh:)`, building the next snapshot as `building` says:
  /// `traffic import` stores a document and ends, so it leaves the snapshot to a reader
  /// that never comes (a million incidents' index was a third of its peak memory).
  ///
  /// With `maximumHeldByFeed`, a document after which the feed would have a report in more
  /// incidents than that (ended ones still held included) is refused whole with
  /// `TrafficStoreError.limitExceeded`; changes to what it holds are always taken.
  ///
  /// `carrying` names the feed's own ids of records the document holds but that could not
  /// be read (a decoder skipped them): a full refresh still carries them, so it does not end
  /// their incidents (nor take the feed out of the incidents they were merged into).
  package func ingest(
    _ incidents: consuming [TrafficIncident], from feed: String, isFullRefresh: Bool,
    building: SnapshotBuild, recordingEach: Bool = false, maximumHeldByFeed: Int? = nil,
    carrying unreadIds: Set<String> = []
  )
    throws(TrafficStoreError) -> IngestReport
  {
    var report = IngestReport()
    let now = clock()
    // Each report is moved out of the document as it is taken: a caller that hands over
    // its only copy (`traffic import`, a push) then holds each incident once, rather than
    // the document's copy beside the one the pass stages with its sources set.
    var pending = consume incidents
    pending.reverse()
    _ = try write(building: building) { snapshot throws(TrafficStoreError) in
      var pass = IngestPass(
        feed: feed, now: now, snapshot: snapshot, recordsEach: recordingEach)
      while let incoming = pending.popLast() { pass.take(incoming) }
      if isFullRefresh {
        for id in unreadIds { pass.carry(id) }
        pass.endReportsNoLongerCarried()
      }
      if let maximumHeldByFeed {
        let held = pass.heldByFeedAfter
        if held > maximumHeldByFeed, held > snapshot.heldByFeed[feed, default: 0] {
          throw TrafficStoreError.limitExceeded(
            "source \(feed) would hold \(held) incidents, more than the \(maximumHeldByFeed) "
              + "one source may (ended ones count until they are purged)")
        }
      }
      report = pass.report
      return pass.batch
    }
    return report
  }

  /// Whether two reports say the same thing (ignoring the version id and entry time, which
  /// a source may restamp on every publication).
  static func sameContent(_ a: TrafficIncident, _ b: TrafficIncident) -> Bool {
    var a = renamed(a, id: b.id)
    a.entryTime = b.entryTime
    return a == b
  }

  static func renamed(_ incident: TrafficIncident, id: String) -> TrafficIncident {
    (try? incident.updated(id: id, startTime: incident.startTime, endTime: incident.endTime))
      ?? incident
  }

  /// An incident from another feed that reports the same event as `incoming`: one it agrees
  /// with (``agrees(_:with:now:)``). A report still in effect at `now` never joins an
  /// incident that has ended (where it would not be seen); past reports may join past
  /// incidents.
  static func duplicate(
    of incoming: TrafficIncident, from feed: String, in snapshot: IncidentIndex, now: Date
  )
    -> TrafficIncident?
  {
    guard
      let reach = try? GeoCorridor(
        polyline: incoming.location.polyline.vertices, halfWidthInMeters: duplicateDistanceInMeters)
    else { return nil }
    // The index search is the place test of `agrees`; the rest is checked here.
    for position in snapshot.positions(meeting: reach) {
      let candidate = snapshot.incidents[position]
      guard !candidate.sources.isEmpty,
        !candidate.sources.contains(where: { $0.feed == feed }),
        isInEffect(candidate, at: now) || !isInEffect(incoming, at: now),
        agreesOnWhatAndWhen(incoming, with: candidate, now: now)
      else { continue }
      return candidate
    }
    return nil
  }

  /// Whether a report of one source can be the same event as an incident of others: it
  /// agrees on what and when (``agreesOnWhatAndWhen(_:with:now:)``) and its polyline widened
  /// by ``duplicateDistanceInMeters`` meets the incident's geometry. What users act on
  /// (where, what, whether now, whether closed) must agree before one source's report
  /// stands for another's.
  static func agrees(_ report: TrafficIncident, with incident: TrafficIncident, now: Date) -> Bool {
    guard agreesOnWhatAndWhen(report, with: incident, now: now),
      let reach = try? GeoCorridor(
        polyline: report.location.polyline.vertices, halfWidthInMeters: duplicateDistanceInMeters)
    else { return false }
    let test = GeoPathTest(reach)
    return test.meets(incident.location.polyline)
      || incident.location.additionalPolylines.contains { test.meets($0) }
  }

  /// The same kind (``isSameKind(_:_:)``), time intervals sharing an instant, both active
  /// now or both not (begun and not ended), both closing the road or neither.
  static func agreesOnWhatAndWhen(
    _ report: TrafficIncident, with incident: TrafficIncident, now: Date
  ) -> Bool {
    isSameKind(report.type, incident.type) && report.isRoadClosed == incident.isRoadClosed
      && isActive(report, at: now) == isActive(incident, at: now) && overlaps(report, incident)
  }

  /// The types a work zone is reported as, by its impact.
  static let roadworkTypes: Set<TrafficIncidentType> = [
    .construction, .laneRestriction, .roadClosure,
  ]

  /// Whether reports of types `a` and `b` can be of the same event: the same type, or both
  /// roadworks.
  static func isSameKind(_ a: TrafficIncidentType, _ b: TrafficIncidentType) -> Bool {
    a == b || (roadworkTypes.contains(a) && roadworkTypes.contains(b))
  }

  /// The original id under which a feed's report is kept apart from another feed's
  /// incident of the same id (`ID@FEED`).
  static func ownId(_ id: String, feed: String) -> String { "\(id)@\(feed)" }

  /// Whether the incident has begun and not ended at `now` (open ends count as such).
  static func isActive(_ incident: TrafficIncident, at now: Date) -> Bool {
    (incident.startTime.map { $0 <= now } ?? true) && isInEffect(incident, at: now)
  }

  /// Whether the incident has not ended by `now` (it may not have begun).
  static func isInEffect(_ incident: TrafficIncident, at now: Date) -> Bool {
    incident.endTime.map { $0 > now } ?? true
  }

  /// Whether the two incidents' intervals [start, end) share an instant (open ends allowed).
  static func overlaps(_ a: TrafficIncident, _ b: TrafficIncident) -> Bool {
    let startA = a.startTime ?? .distantPast, endA = a.endTime ?? .distantFuture
    let startB = b.startTime ?? .distantPast, endB = b.endTime ?? .distantFuture
    return startA < endB && startB < endA
  }
}
