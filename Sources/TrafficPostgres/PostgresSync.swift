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
/// Write through the engine (not the store directly): a batch written straight to the store
/// counts as this node's own and does not reach the engine's snapshot.
public final class PostgresSync: Sendable {
  private struct State {
    var sequence: Int64
    var lastError: TrafficStoreError?
  }

  /// The engine kept current.
  public let engine: TrafficEngine
  /// The engine's store.
  public let store: PostgresTrafficStore
  private let state: Mutex<State>
  private let listener: Mutex<PostgresChangeListener?> = Mutex(nil)

  /// The change-log sequence the engine is current with.
  public var sequence: Int64 { state.withLock { $0.sequence } }

  /// Why the last catch-up failed (the next notification or reconnection retries it);
  /// `nil` after a success.
  public var lastError: TrafficStoreError? { state.withLock { $0.lastError } }

  /// Starts listening for the engine's store and catches up with what was committed since
  /// the engine loaded.
  ///
  /// - Parameter engine: An engine whose store is a `PostgresTrafficStore`.
  /// - Throws: `TrafficStoreError.cannotOpen` when the engine's store is not a
  ///   `PostgresTrafficStore` or the listener cannot connect; `.operationFailed` when the
  ///   first catch-up fails.
  public init(engine: TrafficEngine) throws(TrafficStoreError) {
    guard let store = engine.store as? PostgresTrafficStore else {
      throw .cannotOpen(
        "PostgresSync needs an engine on a PostgresTrafficStore, not \(type(of: engine.store))")
    }
    self.engine = engine
    self.store = store
    state = Mutex(State(sequence: store.loadedSequence))
    let listener = try PostgresChangeListener(url: store.target.connectionString) {
      [weak self] _ in
      guard let self else { return }
      _ = try? self.catchUp()
    }
    self.listener.withLock { $0 = listener }
    do {
      try catchUp()
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
        let since = state.withLock { $0.sequence }
        let read = try store.changes(since: since)
        state.withLock { $0.sequence = max($0.sequence, read.sequence) }
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

  /// Stops listening. The engine keeps its snapshot and no longer follows other nodes.
  public func stop() {
    let listener = self.listener.withLock { listener in
      defer { listener = nil }
      return listener
    }
    listener?.stop()
  }

  deinit { stop() }
}
