import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why the throw-away PostgreSQL server for the tests could not be started.
public struct PostgresClusterError: Error, CustomStringConvertible {
  /// What went wrong and what to do about it.
  public let description: String
}

/// A throw-away PostgreSQL + PostGIS server for the tests: one per test process, started on
/// first use and stopped (its directory removed) when the process exits.
///
/// `shared()` runs `initdb` in a new directory under the temporary directory, starts the
/// server with `pg_ctl` on a free loopback port (TCP on 127.0.0.1 only, its Unix socket in
/// the same directory, durability off for speed), creates the database `traffic` with the
/// PostGIS extension, and hands out `url` (user `traffic`, trust authentication). PostgreSQL
/// refuses to run as root, so when the tests run as root (as in CI) the server runs as the
/// unprivileged user `nobody` (or `$TRAFFIC_POSTGRES_TEST_USER`) through `runuser`.
///
/// Stopping: an `atexit` hook stops the server (SIGINT: a fast shutdown) and removes the
/// directory when the test process exits normally, failed tests included; a small watchdog
/// shell process does the same if the test process dies without running exit hooks (a
/// crash, `kill -9`), checking once a second.
///
/// When PostgreSQL or PostGIS is not installed, `shared()` throws an error saying what to
/// install, so that the tests fail rather than pass without a server.
public final class PostgresCluster: Sendable {
  /// The connection URL of the `traffic` database: `postgresql://traffic@127.0.0.1:PORT/traffic`.
  public let url: String
  /// The loopback TCP port.
  public let port: Int
  /// The temporary directory holding the data directory, socket and logs.
  public let directory: String
  /// The PostgreSQL binaries used (`initdb`, `pg_ctl`, `psql`).
  public let binaries: String

  /// The Debian packages the tests need.
  public static let packages = "postgresql postgresql-15-postgis-3"

  private static let instance = Mutex<Result<PostgresCluster, PostgresClusterError>?>(nil)

  /// The cluster of this test process, started on the first call (a few seconds).
  ///
  /// - Throws: `PostgresClusterError` saying what is missing or what failed; the same
  ///   error on every later call.
  public static func shared() throws -> PostgresCluster {
    try instance.withLock { instance in
      if let instance { return try instance.get() }
      let result = Result { () throws(PostgresClusterError) -> PostgresCluster in try start() }
      instance = result
      if case .success = result { atexit { PostgresCluster.stopShared() } }
      return try result.get()
    }
  }

  private static func stopShared() {
    if case .success(let cluster) = instance.withLock({ $0 }) { cluster.stop() }
  }

  /// The user the server runs as (`nil`: this process's), and its `pg_ctl -o` options.
  private let user: String?
  private let serverOptions: String

  private init(
    url: String, port: Int, directory: String, binaries: String, user: String?,
    serverOptions: String
  ) {
    self.url = url
    self.port = port
    self.directory = directory
    self.binaries = binaries
    self.user = user
    self.serverOptions = serverOptions
  }

  // MARK: Starting

  /// A cluster of its own (not the shared one), which the caller must `stop()`.
  ///
  /// - Parameter durable: Whether commits wait for the disk (`fsync`, synchronous commit,
  ///   full-page writes: PostgreSQL's defaults, for benchmarks that compare durable stores);
  ///   otherwise durability is off for speed, as for the tests.
  /// - Throws: `PostgresClusterError` saying what is missing or what failed.
  public static func dedicated(durable: Bool) throws(PostgresClusterError) -> PostgresCluster {
    try start(durable: durable)
  }

