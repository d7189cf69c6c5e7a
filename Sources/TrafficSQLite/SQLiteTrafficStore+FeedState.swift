import Foundation
import Traffic

extension SQLiteTrafficStore: FeedStateStore {
  private static let feedColumns =
    "name, url, etag, last_modified, last_fetch, last_success, last_error, fetch_count, "
    + "error_count, incident_count, consecutive_failures, problem_count"

  /// The stored state of the feed called `name`, or `nil` when it was never stored.
  ///
  /// - Parameter name: The feed's name.
  /// - Returns: The state last saved under that name.
  /// - Throws: `TrafficStoreError.operationFailed` when the file cannot be read.
  /// - Complexity: O(log f) for f feeds.
  public func feedState(named name: String) throws(TrafficStoreError) -> FeedPollState? {
    try withConnection { connection throws(TrafficStoreError) in
      var state: FeedPollState?
      try connection.query(
        "SELECT \(SQLiteTrafficStore.feedColumns) FROM feed_state WHERE name = ?", [.text(name)]
      ) { row throws(TrafficStoreError) in state = SQLiteTrafficStore.feedState(row) }
      return state
    }
  }

  /// Every stored feed state, by name.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` when the file cannot be read.
  package func feedStates() throws(TrafficStoreError) -> [FeedPollState] {
    try withConnection { connection throws(TrafficStoreError) in
      var states: [FeedPollState] = []
      try connection.query(
        "SELECT \(SQLiteTrafficStore.feedColumns) FROM feed_state ORDER BY name"
      ) { row throws(TrafficStoreError) in states.append(SQLiteTrafficStore.feedState(row)) }
      return states
    }
  }

  /// Stores `state`, replacing the state of the feed of the same name, in one transaction.
  ///
  /// - Parameter state: What to remember.
  /// - Throws: `TrafficStoreError.operationFailed` when the write fails; the previous state
  ///   stays then.
  public func saveFeedState(_ state: FeedPollState) throws(TrafficStoreError) {
    func date(_ value: Date?) -> SQLiteValue {
      value.map { .real($0.timeIntervalSince1970) } ?? .null
    }
    func text(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
    try withConnection { connection throws(TrafficStoreError) in
      try connection.run(
        "INSERT OR REPLACE INTO feed_state (\(SQLiteTrafficStore.feedColumns)) "
          + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
          .text(state.name), .text(state.url), text(state.etag), text(state.lastModified),
          date(state.lastFetch), date(state.lastSuccess), text(state.lastError),
          .integer(Int64(state.fetchCount)), .integer(Int64(state.errorCount)),
          .integer(Int64(state.incidentCount)), .integer(Int64(state.consecutiveFailures)),
          .integer(Int64(state.problemCount)),
        ])
    }
  }

  private static func feedState(_ row: SQLiteRow) -> FeedPollState {
    func text(_ column: Int32) -> String? { row.isNull(column) ? nil : row.text(column) }
    func date(_ column: Int32) -> Date? {
      row.isNull(column) ? nil : Date(timeIntervalSince1970: row.real(column))
    }
    return FeedPollState(
      name: row.text(0), url: row.text(1), etag: text(2), lastModified: text(3),
      lastFetch: date(4), lastSuccess: date(5), lastError: text(6),
      fetchCount: Int(row.integer(7)), errorCount: Int(row.integer(8)),
      consecutiveFailures: Int(row.integer(10)), incidentCount: Int(row.integer(9)),
      problemCount: Int(row.integer(11)))
  }
}
