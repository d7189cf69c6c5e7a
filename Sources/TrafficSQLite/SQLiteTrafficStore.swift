import Dispatch
import Foundation
import Synchronization
import Traffic

/// The embedded durable `TrafficStore`: one SQLite file, the default behind `TrafficEngine()`.
///
/// The file is in WAL mode with foreign keys on and a busy timeout, so several processes
/// may open it (one writes at a time). Every `apply(_:)` and `purge(endedBefore:)` is one
/// transaction: after a crash — even `kill -9` in the middle of a large batch — the file
/// opens, passes `PRAGMA integrity_check`, and holds the whole batch or none of it.
///
/// Durability: with `.processCrash` (the default) SQLite runs `synchronous = NORMAL`, which
/// in WAL mode makes every committed batch survive the death of the process, and keeps the
/// file consistent after a power loss, which may however take back the last batches committed
/// before it (they were in the OS cache). `.powerLoss` runs `synchronous = FULL`: every
/// commit waits for the disk, so nothing acknowledged is lost even then, at the cost of an
/// fsync per batch. Feeds are re-fetched on start-up anyway, so the default favours speed.
///
/// The schema is versioned (`PRAGMA user_version`) and an older file is upgraded in place on
/// opening; see `SQLiteSchema`. Incidents are stored as JSON bodies beside indexed columns
/// (type, impact, times) and an R*Tree of their bounding boxes.
///
/// The connection is used under a `Mutex`, so the store is `Sendable` and calls from several
/// threads are serialised.
public final class SQLiteTrafficStore: TrafficStore {
  /// How the file is opened.
  public enum Access: Sendable, Hashable {
    /// Read and write, creating the file (not its directory) when missing.
    case readWrite
    /// Read only: every write fails with `TrafficStoreError.operationFailed` and the file is
    /// never changed. The file must exist and be of the current schema.
    case readOnly
  }

  /// What a committed batch survives.
  public enum Durability: Sendable, Hashable {
    /// The crash of the process (`synchronous = NORMAL` in WAL mode); the default.
    case processCrash
    /// A power loss or OS crash as well (`synchronous = FULL`): an fsync per commit.
    case powerLoss
  }

  /// The database file, as given.
  public let path: String
  /// How the file was opened.
  public let access: Access
  let connection: Mutex<SQLiteConnection>
  /// A second connection for the reads an engine makes while it loads its snapshot on
  /// `connection` (`IndexedTrafficStore`); opened on first use.
  let readerConnection = Mutex<SQLiteConnection?>(nil)
  /// Checkpoints the write-ahead log after writes, off the writing thread (`nil` when
  /// read-only).
  let checkpointer: WALCheckpointer?
  /// The fewest upserts of a batch into an empty store written as a bulk load.
  let bulkLoadUpserts: Int
  /// What was last written of the flow state; only touched under `connection`'s lock.
  let flowWrites = Mutex(FlowWrites())

  /// The file used when none is given: `$TRAFFIC_DB` when set and not empty, else
  /// `./traffic.sqlite` in the current directory.
  public static var defaultPath: String {
    if let path = ProcessInfo.processInfo.environment["TRAFFIC_DB"], !path.isEmpty {
      return path
    }
    return "./traffic.sqlite"
  }

  /// The page cache of the store's connection, KiB (SQLite's default is 2,000).
  static let pageCacheInKiB = 65_536

  /// How long a write waits for another process's write lock before failing, milliseconds.
  static let busyTimeoutInMilliseconds: Int32 = 5_000

  /// Opens the store in `path`, creating the file or upgrading its schema as needed.
  ///
  /// Nothing is written to a file that is not a traffic store: a file that is not an SQLite
  /// database, or an SQLite database of another application, is refused before any write.
  /// Read-only, nothing is written to the file nor beside it, so that a store in a
  /// directory this process cannot write (a backup, another user's store) is read.
  /// - Parameters:
  ///   - path: The database file; `defaultPath` by default.
  ///   - access: `.readWrite` (default) or `.readOnly`.
  ///   - durability: What a committed batch survives; `.processCrash` by default.
  ///   - creating: Whether a file that holds no store yet — a missing or empty file, or an
  ///     SQLite database without tables — is made one (the default, read-write only);
  ///     when `false` it is refused with `TrafficStoreError.cannotOpen` and left as it is.
  /// - Throws: `TrafficStoreError.cannotOpen` naming the path when the file cannot be opened,
  ///   is not an SQLite database, belongs to another application or (not `creating`)
  ///   holds no store; `.incompatibleSchema` when the file was written by a newer version of
  ///   this library (or needs an upgrade but is opened read-only); `.operationFailed` when
  ///   an upgrade fails (the file keeps its previous version).
  public convenience init(
    path: String = SQLiteTrafficStore.defaultPath, access: Access = .readWrite,
    durability: Durability = .processCrash, creating: Bool = true
  ) throws(TrafficStoreError) {
    try self.init(
      path: path, access: access, durability: durability,
      bulkLoadUpserts: SQLiteTrafficStore.defaultBulkLoadUpserts, creating: creating)
  }