  private static func start(durable: Bool = false) throws(PostgresClusterError) -> PostgresCluster {
    let binaries = try findBinaries()
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("traffic-postgres-\(UUID().uuidString)").path
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true)
    } catch {
      throw PostgresClusterError(description: "cannot create \(directory): \(error)")
    }
    let user = getuid() == 0 ? unprivilegedUser() : nil
    do throws(PostgresClusterError) {
      if let user { try giveDirectory(directory, to: user) }
      let data = directory + "/data"
      try run(
        binaries + "/initdb",
        ["-D", data, "-U", "traffic", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
        as: user, in: directory)
      var lastError = PostgresClusterError(description: "no free port")
      for _ in 0..<3 {
        let port = try freePort()
        let serverOptions =
          "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c max_connections=200"
          + (durable ? "" : " -c fsync=off -c synchronous_commit=off -c full_page_writes=off")
        do throws(PostgresClusterError) {
          try startServer(
            binaries: binaries, directory: directory, options: serverOptions, as: user)
        } catch {
          lastError = error
          continue
        }
        let cluster = PostgresCluster(
          url: "postgresql://traffic@127.0.0.1:\(port)/traffic", port: port,
          directory: directory, binaries: binaries, user: user, serverOptions: serverOptions)
        startWatchdog(directory: directory)
        do throws(PostgresClusterError) {
          try cluster.psql("CREATE DATABASE traffic", database: "postgres")
          try cluster.psql("CREATE EXTENSION postgis")
        } catch {
          cluster.stop()
          throw error
        }
        return cluster
      }
      throw lastError
    } catch {
      try? FileManager.default.removeItem(atPath: directory)
      throw error
    }
  }

  private static func startServer(
    binaries: String, directory: String, options: String, as user: String?
  ) throws(PostgresClusterError) {
    try run(
      binaries + "/pg_ctl",
      [
        "-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60", "-o",
        options, "start",
      ], as: user, in: directory)
  }

  /// Stops the server as an operator's `pg_ctl stop` does (fast: connections are closed),
  /// keeping its data, for tests of nodes that lose their database; `startAgain()` brings
  /// it back on the same port. Use it on a `dedicated(durable:)` cluster, never the shared
  /// one.
  ///
  /// - Throws: `PostgresClusterError` with pg_ctl's output when it fails.
  public func stopServer() throws(PostgresClusterError) {
    try PostgresCluster.run(
      binaries + "/pg_ctl", ["-D", directory + "/data", "-m", "fast", "-w", "-t", "60", "stop"],
      as: user, in: directory)
  }

  /// Starts the server stopped by `stopServer()` again, on the same port and data.
  ///
  /// - Throws: `PostgresClusterError` with pg_ctl's output and the server log when it fails.
  public func startAgain() throws(PostgresClusterError) {
    try PostgresCluster.startServer(
      binaries: binaries, directory: directory, options: serverOptions, as: user)
  }

  /// The newest PostgreSQL on the machine that has PostGIS: `$TRAFFIC_POSTGRES_BIN`, else
  /// Debian's `/usr/lib/postgresql/<version>/bin`.
  private static func findBinaries() throws(PostgresClusterError) -> String {
    let install =
      "install PostgreSQL and PostGIS to run the PostgreSQL tests: "
      + "apt-get install -y \(packages)"
    if let given = ProcessInfo.processInfo.environment["TRAFFIC_POSTGRES_BIN"], !given.isEmpty {
      guard FileManager.default.isExecutableFile(atPath: given + "/initdb") else {
        throw PostgresClusterError(
          description: "no initdb in $TRAFFIC_POSTGRES_BIN (\(given)); \(install)")
      }
      return given
    }
    let root = "/usr/lib/postgresql"
    let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
      .compactMap(Int.init).sorted(by: >)
      .filter { FileManager.default.isExecutableFile(atPath: "\(root)/\($0)/bin/initdb") }
    guard let newest = versions.first else {
      throw PostgresClusterError(
        description: "PostgreSQL is not installed (no \(root)/<version>/bin/initdb): \(install)")
    }
    guard
      let version = versions.first(where: {
        FileManager.default.fileExists(
          atPath: "/usr/share/postgresql/\($0)/extension/postgis.control")
      })
    else {
      throw PostgresClusterError(
        description: "PostGIS is not installed for PostgreSQL \(newest): \(install)")
    }
    return "\(root)/\(version)/bin"
  }

  private static func unprivilegedUser() -> String {
    let given = ProcessInfo.processInfo.environment["TRAFFIC_POSTGRES_TEST_USER"] ?? ""
    return given.isEmpty ? "nobody" : given
  }

  private static func giveDirectory(_ path: String, to user: String) throws(PostgresClusterError) {
    guard let entry = getpwnam(user) else {
      throw PostgresClusterError(
        description: "the tests run as root and PostgreSQL may not; the user \(user) to run it "
          + "as does not exist (create it, or set TRAFFIC_POSTGRES_TEST_USER)")
    }
    guard chown(path, entry.pointee.pw_uid, entry.pointee.pw_gid) == 0 else {
      throw PostgresClusterError(description: "cannot give \(path) to \(user): errno \(errno)")
    }
  }

  /// A loopback port that was free a moment ago.
  private static func freePort() throws(PostgresClusterError) -> Int {
    do { return try ChildProcess.freeLoopbackPort() } catch {
      throw PostgresClusterError(description: "\(error)")
    }
  }

  /// Starts a shell that waits for this process to end, then stops the server and removes
  /// the directory: the clean-up for a test process that dies without exit hooks.
  private static func startWatchdog(directory: String) {
    let script = """
      while kill -0 "$1" 2>/dev/null; do sleep 1; done
      if [ -f "$2/data/postmaster.pid" ]; then kill -INT "$(head -n 1 "$2/data/postmaster.pid")"; fi
      sleep 3
      rm -rf "$2"
      """
    _ = try? spawn(
      "/bin/sh", ["-c", script, "traffic-postgres-watchdog", "\(getpid())", directory],
      output: "/dev/null", in: "/")
  }

  /// Runs a program (as `user` through `runuser` when given) and waits for it, its output
  /// kept in a log file in the directory.
  ///
  /// `posix_spawn` and `waitpid` rather than Foundation's `Process`, whose wait was seen to
  /// miss the end of `runuser` once `pg_ctl` had left a daemon behind.
  /// - Returns: The program's output.
  /// - Throws: `PostgresClusterError` with the program's output when it fails.
  @discardableResult
  private static func run(
    _ program: String, _ arguments: [String], as user: String?, in directory: String
  ) throws(PostgresClusterError) -> String {
    let logPath = directory + "/commands-\(UUID().uuidString).log"
    defer { try? FileManager.default.removeItem(atPath: logPath) }
    let (path, argv) =
      user.map { ("/usr/sbin/runuser", ["-u", $0, "--", program] + arguments) }
      ?? (program, arguments)
    let pid = try spawn(path, argv, output: logPath, in: directory)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else {
        throw PostgresClusterError(description: "waiting for \(program): errno \(errno)")
      }
    }
    let output = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    // WIFEXITED and WEXITSTATUS, which Swift does not import.
    let exitCode = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
    guard exitCode == 0 else {
      let serverLog = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8))
      throw PostgresClusterError(
        description: "\((program as NSString).lastPathComponent) failed (status \(status)): "
          + "\(output)\(serverLog.map { "\nserver log:\n\($0)" } ?? "")")
    }
    return output
  }

  /// Starts `path` with `arguments`, standard input from /dev/null and standard output and
  /// error appended to `output`, in the directory `directory`.
  ///
  /// - Returns: The child's process id.
  private static func spawn(
    _ path: String, _ arguments: [String], output: String, in directory: String
  ) throws(PostgresClusterError) -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    // `env -C` changes directory (posix_spawn_file_actions_addchdir_np is not imported).
    let argv = (["/usr/bin/env", "-C", directory, path] + arguments).map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var pid: pid_t = 0
    let code = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, environ)
    guard code == 0 else {
      throw PostgresClusterError(description: "cannot run \(path): error \(code)")
    }
    return pid
  }

  // MARK: Using

  /// Runs SQL through `psql` (as the superuser `traffic`), stopping at the first error.
  ///
  /// - Returns: The rows, unaligned, one per line.
  /// - Throws: `PostgresClusterError` with psql's output when a statement fails.
  @discardableResult
  public func psql(
    _ sql: String, database: String = "traffic"
  ) throws(PostgresClusterError) -> String {
    try PostgresCluster.run(
      binaries + "/psql",
      [
        "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)",
        "-U", "traffic", "-d", database, "-c", sql,
      ], as: nil, in: directory)
  }

  /// Stops the server (a fast shutdown, waiting up to 10 s, then SIGKILL) and removes the
  /// directory.
  public func stop() {
    let pidFile = directory + "/data/postmaster.pid"
    if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
      let line = text.split(separator: "\n").first, let pid = pid_t(line)
    {
      kill(pid, SIGINT)
      // The server removes its pid file as it finishes; the process itself may linger as a
      // zombie where nothing reaps orphans (PID 1 of some containers).
      var waited = 0
      while kill(pid, 0) == 0 && FileManager.default.fileExists(atPath: pidFile) && waited < 1_000 {
        usleep(10_000)
        waited += 1
      }
      if kill(pid, 0) == 0 { kill(pid, SIGKILL) }
    }
    try? FileManager.default.removeItem(atPath: directory)
  }
}
