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
/// undoes another feed's change. The content is always one feed's report: that of the feed
/// that reported first (or that the content waits for after it left); another feed's report
/// joins only while it agrees with the content (`TrafficEngine.agrees(_:with:now:)`), and leaves as an
/// incident of its own when it stops agreeing.
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

  /// How many incidents the feed will have a report in once the pass is stored.
  ///
  /// - Complexity: O(k log m) for k incidents staged and m held.
  var heldByFeedAfter: Int {
    var held = snapshot.heldByFeed[feed, default: 0]
    for incident in upserts.values {
      let had =
        snapshot.incident(exactOriginalId: incident.originalId)?.sources.contains {
          $0.feed == feed
        } ?? false
      let has = incident.sources.contains { $0.feed == feed }
      held += (has ? 1 : 0) - (had ? 1 : 0)
    }
    return held
  }

  /// Applies one report of the document.
  ///
  /// - Complexity: O(log m) for m held incidents, plus a digest of the report when it
  ///   concerns a merged incident.
  mutating func take(_ report: consuming TrafficIncident) {
    var incoming = consume report
    // A source cannot date a report after its arrival: a time ahead would make an old
    // report win over newer ones and move `sourceUpdated` (the latest entry) into the future.
    if let entry = incoming.entryTime, entry > now { incoming.entryTime = now }
    let reference = TrafficIncidentSource(feed: feed, id: incoming.originalId)
    guard let held = heldIncident(reportedAs: reference) else {
      // `duplicate` found it agreeing as the snapshot holds it; a version staged in this
      // pass is checked again.
      if let found = TrafficEngine.duplicate(of: incoming, from: feed, in: snapshot, now: now),
        case let host = upserts[found.originalId] ?? found,
        !host.sources.contains(where: { $0.feed == feed }),
        upserts[found.originalId] == nil || TrafficEngine.agrees(incoming, with: host, now: now)
      {
        merge(incoming, into: host)
      } else {
        add(incoming, as: reference)
      }
      return
    }
    seen.insert(held.originalId)
    let position = held.sources.firstIndex { $0.isSameReport(as: reference) }
    let hasOtherReports = held.sources.contains { !$0.isSameReport(as: reference) }
    if let position, hasOtherReports || held.sources[position].reportDigest != nil {
      updateMergedReport(incoming, in: held, at: position)
    } else if hasOtherReports {
      // The same id from another feed: one event when the two agree (a publisher's ids
      // shared by two channels); else another event that happens to reuse the id, kept
      // apart under an id of its own.
      if TrafficEngine.agrees(incoming, with: held, now: now) {
        merge(incoming, into: held)
      } else {
        add(incoming, as: reference)
      }
    } else {
      replaceOwnReport(
        incoming, in: held, last: position.map { held.sources[$0] })
    }
  }

  /// Adds a report as an incident of its own: under its own id, or, when another feed's
  /// incident holds that id, under ``TrafficEngine/ownId(_:feed:)``.
  private mutating func add(
    _ incoming: consuming TrafficIncident, as reference: TrafficIncidentSource
  ) {
    // Moved, not copied: setting the sources then writes in place when the caller handed
    // over its only copy.
    var added = consume incoming
    let own = originalId(keepingApart: added.originalId)
    if own != added.originalId {
      added = added.reidentified(id: nextVersionId(of: own), originalId: own)
    }
    added.sources = [reference]
    seen.insert(added.originalId)
    count(.added, reference.id, added.originalId)
    stage(added)
  }

  /// The original id a report of this feed is stored under: its own, or
  /// ``TrafficEngine/ownId(_:feed:)`` when another incident holds that id, or the same id
  /// with or without v7's namespace (`here:traffic:incident:`): a lookup finds an
  /// incident by either form, so a report in the other form would take over its lookups.
  private func originalId(keepingApart id: String) -> String {
    let namespace = V7IncidentWire.idNamespace
    let other = id.hasPrefix(namespace) ? String(id.dropFirst(namespace.count)) : namespace + id
    func isHeld(_ id: String) -> Bool {
      upserts[id] != nil || snapshot.incident(exactOriginalId: id) != nil
    }
    guard [id, other].contains(where: { !$0.isEmpty && isHeld($0) }) else { return id }
    // The first apart id no incident holds (another feed may hold `ID@FEED` as its own id).
    return apartIds(of: id).first { !isHeld($0) } ?? id
  }

  /// The ids a report of this feed with id `id` may be kept apart under, in order:
  /// `ID@FEED`, `ID@FEED#2`, `ID@FEED#3`, ... (endless: another feed may publish any number
  /// of them as ids of its own; the callers stop at the first no incident holds).
  private func apartIds(of id: String) -> some Sequence<String> {
    let first = TrafficEngine.ownId(id, feed: feed)
    return (1...).lazy.map { $0 == 1 ? first : "\(first)#\($0)" }
  }

  /// Counts a record the document holds but that could not be read as carried: the
  /// incident the feed reported under `id` (its own, or the one it was merged into) is
  /// neither ended nor left by ``endReportsNoLongerCarried()``. Nothing is written.
  ///
  /// - Complexity: O(log m) for m held incidents.
  mutating func carry(_ id: String) {
    let reference = TrafficIncidentSource(feed: feed, id: id)
    if let held = heldIncident(reportedAs: reference) { seen.insert(held.originalId) }
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
    let exact = upserts[reference.id] ?? snapshot.incident(exactOriginalId: reference.id)
    // The feed's own incident of the id (the common case: no other lookup).
    if let exact, exact.sources.isEmpty || exact.sources.contains(where: { $0.feed == feed }) {
      return exact
    }
    // A report kept apart from another feed's incident of the same id (or from one that
    // has since been removed): under the first of its apart ids that this feed's report of
    // the id holds (another feed may publish `ID@FEED` as an id of its own, and must keep
    // it).
    for apart in apartIds(of: reference.id) {
      guard let held = upserts[apart] ?? snapshot.incident(exactOriginalId: apart) else { break }
      if held.sources.contains(where: { $0.feed == feed && $0.id == reference.id }) {
        return held
      }
    }
    if let exact { return exact }
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
    _ incoming: TrafficIncident, in held: TrafficIncident, last: TrafficIncidentSource?
  ) {
    var next = incoming.reidentified(id: held.id, originalId: held.originalId)
    next.sources = [TrafficIncidentSource(feed: feed, id: incoming.originalId)]
    if TrafficEngine.sameContent(next, held) {
      count(.unchanged, incoming.originalId, held.originalId)
      return
    }
    // An older version than the one held (re-reading an archive, a late duplicate
    // publication) never replaces a newer one.
    if Self.isOlder(
      incoming, thanVersion: last?.reportVersion ?? held.sourceVersionNumber,
      enteredAt: last?.reportEntryTime ?? held.entryTime)
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

  /// A report of a merged incident: compared with what this feed said last. The feed whose
  /// report is the content (or that the content waits for) changes the content; another
  /// feed's change is recorded in its source entry only, never shown in another feed's
  /// name. A change that no longer agrees with the content (``TrafficEngine/agrees(_:with:now:)``) takes
  /// the feed out of the incident, as an incident of its own: the others keep theirs.
  private mutating func updateMergedReport(
    _ incoming: TrafficIncident, in held: TrafficIncident, at position: Int
  ) {
    let entry = held.sources[position]
    let digest = incoming.contentDigest
    if entry.reportDigest == digest {
      count(.unchanged, incoming.originalId, held.originalId)
      return
    }
    if Self.isOlder(incoming, thanVersion: entry.reportVersion, enteredAt: entry.reportEntryTime) {
      count(.stale, incoming.originalId, held.originalId)
      return
    }
    // The content's feed: the first entry whose report it is (or that it waits for). Two
    // feeds with the same report: the first to report it; a copy never takes it over.
    let content = held.contentDigest
    let ownsContent =
      held.sources.firstIndex { $0.reportDigest == nil || $0.reportDigest == content } == position
    guard held.sources.count == 1 || TrafficEngine.agrees(incoming, with: held, now: now) else {
      leave(held, at: position, with: incoming)
      return
    }
    let id = nextVersionId(of: held.originalId)
    var next: TrafficIncident
    if ownsContent {
      next = incoming.reidentified(id: id, originalId: held.originalId)
      next.sources = held.sources
    } else {
      next = held.reidentified(id: id, originalId: held.originalId)
    }
    next.sources[position].reportDigest = digest
    next.sources[position].reportEntryTime = incoming.entryTime
    next.sources[position].reportVersion = incoming.sourceVersionNumber
    stage(next)
    count(.updated, incoming.originalId, held.originalId)
  }

  /// Takes this feed out of a merged incident whose content its report no longer agrees
  /// with: the incident keeps its content for the other feeds (the next of them to report
  /// supplies it when it was this feed's), and the report becomes an incident of its own.
  private mutating func leave(
    _ held: TrafficIncident, at position: Int, with incoming: TrafficIncident
  ) {
    var rest = held.reidentified(
      id: nextVersionId(of: held.originalId), originalId: held.originalId)
    let reference = rest.sources.remove(at: position)
    Self.settleSources(of: &rest)
    stage(rest)
    mergedHere[reference.id] = nil
    let apart = originalId(keepingApart: incoming.originalId)
    var own = incoming.reidentified(id: nextVersionId(of: apart), originalId: apart)
    own.sources = [TrafficIncidentSource(feed: feed, id: reference.id)]
    seen.insert(apart)
    stage(own)
    count(.updated, reference.id, apart)
  }

  /// A report joining an incident another feed reported: the incident gains the feed in its
  /// sources, each entry with its digest and entry time, and keeps its content: a feed's
  /// report never stands in another feed's name (the merge needs
  /// ``TrafficEngine/agrees(_:with:now:)``).
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
      next.sources[0].reportVersion = host.sourceVersionNumber
    }
    next.sources.append(
      TrafficIncidentSource(
        feed: feed, id: incoming.originalId, reportDigest: incoming.contentDigest,
        reportEntryTime: incoming.entryTime, reportVersion: incoming.sourceVersionNumber))
    seen.insert(host.originalId)
    mergedHere[incoming.originalId] = host.originalId
    stage(next)
    count(.merged, incoming.originalId, host.originalId)
  }

  // MARK: Helpers

  /// Whether `incoming` is an older report than the one recorded: by the source's version
  /// numbers when both have one (DATEX II record versions, WZDx and Open511 update times),
  /// else by entry times. Publishers keep a record's creation time, its entry time, across
  /// its versions: by entry times alone, a late copy of version 1 replaced version 2, and a
  /// cancelled record came back.
  static func isOlder(
    _ incoming: TrafficIncident, thanVersion version: Int?, enteredAt entryTime: Date?
  ) -> Bool {
    let incomingTime = incoming.entryTime
    // A record entered later is a new one, whatever number it restarts from.
    if let incomingTime, let entryTime, incomingTime > entryTime { return false }
    if let incomingVersion = incoming.sourceVersionNumber, let version {
      return incomingVersion < version
    }
    if let incomingTime, let entryTime { return incomingTime < entryTime }
    return false
  }

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
