import Foundation
import Traffic

/// What other nodes changed in a `PostgresTrafficStore` since a change-log sequence.
public struct PostgresChanges: Sendable, Hashable {
  /// The change-log sequence these changes bring a reader up to; pass it to the next
  /// `changes(since:)`.
  public var sequence: Int64
  /// The current versions of the incidents added or changed.
  public var upserts: [TrafficIncident]
  /// The original ids of incidents deleted or purged.
  public var deletions: [String]
  /// Whether the log no longer reached back far enough: `upserts` then holds every stored
  /// incident, and the reader must also drop whatever it holds that is not among them.
  public var isFullReload: Bool

  /// Creates a set of changes.
  public init(
    sequence: Int64, upserts: [TrafficIncident], deletions: [String], isFullReload: Bool
  ) {
    self.sequence = sequence
    self.upserts = upserts
    self.deletions = deletions
    self.isFullReload = isFullReload
  }
}

extension PostgresTrafficStore {
  /// The changes committed after change-log sequence `sequence`, by other stores: the
  /// current version of every incident a later batch touched, and the ids of those gone.
  ///
  /// Batches this store committed itself are left out (the engine that wrote them holds
  /// them already), unless another store's batch touched the same incident. Reads one
  /// consistent snapshot of the database, so the incidents are current as of the returned
  /// sequence.
  /// - Parameter sequence: The sequence the reader is at: `loadedSequence` after a load,
  ///   then the `sequence` of the previous changes.
  /// - Returns: The changes; empty (with `sequence` unchanged) when nothing happened.
  /// - Throws: `TrafficStoreError.operationFailed` when the database cannot be read.
  /// - Complexity: O(c + k) for c logged changes and k incidents touched.
  public func changes(since sequence: Int64) throws(TrafficStoreError) -> PostgresChanges {
    let database = displayName
    let (latest, rows, missing, isFullReload) = try withSession {
      session throws(TrafficStoreError) in
      let own = PostgresText.array(session.ownSequences.filter { $0 > sequence }.map(String.init))
      let read = try session.retrying { connection throws(TrafficStoreError) in
        try connection.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") {
          () throws(TrafficStoreError) in
          let latest = try PostgresTrafficStore.latestSequence(connection, atLeast: sequence)
          let pruned = try connection.query("SELECT max(through) FROM incident_changes_pruned")
          if sequence < pruned.integer(0, 0) ?? 0 {
            let all = try connection.query("SELECT original_id, body FROM incidents ORDER BY key")
            return (latest, PostgresTrafficStore.bodies(all), [String](), true)
          }
          let touched = try connection.query(
            """
            SELECT DISTINCT unnest(upserted || deleted) FROM incident_changes
            WHERE sequence > $1::bigint AND sequence <= $2::bigint
              AND sequence <> ALL($3::bigint[])
            """, [String(sequence), String(latest), own])
          let ids = (0..<touched.count).compactMap { touched.text($0, 0) }
          guard !ids.isEmpty else {
            return (latest, [(originalId: String, body: Data)](), [String](), false)
          }
          let found = PostgresTrafficStore.bodies(
            try connection.query(
              "SELECT original_id, body FROM incidents WHERE original_id = ANY($1::text[]) "
                + "ORDER BY key", [PostgresText.array(ids)]))
          let present = Set(found.map(\.originalId))
          return (latest, found, ids.filter { !present.contains($0) }.sorted(), false)
        }
      }
      session.ownSequences = session.ownSequences.filter { $0 > read.0 }
      return read
    }
    return PostgresChanges(
      sequence: latest,
      upserts: try StoredIncidentCoder.decodeConcurrently(rows, store: database),
      deletions: missing, isFullReload: isFullReload)
  }

  /// The change-log sequence the last `currentIncidents()` was current at: where a reader
  /// that loaded through this store starts following changes.
  public var loadedSequence: Int64 {
    (try? withSession { session throws(TrafficStoreError) in session.loadedSequence }) ?? 0
  }
}
