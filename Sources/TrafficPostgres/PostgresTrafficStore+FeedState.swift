import Foundation
import Traffic

extension PostgresTrafficStore: FeedStateStore {
  private static let feedColumns =
    "name, url, etag, last_modified, last_fetch, last_success, last_error, fetch_count, "
    + "error_count, incident_count, consecutive_failures, problem_count"

  /// The stored state of the feed called `name`, or `nil` when it was never stored.
  ///
  /// Every node of a deployment that polls a feed of this name shares the state.
  /// - Parameter name: The feed's name.
  /// - Returns: The state last saved under that name.
  /// - Throws: `TrafficStoreError.operationFailed` when the database cannot be read;
  ///   `.cannotOpen` when the server cannot be reached.
  /// - Complexity: O(log f) for f feeds, one round trip.
  public func feedState(named name: String) throws(TrafficStoreError) -> FeedPollState? {
    guard !name.utf8.contains(0) else { return nil }
    return try withSession { session throws(TrafficStoreError) in
      let rows = try session.retrying { connection throws(TrafficStoreError) in
        try connection.query(
          "SELECT \(PostgresTrafficStore.feedColumns) FROM feed_state WHERE name = $1", [name])
      }
      guard rows.count > 0 else { return nil }
      func date(_ column: Int) -> Date? {
        rows.text(0, column).flatMap(Double.init).map(Date.init(timeIntervalSince1970:))
      }
      func count(_ column: Int) -> Int { Int(rows.integer(0, column) ?? 0) }
      return FeedPollState(
        name: rows.text(0, 0) ?? name, url: rows.text(0, 1) ?? "", etag: rows.text(0, 2),
        lastModified: rows.text(0, 3), lastFetch: date(4), lastSuccess: date(5),
        lastError: rows.text(0, 6), fetchCount: count(7), errorCount: count(8),
        consecutiveFailures: count(10), incidentCount: count(9), problemCount: count(11))
    }
  }

  /// Stores `state`, replacing the state of the feed of the same name, in one statement.
  ///
  /// - Parameter state: What to remember.
  /// - Throws: `TrafficStoreError.operationFailed` when the write fails; `.invalidBatch`
  ///   for text PostgreSQL cannot hold (a NUL character); the previous state stays then.
  public func saveFeedState(_ state: FeedPollState) throws(TrafficStoreError) {
    let values: [String?] = [
      state.name, state.url, state.etag, state.lastModified,
      state.lastFetch.map { String($0.timeIntervalSince1970) },
      state.lastSuccess.map { String($0.timeIntervalSince1970) }, state.lastError,
      String(state.fetchCount), String(state.errorCount), String(state.incidentCount),
      String(state.consecutiveFailures), String(state.problemCount),
    ]
    try withSession { session throws(TrafficStoreError) in
      // An upsert: running it again after a lost connection stores the same row.
      _ = try session.retrying { connection throws(TrafficStoreError) in
        try connection.query(
          """
          INSERT INTO feed_state (\(PostgresTrafficStore.feedColumns))
          VALUES ($1, $2, $3, $4, $5::double precision, $6::double precision, $7,
                  $8::bigint, $9::bigint, $10::bigint, $11::bigint, $12::bigint)
          ON CONFLICT (name) DO UPDATE SET
            url = excluded.url, etag = excluded.etag, last_modified = excluded.last_modified,
            last_fetch = excluded.last_fetch, last_success = excluded.last_success,
            last_error = excluded.last_error, fetch_count = excluded.fetch_count,
            error_count = excluded.error_count, incident_count = excluded.incident_count,
            consecutive_failures = excluded.consecutive_failures,
            problem_count = excluded.problem_count
          """, values)
      }
    }
  }
}
