import Foundation
import Geo
import Synchronization

/// The incidents of one published document (DATEX II, WZDx) and the time its data last
/// changed.
public struct PublishedIncidents: Sendable {
  /// The incidents, in the snapshot's order (`Publication` sorts them by original id),
  /// read from the snapshot as they are written.
  public var incidents: IncidentSelection
  /// When what the document shows last changed: the latest write, or the latest end that
  /// has passed (an incident leaves a whole publication when it ends, without a write).
  /// The document's publication time and HTTP `Last-Modified`.
  public var lastModified: Date
  /// Whether the incidents are what changed since the time asked (a delta); `false` for a
  /// whole publication.
  public var isDelta: Bool
  /// For a delta: whether the engine remembers every change since the time asked. When it
  /// does not (the time is before the engine started, or beyond its memory of changes), the
  /// delta holds every incident it keeps, ended ones included: more than changed, never
  /// less.
  public var isComplete: Bool
}

/// The changes an engine has published, by time, for delta publications: which incidents
/// changed when, and the last versions of those removed.
struct ChangeJournal: Sendable {
  /// Changes before this time are not remembered.
  private(set) var horizon: Date
  private var entries: [(time: Date, originalId: String)] = []
  private var removed: [String: (time: Date, incident: TrafficIncident)] = [:]
  /// The versions before an update that moved an incident or changed its type, each with
  /// the time of the first such update: a delta of an area or of types holds an incident
  /// that left them (its new version tells the subscriber where it went).
  private var former:
    [String: [(time: Date, type: TrafficIncidentType, location: TrafficLocation)]] =
      [:]
  /// The latest end of an incident removed after it had ended (purged): such incidents are
  /// not kept (a region purges hundreds of thousands a day), so a delta from before this
  /// time cannot give their ends and is incomplete.
  private(set) var forgottenEnd: Date?
  /// The most changes remembered; the older half is forgotten beyond it.
  let capacity: Int

  /// A journal of the changes after `horizon`, rounded down to the millisecond as
  /// documents write times (the engine's data as of then is its snapshot).
  init(horizon: Date, capacity: Int = 1_000_000) {
    self.horizon = Self.millisecond(horizon, .down)
    self.capacity = max(2, capacity)
  }

  static func millisecond(_ time: Date, _ rule: FloatingPointRoundingRule) -> Date {
    Date(timeIntervalSince1970: (time.timeIntervalSince1970 * 1000).rounded(rule) / 1000)
  }

  mutating func record(
    _ changes: [IncidentChange], at time: Date, previous: IncidentIndex? = nil
  ) {
    for change in changes {
      let originalId = change.incident.originalId
      entries.append((time, originalId))
      if change.kind == .updated, let before = previous?.incident(exactOriginalId: originalId),
        before.type != change.incident.type || before.location != change.incident.location
      {
        // The type and place alone: what a filter asks of it (not its texts, restrictions...).
        former[originalId, default: []].append((time, before.type, before.location))
      }
      if change.kind == .removed {
        if let end = change.incident.endTime, end <= time {
          forgottenEnd = max(forgottenEnd ?? end, end)
          removed[originalId] = nil
        } else {
          removed[originalId] = (time, change.incident)
        }
      } else {
        removed[originalId] = nil
      }
    }
    if entries.count > capacity {
      // The horizon passes the last change forgotten (rounded up to the millisecond), so a
      // delta from before it is known to be incomplete.
      let drop = entries.count - capacity / 2
      horizon = Self.millisecond(entries[drop - 1].time, .up)
      entries.removeFirst(drop)
      removed = removed.filter { $0.value.time >= horizon }
      former = former.compactMapValues { versions in
        let kept = versions.filter { $0.time >= horizon }
        return kept.isEmpty ? nil : kept
      }
    }
  }

  /// The original ids changed after `time`, the removed incidents among them (with the
  /// time of their removal), and whether the journal reaches back to `time` (when it does
  /// not — before its horizon, or before the end of a purged incident — the ids and
  /// removals are those it remembers).
  func changes(
    after time: Date
  ) -> (
    ids: Set<String>, removed: [(Date, TrafficIncident)], isComplete: Bool,
    former: [String: [(type: TrafficIncidentType, location: TrafficLocation)]]
  ) {
    // Entries are in time order: find the first after `time`.
    var low = 0
    var high = entries.count
    while low < high {
      let middle = (low + high) / 2
      if entries[middle].time <= time { low = middle + 1 } else { high = middle }
    }
    var ids = Set<String>()
    for entry in entries[low...] { ids.insert(entry.originalId) }
    let gone = ids.compactMap { id in removed[id].map { ($0.time, $0.incident) } }
    var before: [String: [(type: TrafficIncidentType, location: TrafficLocation)]] = [:]
    for id in ids {
      let versions = (former[id] ?? []).filter { $0.time > time }.map { ($0.type, $0.location) }
      if !versions.isEmpty { before[id] = versions }
    }
    return (ids, gone, time >= horizon && time >= forgottenEnd ?? time, before)
  }
}

