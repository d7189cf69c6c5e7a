import CLibPQ
import Foundation
import Traffic

/// One libpq connection with its prepared statements.
///
/// Not thread-safe by itself: its owner uses it from one thread at a time (the store under a
/// `Mutex`, the listener on its own thread). Every value is sent as a text parameter of a
/// prepared statement, never spliced into SQL. Errors are `TrafficStoreError`s carrying
/// libpq's message with the password removed; after one, `isBroken` says whether the
/// connection itself was lost (and must be replaced) or only the statement failed.
final class PostgresConnection {
  /// Where the connection goes.
  let target: PostgresTarget
  private let handle: OpaquePointer
  /// Names of the statements prepared on this connection, by SQL text.
  private var statements: [String: String] = [:]

  /// Connects, blocking until the server accepts or refuses.
  ///
  /// - Throws: `TrafficStoreError.cannotOpen` naming the server (never the password) and
  ///   libpq's reason; during an outage, within half a second of the last failed attempt, the
  ///   outage's reason without an attempt (`PostgresConnectionHealth.refusal()`).
  init(target: PostgresTarget) throws(TrafficStoreError) {
    self.target = target
    // During an outage: one attempt each half second for the store, the others fail at once.
    if let refusal = target.health?.refusal() { throw refusal }
    guard let handle = PostgresConnection.connect(target.connectionString) else {
      throw .cannotOpen("\(target.displayName): libpq is out of memory")
    }
    guard PQstatus(handle) == CONNECTION_OK else {
      let reason = String(cString: PQerrorMessage(handle)).trimmed
      PQfinish(handle)
      let error = TrafficStoreError.cannotOpen("\(target.displayName): \(target.redacted(reason))")
      target.health?.connectionFailed(error)
      throw error
    }
    self.handle = handle
    target.health?.connected()
    // Notices ("relation already exists, skipping") would go to stderr otherwise.
    PQsetNoticeProcessor(handle, { _, _ in }, nil)
  }

  deinit { PQfinish(handle) }

  /// How long a connection attempt may take, seconds, unless the connection string (or
  /// `PGCONNECT_TIMEOUT`) says: libpq's own default waits for ever on a server that accepts
  /// the connection and never answers.
  static let defaultConnectTimeoutInSeconds = 10

  /// `PQconnectdb` with `defaultConnectTimeoutInSeconds` under the connection string's
  /// own settings (which, later in the list, win).
  private static func connect(_ connectionString: String) -> OpaquePointer? {
    guard ProcessInfo.processInfo.environment["PGCONNECT_TIMEOUT"] == nil else {
      return PQconnectdb(connectionString)
    }
    let pairs = [
      ("connect_timeout", String(defaultConnectTimeoutInSeconds)), ("dbname", connectionString),
    ]
    let keywords = pairs.map { strdup($0.0) }
    let values = pairs.map { strdup($0.1) }
    defer { (keywords + values).forEach { free($0) } }
    let keywordList = keywords.map { UnsafePointer($0) } + [nil]
    let valueList = values.map { UnsafePointer($0) } + [nil]
    return PQconnectdbParams(keywordList, valueList, 1)
  }

  /// Whether the connection to the server is lost.
  var isBroken: Bool { PQstatus(handle) == CONNECTION_BAD }

  /// The process id of the server backend serving this connection.
  var backendProcessID: Int32 { PQbackendPID(handle) }

  /// The socket, for waiting on notifications.
  var socket: Int32 { PQsocket(handle) }

  private func failure(_ result: OpaquePointer?, doing action: String) -> TrafficStoreError {
    let message = result.map { String(cString: PQresultErrorMessage($0)) } ?? ""
    let reason = message.isEmpty ? String(cString: PQerrorMessage(handle)) : message
    return .operationFailed(
      "\(action) on \(target.displayName): \(target.redacted(reason.trimmed))")
  }

  /// Runs a statement with text parameters (`nil` is SQL NULL), preparing it the first time.
  ///
  /// - Returns: The rows (empty for a command).
  /// - Throws: `TrafficStoreError.operationFailed` with the server's message, or
  ///   `.invalidBatch` for a value holding a NUL character (which PostgreSQL text cannot).
  @discardableResult
  func query(
    _ sql: String, _ parameters: [String?] = []
  ) throws(TrafficStoreError)
    -> PostgresRows
  {
    let name: String
    if let prepared = statements[sql] {
      name = prepared
    } else {
      name = "traffic_\(statements.count)"
      let result = PQprepare(handle, name, sql, 0, nil)
      defer { PQclear(result) }
      guard PQresultStatus(result) == PGRES_COMMAND_OK else {
        throw failure(result, doing: "preparing \"\(sql)\"")
      }
      statements[sql] = name
    }
    var buffers: [UnsafeMutablePointer<CChar>?] = []
    buffers.reserveCapacity(parameters.count)
    defer { for buffer in buffers { free(buffer) } }
    for value in parameters {
      let buffer = value.map { strdup($0) } ?? nil
      buffers.append(buffer)
      // The copy ends at the first NUL: a shorter copy means the text holds one.
      if let value, let buffer, strlen(buffer) != value.utf8.count {
        throw .invalidBatch("a text value holds a NUL character, which PostgreSQL cannot store")
      }
    }
    let values: [UnsafePointer<CChar>?] = buffers.map { $0.map { UnsafePointer($0) } }
    let result = PQexecPrepared(handle, name, Int32(values.count), values, nil, nil, 0)
    return try rows(of: result, doing: "running \"\(sql)\"")
  }

