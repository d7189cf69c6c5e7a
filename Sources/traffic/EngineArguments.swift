import Foundation
import Roads
import Traffic
import TrafficPostgres
import TrafficSQLite

/// Where a command's engine reads from: `--db PATH` (SQLite, the default `./traffic.sqlite`
/// or `TRAFFIC_DB`), `--postgres URL` (the shared store of several nodes) or `--server URL`.
enum EngineArguments {
  static let options = [
    OptionDefinition("--db", "PATH", "the SQLite store (default: $TRAFFIC_DB or ./traffic.sqlite)"),
    OptionDefinition(
      "--server", "URL", "ask a traffic server (traffic serve, or any HERE v7 service)"),
    OptionDefinition("--api-key", "KEY", "the server's API key"),
    OptionDefinition(
      "--postgres", "URL", "a PostgreSQL store (postgresql://user@host:port/db), as serve's"),
  ]

  /// `--db` alone, for the commands that write to the embedded store.
  static let database = [options[0]]

  /// `--db` and `--postgres`: the stores a command that writes may write to.
  static let stores = [options[0], options[3]]

  /// The database path the arguments (or the environment) name.
  ///
  /// - Throws: `UsageError` for an empty path, `-` (standard input or output elsewhere), a
  ///   directory, or a file that is not a regular file (a device such as /dev/zero, a
  ///   FIFO): none can hold a store.
  static func databasePath(from arguments: inout ArgumentList) throws(UsageError) -> String {
    try checkDatabasePath(try arguments.option("--db") ?? SQLiteTrafficStore.defaultPath)
  }

  /// `path`, unless it cannot hold a store (empty, `-`, a directory, a device or FIFO).
  static func checkDatabasePath(_ path: String) throws(UsageError) -> String {
    if path.isEmpty { throw UsageError("--db expects the path of a store file") }
    // `-` names standard input or output wherever a file is read or written once; a store
    // is a file opened again and again, and would be made as a file named `-`.
    if path == "-" {
      throw UsageError(
        "a store cannot be standard input or output (-); name its file with --db or TRAFFIC_DB")
    }
    switch FileArguments.kind(path) {
    case .directory:
      throw UsageError("\(path) is a directory, not a swift-traffic store; name a file")
    case .other:
      throw UsageError("\(path) is not a regular file, so it cannot hold a swift-traffic store")
    case .regular, .missing:
      return path
    }
  }

  /// Fails unless a store file exists at `path`: commands that read (or need what an
  /// earlier import stored) never create a store by mistake, say for a typo in `--db`,
  /// nor write one into an empty file.
  static func requireStore(at path: String) throws(UsageError) {
    var status = stat()
    guard stat(path, &status) == 0 else {
      throw UsageError(
        "no store at \(path); import into it first (traffic import FILE, traffic network "
          + "import FILE) or name another with --db or TRAFFIC_DB")
    }
    guard status.st_size > 0 else {
      throw UsageError(
        "\(path) is empty, not a swift-traffic store; import into it first (traffic import "
          + "FILE, traffic network import FILE) or name another with --db or TRAFFIC_DB")
    }
  }

  /// How a command uses the SQLite store it names.
  enum StoreUse {
    /// Reads it: the store must exist, and is opened read-only when this process cannot
    /// write it (the file or its directory), never changed then.
    case reading
    /// Writes into a store an earlier import made (probes, typical speeds).
    case updating
    /// Writes into it, making the store when the file is missing, empty or an SQLite
    /// database without tables (the imports, serve).
    case creating
  }

  /// Fails unless this process can write the store at `path` (or create it there).
  static func requireWritable(_ path: String) throws(UsageError) {
    if let problem = SQLiteFileAccess.writeProblem(at: path) { throw UsageError(problem) }
  }

  /// Opens the SQLite store at `path` for `use`.
  ///
  /// - Throws: `UsageError` naming the file: no store there (missing, empty, an SQLite
  ///   database without one), not a store, a store this process cannot write when `use`
  ///   writes, or one it cannot read.
  static func sqliteStore(
    at path: String, for use: StoreUse
  ) throws(UsageError)
    -> SQLiteTrafficStore
  {
    if use != .creating { try requireStore(at: path) }
    if use != .reading { try requireWritable(path) }
    let access: SQLiteTrafficStore.Access =
      use == .reading && !SQLiteFileAccess.isWritable(path) ? .readOnly : .readWrite
    do {
      return try SQLiteTrafficStore(path: path, access: access, creating: use == .creating)
    } catch .cannotOpen(let detail) {
      guard detail == SQLiteTrafficStore.noStoreDetail(path) else { throw UsageError(detail) }
      throw UsageError(
        "\(path) is an SQLite database without a swift-traffic store in it; import into it "
          + "first (traffic import FILE, traffic network import FILE) or name another with "
          + "--db or TRAFFIC_DB")
    } catch {
      throw UsageError("\(path): \(error)")
    }
  }

