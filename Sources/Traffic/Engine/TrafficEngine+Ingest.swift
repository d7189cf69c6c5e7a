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

  /// Creates an empty report.
  public init() {}
}

extension TrafficEngine {
  /// Distance within which reports of the same type and time from different feeds are taken
  /// to be the same event, meters.
  static let duplicateDistanceInMeters = 50.0

  /// Ingests the incidents of one feed document as one atomic batch.
  ///
  /// - An incident whose `originalId` is known gets a new version (a new `id`) when its
  ///   content changed, and nothing when it did not: importing the same document twice
  ///   changes nothing. A version whose entry time is older than the held one's is ignored.
  /// - An incident of a new id that matches one reported by another feed (same type, time
  ///   intervals overlapping, geometry within 50 m) is merged into it: the existing incident
  ///   gains this feed in `sources` and keeps its `originalId`.
  /// - With `isFullRefresh`, incidents this feed reported before but no longer carries are
  ///   ended now (a new version whose end time is now); an incident other feeds also report
  ///   just loses this feed from its sources.
  /// - Parameters:
  ///   - incidents: The decoded incidents, `originalId` = the feed's own id.
  ///   - feed: The feed's name.
  ///   - isFullRefresh: Whether the document is the feed's complete current picture.
  /// - Returns: Counts of what happened.
  /// - Throws: `TrafficStoreError`; nothing is stored then.
  /// - Complexity: O(n log m) for n incoming and m held incidents, plus rebuilding the
  ///   snapshot.
  @discardableResult
  public func ingest(
    _ incidents: [TrafficIncident], from feed: String, isFullRefresh: Bool
  )
    throws(TrafficStoreError) -> IngestReport
  {
    var report = IngestReport()
    let now = clock()
    _ = try write { snapshot in
      var upserts: [String: TrafficIncident] = [:]
      var order: [String] = []
      var seen = Set<String>()
      var versionCounter = 0
      func nextVersionId(of originalId: String) -> String {
        versionCounter += 1
        let stamp = String(Int(now.timeIntervalSince1970 * 1000), radix: 36)
        return "\(originalId)~\(stamp)\(versionCounter)"
      }
      func stage(_ incident: TrafficIncident) {
        if upserts.updateValue(incident, forKey: incident.originalId) == nil {
          order.append(incident.originalId)
        }
      }
      for var incoming in incidents {
        let reference = TrafficIncidentSource(feed: feed, id: incoming.originalId)
        if let existing = upserts[incoming.originalId]
          ?? snapshot.incident(exactOriginalId: incoming.originalId)
        {
          seen.insert(existing.originalId)
          incoming.sources = TrafficEngine.adding(reference, to: existing.sources)
          if TrafficEngine.sameContent(incoming, existing) {
            report.unchanged += 1
            continue
          }
          // An older version than the one held (re-reading an archive, a late duplicate
          // publication) never replaces a newer one.
          if let incomingTime = incoming.entryTime, let heldTime = existing.entryTime,
            incomingTime < heldTime
          {
            report.stale += 1
            continue
          }
          if incoming.id == existing.id || incoming.id == incoming.originalId {
            incoming = TrafficEngine.renamed(incoming, id: nextVersionId(of: incoming.originalId))
          }
          stage(incoming)
          report.updated += 1
        } else if let host = snapshot.incident(originalId: incoming.originalId),
          host.sources.contains(reference)
        {
          // A report merged into another feed's incident before: that incident stands for it.
          seen.insert(host.originalId)
          report.unchanged += 1
        } else if let duplicate = TrafficEngine.duplicate(of: incoming, from: feed, in: snapshot) {
          seen.insert(duplicate.originalId)
          if duplicate.sources.contains(reference) {
            report.unchanged += 1
            continue
          }
          var merged = upserts[duplicate.originalId] ?? duplicate
          merged.sources = TrafficEngine.adding(reference, to: merged.sources)
          stage(TrafficEngine.renamed(merged, id: nextVersionId(of: merged.originalId)))
          report.merged += 1
        } else {
          incoming.sources = [reference]
          seen.insert(incoming.originalId)
          stage(incoming)
          report.added += 1
        }
      }
      if isFullRefresh {
        for incident in snapshot.incidents
        where !seen.contains(incident.originalId)
          && incident.sources.contains(where: { $0.feed == feed })
          && (incident.endTime.map { $0 > now } ?? true)
        {
          var next = incident
          next.sources.removeAll { $0.feed == feed }
          let id = nextVersionId(of: incident.originalId)
          if next.sources.isEmpty {
            let start = incident.startTime.map { min($0, now) }
            guard let ended = try? incident.updated(id: id, startTime: start, endTime: now) else {
              continue
            }
            next = ended
            next.sources = incident.sources
            report.ended += 1
          } else {
            next = TrafficEngine.renamed(next, id: id)
          }
          stage(next)
        }
      }
      return IncidentBatch(upserts: order.compactMap { upserts[$0] })
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

  static func adding(
    _ reference: TrafficIncidentSource, to sources: [TrafficIncidentSource]
  )
    -> [TrafficIncidentSource]
  {
    sources.contains(reference) ? sources : sources + [reference]
  }

  /// An incident from another feed that reports the same event as `incoming`.
  static func duplicate(
    of incoming: TrafficIncident, from feed: String, in snapshot: IncidentIndex
  )
    -> TrafficIncident?
  {
    guard
      let reach = try? GeoCorridor(
        polyline: incoming.location.polyline.vertices, halfWidthInMeters: duplicateDistanceInMeters)
    else { return nil }
    for position in snapshot.positions(meeting: reach) {
      let candidate = snapshot.incidents[position]
      guard candidate.type == incoming.type,
        !candidate.sources.isEmpty,
        !candidate.sources.contains(where: { $0.feed == feed }),
        overlaps(candidate, incoming)
      else { continue }
      return candidate
    }
    return nil
  }

  /// Whether the two incidents' intervals [start, end) share an instant (open ends allowed).
  static func overlaps(_ a: TrafficIncident, _ b: TrafficIncident) -> Bool {
    let startA = a.startTime ?? .distantPast, endA = a.endTime ?? .distantFuture
    let startB = b.startTime ?? .distantPast, endB = b.endTime ?? .distantFuture
    return startA < endB && startB < endA
  }
}