  /// Runs SQL without parameters (transaction control, schema scripts of several
  /// statements).
  ///
  /// - Throws: `TrafficStoreError.operationFailed` with the server's message.
  @discardableResult
  func execute(_ sql: String) throws(TrafficStoreError) -> PostgresRows {
    // The statement's first line names it (a migration's is `CREATE EXTENSION ...`).
    let first = sql.split(whereSeparator: \.isNewline).first.map(String.init)?.trimmed ?? ""
    return try rows(of: PQexec(handle, sql), doing: "running \"\(first.prefix(80))\"")
  }

  private func rows(
    of result: OpaquePointer?, doing action: String
  ) throws(TrafficStoreError)
    -> PostgresRows
  {
    let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
    guard let result, status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
      let error = failure(result, doing: action)
      PQclear(result)
      throw error
    }
    return PostgresRows(PostgresResult(result))
  }

  /// Runs `body` in a transaction (`BEGIN`, then `COMMIT`, or `ROLLBACK` when `body` throws).
  ///
  /// `committing` is called just before `COMMIT` is sent: from then on, a lost connection
  /// leaves the outcome unknown.
  func transaction<Result>(
    _ begin: String = "BEGIN", committing: () -> Void = {},
    _ body: () throws(TrafficStoreError) -> Result
  ) throws(TrafficStoreError) -> Result {
    try execute(begin)
    let result: Result
    do {
      result = try body()
    } catch {
      if !isBroken { _ = try? execute("ROLLBACK") }
      throw error
    }
    committing()
    try execute("COMMIT")
    return result
  }

  /// Reads what arrived on the socket without blocking.
  ///
  /// - Returns: `false` when the connection is lost.
  func consumeInput() -> Bool { PQconsumeInput(handle) == 1 && !isBroken }

  /// The channels and payloads of the notifications received so far, oldest first.
  func takeNotifications() -> [(channel: String, payload: String)] {
    var notifications: [(channel: String, payload: String)] = []
    while let notification = PQnotifies(handle) {
      notifications.append(
        (String(cString: notification.pointee.relname), String(cString: notification.pointee.extra))
      )
      PQfreemem(notification)
    }
    return notifications
  }
}

/// A libpq result, cleared when released.
final class PostgresResult {
  let pointer: OpaquePointer
  init(_ pointer: OpaquePointer) { self.pointer = pointer }
  deinit { PQclear(pointer) }
}

/// The rows of a result, read as text.
struct PostgresRows {
  private let result: PostgresResult

  init(_ result: PostgresResult) { self.result = result }

  /// The number of rows.
  var count: Int { Int(PQntuples(result.pointer)) }

  /// The value at `row`, `column` as text; `nil` for NULL.
  func text(_ row: Int, _ column: Int) -> String? {
    let (row, column) = (Int32(row), Int32(column))
    guard PQgetisnull(result.pointer, row, column) == 0 else { return nil }
    return String(cString: PQgetvalue(result.pointer, row, column))
  }

  /// The value's bytes (a JSON body), without a round trip through `String`.
  func data(_ row: Int, _ column: Int) -> Data {
    let (row, column) = (Int32(row), Int32(column))
    guard let bytes = PQgetvalue(result.pointer, row, column) else { return Data() }
    return Data(bytes: bytes, count: Int(PQgetlength(result.pointer, row, column)))
  }

  /// The value as an integer; `nil` for NULL or text that is not one.
  func integer(_ row: Int, _ column: Int) -> Int64? { text(row, column).flatMap { Int64($0) } }
}

/// Text forms of parameters: PostgreSQL array literals for the `unnest` of a batch.
enum PostgresText {
  /// `{"a","b\"c"}`: every element quoted, `"` and `\` escaped; `nil` is an unquoted NULL.
  ///
  /// - Complexity: O(total bytes), working on UTF-8 bytes.
  static func array<Element: Collection<UInt8>>(utf8 elements: [Element?]) -> String {
    var literal: [UInt8] = [UInt8(ascii: "{")]
    literal.reserveCapacity(elements.reduce(2) { $0 + ($1?.count ?? 4) + 3 })
    for (index, element) in elements.enumerated() {
      if index > 0 { literal.append(UInt8(ascii: ",")) }
      guard let element else {
        literal += Array("NULL".utf8)
        continue
      }
      literal.append(UInt8(ascii: "\""))
      // On the element's contiguous bytes where it has them (Data, String's UTF-8): runs
      // without a quote or backslash are copied whole.
      let copied = element.withContiguousStorageIfAvailable { bytes in
        var runStart = 0
        for (offset, byte) in bytes.enumerated()
        where byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
          literal.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<offset]))
          literal.append(UInt8(ascii: "\\"))
          runStart = offset
        }
        literal.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
      }
      if copied == nil {
        for byte in element {
          if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            literal.append(UInt8(ascii: "\\"))
          }
          literal.append(byte)
        }
      }
      literal.append(UInt8(ascii: "\""))
    }
    literal.append(UInt8(ascii: "}"))
    return String(decoding: literal, as: UTF8.self)
  }

  /// An array literal of strings (`nil` as NULL).
  static func array(_ elements: [String?]) -> String {
    array(utf8: elements.map { $0?.utf8 })
  }

  /// An array literal of strings.
  static func array(_ elements: [String]) -> String { array(utf8: elements.map { $0.utf8 }) }
}
