import Dispatch
import Foundation
import Roads
import Synchronization

extension TrafficEngine {
  /// When a write builds the snapshot after it.
  package enum SnapshotBuild: Sendable, Hashable {
    /// Before the write returns (readers never wait).
    case now
    /// When it is first read: for a one-shot import, which never reads it.
    case onFirstRead
  }

  /// Stores a batch of incident changes atomically, then publishes the next snapshot and
  /// tells the change streams.
  ///
  /// - Returns: The changes as seen from everywhere (added, updated, removed).
  /// - Throws: `TrafficStoreError`; the snapshot is unchanged then.
  /// - Complexity: O(n log n) to rebuild the snapshot of n incidents.
  @discardableResult
  public func apply(_ batch: IncidentBatch) throws(TrafficStoreError) -> [IncidentChange] {
    try write { _ in batch }
  }

  /// Runs one write under the writer lock: `plan` sees the current snapshot and returns the
  /// batch to store; the batch is stored, the next snapshot published and the changes told.
  ///
  /// With `.onFirstRead` the next snapshot is built when it is first read, and the changes
  /// are neither returned nor told (no change stream or delta publication sees them): for a
  /// one-shot import whose process ends after the write. An engine with change streams
  /// builds it now.
  func write(
    building: SnapshotBuild = .now,
    _ plan: (IncidentIndex) throws(TrafficStoreError) -> IncidentBatch
  )
    throws(TrafficStoreError) -> [IncidentChange]
  {
    try store.takeWriterTurn { () throws(TrafficStoreError) -> [IncidentChange] in
      try write(locked: building, plan)
    }
  }

  /// `write(building:_:)` within the store's writers' turn.
  private func write(
    locked building: SnapshotBuild,
    _ plan: (IncidentIndex) throws(TrafficStoreError) -> IncidentBatch
  )
    throws(TrafficStoreError) -> [IncidentChange]
  {
    try writer.withLock { _ throws(TrafficStoreError) -> [IncidentChange] in
      let previous = currentSnapshot
      // A snapshot that failed to load is empty: nothing is written against it.
      if let failure = snapshot.loadFailure { throw failure }
      let batch = try plan(previous)
      guard !batch.isEmpty else { return [] }
      try batch.validate()
      if building == .onFirstRead, subscriptions.withLock({ $0.byKey.isEmpty }) {
        try store.apply(batch)
        forgetRendered(batch.upserts.map(\.id))
        let time = clock()
        snapshot.buildOnFirstRead { [previous] in
          previous.applying(upserts: batch.upserts, deletions: batch.deletions, updatedAt: time)
            .index
        }
        return []
      }
      // The next snapshot is built on another thread while the store writes the batch (a
      // push to a large store spent a fifth of its time on each), and published only once
      // the batch is stored.
      let time = clock()
      let built = Mutex<(index: IncidentIndex, changes: [IncidentChange])?>(nil)
      let group = DispatchGroup()
      DispatchQueue.global(qos: .userInitiated).async(group: group) { [previous] in
        let next = previous.applying(
          upserts: batch.upserts, deletions: batch.deletions, updatedAt: time)
        built.withLock { $0 = next }
      }
      let stored = Result { () throws(TrafficStoreError) in try store.apply(batch) }
      group.wait()
      try stored.get()
      forgetRendered(batch.upserts.map(\.id))
      // The worker always leaves its result; built here should it not have.
      let next =
        built.withLock({ $0.take() })
        ?? previous.applying(upserts: batch.upserts, deletions: batch.deletions, updatedAt: time)
      publish(next.index, previous: previous, changes: next.changes)
      Self.retire(consume previous)
      return next.changes
    }
  }

  /// Frees what only `snapshot` still holds on a background thread: the chunks a write
  /// replaced, with a release of each incident in them, were a tenth of a large push.
  /// (A reader still holding the snapshot frees it when it is done, as before.)
  static func retire(_ snapshot: consuming IncidentIndex) {
    let retired = RetiredSnapshot(snapshot)
    retirement.async { retired.free() }
  }

  private static let retirement = DispatchQueue(label: "traffic.snapshot.retirement", qos: .utility)