  /// An engine on the SQLite store at `path`, opened for `use`, with `network` or the
  /// network the store holds (and its flow state).
  ///
  /// - Throws: `UsageError` as `sqliteStore(at:for:)`, or naming the file and what could not
  ///   be read.
  static func sqliteEngine(
    at path: String, for use: StoreUse, network: RoadNetwork? = nil
  ) throws(UsageError) -> TrafficEngine {
    let store = try sqliteStore(at: path, for: use)
    do {
      guard let network else { return try TrafficEngine(sqliteStore: store) }
      return try TrafficEngine(store: store, network: network)
    } catch TrafficEngineError.storeUnavailable(.cannotOpen(let detail)) {
      throw UsageError(detail)
    } catch {
      throw UsageError("\(path): \(error)")
    }
  }

  /// Ends a command that wrote into an SQLite store: everything it committed is copied
  /// from the write-ahead log into the store file (`SQLiteTrafficStore
  /// .checkpointCompletely`), so that the file alone holds it, as after the engine closes.
  /// Nothing is lost when that fails (other processes keep reading the log, a full disk):
  /// SQLite reads the log on the next opening; the command says so on standard error.
  static func finishWriting(_ engine: TrafficEngine, command: String, console: Console) {
    do { try (engine.store as? SQLiteTrafficStore)?.checkpointCompletely() } catch {
      guard case .operationFailed(let detail) = error else {
        return console.error("traffic \(command): \(error)")
      }
      console.error("traffic \(command): \(detail)")
    }
  }

  /// Opens the engine the arguments name.
  ///
  /// - Parameter creating: Whether a missing SQLite store is created (commands that write
  ///   into it); otherwise it is "no store at PATH".
  /// - Throws: `UsageError` when the store cannot be opened (a bad path, not a traffic
  ///   database, no store there), since that is the user's input.
  static func open(
    _ arguments: inout ArgumentList, network: RoadNetwork? = nil, creating: Bool = false
  )
    throws(UsageError) -> TrafficEngine
  {
    // A command that writes its store (`import`) takes no server.
    let key = arguments.takes("--api-key") ? try arguments.option("--api-key") : nil
    if arguments.takes("--server"), let server = try arguments.option("--server") {
      if try arguments.option("--db") != nil {
        throw UsageError("give --db or --server, not both")
      }
      if try arguments.option("--postgres") != nil {
        throw UsageError("give --postgres or --server, not both")
      }
      guard let url = URL(string: server) else {
        throw UsageError("--server: '\(server)' is not a URL")
      }
      // Foundation's URLSession refuses IPv6 literals (NSURLErrorBadURL) before connecting.
      if url.host?.contains(":") == true {
        throw UsageError(
          "--server: '\(server)' names an IPv6 address, which this build's HTTP client "
            + "(Foundation's) cannot fetch; use a host name that resolves to it, such as "
            + "http://localhost:PORT for [::1]")
      }
      do { return try TrafficEngine(server: url, apiKey: key) } catch {
        throw UsageError("--server: \(error)")
      }
    }
    guard key == nil else { throw UsageError("--api-key needs --server") }
    if let url = try arguments.option("--postgres") {
      if try arguments.option("--db") != nil {
        throw UsageError("give --db or --postgres, not both")
      }
      do {
        return try TrafficEngine(store: PostgresTrafficStore(url: url), network: network)
      } catch {
        throw UsageError("--postgres: \(error)")
      }
    }
    let given = try arguments.option("--db")
    let path = try checkDatabasePath(given ?? SQLiteTrafficStore.defaultPath)
    // A network file given without a store (`table --network F`, `render --network F`):
    // routes and pictures on that network alone, no incidents.
    if !creating, let network, given == nil, FileArguments.kind(path) == .missing {
      do { return try TrafficEngine(store: InMemoryTrafficStore(), network: network) } catch {
        throw UsageError("\(error)")
      }
    }
    return try sqliteEngine(at: path, for: creating ? .creating : .reading, network: network)
  }
}
