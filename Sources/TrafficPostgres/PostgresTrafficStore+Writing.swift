import Foundation
import Synchronization
import Traffic

extension PostgresTrafficStore {
  /// What a committed batch changed, as the change log holds it.
  struct LoggedChange: Sendable {
    var upserted: [String]
    var deleted: [String]
    /// The change-log sequence, once logged.
    var sequence: Int64?

    init(upserted: [String], deleted: [String], sequence: Int64? = nil) {
      self.upserted = upserted
      self.deleted = deleted
      self.sequence = sequence
    }
  }

  /// Runs one batch transaction — the writers' lock, `body`, the change-log row and the
  /// notification — replacing a lost connection and running the batch once more when it did
  /// not commit.
  ///
  /// When the connection is lost after `COMMIT` was sent, the outcome is unknown: the store
  /// reconnects, takes the writers' lock (so the old transaction has ended, one way or the
  /// other) and looks the batch id up in the change log. Found, the batch committed and is
  /// not written again; not found, it was rolled back and is run once more.
  func writeBatch(
    _ body: @Sendable (PostgresConnection) throws(TrafficStoreError) -> LoggedChange
  ) throws(TrafficStoreError) -> LoggedChange {
    let batchId = UUID().uuidString
    return try session.withLock { session throws(TrafficStoreError) -> LoggedChange in
      var retried = false
      while true {
        let connection = try session.connected()
        var committing = false
        do throws(TrafficStoreError) {
          let change = try connection.transaction(committing: { committing = true }) {
            () throws(TrafficStoreError) -> LoggedChange in
            try connection.query(
              "SELECT pg_advisory_xact_lock($1::bigint)", [PostgresSchema.lockKey])
            var change = try body(connection)
            if !change.upserted.isEmpty || !change.deleted.isEmpty {
              change.sequence = try PostgresTrafficStore.log(change, batchId: batchId, connection)
            }
            return change
          }
          if let sequence = change.sequence { session.ownSequences.insert(sequence) }
          return change
        } catch {
          guard connection.isBroken, !retried else { throw error }
          retried = true
          session.drop()
          if committing,
            let found = try PostgresTrafficStore.loggedChange(
              batchId: batchId, try session.connected())
          {
            if let sequence = found.sequence { session.ownSequences.insert(sequence) }
            return found
          }
        }
      }
    }
  }

  /// Logs a batch in `incident_changes`, announces it, and every 100 batches prunes the log
  /// to its last `PostgresSchema.retainedChanges` rows.
  ///
  /// - Returns: The batch's sequence.
  private static func log(
    _ change: LoggedChange, batchId: String, _ connection: PostgresConnection
  ) throws(TrafficStoreError) -> Int64 {
    let rows = try connection.query(
      """
      INSERT INTO incident_changes (batch_id, upserted, deleted)
      VALUES ($1::uuid, $2::text[], $3::text[]) RETURNING sequence
      """,
      [batchId, PostgresText.array(change.upserted), PostgresText.array(change.deleted)])
    guard let sequence = rows.integer(0, 0) else {
      throw .operationFailed("logging a batch on \(connection.target.displayName) gave no sequence")
    }
    // Delivered to listeners when (and only if) the transaction commits.
    try connection.query(
      "SELECT pg_notify($1, $2)", [PostgresTrafficStore.notificationChannel, String(sequence)])
    if sequence % 100 == 0 {
      let through = String(sequence - PostgresSchema.retainedChanges)
      try connection.query("DELETE FROM incident_changes WHERE sequence <= $1::bigint", [through])
      try connection.query(
        "UPDATE incident_changes_pruned SET through = greatest(through, $1::bigint)", [through])
    }
    return sequence
  }

  /// The change-log row of the batch `batchId`, after waiting (at most 30 s) for any writer
  /// still holding the writers' lock; `nil` when the batch never committed.
  static func loggedChange(
    batchId: String, _ connection: PostgresConnection
  ) throws(TrafficStoreError) -> LoggedChange? {
    try connection.transaction { () throws(TrafficStoreError) -> LoggedChange? in
      try connection.execute("SET LOCAL lock_timeout = '30s'")
      try connection.query("SELECT pg_advisory_xact_lock($1::bigint)", [PostgresSchema.lockKey])
      let rows = try connection.query(
        """
        SELECT sequence, array_to_json(upserted)::text, array_to_json(deleted)::text
        FROM incident_changes WHERE batch_id = $1::uuid
        """, [batchId])
      guard rows.count == 1 else { return nil }
      let decoder = JSONDecoder()
      func ids(_ column: Int) -> [String] {
        (try? decoder.decode([String].self, from: rows.data(0, column))) ?? []
      }
      return LoggedChange(upserted: ids(1), deleted: ids(2), sequence: rows.integer(0, 0))
    }
  }

  /// How many rows one statement of a batch carries.
  static let rowsPerStatement = 5_000

