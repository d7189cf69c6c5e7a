import Foundation
import Synchronization
import Traffic

/// The shared `TrafficStore` of a deployment of several nodes: one PostgreSQL database with
/// PostGIS, over libpq.
///
/// Tables mirror the SQLite store's: `incidents` (the current version of each incident, its
/// `jsonb` body beside indexed columns and a PostGIS `geom` with a GiST index),
/// `incident_versions` (the history), `feed_state`, plus `incident_changes`, a log of
/// committed batches that other nodes read to keep their snapshots current (see
/// `changes(since:)`, `PostgresChangeListener` and `PostgresSync`). The schema is versioned
/// in `schema_migrations`; nodes starting at once migrate one after the other under an
/// advisory lock. Tables live in the first schema of the connection's `search_path`, so one
/// database can hold several stores (`?options=-csearch_path%3Dname,public` in the URL).
///
/// Flow is shared too: the probe batches a node ingests go to `probe_log`, which the other
/// nodes read and ingest (see `shareProbes(_:flush:)`, `pendingProbeBatches(limit:)` and
/// `PostgresSync`), and the flow state is saved in `flow_state` per road network.
///
/// Every `apply(_:)` and `purge(endedBefore:)` is one transaction, also holding an advisory
/// lock so that writers take turns: the change log's sequence then follows commit order.
/// Values travel as text parameters of prepared statements, never spliced into SQL.
///
/// A lost connection is replaced (with a few retries and growing pauses) and the operation
/// run once more. A batch whose `COMMIT` went unanswered is not simply sent again: the store
/// waits for the old transaction to end (the advisory lock) and looks its batch id up in the
/// change log, so a batch is applied exactly once.
///
/// The connection is used under a `Mutex`, so the store is `Sendable` and calls from several
/// threads are serialised.
public final class PostgresTrafficStore: TrafficStore, StoreReachability {
  /// The channel on which committed batches are announced, with their change-log sequence
  /// as payload.
  public static let notificationChannel = "traffic_incidents"

  /// The channel on which shared probe batches are announced, with their probe-log sequence
  /// as payload (see `shareProbes(_:flush:)`).
  public static let probeChannel = "traffic_probes"

  /// The connection string given by `$TRAFFIC_POSTGRES`, when set and not empty.
  public static var environmentURL: String? {
    guard let url = ProcessInfo.processInfo.environment["TRAFFIC_POSTGRES"], !url.isEmpty
    else { return nil }
    return url
  }

  /// The server, database and user connected to, for messages (never the password).
  public var displayName: String { target.displayName }

  /// This store's node in the probe log: batches it shares carry it, and it skips them when
  /// reading the log.
  public let nodeID = UUID()

  let target: PostgresTarget
  /// Whether the database answers, from every connection attempt of this store, its
  /// writers' turn and its `PostgresSync`'s listener: `onChange` tells of an outage once
  /// when it starts and once when it ends.
  public let connectionHealth: PostgresConnectionHealth
  let session: Mutex<PostgresSession>
  /// A second session, connected on first use, for the reads an engine makes while its
  /// snapshot loads (`IndexedTrafficStore`): they never wait behind the main session.
  let readerSession: Mutex<PostgresSession>
  /// Where this node is in the probe log, and the road network its flow belongs to.
  let probeLog = Mutex(ProbeLogPosition())
  /// The writers' turn of the nodes sharing the database (`takeWriterTurn(_:)`).
  let writerTurn: PostgresWriterTurn

  /// Tests only: called when `currentIncidents()` has read the database and before it
  /// returns, so that a test can commit writes that the load did not see.
  let afterLoadingRead = Mutex<(@Sendable () -> Void)?>(nil)

  /// Connects and brings the database's schema to the latest version.
  ///
  /// - Parameter url: A libpq connection string: a `postgresql://user:password@host:port/db`
  ///   URL or `key=value` pairs (`PostgresTrafficStore.environmentURL` or `--postgres`).
  /// - Throws: `TrafficStoreError.cannotOpen` naming the server (never the password) when
  ///   the string is malformed or the server refuses or cannot be reached;
  ///   `.incompatibleSchema` when the database was written by a newer version of this
  ///   library; `.operationFailed` when a migration fails (e.g. PostGIS is not installed on
  ///   the server, or the user may not create it).
  public init(url: String) throws(TrafficStoreError) {
    var target = try PostgresTarget(url)
    let connection = try PostgresConnection(target: target)
    try PostgresSchema.migrate(connection)
    // From here on every connection attempt tells whether the database answers.
    connectionHealth = PostgresConnectionHealth(database: target.displayName)
    target.health = connectionHealth
    self.target = target
    session = Mutex(PostgresSession(target: target, connection: connection))
    readerSession = Mutex(PostgresSession(target: target))
    writerTurn = PostgresWriterTurn(target: target)
  }

