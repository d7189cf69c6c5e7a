import Foundation
import Synchronization

/// One feed document turned into one store batch: what each of the feed's reports does to
/// the incidents a snapshot holds (the rules are those of
/// `TrafficEngine.ingest(_:from:isFullRefresh:)`).
///
/// An incident reported by one feed holds that feed's report as its content, and a report is
/// compared with it field by field. Once reports of several feeds are merged into an
/// incident, each source entry records a digest and the entry time of its feed's latest
/// report; a report is compared with its own entry, so that one feed's unchanged report never
/// undoes another feed's change, and the content is the latest report that changed.
struct IngestPass {
  /// The feed whose document this is.
  let feed: String
  /// The engine's time of the ingest.
  let now: Date
  /// The incidents held before the document.
  let snapshot: IncidentIndex
  /// The counts so far (and, when `recordsEach`, the outcome of each record).
  private(set) var report = IngestReport()
  /// Whether `report.records` lists each record's outcome.
  let recordsEach: Bool

  /// The new versions by original id, and the order they were first staged in.
  private var upserts: [String: TrafficIncident] = [:]
  private var order: [String] = []
  /// Original ids of the incidents this document carries.
  private var seen = Set<String>()
  /// The incident each report merged during this pass went into, by the report's id.
  private var mergedHere: [String: String] = [:]
  private var versionCounter = 0
  /// The stamp of this pass's version ids, taken when the first one is made.
  private var passStamp: Int?

  init(feed: String, now: Date, snapshot: IncidentIndex, recordsEach: Bool = false) {
    self.feed = feed
    self.now = now
    self.snapshot = snapshot
    self.recordsEach = recordsEach
  }

  /// The writes, each incident's last staged version once.
  var batch: IncidentBatch { IncidentBatch(upserts: order.compactMap { upserts[$0] }) }

  /// Applies one report of the document.
  ///
  /// - Complexity: O(log m) for m held incidents, plus a digest of the report when it
  ///   concerns a merged incident.
  mutating func take(_ incoming: consuming TrafficIncident) {
    let reference = TrafficIncidentSource(feed: feed, id: incoming.originalId)
    guard let held = heldIncident(reportedAs: reference) else {
      if let host = TrafficEngine.duplicate(of: incoming, from: feed, in: snapshot, now: now),
        !(upserts[host.originalId] ?? host).sources.contains(where: { $0.feed == feed })
      {
        merge(incoming, into: upserts[host.originalId] ?? host)
      } else {
        // Moved, not copied: setting the sources then writes in place when the caller
        // handed over its only copy.
        var added = consume incoming
        added.sources = [reference]
        seen.insert(added.originalId)
        count(.added, reference.id, added.originalId)
        stage(added)
      }
      return
    }
    seen.insert(held.originalId)
    let position = held.sources.firstIndex { $0.isSameReport(as: reference) }
    let hasOtherReports = held.sources.contains { !$0.isSameReport(as: reference) }
    if let position, hasOtherReports || held.sources[position].reportDigest != nil {
      updateMergedReport(incoming, in: held, at: position)
    } else if hasOtherReports {
      // The same id from another feed: the publisher's ids are shared, so it is one event.
      merge(incoming, into: held)
    } else {
      replaceOwnReport(
        incoming, in: held, lastEntryTime: position.flatMap { held.sources[$0].reportEntryTime })
    }
  }

  /// Ends or leaves the incidents the feed reported before and this document no longer
  /// carries (a full refresh): an incident only this feed reported ends now; one that other
  /// feeds also report loses this feed from its sources.
  ///
  /// - Complexity: O(m) for m held incidents.
  mutating func endReportsNoLongerCarried() {
    for incident in snapshot.incidents
    where !seen.contains(incident.originalId)
      && incident.sources.contains(where: { $0.feed == feed })
      && (incident.endTime.map { $0 > now } ?? true)
    {
      let id = nextVersionId(of: incident.originalId)
      var next = incident.reidentified(id: id, originalId: incident.originalId)
      next.sources.removeAll { $0.feed == feed }
      if next.sources.isEmpty {
        let start = incident.startTime.map { min($0, now) }
        guard let ended = try? incident.updated(id: id, startTime: start, endTime: now) else {
          continue
        }
        // The ended version keeps its sources, so that the report finds it if it comes back.
        next = ended
        let own = incident.sources.first { $0.feed == feed }?.id ?? incident.originalId
        count(.ended, own, incident.originalId)
      } else {
        Self.settleSources(of: &next)
      }
      stage(next)
    }
  }