  /// Removes incidents that ended more than `retentionInSeconds` ago from the store and the
  /// snapshot (queries stopped returning them when they ended).
  ///
  /// - Returns: The original ids purged.
  /// - Throws: `TrafficStoreError`; nothing is purged then.
  @discardableResult
  public func purgeExpired() throws(TrafficStoreError) -> [String] {
    try writer.withLock { _ throws(TrafficStoreError) -> [String] in
      // The snapshot first: one still loading must not miss what is purged meanwhile.
      let previous = currentSnapshot
      if let failure = snapshot.loadFailure { throw failure }
      let cutoff = clock().addingTimeInterval(-retentionInSeconds)
      let purged = try store.purge(endedBefore: cutoff)
      guard !purged.isEmpty else { return [] }
      let gone = Set(purged)
      let changes = previous.incidents.filter { gone.contains($0.originalId) }
        .map { IncidentChange(kind: .removed, incident: $0) }
      publish(
        IncidentIndex(
          previous.incidents.filter { !gone.contains($0.originalId) }, updatedAt: clock()),
        previous: previous, changes: changes)
      return purged
    }
  }

  /// Publishes the next snapshot (under the writer lock) and tells the change streams.
  func publish(_ next: IncidentIndex, previous: IncidentIndex, changes: [IncidentChange]) {
    snapshot.withLock { $0 = next }
    let startsMerge = mergeLog.withLock { log in
      if log != nil {
        log?.append(contentsOf: changes)
        return false
      }
      guard next.needsMerge else { return false }
      log = []
      return true
    }
    if startsMerge { merge(next) }
    guard !changes.isEmpty else { return }
    let time = clock()
    journal.withLock { $0.record(changes, at: time, previous: previous) }
    let watchers = subscriptions.withLock { Array($0.byKey.values) }
    for watcher in watchers {
      for change in changes {
        if let seen = TrafficEngine.view(of: change, in: watcher.area, previous: previous) {
          watcher.continuation.yield(seen)
        }
      }
    }
  }

  /// Rebuilds `taken` on another thread (one R-tree for all incidents, `compacted()`; a
  /// whole build in Hilbert order once many were added), then, under the writer lock,
  /// replays the changes published since and swaps the result in: writes stay proportional
  /// to their batch while the changes since the last whole build pile up, and readers
  /// always see whole batches.
  private func merge(_ taken: IncidentIndex) {
    // At a lower priority: pushes and queries go first (`LowPriorityThread`).
    LowPriorityThread.start("traffic.index.merge") { [weak self] in
      // Positions are kept unless many incidents were added (then sorted again).
      let rebuilt =
        taken.needsSorting
        ? IncidentIndex(Array(taken.incidents), updatedAt: taken.updatedAt) : taken.compacted()
      guard let self else { return }
      writer.withLock { _ in
        let log = mergeLog.withLock { log in
          defer { log = nil }
          return log ?? []
        }
        let current = currentSnapshot
        // The last state of each incident changed meanwhile, in the order first changed.
        var latest: [String: TrafficIncident?] = [:]
        var order: [String] = []
        for change in log {
          let originalId = change.incident.originalId
          if latest.updateValue(
            change.kind == .removed ? nil : change.incident, forKey: originalId) == nil
          {
            order.append(originalId)
          }
        }
        let upserts = order.compactMap { latest[$0] ?? nil }
        let deletions = order.filter { (latest[$0] ?? nil) == nil }
        let merged = rebuilt.applying(
          upserts: upserts, deletions: deletions, updatedAt: current.updatedAt
        ).index
        snapshot.withLock { $0 = merged }
      }
    }
  }

  /// How a change looks from inside one area: an update that leaves the area is a removal
  /// there, one that enters it an addition; changes elsewhere are not seen.
  static func view(
    of change: IncidentChange, in area: any GeoArea, previous: IncidentIndex
  )
    -> IncidentChange?
  {
    func meets(_ incident: TrafficIncident) -> Bool {
      area.intersects(incident.location.polyline)
        || incident.location.additionalPolylines.contains { area.intersects($0) }
    }
    switch change.kind {
    case .added:
      return meets(change.incident) ? change : nil
    case .removed:
      return meets(change.incident) ? change : nil
    case .updated:
      let wasInside = previous.incident(originalId: change.incident.originalId).map(meets) ?? false
      let isInside = meets(change.incident)
      switch (wasInside, isInside) {
      case (true, true): return change
      case (false, true): return IncidentChange(kind: .added, incident: change.incident)
      case (true, false):
        let old = previous.incident(originalId: change.incident.originalId) ?? change.incident
        return IncidentChange(kind: .removed, incident: old)
      case (false, false): return nil
      }
    }
  }
}

/// A snapshot on its way to being freed on `TrafficEngine.retirement`.
private final class RetiredSnapshot: Sendable {
  private let snapshot: Mutex<IncidentIndex?>

  init(_ snapshot: consuming IncidentIndex) {
    self.snapshot = Mutex(snapshot)
  }

  /// Drops the snapshot here, whichever thread releases this object last.
  func free() {
    let taken = snapshot.withLock { $0.take() }
    _ = consume taken
  }
}