extension TrafficEngine {
  /// The incidents a published feed document carries.
  ///
  /// Without `since`, a whole publication: every incident that has not ended (active now
  /// or planned), in `area` when given, of `types` when given. With `since`, a delta: the
  /// incidents written, ended or removed after it, ended ones included (a removed incident
  /// as its last version, ended at its removal at the latest).
  ///
  /// An engine against a server (`TrafficEngine(server:)`) holds no incidents of its own
  /// and publishes none: ask the server's `/datex2/v3/situations` or `/wzdx/v4.2/feed`.
  ///
  /// - Parameters:
  ///   - area: Only incidents whose geometry meets it; any size.
  ///   - types: Only incidents of these types; all when `nil`.
  ///   - since: The time of the subscriber's last document, for a delta.
  ///   - time: The time the publication is of (what has not ended then); now by default.
  /// - Returns: The incidents (unsorted), and the time the data last changed.
  /// - Complexity: O(n) in the incidents held (in the area's candidates with an area).
  public func publishedIncidents(
    inside area: (any GeoArea)? = nil, types: Set<TrafficIncidentType>? = nil,
    since: Date? = nil, at time: Date? = nil
  ) -> PublishedIncidents {
    let index = currentSnapshot
    let now = time ?? clock()
    let positions: [Int] = area.map { index.positions(meeting: $0) } ?? Array(0..<index.count)
    let facts = index.facts
    var latestEnd: Date?
    var selected: [Int] = []
    selected.reserveCapacity(positions.count)
    let changes = since.flatMap { time in journal.withLock { $0.changes(after: time) } }
    // Changed incidents that met the area and types before a change moved them out: a
    // delta holds their new version (a subscriber that applied the older one learns where
    // it went, and of its end), whatever the area and types say now.
    var leftTheFilter = Set<String>()
    if let changes, area != nil || types != nil {
      for (id, versions) in changes.former
      where versions.contains(where: { version in
        (types?.contains(version.type) ?? true)
          && (area.map { area in version.location.allPolylines.contains(where: area.intersects) }
            ?? true)
      }) {
        leftTheFilter.insert(id)
      }
    }
    var selectedIds = Set<String>()
    for position in positions {
      let fact = facts[position]
      if let types, !types.contains(fact.type), !leftTheFilter.contains(fact.originalId) {
        continue
      }
      let hasEnded = fact.endTime.map { $0 <= now } ?? false
      if hasEnded, let end = fact.endTime, end > latestEnd ?? .distantPast { latestEnd = end }
      if let since {
        // A delta: what changed after `since`, and what ended since by the clock alone.
        let endedSince = fact.endTime.map { $0 > since && $0 <= now } ?? false
        if let changes, changes.isComplete, !changes.ids.contains(fact.originalId), !endedSince {
          continue
        }
      } else if hasEnded {
        continue
      }
      selected.append(position)
      if !leftTheFilter.isEmpty { selectedIds.insert(fact.originalId) }
    }
    // Those now outside the area (not among its positions).
    for id in leftTheFilter where !selectedIds.contains(id) {
      if let position = index.position(of: id) { selected.append(position) }
    }
    var endedSinceRemoved: [TrafficIncident] = []
    if let changes {
      for (removedAt, incident) in changes.removed
      where index.incident(exactOriginalId: incident.originalId) == nil {
        if let types, !types.contains(incident.type) { continue }
        if let area, !incident.location.allPolylines.contains(where: area.intersects) { continue }
        let end = min(incident.endTime ?? removedAt, removedAt)
        let start = incident.startTime.map { min($0, end) }
        if let ended = try? incident.updated(id: incident.id, startTime: start, endTime: end) {
          endedSinceRemoved.append(ended)
        }
      }
    }
    // Not before the journal's horizon: a document shows the data as the engine knows it,
    // and the next delta asked from its time must find the journal complete (after a
    // restart the store's latest entry time lies before it).
    let horizon = journal.withLock { $0.horizon }
    // Nor after now: at start-up the snapshot's time is the latest entry time a source
    // wrote, which may lie in the future (HTTP forbids a Last-Modified after the answer);
    // such data is dated by the start.
    let updated = index.updatedAt.flatMap { $0 <= now ? $0 : nil } ?? horizon
    let written = max(updated, horizon)
    // Whole milliseconds, rounded down, as documents write times: a subscriber that asks
    // for the changes since the time it read never misses one made in the same millisecond.
    let lastModified = ChangeJournal.millisecond(max(written, latestEnd ?? written), .down)
    return PublishedIncidents(
      incidents: IncidentSelection(index.incidents, positions: selected, extra: endedSinceRemoved),
      lastModified: lastModified, isDelta: since != nil,
      isComplete: changes?.isComplete ?? true)
  }
}
