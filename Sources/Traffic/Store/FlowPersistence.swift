import Foundation
import Roads

/// A store that also keeps the road network and the flow state, so that an engine restarts
/// with the network it had and without losing the current flow picture.
///
/// Implemented by the SQLite store and the PostgreSQL store (which keys the flow state by a
/// fingerprint of the network and does not keep the network itself). The engine checks for
/// it with `store as? any FlowPersistence` (see `TrafficEngine.saveFlow()` and
/// `restoreFlow()`); a store without it simply starts flow empty.
package protocol FlowPersistence: Sendable {
  /// Replaces the stored road network (and drops the stored flow state, whose segment ids
  /// belonged to the old one), atomically.
  ///
  /// - Throws: `TrafficStoreError`; the store keeps what it had then.
  func saveNetwork(_ network: RoadNetwork) throws(TrafficStoreError)

  /// The stored road network, or `nil` when none was saved.
  ///
  /// - Throws: `TrafficStoreError` when it cannot be read or is damaged.
  func loadNetwork() throws(TrafficStoreError) -> RoadNetwork?

  /// Replaces the stored flow state, atomically.
  ///
  /// - Throws: `TrafficStoreError`; the store keeps the previous state then.
  func saveFlow(_ state: FlowState.Persisted) throws(TrafficStoreError)

  /// The stored flow state, or `nil` when none was saved (or the network was replaced since).
  ///
  /// - Throws: `TrafficStoreError` when it cannot be read or is damaged.
  func loadFlow() throws(TrafficStoreError) -> FlowState.Persisted?

  /// The store's place in its shared probe log now, which a state taken at the same moment
  /// holds (the engine takes both under one turn); `nil` for a store without a shared log.
  func probeLogMark() -> ProbeLogMark?

  /// Replaces the stored flow state with `state`, taken at `mark`, atomically.
  ///
  /// - Throws: `TrafficStoreError`; the store keeps the previous state then.
  func saveFlow(_ state: FlowState.Persisted, at mark: ProbeLogMark?) throws(TrafficStoreError)
}

extension FlowPersistence {
  /// `nil`: the store shares no probe log.
  package func probeLogMark() -> ProbeLogMark? { nil }

  /// `saveFlow(_:)`: the store shares no probe log.
  package func saveFlow(
    _ state: FlowState.Persisted, at mark: ProbeLogMark?
  ) throws(TrafficStoreError) {
    try saveFlow(state)
  }
}

/// A place in a shared probe log (the PostgreSQL store's `probe_log`): every batch up to
/// `applied` and the later ones in `held`.
package struct ProbeLogMark: Sendable, Hashable {
  /// Every batch up to this sequence.
  package var applied: Int64
  /// Later batches held too.
  package var held: Set<Int64>

  /// Creates a mark.
  package init(applied: Int64, held: Set<Int64>) {
    self.applied = applied
    self.held = held
  }
}
