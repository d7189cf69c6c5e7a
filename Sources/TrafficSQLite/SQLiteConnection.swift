import CSQLite
import Foundation
import Traffic

/// A value bound to a statement parameter.
enum SQLiteValue: Equatable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  /// UTF-8 text held as bytes (JSON bodies), bound without a round trip through `String`.
  case utf8(Data)
  /// Bytes stored as a BLOB (the road network's chunks, flow state).
  case blob(Data)
}

/// One open SQLite database handle with its cache of prepared statements.
///
/// Not thread-safe by itself: the handle is opened with `SQLITE_OPEN_NOMUTEX`, and its one
/// owner (`SQLiteTrafficStore`) only touches it under a `Mutex`, which is the whole of the
/// serialisation. Every error is reported as a `TrafficStoreError` naming the file.
final class SQLiteConnection {
  /// The database file, as given.
  let path: String
  private let handle: OpaquePointer
  /// Prepared statements by SQL text, kept for the life of the connection.
  private var statements: [String: OpaquePointer] = [:]

  /// Opens the file; read-write, it is created when missing unless `create` is `false`.
  ///
  /// Read-only, nothing is written to the file nor beside it: see
  /// `SQLiteFileAccess.readOnlyName(_:)`. SQLite opens lazily; a file that is not a
  /// database is only detected by the first read, which `SQLiteTrafficStore` does before
  /// anything that could write.
  /// - Throws: `TrafficStoreError.cannotOpen` naming the path.
  init(path: String, readOnly: Bool, create: Bool = true) throws(TrafficStoreError) {
    self.path = path
    var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
    var name = path
    if readOnly {
      flags |= SQLITE_OPEN_READONLY
      let opening = SQLiteFileAccess.readOnlyName(path)
      name = opening.name
      if opening.isURI { flags |= SQLITE_OPEN_URI }
    } else {
      flags |= SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
    }
    var opened: OpaquePointer?
    let code = sqlite3_open_v2(name, &opened, flags, nil)
    guard code == SQLITE_OK, let opened else {
      let message =
        opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
      sqlite3_close_v2(opened)
      if readOnly, let problem = SQLiteFileAccess.readOnlyProblem(path) {
        throw .cannotOpen(problem)
      }
      throw .cannotOpen("\(path): \(message)")
    }
    handle = opened
  }

  deinit {
    for statement in statements.values { sqlite3_finalize(statement) }
    sqlite3_close_v2(handle)
  }

  /// Copies the pages of the write-ahead log into the database file, as far as no reader
  /// still needs them, without waiting for any lock (`SQLITE_CHECKPOINT_PASSIVE`). A
  /// checkpoint that cannot run now is simply left to the next one.
  func checkpointPassively() {
    sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
  }

  /// Copies every page of the write-ahead log into the database file and empties the log
  /// (`SQLITE_CHECKPOINT_TRUNCATE`), waiting (busy timeout) for a writer and for readers
  /// of the log. Returns `false` when it could not finish: another connection runs a
  /// checkpoint (which SQLite never waits for) or the wait ran out; what it copied stays
  /// copied, and the log stays whole.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` for any other failure (a full disk).
  func checkpointCompletely() throws(TrafficStoreError) -> Bool {
    let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
    switch code & 0xFF {
    case SQLITE_OK: return true
    case SQLITE_BUSY, SQLITE_LOCKED: return false
    default: throw failure(code, doing: "checkpointing the write-ahead log")
    }
  }

  /// Waits up to `milliseconds` for another connection's lock before failing with "busy".
  func setBusyTimeout(milliseconds: Int32) {
    sqlite3_busy_timeout(handle, milliseconds)
  }

  /// The error SQLite reported last, as a sentence naming the file and what was being done.
  private func failure(_ code: Int32, doing action: String) -> TrafficStoreError {
    let message = String(cString: sqlite3_errmsg(handle))
    return .operationFailed("\(action) in \(path): \(message) (SQLite code \(code))")
  }

  /// The primary result code of the last failure (`SQLITE_NOTADB`, `SQLITE_FULL`...).
  var lastErrorCode: Int32 { sqlite3_errcode(handle) & 0xFF }

  private func statement(_ sql: String) throws(TrafficStoreError) -> OpaquePointer {
    if let cached = statements[sql] { return cached }
    var prepared: OpaquePointer?
    let code = sqlite3_prepare_v3(
      handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
    guard code == SQLITE_OK, let prepared else {
      sqlite3_finalize(prepared)
      throw failure(code, doing: "preparing \"\(sql)\"")
    }
    statements[sql] = prepared
    return prepared
  }

  private func bind(
    _ values: [SQLiteValue], to statement: OpaquePointer, sql: String
  ) throws(TrafficStoreError) {
    for (offset, value) in values.enumerated() {
      let index = Int32(offset + 1)
      let code: Int32
      switch value {
      case .null: code = sqlite3_bind_null(statement, index)
      case .integer(let number): code = sqlite3_bind_int64(statement, index, number)
      case .real(let number): code = sqlite3_bind_double(statement, index, number)
      case .text(let string):
        code = string.withCString {
          traffic_sqlite3_bind_text_transient(statement, index, $0, Int32(string.utf8.count))
        }
      case .utf8(let bytes):
        code = bytes.withUnsafeBytes { raw in
          // An empty buffer has no address, and a null pointer would bind NULL.
          let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self)
          return base.map {
            traffic_sqlite3_bind_text_transient(statement, index, $0, Int32(raw.count))
          } ?? traffic_sqlite3_bind_text_transient(statement, index, "", 0)
        }
      case .blob(let bytes):
        guard bytes.count <= Int(Int32.max) else {
          throw .operationFailed("a value of \(bytes.count) bytes is too large for \(path)")
        }
        code = bytes.withUnsafeBytes { raw in
          // An empty buffer has no address, and a null pointer would bind NULL.
          raw.baseAddress.map {
            traffic_sqlite3_bind_blob_transient(statement, index, $0, Int32(raw.count))
          } ?? sqlite3_bind_zeroblob(statement, index, 0)
        }
      }
      guard code == SQLITE_OK else { throw failure(code, doing: "binding \"\(sql)\"") }
    }
  }