  // MARK: The cases of a report

  /// The incident a report concerns: the one of its id (staged in this pass, or held), or
  /// the one it was merged into before.
  private func heldIncident(reportedAs reference: TrafficIncidentSource) -> TrafficIncident? {
    if let own = upserts[reference.id] ?? snapshot.incident(exactOriginalId: reference.id) {
      return own
    }
    if let hostId = mergedHere[reference.id] { return upserts[hostId] }
    if let host = snapshot.incident(originalId: reference.id),
      host.sources.contains(where: { $0.isSameReport(as: reference) })
    {
      return upserts[host.originalId] ?? host
    }
    return nil
  }

  /// A report of an incident whose content is this feed's report alone (or waits for it):
  /// compared field by field; a change becomes the content.
  private mutating func replaceOwnReport(
    _ incoming: TrafficIncident, in held: TrafficIncident, lastEntryTime: Date?
  ) {
    var next = incoming.reidentified(id: held.id, originalId: held.originalId)
    next.sources = [TrafficIncidentSource(feed: feed, id: incoming.originalId)]
    if TrafficEngine.sameContent(next, held) {
      count(.unchanged, incoming.originalId, held.originalId)
      return
    }
    // An older version than the one held (re-reading an archive, a late duplicate
    // publication) never replaces a newer one.
    if let incomingTime = incoming.entryTime, let heldTime = lastEntryTime ?? held.entryTime,
      incomingTime < heldTime
    {
      count(.stale, incoming.originalId, held.originalId)
      return
    }
    let isOwnVersionId =
      incoming.originalId == held.originalId && incoming.id != held.id
      && incoming.id != incoming.originalId
    let id = isOwnVersionId ? incoming.id : nextVersionId(of: held.originalId)
    stage(next.reidentified(id: id, originalId: held.originalId))
    count(.updated, incoming.originalId, held.originalId)
  }

  /// A report of a merged incident: compared with what this feed said last. A change is
  /// recorded in the feed's source entry, and becomes the content unless the content is more
  /// recent (by entry time) than the report.
  private mutating func updateMergedReport(
    _ incoming: TrafficIncident, in held: TrafficIncident, at position: Int
  ) {
    let entry = held.sources[position]
    let digest = incoming.contentDigest
    if entry.reportDigest == digest {
      count(.unchanged, incoming.originalId, held.originalId)
      return
    }
    if let incomingTime = incoming.entryTime, let lastTime = entry.reportEntryTime,
      incomingTime < lastTime
    {
      count(.stale, incoming.originalId, held.originalId)
      return
    }
    let id = nextVersionId(of: held.originalId)
    var next: TrafficIncident
    if entry.reportDigest == nil || Self.isAtLeastAsRecent(incoming, as: held) {
      next = incoming.reidentified(id: id, originalId: held.originalId)
      next.sources = held.sources
    } else {
      next = held.reidentified(id: id, originalId: held.originalId)
    }
    next.sources[position].reportDigest = digest
    next.sources[position].reportEntryTime = incoming.entryTime
    stage(next)
    count(.updated, incoming.originalId, held.originalId)
  }