  /// ``init(path:access:durability:creating:)`` with the fewest upserts of a batch into an
  /// empty store that are written as a bulk load (tests make it small).
  package init(
    path: String, access: Access, durability: Durability, bulkLoadUpserts: Int,
    creating: Bool = true
  ) throws(TrafficStoreError) {
    self.path = path
    self.access = access
    self.bulkLoadUpserts = bulkLoadUpserts
    let creates = creating && access == .readWrite
    if !creates, !path.isEmpty, path != ":memory:", !path.hasPrefix("file:"),
      !SQLiteFileAccess.exists(path)
    {
      throw .cannotOpen("no store at \(path): the file does not exist")
    }
    let connection = try SQLiteConnection(
      path: path, readOnly: access == .readOnly, create: creates)
    connection.setBusyTimeout(milliseconds: SQLiteTrafficStore.busyTimeoutInMilliseconds)
    try SQLiteTrafficStore.prepare(
      connection, access: access, durability: durability, creating: creates)
    self.connection = Mutex(connection)
    checkpointer = access == .readWrite ? WALCheckpointer(path: path) : nil
  }

  /// Checks what the file is, sets the connection up and migrates the schema.
  private static func prepare(
    _ connection: SQLiteConnection, access: Access, durability: Durability, creating: Bool
  ) throws(TrafficStoreError) {
    let path = connection.path
    // The first read: fails on a file that is not a database, before anything is written.
    let version: Int64, application: Int64, objects: Int64
    do {
      version = try connection.integer("PRAGMA user_version") ?? 0
      application = try connection.integer("PRAGMA application_id") ?? 0
      objects = try connection.integer("SELECT count(*) FROM sqlite_schema") ?? 0
    } catch {
      if access == .readOnly, let problem = SQLiteFileAccess.readOnlyProblem(path) {
        throw .cannotOpen(problem)
      }
      // A file of something else (a feed given as --db, say) is the common case: say so
      // plainly; SQLite's own words only for a damaged database.
      let file = FileHandle(forReadingAtPath: path)
      let header = try? file?.read(upToCount: 16)
      try? file?.close()
      if let header, !header.isEmpty, header != Data("SQLite format 3\0".utf8) {
        throw .cannotOpen("\(path) is not a traffic store: it is not an SQLite database")
      }
      throw .cannotOpen("\(path) is not a readable SQLite database (\(error))")
    }
    if application != SQLiteSchema.applicationID {
      if application != 0 || objects > 0 {
        let what = application == 0 ? "it holds tables of its own" : "application id \(application)"
        throw .cannotOpen(
          "\(path) is an SQLite database of another application (\(what)), not a traffic store")
      }
      // An SQLite database without tables (or an empty file): one to create a store in.
      guard creating else { throw .cannotOpen(noStoreDetail(path)) }
    }
    guard version <= SQLiteSchema.latestVersion else {
      throw .incompatibleSchema(
        "\(path) has schema version \(version); this version of the library reads up to "
          + "\(SQLiteSchema.latestVersion)")
    }
    try connection.run("PRAGMA foreign_keys = ON")
    // A write touches pages all over a large file (each incident's row, its history, the
    // R*Tree); SQLite's default 2 MB page cache read most of them again for every batch.
    try connection.run("PRAGMA cache_size = -\(pageCacheInKiB)")
    // Statement journals and sorts in memory, not in temporary files.
    try connection.run("PRAGMA temp_store = MEMORY")
    if access == .readOnly {
      guard version == SQLiteSchema.latestVersion else {
        throw .incompatibleSchema(
          "\(path) has schema version \(version) and needs upgrading to "
            + "\(SQLiteSchema.latestVersion), which a read-only store cannot do")
      }
      return
    }
    let mode = try connection.texts("PRAGMA journal_mode = WAL").first ?? nil
    guard mode == "wal" else {
      throw .cannotOpen("\(path) cannot be switched to WAL mode (journal mode \(mode ?? "?"))")
    }
    try connection.run("PRAGMA synchronous = \(durability == .powerLoss ? "FULL" : "NORMAL")")
    try connection.run("PRAGMA wal_autocheckpoint = \(WALCheckpointer.backstopPages)")
    try SQLiteSchema.migrate(connection)
  }

