import Foundation
import Synchronization
import Traffic

/// Keeps a `TrafficEngine` on a `PostgresTrafficStore` current with the batches other nodes
/// commit to the same database: the glue between a `PostgresChangeListener` and
/// `TrafficEngine.applyExternalChanges`.
///
/// On each notification it reads the change log from where it was
/// (`PostgresTrafficStore.changes(since:)`) under the engine's writer lock, and takes the
/// changes into the engine's snapshot (and change streams) without writing them back. The
/// engine's own writes are already in its snapshot and are skipped. It starts from the
/// sequence the engine's load was current at and catches up once after listening starts, so
/// nothing committed in between is missed.
///
/// Flow the same way: on each notification of `PostgresTrafficStore.probeChannel` it reads
/// the probe batches other nodes shared since the node's place in the probe log
/// (`PostgresTrafficStore.pendingProbeBatches(limit:)`) and ingests them in sequence order,
/// so every node's flow holds every node's probes, each matched as of when it was shared.
/// When it starts, it reads every batch the log still holds (15 minutes): those the flow
/// state the engine loaded holds (`TrafficEngine.restoreFlow()`) only rebuild the vehicles'
/// traces in progress, which the state does not keep, and the later ones count — so the
/// node then answers the flow the other nodes do. Without a loaded state every batch counts.
///
/// After a lost connection (the database restarted) the listener reconnects and both logs
/// are read from where the node was, so nothing committed meanwhile is missed; the store's
/// `connectionHealth` tells when the database went and came back.
///
/// Write through the engine (not the store directly): a batch written straight to the store
/// counts as this node's own and does not reach the engine's snapshot.
public final class PostgresSync: Sendable {
  private struct State {
    /// `nil` until the engine's snapshot is loaded: then the sequence its load was current at.
    var sequence: Int64?
    var lastError: TrafficStoreError?
  }

  /// The engine kept current.
  public let engine: TrafficEngine
  /// The engine's store.
  public let store: PostgresTrafficStore
  private let state: Mutex<State>
  private let listener: Mutex<PostgresChangeListener?> = Mutex(nil)
  /// Held while probe batches are read and ingested, so that they go in sequence order.
  private let probeTurn = Mutex(0)

  /// Why the saved flow state could not be loaded at start (it is damaged or does not fit
  /// the engine's configuration); the node then started with empty flow and replayed every
  /// probe batch the log holds. `nil` when it was loaded or there was none.
  public let flowRestoreError: TrafficEngineError?

  /// The change-log sequence the engine is current with (while its snapshot still loads in
  /// the background: the one of the store's last load).
  public var sequence: Int64 { state.withLock { $0.sequence } ?? store.loadedSequence }

  /// Why the last catch-up failed (the next notification or reconnection retries it);
  /// `nil` after a success.
  public var lastError: TrafficStoreError? { state.withLock { $0.lastError } }

  /// Starts listening for the engine's store and catches up with what was committed since
  /// the engine loaded: incidents, then (when the engine has a road network) probes.
  ///
  /// An engine still loading its snapshot in the background (`TrafficEngine.Loading`) is
  /// followed from the sequence its load was current at, once the load is done: the first
  /// catch-up of incidents then runs on another thread, and neither this initialiser nor
  /// probes wait for the load.
  ///
  /// With a road network, the flow state saved for that network is loaded first (when
  /// `restoresFlow`), then the probe batches shared after it are replayed; without a saved
  /// state (or when it cannot be used: `flowRestoreError` tells why) every batch the log
  /// holds is replayed. From then on the engine saves its flow state to the database at most
  /// once a minute while probes arrive, and when `saveFlow()` is called.
  ///
  /// - Parameters:
  ///   - engine: An engine whose store is a `PostgresTrafficStore`.
  ///   - restoresFlow: Whether to load the saved flow state into the engine (the default;
  ///     pass `false` when the engine's flow is already current).
  /// - Throws: `TrafficStoreError.cannotOpen` when the engine's store is not a
  ///   `PostgresTrafficStore` or the listener cannot connect; `.operationFailed` when the
  ///   first catch-up fails.
  public init(engine: TrafficEngine, restoresFlow: Bool = true) throws(TrafficStoreError) {
    guard let store = engine.store as? PostgresTrafficStore else {
      throw .cannotOpen(
        "PostgresSync needs an engine on a PostgresTrafficStore, not \(type(of: engine.store))")
    }
    self.engine = engine
    self.store = store
    state = Mutex(State(sequence: engine.isLoaded ? store.loadedSequence : nil))
    var restoreError: TrafficEngineError?
    if let network = engine.roadNetwork {
      try store.saveNetwork(network)
      if restoresFlow {
        do { try engine.restoreFlow() } catch {
          // Flow starts empty and every batch the log holds is replayed instead.
          store.probeLog.withLock { $0 = ProbeLogPosition(network: $0.network) }
          restoreError = error
        }
      }
    }
    flowRestoreError = restoreError
    let listener = try PostgresChangeListener(
      target: store.target,
      channels: [PostgresTrafficStore.notificationChannel, PostgresTrafficStore.probeChannel]
    ) { [weak self] sequences in
      guard let self else { return }
      // While the snapshot loads, the catch-up after the load reads these changes.
      if sequences == nil || sequences?[PostgresTrafficStore.notificationChannel] != nil,
        self.engine.isLoaded
      {
        _ = try? self.catchUp()
      }
      if sequences == nil || sequences?[PostgresTrafficStore.probeChannel] != nil {
        _ = try? self.catchUpProbes()
      }
    }
    self.listener.withLock { $0 = listener }
    // Each write of the engine first reads what other nodes committed, holding their
    // writes off until it is stored.
    store.writerTurn.setCatchUp { [weak self] () throws(TrafficStoreError) in
      _ = try self?.catchUp()
    }
    do {
      if engine.isLoaded {
        try catchUp()
      } else {
        DispatchQueue.global(qos: .userInitiated).async { [weak self] in
          guard let engine = self?.engine, (try? engine.waitUntilLoaded()) != nil else { return }
          _ = try? self?.catchUp()
        }
      }
      try catchUpProbes()
    } catch {
      listener.stop()
      throw error
    }
  }

