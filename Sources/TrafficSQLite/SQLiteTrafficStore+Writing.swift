import Dispatch
import Foundation
import Synchronization
import Traffic

// The write path: a batch in one transaction, a bulk load into an empty store, each
// upsert and deletion with its history and R*Tree entries.
extension SQLiteTrafficStore {
  /// Stores the batch in one transaction: deletions first, then the upserts in order.
  ///
  /// An upsert whose `id` differs from the stored current version's adds a version to the
  /// history; the same `id` again replaces that version.
  /// - Throws: `TrafficStoreError.invalidBatch` for an inconsistent batch,
  ///   `.operationFailed` when a write fails (a full disk, a read-only file); nothing of
  ///   the batch is stored then.
  /// - Complexity: O(b log n) for b changes.
  public func apply(_ batch: IncidentBatch) throws(TrafficStoreError) {
    try batch.validate()
    guard !batch.isEmpty else { return }
    try checkWritable()
    let upserts = batch.upserts
    try connection.withLock { connection throws(TrafficStoreError) in
      let bulk = try Self.beginBulkLoad(
        upserts.count, threshold: bulkLoadUpserts, in: connection)
      defer { if bulk { Self.endBulkLoad(in: connection) } }
      try connection.transaction { () throws(TrafficStoreError) in
        for originalId in batch.deletions {
          try SQLiteTrafficStore.delete(originalId: originalId, in: connection)
        }
        // A bulk load writes the R*Tree packed, at its end (`PackedRTreeLoad`).
        var tree: PackedRTreeLoad? = bulk ? PackedRTreeLoad() : nil
        // Bodies are encoded a chunk ahead, on another thread, while the previous chunk is
        // written: a large batch never holds all of them (a million bodies were 1.2 GB). One
        // that cannot be encoded rolls the whole transaction back.
        var start = 0
        var bodies = try Self.encode(upserts[0..<min(upserts.count, Self.bodyChunk)])
        while start < upserts.count {
          let end = min(upserts.count, start + Self.bodyChunk)
          let next = upserts[end..<min(upserts.count, end + Self.bodyChunk)]
          let ahead = Mutex<Result<[Data], TrafficStoreError>?>(nil)
          let group = DispatchGroup()
          if !next.isEmpty {
            DispatchQueue.global(qos: .userInitiated).async(group: group) {
              let result = Result { () throws(TrafficStoreError) in try Self.encode(next) }
              ahead.withLock { $0 = result }
            }
          }
          for (incident, body) in zip(upserts[start..<end], bodies) {
            try SQLiteTrafficStore.upsert(incident, body: body, tree: &tree, in: connection)
          }
          group.wait()
          start = end
          bodies = try ahead.withLock { $0 }?.get() ?? []
        }
        try tree?.write(into: connection)
      }
    }
    checkpointer?.schedule()
  }

  /// The fewest upserts in one batch written as a bulk load by default (see
  /// `beginBulkLoad`).
  static let defaultBulkLoadUpserts = 100_000

  /// Before a batch of at least `threshold` upserts into a store that holds no
  /// incident, with no other connection to the file (another process, or this store's
  /// reader): switches the file to a rollback journal for the batch, so that its pages are
  /// written once, into the file, instead of into the write-ahead log and then again by the
  /// checkpoint (a million incidents wrote 1.2 GB twice). Pages added past the end of the
  /// file need no journal, and a crash during the batch rolls back to the empty store on
  /// the next open, as in WAL mode. Returns whether it switched; when another connection
  /// holds the file, the batch is written through the WAL as any other.
  static func beginBulkLoad(
    _ upserts: Int, threshold: Int, in connection: SQLiteConnection
  ) throws(TrafficStoreError) -> Bool {
    guard upserts >= threshold,
      try connection.integer("SELECT EXISTS (SELECT 1 FROM incidents)") == 0
    else { return false }
    let mode = try? connection.texts("PRAGMA journal_mode = DELETE").first ?? nil
    return mode == "delete"
  }

  /// Back to WAL after a bulk load; a failure leaves the rollback journal, which is safe,
  /// and the next open switches to WAL again.
  static func endBulkLoad(in connection: SQLiteConnection) {
    _ = try? connection.texts("PRAGMA journal_mode = WAL")
  }

  /// Upserts whose bodies are encoded at a time, ahead of the writing.
  static let bodyChunk = 2_048

  /// The bodies of `incidents`, in order.
  static func encode(
    _ incidents: ArraySlice<TrafficIncident>
  ) throws(TrafficStoreError) -> [Data] {
    let coder = StoredIncidentCoder()
    var bodies: [Data] = []
    bodies.reserveCapacity(incidents.count)
    for incident in incidents { bodies.append(try coder.encode(incident)) }
    return bodies
  }