  /// The current outage of the database (`connectionHealth`), or `nil` while it answers.
  public var outage: StoreOutage? { connectionHealth.outage }

  // MARK: TrafficStore

  /// The latest version of every incident, in the order they were first stored.
  ///
  /// Also notes the change-log sequence the read was current at, where `PostgresSync`
  /// starts following other nodes' changes. Reads on a connection of its own, so that the
  /// store's other work (flow, probes, feed state, reads while loading) goes on meanwhile.
  /// - Throws: `TrafficStoreError.operationFailed` when the database cannot be read or a
  ///   stored body is damaged; `.cannotOpen` when the server cannot be reached.
  /// - Complexity: O(n) rows transferred and decoded (decoding on every core).
  public func currentIncidents() throws(TrafficStoreError) -> [TrafficIncident] {
    try currentIncidents(chunkRows: Self.loadingChunkRows)
  }

  /// `currentIncidents()` reading `chunkRows` rows at a time (tests use small chunks).
  func currentIncidents(chunkRows: Int) throws(TrafficStoreError) -> [TrafficIncident] {
    // One snapshot of the database, read in chunks of rows that are decoded on every core
    // and dropped: memory holds one chunk of bodies beside the incidents, not every body.
    let store = displayName
    // Connected (with the session's retries) on first use, closed when the load ends.
    let loader = PostgresSession(target: target)
    let (sequence, incidents) = try loader.retrying { connection throws(TrafficStoreError) in
      try connection.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") {
        () throws(TrafficStoreError) in
        let sequence = try PostgresTrafficStore.latestSequence(connection, atLeast: 0)
        var incidents: [TrafficIncident] = []
        var lastKey = Int64.min
        while true {
          let rows = try connection.query(
            "SELECT original_id, body, key FROM incidents WHERE key > $1 ORDER BY key LIMIT $2",
            [String(lastKey), String(chunkRows)])
          guard rows.count > 0 else { break }
          lastKey = Int64(rows.text(rows.count - 1, 2) ?? "") ?? Int64.max
          incidents += try StoredIncidentCoder.decodeConcurrently(
            PostgresTrafficStore.bodies(rows), store: store)
          if rows.count < chunkRows { break }
        }
        return (sequence, incidents)
      }
    }
    session.withLock { $0.loadedSequence = sequence }
    afterLoadingRead.withLock { $0 }?()
    return incidents
  }

  /// Rows read at a time by `currentIncidents()`.
  static let loadingChunkRows = 32_768

  /// Stores the batch in one transaction: deletions first, then the upserts in order.
  ///
  /// An upsert whose `id` differs from the stored current version's adds a version to the
  /// history; the same `id` again replaces that version. The batch is logged in
  /// `incident_changes` and announced on `notificationChannel` when it commits.
  /// - Throws: `TrafficStoreError.invalidBatch` for an inconsistent batch or a value
  ///   PostgreSQL cannot hold (a NUL character); `.operationFailed` when a write fails;
  ///   `.cannotOpen` when the server cannot be reached. Nothing of the batch is stored then.
  /// - Complexity: O(b log n) for b changes, in a few round trips per 5,000 changes; rows
  ///   are encoded 5,000 at a time, so a large batch (an import) is never held encoded whole.
  public func apply(_ batch: IncidentBatch) throws(TrafficStoreError) {
    try batch.validate()
    guard !batch.isEmpty else { return }
    let upserts = batch.upserts
    if let bad = batch.deletions.first(where: { $0.utf8.contains(0) }) {
      throw .invalidBatch("the deleted id \(bad.debugDescription) holds a NUL character")
    }
    var seen = Set<String>()
    let upserted = batch.upserts.map(\.originalId).filter { seen.insert($0).inserted }
    _ = try writeBatch { connection throws(TrafficStoreError) in
      try PostgresTrafficStore.write(upserts, deletions: batch.deletions, on: connection)
      return LoggedChange(upserted: upserted, deleted: batch.deletions)
    }
  }

  /// Every stored version of the incident, oldest first (empty when unknown).
  ///
  /// - Throws: `TrafficStoreError.operationFailed` when the database cannot be read.
  /// - Complexity: O(log n + v) for v versions.
  public func history(
    ofOriginalId originalId: String
  ) throws(TrafficStoreError) -> [TrafficIncident] {
    guard !originalId.utf8.contains(0) else { return [] }
    let rows = try session.withLock { session throws(TrafficStoreError) in
      try session.retrying { connection throws(TrafficStoreError) in
        let result = try connection.query(
          "SELECT body FROM incident_versions WHERE original_id = $1 ORDER BY version",
          [originalId])
        return (0..<result.count).map { result.data($0, 0) }
      }
    }
    let coder = StoredIncidentCoder()
    var versions: [TrafficIncident] = []
    for body in rows {
      versions.append(
        try coder.decode(body, originalId: originalId, store: displayName))
    }
    return versions
  }

  /// Deletes, in one transaction, the incidents (with their history) whose end lies before
  /// `cutoff`, and logs and announces the deletion like a batch.
  ///
  /// - Returns: The original ids removed, sorted.
  /// - Throws: `TrafficStoreError.operationFailed`; nothing is removed then.
  /// - Complexity: O(k log n) for k incidents removed (an index on the end time).
  public func purge(endedBefore cutoff: Date) throws(TrafficStoreError) -> [String] {
    let bound = String(StoredIncidentCoder.milliseconds(cutoff))
    let database = displayName
    let change = try writeBatch { connection throws(TrafficStoreError) in
      let rows = try connection.query(
        """
        SELECT original_id, CASE WHEN end_time = $1::bigint THEN body END
        FROM incidents WHERE end_time <= $1::bigint
        """, [bound])
      let coder = StoredIncidentCoder()
      var ended: [String] = []
      for row in 0..<rows.count {
        guard let originalId = rows.text(row, 0) else { continue }
        // Rows at the bound ended in the same millisecond as the cutoff: compare exactly.
        if rows.text(row, 1) != nil {
          let incident = try coder.decode(
            rows.data(row, 1), originalId: originalId, store: database)
          guard let end = incident.endTime, end < cutoff else { continue }
        }
        ended.append(originalId)
      }
      ended.sort()
      if !ended.isEmpty {
        try connection.query(
          "DELETE FROM incidents WHERE original_id = ANY($1::text[])", [PostgresText.array(ended)])
      }
      return LoggedChange(upserted: [], deleted: ended)
    }
    return change.deleted
  }

  // MARK: Reading helpers

  /// The newest change-log sequence visible (or pruned), at least `minimum`.
  static func latestSequence(
    _ connection: PostgresConnection, atLeast minimum: Int64
  ) throws(TrafficStoreError) -> Int64 {
    let rows = try connection.query(
      """
      SELECT greatest($1::bigint, (SELECT max(sequence) FROM incident_changes),
        (SELECT max(through) FROM incident_changes_pruned))
      """, [String(minimum)])
    return rows.integer(0, 0) ?? minimum
  }

  /// `(original_id, body)` pairs of a result whose first two columns are those.
  static func bodies(_ rows: PostgresRows) -> [(originalId: String, body: Data)] {
    (0..<rows.count).map { (rows.text($0, 0) ?? "", rows.data($0, 1)) }
  }

  // MARK: Package API (the listener glue, tests, benchmarks)

  /// Runs `body` on the reader session (connected on first use), retrying a read once
  /// when its connection was lost.
  func withReader<Result: Sendable>(
    _ body: @Sendable (PostgresConnection) throws(TrafficStoreError) -> Result
  ) throws(TrafficStoreError) -> Result {
    try readerSession.withLock { reader throws(TrafficStoreError) in try reader.retrying(body) }
  }

  /// Runs `body` on the store's session under its lock.
  func withSession<Result: Sendable>(
    _ body: (PostgresSession) throws(TrafficStoreError) -> Result
  ) throws(TrafficStoreError) -> Result {
    try session.withLock { session throws(TrafficStoreError) in try body(session) }
  }

  /// The first column of every row of `sql` (run without parameters), as text: for tests
  /// and diagnostics.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` with the server's message.
  package func texts(_ sql: String) throws(TrafficStoreError) -> [String?] {
    try withSession { session throws(TrafficStoreError) in
      let rows = try session.retrying { connection throws(TrafficStoreError) in
        try connection.execute(sql)
      }
      return (0..<rows.count).map { rows.text($0, 0) }
    }
  }

  /// The process id of the server backend of the store's connection (tests terminate it).
  package func backendProcessID() throws(TrafficStoreError) -> Int32 {
    try withSession { session throws(TrafficStoreError) in try session.connected().backendProcessID
    }
  }

  /// The schema version of the database.
  package func schemaVersion() throws(TrafficStoreError) -> Int {
    Int(try texts("SELECT max(version) FROM schema_migrations").first??.description ?? "0") ?? 0
  }

  /// The newest schema version this build writes.
  package static var latestSchemaVersion: Int { PostgresSchema.latestVersion }
}

/// Statements on a connection of its own, without a store's schema: tests use it to prepare
/// databases (schemas, roles) and to terminate backends.
package enum PostgresAdmin {
  /// Runs `sql` with text parameters on a new connection to `url`.
  ///
  /// - Returns: The first column of every row, as text.
  /// - Throws: `TrafficStoreError` with the server's message.
  @discardableResult
  package static func run(
    _ sql: String, _ parameters: [String?] = [], url: String
  ) throws(TrafficStoreError) -> [String?] {
    let connection = try PostgresConnection(target: PostgresTarget(url))
    let rows =
      parameters.isEmpty ? try connection.execute(sql) : try connection.query(sql, parameters)
    return (0..<rows.count).map { rows.text($0, 0) }
  }
}