  /// The deletions and upserts of a batch, inside the caller's transaction.
  static func write(
    _ upserts: [TrafficIncident], deletions: [String], on connection: PostgresConnection
  ) throws(TrafficStoreError) {
    let coder = StoredIncidentCoder()
    if !deletions.isEmpty {
      // Versions go with them: ON DELETE CASCADE.
      try connection.query(
        "DELETE FROM incidents WHERE original_id = ANY($1::text[])", [PostgresText.array(deletions)]
      )
    }
    guard !upserts.isEmpty else { return }
    var seen = Set<String>()
    let originalIds = upserts.map(\.originalId).filter { seen.insert($0).inserted }

    // The stored current id and latest version number of each incident in the batch.
    var state: [String: (id: String, version: Int)] = [:]
    for chunk in stride(from: 0, to: originalIds.count, by: rowsPerStatement) {
      let ids = Array(originalIds[chunk..<min(originalIds.count, chunk + rowsPerStatement)])
      let stored = try connection.query(
        """
        SELECT i.original_id, i.id,
          (SELECT max(v.version) FROM incident_versions v WHERE v.original_id = i.original_id)
        FROM incidents i WHERE i.original_id = ANY($1::text[])
        """, [PostgresText.array(ids)])
      for row in 0..<stored.count {
        guard let originalId = stored.text(row, 0), let id = stored.text(row, 1) else { continue }
        state[originalId] = (id, Int(stored.integer(row, 2) ?? 0))
      }
    }

    // Which versions the batch writes: a new id adds one, the same id replaces the last.
    struct VersionKey: Hashable {
      let originalId: String
      let version: Int
    }
    var versions: [VersionKey] = []
    var writer: [VersionKey: Int] = [:]
    var last: [String: Int] = [:]
    for (index, row) in upserts.enumerated() {
      let originalId = row.originalId
      let key: VersionKey
      if let held = state[originalId], held.id == row.id {
        key = VersionKey(originalId: originalId, version: held.version)
      } else {
        let version = (state[originalId]?.version ?? 0) + 1
        key = VersionKey(originalId: originalId, version: version)
        state[originalId] = (row.id, version)
      }
      if writer.updateValue(index, forKey: key) == nil { versions.append(key) }
      last[originalId] = index
    }

    // The current rows, in the order of first appearance (new incidents get keys in it).
    let current = originalIds.compactMap { last[$0].map { upserts[$0] } }
    for chunk in stride(from: 0, to: current.count, by: rowsPerStatement) {
      var part: [IncidentRow] = []
      part.reserveCapacity(rowsPerStatement)
      for incident in current[chunk..<min(current.count, chunk + rowsPerStatement)] {
        part.append(try IncidentRow(incident, coder: coder))
      }
      try connection.query(
        """
        INSERT INTO incidents
          (original_id, id, type, impact, start_time, end_time, entry_time, geom, body)
        SELECT u.original_id, u.id, u.type, u.impact, u.start_time, u.end_time, u.entry_time,
          u.geom::geometry, u.body::jsonb
        FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[],
          $7::float8[], $8::text[], $9::text[])
          WITH ORDINALITY
          AS u(original_id, id, type, impact, start_time, end_time, entry_time, geom, body, n)
        ORDER BY u.n
        ON CONFLICT (original_id) DO UPDATE SET id = excluded.id, type = excluded.type,
          impact = excluded.impact, start_time = excluded.start_time,
          end_time = excluded.end_time, entry_time = excluded.entry_time, geom = excluded.geom,
          body = excluded.body
        """,
        [
          PostgresText.array(part.map(\.incident.originalId)),
          PostgresText.array(part.map(\.incident.id)),
          PostgresText.array(part.map(\.incident.type.rawValue)),
          PostgresText.array(part.map(\.incident.impact.rawValue)),
          PostgresText.array(part.map(\.startMilliseconds)),
          PostgresText.array(part.map(\.endMilliseconds)),
          PostgresText.array(part.map(\.entrySeconds)),
          PostgresText.array(part.map(\.geometry)),
          PostgresText.array(utf8: part.map { Optional($0.body) }),
        ])
    }

    // The history; a version that is the incident's current one takes the body just stored
    // rather than sending it twice.
    for chunk in stride(from: 0, to: versions.count, by: rowsPerStatement) {
      let part = versions[chunk..<min(versions.count, chunk + rowsPerStatement)]
      let writers = part.map { key in writer[key] ?? 0 }
      // Earlier versions within the batch (rare) are encoded here; the rest are current.
      var bodies: [Data?] = []
      bodies.reserveCapacity(part.count)
      for (key, index) in zip(part, writers) {
        bodies.append(
          last[key.originalId] == index ? nil : try IncidentRow(upserts[index], coder: coder).body)
      }
      try connection.query(
        """
        INSERT INTO incident_versions (original_id, version, id, body)
        SELECT u.original_id, u.version, u.id, coalesce(u.body::jsonb, i.body)
        FROM unnest($1::text[], $2::integer[], $3::text[], $4::text[])
          AS u(original_id, version, id, body)
        JOIN incidents i ON i.original_id = u.original_id
        ON CONFLICT (original_id, version) DO UPDATE SET id = excluded.id, body = excluded.body
        """,
        [
          PostgresText.array(part.map(\.originalId)),
          PostgresText.array(part.map { String($0.version) }),
          PostgresText.array(writers.map { upserts[$0].id }),
          PostgresText.array(utf8: bodies),
        ])
    }
  }
}
