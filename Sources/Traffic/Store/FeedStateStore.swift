import Foundation

/// Where a feed poller keeps `FeedPollState` between runs, so that a restarted server asks
/// its feeds conditionally instead of fetching and ingesting every document again.
///
/// Implemented by `InMemoryTrafficStore`, the SQLite store and the PostgreSQL store; a
/// poller finds it with `engine.store as? any FeedStateStore`. The poller saves a state
/// only after the incidents of the document it describes were stored, so saved validators
/// never stand for a document that was not ingested.
public protocol FeedStateStore: Sendable {
  /// The stored state of the feed called `name`, or `nil` when none was stored.
  ///
  /// - Parameter name: The feed's name.
  /// - Returns: The state last saved under that name.
  /// - Throws: `TrafficStoreError` when the store cannot be read.
  func feedState(named name: String) throws(TrafficStoreError) -> FeedPollState?

  /// Stores `state`, replacing the state of the feed of the same name.
  ///
  /// - Parameter state: What to remember.
  /// - Throws: `TrafficStoreError`; the previous state stays then.
  func saveFeedState(_ state: FeedPollState) throws(TrafficStoreError)
}
