import Foundation
import Synchronization

/// A `TrafficStore` held in memory: for tests and for apps that need no durability.
///
/// Batches are applied under one lock, so readers see a batch entirely or not at all.
public final class InMemoryTrafficStore: TrafficStore {
  private struct State {
    var current: [String: TrafficIncident] = [:]
    var history: [String: [TrafficIncident]] = [:]
  }

  private let state = Mutex(State())
  private let feedStates = Mutex([String: FeedPollState]())

  /// Creates an empty store.
  public init() {}

  /// The latest version of every incident, in no particular order.
  ///
  /// - Complexity: O(n).
  public func currentIncidents() throws(TrafficStoreError) -> [TrafficIncident] {
    state.withLock { Array($0.current.values) }
  }

  /// Applies the batch under one lock.
  ///
  /// - Throws: `TrafficStoreError.invalidBatch` for an inconsistent batch.
  /// - Complexity: O(b) for a batch of b changes.
  public func apply(_ batch: IncidentBatch) throws(TrafficStoreError) {
    try batch.validate()
    state.withLock { state in
      for originalId in batch.deletions {
        state.current[originalId] = nil
        state.history[originalId] = nil
      }
      for incident in batch.upserts {
        if state.current[incident.originalId]?.id != incident.id {
          state.history[incident.originalId, default: []].append(incident)
        } else {
          state.history[incident.originalId]?.removeLast()
          state.history[incident.originalId, default: []].append(incident)
        }
        state.current[incident.originalId] = incident
      }
    }
  }

  /// Every version of the incident, oldest first.
  public func history(
    ofOriginalId originalId: String
  ) throws(TrafficStoreError)
    -> [TrafficIncident]
  {
    state.withLock { $0.history[originalId] ?? [] }
  }

  /// Removes incidents whose end lies before `cutoff`.
  ///
  /// - Complexity: O(n).
  public func purge(endedBefore cutoff: Date) throws(TrafficStoreError) -> [String] {
    state.withLock { state in
      let ended = state.current.values.filter { ($0.endTime ?? .distantFuture) < cutoff }
        .map(\.originalId)
      for originalId in ended {
        state.current[originalId] = nil
        state.history[originalId] = nil
      }
      return ended.sorted()
    }
  }
}

extension InMemoryTrafficStore: FeedStateStore {
  /// The state saved under `name` in this object, or `nil`.
  public func feedState(named name: String) throws(TrafficStoreError) -> FeedPollState? {
    feedStates.withLock { $0[name] }
  }

  /// Keeps `state` in this object (gone with it).
  public func saveFeedState(_ state: FeedPollState) throws(TrafficStoreError) {
    feedStates.withLock { $0[state.name] = state }
  }
}
