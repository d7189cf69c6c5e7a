import Foundation

extension TrafficEngine {
  /// Takes changes that another node already stored into this engine's snapshot, without
  /// writing them to the store: how the nodes of a deployment on one shared database keep
  /// each other current.
  ///
  /// Builds the next snapshot and tells the change streams exactly as `apply(_:)` does. An
  /// upsert equal to the incident held and a deletion of an id not held change nothing and
  /// are not told.
  /// - Parameters:
  ///   - upserts: Current versions of incidents added or changed elsewhere.
  ///   - deletions: Original ids of incidents deleted or purged elsewhere.
  /// - Returns: The changes as seen from everywhere (added, updated, removed).
  /// - Complexity: O(n log n) to rebuild the snapshot of n incidents when anything changed.
  @discardableResult
  public func applyExternalChanges(
    upserts: [TrafficIncident], deletions: [String]
  ) -> [IncidentChange] {
    applyExternalChanges { _ throws(Never) in (upserts, deletions) }
  }

  /// `applyExternalChanges(upserts:deletions:)` with the changes read under the writer lock:
  /// `fetch` sees the snapshot and returns what changed elsewhere.
  ///
  /// Reading under the lock matters: a read made before one of this engine's own writes and
  /// applied after it would take the snapshot back to an older version. Under the lock, every
  /// own write is both committed and in the snapshot, so what `fetch` reads is never older.
  /// - Throws: What `fetch` throws; the snapshot is unchanged then.
  @discardableResult
  package func applyExternalChanges<Failure: Error>(
    _ fetch: (IncidentIndex) throws(Failure) -> (upserts: [TrafficIncident], deletions: [String])
  ) throws(Failure) -> [IncidentChange] {
    try writer.withLock { _ throws(Failure) -> [IncidentChange] in
      let previous = currentSnapshot
      let (upserts, deletions) = try fetch(previous)
      let (next, changes) = previous.applying(
        upserts: upserts, deletions: deletions, skippingUnchanged: true, updatedAt: clock())
      guard !changes.isEmpty else { return [] }
      forgetRendered(upserts.map(\.id))
      publish(next, previous: previous, changes: changes)
      return changes
    }
  }
}
