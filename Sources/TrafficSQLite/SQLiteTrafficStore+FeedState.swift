import Foundation
import Traffic

/// What the feed poller remembers about one feed between runs: the validators for a
/// conditional request and the outcome of the last fetches.
package struct FeedState: Hashable, Sendable {
  /// The feed's configured name, unique in a store.
  package var name: String
  /// The URL fetched.
  package var url: String
  /// The `ETag` of the last successful response, for `If-None-Match`.
  package var etag: String?
  /// The `Last-Modified` of the last successful response, for `If-Modified-Since`, verbatim.
  package var lastModified: String?
  /// When the feed was last fetched, successfully or not.
  package var lastFetch: Date?
  /// When a fetch last succeeded.
  package var lastSuccess: Date?
  /// Why the last fetch failed; `nil` after a success.
  package var lastError: String?
  /// Fetches made.
  package var fetchCount: Int
  /// Fetches that failed.
  package var errorCount: Int
  /// Incidents the feed held after its last successful fetch.
  package var incidentCount: Int

  /// Creates a state; a feed never fetched has only a name and a URL.
  package init(
    name: String, url: String, etag: String? = nil, lastModified: String? = nil,
    lastFetch: Date? = nil, lastSuccess: Date? = nil, lastError: String? = nil,
    fetchCount: Int = 0, errorCount: Int = 0, incidentCount: Int = 0
  ) {
    self.name = name
    self.url = url
    self.etag = etag
    self.lastModified = lastModified
    self.lastFetch = lastFetch
    self.lastSuccess = lastSuccess
    self.lastError = lastError
    self.fetchCount = fetchCount
    self.errorCount = errorCount
    self.incidentCount = incidentCount
  }
}

extension SQLiteTrafficStore {
  private static let feedColumns =
    "name, url, etag, last_modified, last_fetch, last_success, last_error, fetch_count, "
    + "error_count, incident_count"

  /// The stored state of the feed called `name`, or `nil` when it was never stored.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` when the file cannot be read.
  /// - Complexity: O(log f) for f feeds.
  package func feedState(named name: String) throws(TrafficStoreError) -> FeedState? {
    try withConnection { connection throws(TrafficStoreError) in
      var state: FeedState?
      try connection.query(
        "SELECT \(SQLiteTrafficStore.feedColumns) FROM feed_state WHERE name = ?", [.text(name)]
      ) { row throws(TrafficStoreError) in state = SQLiteTrafficStore.feedState(row) }
      return state
    }
  }

  /// Every stored feed state, by name.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` when the file cannot be read.
  package func feedStates() throws(TrafficStoreError) -> [FeedState] {
    try withConnection { connection throws(TrafficStoreError) in
      var states: [FeedState] = []
      try connection.query(
        "SELECT \(SQLiteTrafficStore.feedColumns) FROM feed_state ORDER BY name"
      ) { row throws(TrafficStoreError) in states.append(SQLiteTrafficStore.feedState(row)) }
      return states
    }
  }

  /// Stores `state`, replacing the state of the feed of the same name.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` when the write fails; the previous state
  ///   stays then.
  package func putFeedState(_ state: FeedState) throws(TrafficStoreError) {
    func date(_ value: Date?) -> SQLiteValue {
      value.map { .real($0.timeIntervalSince1970) } ?? .null
    }
    func text(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
    try withConnection { connection throws(TrafficStoreError) in
      try connection.run(
        "INSERT OR REPLACE INTO feed_state (\(SQLiteTrafficStore.feedColumns)) "
          + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
          .text(state.name), .text(state.url), text(state.etag), text(state.lastModified),
          date(state.lastFetch), date(state.lastSuccess), text(state.lastError),
          .integer(Int64(state.fetchCount)), .integer(Int64(state.errorCount)),
          .integer(Int64(state.incidentCount)),
        ])
    }
  }

  private static func feedState(_ row: SQLiteRow) -> FeedState {
    func text(_ column: Int32) -> String? { row.isNull(column) ? nil : row.text(column) }
    func date(_ column: Int32) -> Date? {
      row.isNull(column) ? nil : Date(timeIntervalSince1970: row.real(column))
    }
    return FeedState(
      name: row.text(0), url: row.text(1), etag: text(2), lastModified: text(3),
      lastFetch: date(4), lastSuccess: date(5), lastError: text(6),
      fetchCount: Int(row.integer(7)), errorCount: Int(row.integer(8)),
      incidentCount: Int(row.integer(9)))
  }
}