  // MARK: TrafficStore

  /// The latest version of every incident, in the order they were first stored.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` when the file cannot be read or a stored
  ///   body is damaged.
  /// - Complexity: O(n) rows decoded.
  public func currentIncidents() throws(TrafficStoreError) -> [TrafficIncident] {
    try currentIncidents(chunkRows: Self.loadingChunkRows)
  }

  /// `currentIncidents()` reading `chunkRows` rows at a time (tests use small chunks).
  func currentIncidents(chunkRows: Int) throws(TrafficStoreError) -> [TrafficIncident] {
    // One read transaction (one consistent version of the file, whatever other processes
    // write meanwhile), read in chunks of rows that are decoded on every core and dropped:
    // memory holds one chunk of bodies beside the incidents, not every body at once.
    try connection.withLock { connection throws(TrafficStoreError) in
      try connection.run("BEGIN")
      defer { try? connection.run("COMMIT") }
      var incidents: [TrafficIncident] = []
      var lastKey = Int64.min
      while true {
        var rows: [(originalId: String, body: Data)] = []
        rows.reserveCapacity(chunkRows)
        try connection.query(
          "SELECT key, original_id, body FROM incidents WHERE key > ? ORDER BY key LIMIT ?",
          [.integer(lastKey), .integer(Int64(chunkRows))]
        ) { row throws(TrafficStoreError) in
          lastKey = row.integer(0)
          rows.append((row.text(1), row.data(2)))
        }
        incidents += try StoredIncidentCoder.decodeConcurrently(rows, store: path)
        if rows.count < chunkRows { return incidents }
      }
    }
  }

  /// Rows read at a time by `currentIncidents()`.
  static let loadingChunkRows = 32_768

  /// Every stored version of the incident, oldest first (empty when unknown).
  ///
  /// - Throws: `TrafficStoreError.operationFailed` when the file cannot be read.
  /// - Complexity: O(log n + v) for v versions.
  public func history(
    ofOriginalId originalId: String
  ) throws(TrafficStoreError) -> [TrafficIncident] {
    try connection.withLock { connection throws(TrafficStoreError) in
      let coder = StoredIncidentCoder()
      var versions: [TrafficIncident] = []
      try connection.query(
        """
        WITH RECURSIVE chain(depth, older, body) AS (
          SELECT 0, history, body FROM incidents WHERE original_id = ?
          UNION ALL
          SELECT c.depth + 1, h.previous, h.body FROM incident_history h
          JOIN chain c ON h.ref = c.older)
        SELECT body FROM chain ORDER BY depth DESC
        """, [.text(originalId)]
      ) { row throws(TrafficStoreError) in
        versions.append(
          try coder.decode(row.data(0), originalId: originalId, store: connection.path))
      }
      return versions
    }
  }

  /// Deletes, in one transaction, the incidents (with their history) whose end lies before
  /// `cutoff`.
  ///
  /// - Returns: The original ids removed, sorted.
  /// - Throws: `TrafficStoreError.operationFailed`; nothing is removed then.
  /// - Complexity: O(k log n) for k incidents removed (an index on the end time).
  public func purge(endedBefore cutoff: Date) throws(TrafficStoreError) -> [String] {
    try checkWritable()
    let bound = StoredIncidentCoder.milliseconds(cutoff)
    let purged = try connection.withLock { connection throws(TrafficStoreError) in
      try connection.transaction { () throws(TrafficStoreError) -> [String] in
        let coder = StoredIncidentCoder()
        var ended: [(key: Int64, originalId: String, boxes: Int64, history: Int64?)] = []
        try connection.query(
          """
          SELECT key, original_id, box_count, end_time, body, history FROM incidents
          WHERE end_time <= ?
          """,
          [.integer(bound)]
        ) { row throws(TrafficStoreError) in
          let originalId = row.text(1)
          // Rows at the bound ended in the same millisecond as the cutoff: compare exactly.
          if row.integer(3) == bound {
            let incident = try coder.decode(
              row.data(4), originalId: originalId, store: connection.path)
            guard let end = incident.endTime, end < cutoff else { return }
          }
          ended.append(
            (row.integer(0), originalId, row.integer(2), row.isNull(5) ? nil : row.integer(5)))
        }
        for incident in ended {
          try IncidentBoxes.delete(key: incident.key, count: incident.boxes, from: connection)
          try Self.deleteHistory(from: incident.history, in: connection)
          try connection.run("DELETE FROM incidents WHERE key = ?", [.integer(incident.key)])
        }
        return ended.map(\.originalId).sorted()
      }
    }
    checkpointer?.schedule()
    return purged
  }