  static func delete(
    originalId: String, in connection: SQLiteConnection
  )
    throws(TrafficStoreError)
  {
    var found: (key: Int64, boxes: Int64, history: Int64?)?
    try connection.query(
      "SELECT key, box_count, history FROM incidents WHERE original_id = ?", [.text(originalId)]
    ) { row throws(TrafficStoreError) in
      found = (row.integer(0), row.integer(1), row.isNull(2) ? nil : row.integer(2))
    }
    guard let found else { return }
    try IncidentBoxes.delete(key: found.key, count: found.boxes, from: connection)
    try deleteHistory(from: found.history, in: connection)
    try connection.run("DELETE FROM incidents WHERE key = ?", [.integer(found.key)])
  }

  /// Deletes the chain of superseded versions whose latest is `head` (`SQLiteSchema` v7).
  static func deleteHistory(
    from head: Int64?, in connection: SQLiteConnection
  ) throws(TrafficStoreError) {
    guard let head else { return }
    try connection.run(
      """
      WITH RECURSIVE chain(ref) AS (
        SELECT ?1
        UNION ALL
        SELECT h.previous FROM incident_history h JOIN chain c ON h.ref = c.ref
        WHERE h.previous IS NOT NULL)
      DELETE FROM incident_history WHERE ref IN (SELECT ref FROM chain)
      """, [.integer(head)])
  }

  /// Writes one upsert; its R*Tree entries go to `tree` when the batch is a bulk load.
  static func upsert(
    _ incident: TrafficIncident, body: Data, tree: inout PackedRTreeLoad?,
    in connection: SQLiteConnection
  ) throws(TrafficStoreError) {
    let startTime = incident.startTime.map {
      SQLiteValue.integer(StoredIncidentCoder.milliseconds($0))
    }
    let endTime = incident.endTime.map { SQLiteValue.integer(StoredIncidentCoder.milliseconds($0)) }
    let entryTime = incident.entryTime.map { SQLiteValue.real($0.timeIntervalSinceReferenceDate) }
    var stored: StoredRow?
    try connection.query(
      """
      SELECT key, id, box_count, end_time, entry_time FROM incidents WHERE original_id = ?
      """, [.text(incident.originalId)]
    ) { row throws(TrafficStoreError) in
      stored = StoredRow(
        key: row.integer(0), id: row.text(1), boxes: row.integer(2),
        endTime: row.isNull(3) ? nil : .integer(row.integer(3)),
        entryTime: row.isNull(4) ? nil : .real(row.real(4)))
    }
    guard let stored else {
      // The row is written with its number of boxes (no second write of it).
      let boxes = IncidentBoxes.boxes(of: incident)
      try connection.run(
        """
        INSERT INTO incidents
          (original_id, id, type, impact, start_time, end_time, entry_time, body, box_count)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        [
          .text(incident.originalId), .text(incident.id), .text(incident.type.rawValue),
          .text(incident.impact.rawValue), startTime ?? .null, endTime ?? .null,
          entryTime ?? .null, .utf8(body), .integer(Int64(boxes.count)),
        ])
      if tree != nil {
        tree?.add(boxes, key: connection.lastInsertedRowID)
      } else {
        try IncidentBoxes.insert(
          boxes, key: connection.lastInsertedRowID, into: connection, countStored: true)
      }
      return
    }
    var assignments = "id = ?, type = ?, impact = ?, start_time = ?, body = ?"
    var values: [SQLiteValue] = [
      .text(incident.id), .text(incident.type.rawValue), .text(incident.impact.rawValue),
      startTime ?? .null, .utf8(body),
    ]
    // A new version id supersedes the stored version: its body goes to the end of the
    // history chain (`SQLiteSchema` v7). The same id again is that version, rewritten.
    if stored.id != incident.id {
      try connection.run(
        "INSERT INTO incident_history (previous, body) SELECT history, body FROM incidents WHERE key = ?",
        [.integer(stored.key)])
      assignments += ", history = ?"
      values.append(.integer(connection.lastInsertedRowID))
    }
    // An index whose column keeps its value is left alone: naming the column in the SET
    // clause rewrites its index entry, a page of the index for every update.
    if endTime != stored.endTime {
      assignments += ", end_time = ?"
      values.append(endTime ?? .null)
    }
    if entryTime != stored.entryTime {
      assignments += ", entry_time = ?"
      values.append(entryTime ?? .null)
    }
    try connection.run(
      "UPDATE incidents SET \(assignments) WHERE key = ?", values + [.integer(stored.key)])
    let boxes = IncidentBoxes.boxes(of: incident)
    guard tree != nil else {
      try IncidentBoxes.replace(
        key: stored.key, storedCount: stored.boxes, with: boxes, in: connection)
      return
    }
    // Upserted earlier in the same bulk load: its entries are not written yet.
    tree?.replace(boxes, key: stored.key)
    if stored.boxes != Int64(boxes.count) {
      try connection.run(
        "UPDATE incidents SET box_count = ? WHERE key = ?",
        [.integer(Int64(boxes.count)), .integer(stored.key)])
    }
  }

  /// What `upsert` reads of a stored incident's row.
  struct StoredRow {
    var key: Int64
    var id: String
    var boxes: Int64
    var endTime: SQLiteValue?
    var entryTime: SQLiteValue?
  }
}