  /// Reads the changes committed since `sequence` and applies them to the engine now.
  ///
  /// - Returns: The changes as the engine's change streams saw them.
  /// - Throws: `TrafficStoreError` when the database cannot be read; nothing changes then.
  @discardableResult
  public func catchUp() throws(TrafficStoreError) -> [IncidentChange] {
    do {
      let changes = try engine.applyExternalChanges { snapshot throws(TrafficStoreError) in
        // The snapshot is loaded here (reading it waits for that), and so is the sequence.
        let since = state.withLock { $0.sequence } ?? store.loadedSequence
        let read = try store.changes(since: since)
        state.withLock { $0.sequence = max($0.sequence ?? since, read.sequence) }
        guard read.isFullReload else { return (read.upserts, read.deletions) }
        let kept = Set(read.upserts.map(\.originalId))
        return (read.upserts, snapshot.incidents.map(\.originalId).filter { !kept.contains($0) })
      }
      state.withLock { $0.lastError = nil }
      return changes
    } catch {
      state.withLock { $0.lastError = error }
      throw error
    }
  }

  /// Reads the probe batches other nodes shared since the node's place in the probe log and
  /// ingests them now, in sequence order (`TrafficEngine.ingestShared(probes:flush:)`).
  ///
  /// Does nothing for an engine without a road network. A damaged batch is skipped (its
  /// damage becomes `lastError`).
  /// - Returns: The number of batches ingested.
  /// - Throws: `TrafficStoreError` when the database cannot be read; the batches read
  ///   before stay ingested.
  /// - Complexity: O(p) reads and the matching of p probes.
  @discardableResult
  public func catchUpProbes() throws(TrafficStoreError) -> Int {
    guard engine.roadNetwork != nil else { return 0 }
    return try probeTurn.withLock { ingested throws(TrafficStoreError) -> Int in
      let pageSize = 100
      var count = 0
      while true {
        let page: (batches: [PostgresProbeBatch], through: Int64, rows: Int)
        do throws(TrafficStoreError) {
          page = try store.pendingProbeBatches(limit: pageSize)
        } catch {
          state.withLock { $0.lastError = error }
          throw error
        }
        for batch in page.batches {
          if let damage = batch.damage {
            store.markProbesApplied(through: batch.sequence)
            state.withLock { $0.lastError = .operationFailed(damage) }
            continue
          }
          // Marked under the engine's turn with the ingest: a flow state saved meanwhile
          // holds the batch exactly when its place says so. A batch the loaded state holds
          // is matched again, as of when it was shared, to rebuild the vehicles' traces.
          engine.ingestShared(
            probes: batch.probes, flush: batch.flush, ageInSeconds: batch.ageInSeconds,
            counting: !batch.isRestored
          ) { store.markProbesApplied(through: batch.sequence) }
          if !batch.isRestored { count += 1 }
        }
        store.markProbesApplied(through: page.through)
        if page.rows < pageSize { break }
      }
      ingested += count
      return count
    }
  }

  /// Saves the engine's flow state to the database now, with the node's place in the probe
  /// log, so that the next start (of any node on the same network) begins from it: call it
  /// when a node stops. The engine also saves by itself at most once a minute while probes
  /// arrive.
  ///
  /// - Returns: Whether a state was saved (`false` for an engine without a road network).
  /// - Throws: `TrafficStoreError` when the write fails; the database keeps the previous
  ///   state.
  /// - Complexity: O(a·c) to encode a segments of c contributions each; one round trip.
  @discardableResult
  public func saveFlow() throws(TrafficStoreError) -> Bool {
    try engine.saveFlow()
  }

  /// Stops listening. The engine keeps its snapshot and no longer follows other nodes.
  public func stop() {
    let listener = self.listener.withLock { listener in
      defer { listener = nil }
      return listener
    }
    listener?.stop()
    store.writerTurn.setCatchUp(nil)
  }

  deinit { stop() }
}