  /// A report joining an incident another feed reported: the incident gains the feed in its
  /// sources, each entry with its digest. A report newer than the content (by entry time,
  /// both known) becomes the content — the newest report decides the closure, impact and
  /// end time users act on —; otherwise the incident keeps its content (the report confirms
  /// it, or is older).
  private mutating func merge(_ incoming: TrafficIncident, into host: TrafficIncident) {
    let id = nextVersionId(of: host.originalId)
    var next = host.reidentified(id: id, originalId: host.originalId)
    // A lone report is the content: record it before another joins (unless the incident
    // waits for that feed's next report, after the feed that supplied the content left).
    if next.sources.count == 1, next.sources[0].reportDigest == nil,
      next.sources[0].reportEntryTime == nil
    {
      next.sources[0].reportDigest = host.contentDigest
      next.sources[0].reportEntryTime = host.entryTime
    }
    next.sources.append(
      TrafficIncidentSource(
        feed: feed, id: incoming.originalId, reportDigest: incoming.contentDigest,
        reportEntryTime: incoming.entryTime))
    if let incomingTime = incoming.entryTime, let contentTime = host.entryTime,
      incomingTime > contentTime
    {
      let sources = next.sources
      next = incoming.reidentified(id: id, originalId: host.originalId)
      next.sources = sources
    }
    seen.insert(host.originalId)
    mergedHere[incoming.originalId] = host.originalId
    stage(next)
    count(.merged, incoming.originalId, host.originalId)
  }

  // MARK: Helpers

  /// Counts a record's outcome, and lists it when each record is recorded.
  private mutating func count(_ outcome: IngestRecord.Outcome, _ id: String, _ incident: String) {
    switch outcome {
    case .added: report.added += 1
    case .updated: report.updated += 1
    case .unchanged: report.unchanged += 1
    case .stale: report.stale += 1
    case .merged: report.merged += 1
    case .ended: report.ended += 1
    }
    if recordsEach {
      report.records.append(IngestRecord(id: id, outcome: outcome, incident: incident))
    }
  }

  /// After feeds left a merged incident: when the content was the report of a feed that
  /// left, the remaining feed that reported last supplies the next content (its digest is
  /// cleared); a single remaining feed whose report is the content makes a plain incident
  /// again.
  static func settleSources(of incident: inout TrafficIncident) {
    // Entries without any digest: nothing recorded to settle.
    guard incident.sources.contains(where: { $0.reportDigest != nil }) else { return }
    let content = incident.contentDigest
    if incident.sources.contains(where: { $0.reportDigest == content }) {
      if incident.sources.count == 1 {
        incident.sources[0].reportDigest = nil
        incident.sources[0].reportEntryTime = nil
      }
      return
    }
    var latest = 0
    for position in incident.sources.indices.dropFirst()
    where (incident.sources[position].reportEntryTime ?? .distantPast)
      > (incident.sources[latest].reportEntryTime ?? .distantPast)
    {
      latest = position
    }
    incident.sources[latest].reportDigest = nil
  }

  /// Whether `report` is not older than `held`'s content (an unknown time counts as recent).
  static func isAtLeastAsRecent(_ report: TrafficIncident, as held: TrafficIncident) -> Bool {
    guard let reportTime = report.entryTime, let heldTime = held.entryTime else { return true }
    return reportTime >= heldTime
  }

  /// The last version stamp handed out in this process.
  private static let lastStamp = Mutex(0)

  /// This pass's version stamp: the ingest time in milliseconds, or one more than the last
  /// stamp when that is not later (two ingests within a millisecond, a clock set back, a
  /// test's fixed clock), so that no two passes make the same version id.
  private static func stamp(at now: Date) -> Int {
    let milliseconds = Int(now.timeIntervalSince1970 * 1000)
    return lastStamp.withLock { last in
      last = max(milliseconds, last + 1)
      return last
    }
  }

  private mutating func nextVersionId(of originalId: String) -> String {
    versionCounter += 1
    let stamp = passStamp ?? Self.stamp(at: now)
    passStamp = stamp
    return "\(originalId)~\(String(stamp, radix: 36))\(versionCounter)"
  }

  private mutating func stage(_ incident: TrafficIncident) {
    if upserts.updateValue(incident, forKey: incident.originalId) == nil {
      order.append(incident.originalId)
    }
  }
}