  /// Runs a query, calling `row` for every result row.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` naming the file and the SQLite message,
  ///   or what `row` throws.
  func query(
    _ sql: String, _ values: [SQLiteValue] = [],
    row: (SQLiteRow) throws(TrafficStoreError) -> Void
  ) throws(TrafficStoreError) {
    let prepared = try statement(sql)
    defer {
      sqlite3_reset(prepared)
      sqlite3_clear_bindings(prepared)
    }
    try bind(values, to: prepared, sql: sql)
    while true {
      let code = sqlite3_step(prepared)
      if code == SQLITE_DONE { return }
      guard code == SQLITE_ROW else { throw failure(code, doing: "running \"\(sql)\"") }
      try row(SQLiteRow(statement: prepared))
    }
  }

  /// Runs a statement that returns no rows (or whose rows are ignored).
  func run(_ sql: String, _ values: [SQLiteValue] = []) throws(TrafficStoreError) {
    try query(sql, values) { _ throws(TrafficStoreError) in }
  }

  /// The first column of the first row, as an integer (`nil` when there is no row or it is
  /// NULL).
  func integer(_ sql: String, _ values: [SQLiteValue] = []) throws(TrafficStoreError) -> Int64? {
    var result: Int64?
    try query(sql, values) { row throws(TrafficStoreError) in
      if result == nil, !row.isNull(0) { result = row.integer(0) }
    }
    return result
  }

  /// The first column of every row, as text (NULL as `nil`).
  func texts(_ sql: String, _ values: [SQLiteValue] = []) throws(TrafficStoreError) -> [String?] {
    var result: [String?] = []
    try query(sql, values) { row throws(TrafficStoreError) in
      result.append(row.isNull(0) ? nil : row.text(0))
    }
    return result
  }

  /// Runs several `;`-separated statements without caching them (schema scripts).
  func execute(script: String) throws(TrafficStoreError) {
    var message: UnsafeMutablePointer<CChar>?
    let code = sqlite3_exec(handle, script, nil, nil, &message)
    guard code == SQLITE_OK else {
      let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
      sqlite3_free(message)
      throw .operationFailed("running a schema script in \(path): \(text) (SQLite code \(code))")
    }
  }

  /// The rowid of the last row inserted through this connection.
  var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

  /// Runs `body` in one write transaction: `BEGIN IMMEDIATE`, then `COMMIT`, or `ROLLBACK`
  /// when `body` or the commit throws, so that nothing of a failed body stays.
  ///
  /// `IMMEDIATE` takes the write lock up front, so a second writer waits (busy timeout)
  /// at the start instead of failing half-way through.
  func transaction<Result>(
    _ body: () throws(TrafficStoreError) -> Result
  ) throws(TrafficStoreError) -> Result {
    try run("BEGIN IMMEDIATE")
    do {
      let result = try body()
      try run("COMMIT")
      return result
    } catch {
      // A failed COMMIT may already have rolled back; SQLite then reports "no transaction",
      // which is harmless and not the error worth reporting.
      if sqlite3_get_autocommit(handle) == 0 { try? run("ROLLBACK") }
      throw error
    }
  }
}

/// The current row of a running query; valid only inside the `row` closure.
struct SQLiteRow {
  fileprivate let statement: OpaquePointer

  func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

  func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

  func real(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }

  func text(_ column: Int32) -> String {
    guard let bytes = sqlite3_column_text(statement, column) else { return "" }
    let count = Int(sqlite3_column_bytes(statement, column))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
  }

  /// The column's bytes (text or blob) copied into an array.
  func bytes(_ column: Int32) -> [UInt8] {
    guard let bytes = sqlite3_column_blob(statement, column) else { return [] }
    let count = Int(sqlite3_column_bytes(statement, column))
    return [UInt8](UnsafeRawBufferPointer(start: bytes, count: count))
  }

  /// The column's bytes (text or blob) copied out.
  func data(_ column: Int32) -> Data {
    guard let bytes = sqlite3_column_blob(statement, column) else { return Data() }
    return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, column)))
  }
}

/// Raw access to an SQLite file without the store's checks or migrations: tests use it to
/// write files of an older schema, of another application, or of a future version.
package enum SQLiteScript {
  /// Runs `script` (statements separated by `;`) on the file at `path`, creating it.
  ///
  /// - Throws: `TrafficStoreError` with SQLite's message.
  package static func run(_ script: String, inFileAt path: String) throws(TrafficStoreError) {
    let connection = try SQLiteConnection(path: path, readOnly: false)
    try connection.execute(script: script)
  }

  /// The first column of every row of `sql` on the file at `path`, as text.
  ///
  /// - Throws: `TrafficStoreError` with SQLite's message.
  package static func texts(
    _ sql: String, inFileAt path: String
  ) throws(TrafficStoreError)
    -> [String?]
  {
    try SQLiteConnection(path: path, readOnly: true).texts(sql)
  }
}