  /// Copies every committed write from the write-ahead log into the database file and
  /// empties the log, so that the file alone holds them: a copy of the `.sqlite` file
  /// without its `-wal` loses nothing. A process that writes and then ends calls it (the
  /// `traffic` imports); an engine that stays open need not, its checkpoints run after
  /// each write.
  ///
  /// The background checkpoint of the last write, which may still be copying it, is waited
  /// for (SQLite would fail this checkpoint at once while it runs, leaving the file half
  /// copied); readers of other processes are waited for as a writer waits, then again, up
  /// to `checkpointPatience`.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` with SQLite's message, or saying that
  ///   other connections kept the log in use (nothing is lost then: SQLite reads the log
  ///   with the file).
  package func checkpointCompletely() throws(TrafficStoreError) {
    guard access == .readWrite else { return }
    let run = { () throws(TrafficStoreError) in
      try self.connection.withLock { connection throws(TrafficStoreError) in
        let deadline = ContinuousClock.now + Self.checkpointPatience
        while try !connection.checkpointCompletely() {
          guard ContinuousClock.now < deadline else {
            throw .operationFailed(
              "cannot empty the write-ahead log of \(self.path): other connections keep "
                + "using it; what was stored is in \(self.path)-wal, keep it beside the file")
          }
          Thread.sleep(forTimeInterval: 0.02)
        }
      }
    }
    guard let checkpointer else { return try run() }
    try checkpointer.pausing(run)
  }

  /// How long `checkpointCompletely()` tries again while other connections use the log.
  static let checkpointPatience = Duration.seconds(15)

  /// Refuses writes to a read-only store up front with a clear message. (SQLite refuses
  /// them too — the file is opened `SQLITE_OPEN_READONLY` — but would accept a transaction
  /// that happens to change nothing.)
  func checkWritable() throws(TrafficStoreError) {
    guard access == .readWrite else {
      throw .operationFailed("cannot write to \(path): the store is open read-only")
    }
  }

  // MARK: Package API (tests, benchmarks, the feed poller)

  /// Runs `body` on the connection under the store's lock.
  func withConnection<Result: Sendable>(
    _ body: (SQLiteConnection) throws(TrafficStoreError) -> Result
  ) throws(TrafficStoreError) -> Result {
    try connection.withLock { connection throws(TrafficStoreError) in try body(connection) }
  }

  /// What `cannotOpen` says of a file that holds no store, when not creating one: an
  /// empty file, or an SQLite database without tables.
  package static func noStoreDetail(_ path: String) -> String {
    "\(path) holds no traffic store: it is empty, or an SQLite database without tables"
  }

  /// The first column of every row of `sql`, as text (NULL as `nil`): for tests and
  /// diagnostics (`PRAGMA integrity_check`, counts).
  ///
  /// - Throws: `TrafficStoreError.operationFailed` with SQLite's message.
  package func texts(_ sql: String) throws(TrafficStoreError) -> [String?] {
    try withConnection { connection throws(TrafficStoreError) in try connection.texts(sql) }
  }

  /// Runs SQL statements (tests use it to make the file full with `PRAGMA max_page_count`).
  ///
  /// - Throws: `TrafficStoreError.operationFailed` with SQLite's message.
  package func execute(_ sql: String) throws(TrafficStoreError) {
    try withConnection { connection throws(TrafficStoreError) in
      try connection.execute(script: sql)
    }
  }

  /// `PRAGMA integrity_check`: `["ok"]` for a sound file, else the problems found.
  ///
  /// - Complexity: O(size of the file).
  package func integrityCheck() throws(TrafficStoreError) -> [String] {
    try texts("PRAGMA integrity_check").map { $0 ?? "" }
  }

  /// The schema version of the file (`PRAGMA user_version`).
  package func schemaVersion() throws(TrafficStoreError) -> Int {
    try withConnection { connection throws(TrafficStoreError) in
      Int(try connection.integer("PRAGMA user_version") ?? 0)
    }
  }

  /// The newest schema version this build writes.
  package static var latestSchemaVersion: Int { Int(SQLiteSchema.latestVersion) }
}
