import Foundation

extension TrafficEngine {
  /// The flow state as it would be saved now, or `nil` without a network.
  ///
  /// - Complexity: O(a·c) for a segments holding c contributions each.
  package func persistedFlow() -> FlowState.Persisted? {
    flowState?.persisted(now: clock(), incidents: currentSnapshot)
  }

  /// Saves the flow state to the store, when the engine has a network and its store keeps
  /// flow (`FlowPersistence`).
  ///
  /// Call it at a planned shutdown (after `flushProbes()`, so that pending positions count);
  /// ``saveFlowIfDue(intervalInSeconds:)`` saves periodically while probes arrive.
  ///
  /// - Returns: whether a state was saved.
  /// - Throws: `TrafficStoreError` when the write fails; the store keeps its previous state.
  /// - Complexity: O(a·c) to copy a segments holding c contributions each, plus the store's
  ///   write.
  @discardableResult
  package func saveFlow() throws(TrafficStoreError) -> Bool {
    guard let flowState, let persistence = store as? any FlowPersistence else { return false }
    let now = clock()
    flowState.lastPersisted.withLock { $0 = now }
    flowState.hasUnsavedIngest.withLock { $0 = false }
    let incidents = currentSnapshot
    // The state and the shared log's place together: no batch is marked or ingested between.
    let (state, mark) = flowState.positionGate.withLock { _ in
      (flowState.persisted(now: now, incidents: incidents), persistence.probeLogMark())
    }
    try persistence.saveFlow(state, at: mark)
    return true
  }

  /// Counts the periodic saves of ``saveFlowIfDue(intervalInSeconds:)`` from now, as if the
  /// state had just been saved: for a caller that saves at its end anyway (a file import),
  /// so that its first batch is not followed by a save of the whole state at once.
  package func postponeFlowSave() {
    let now = clock()
    flowState?.lastPersisted.withLock { $0 = now }
  }

  /// Saves the flow state when the last save is at least `intervalInSeconds` old (by the
  /// engine's clock), else does nothing: cheap enough to call after every ingest.
  ///
  /// Concurrent callers do not save twice: the first claims the interval. A failed save is
  /// retried after the next interval, not at once. While the incidents still load in the
  /// background it does not save (a save waits for them): probes then never wait.
  ///
  /// - Parameter intervalInSeconds: the least time between saves.
  /// - Returns: whether a state was saved.
  /// - Throws: `TrafficStoreError` when the write fails.
  @discardableResult
  package func saveFlowIfDue(
    intervalInSeconds: TimeInterval = FlowState.defaultPersistenceIntervalInSeconds
  ) throws(TrafficStoreError) -> Bool {
    guard let flowState, store is any FlowPersistence, isLoaded else { return false }
    flowState.hasUnsavedIngest.withLock { $0 = true }
    return try saveFlowIfPending(intervalInSeconds: intervalInSeconds)
  }

  /// Saves the flow state when evidence was ingested since the last save and that save is
  /// at least `intervalInSeconds` old: for a timer, so that the last batches before a quiet
  /// spell reach the store within about a minute, not only at the next batch or a planned
  /// stop (a server killed after an hour without probes lost the batches of its last
  /// minute of them).
  ///
  /// - Returns: whether a state was saved.
  /// - Throws: `TrafficStoreError` when the write fails.
  @discardableResult
  package func saveFlowIfPending(
    intervalInSeconds: TimeInterval = FlowState.defaultPersistenceIntervalInSeconds
  ) throws(TrafficStoreError) -> Bool {
    guard let flowState, store is any FlowPersistence, isLoaded,
      flowState.hasUnsavedIngest.withLock({ $0 })
    else { return false }
    let now = clock()
    let due = flowState.lastPersisted.withLock { last in
      if let last, abs(now.timeIntervalSince(last)) < intervalInSeconds { return false }
      last = now
      return true
    }
    guard due else { return false }
    return try saveFlow()
  }

  /// Loads the flow state the store holds into the flow pipeline (at start-up).
  ///
  /// - Returns: whether a state was restored (`false` without a network, without
  ///   `FlowPersistence`, or when the store holds no state).
  /// - Throws: `TrafficEngineError.storeUnavailable` when the store cannot be read;
  ///   `.invalidConfiguration` when the state does not fit the engine's network or is
  ///   damaged (the engine then keeps an empty flow state).
  @discardableResult
  package func restoreFlow() throws(TrafficEngineError) -> Bool {
    guard let flowState, let persistence = store as? any FlowPersistence else { return false }
    let stored: FlowState.Persisted?
    do { stored = try persistence.loadFlow() } catch { throw .storeUnavailable(error) }
    guard let stored else { return false }
    try flowState.restore(stored)
    return true
  }
}
