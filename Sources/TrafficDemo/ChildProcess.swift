import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A child process whose standard output is a pipe to us, started in its own process group
/// so that stopping it stops everything it started.
///
/// Foundation's `Process` neither puts the child in a new process group nor lets a child ask
/// the kernel for a signal when its parent dies (Linux `prctl(PR_SET_PDEATHSIG)`), so the
/// child is started with `posix_spawn` directly:
/// - `POSIX_SPAWN_SETPGROUP` with group 0: the child leads a new process group, and
///   ``signalGroup(_:)`` signals the whole group (`kill(-pid, ...)`).
/// - When util-linux's `setpriv` is installed (`/usr/bin/setpriv`, part of Debian's
///   essential `util-linux`), the command runs as `setpriv --pdeathsig KILL -- command ...`:
///   `setpriv` sets the parent-death signal and `exec`s the command in the same process, so
///   the child is killed when the thread that spawned it ends — including when this process
///   is killed with `SIGKILL` and no code of ours runs. (The signal follows the spawning
///   *thread*: spawn from a thread that lives as long as the child should.)
/// - `SIGPIPE` is reset to its default action in the child (servers often ignore it, and
///   ignored signals are inherited): a child writing to the pipe after we are gone dies at
///   its next write, a second guarantee without `setpriv`.
/// - The child's standard input is `/dev/null` and its standard error goes to a log file.
final class ChildProcess {
  /// The child's process id, which is also its process group id.
  let pid: pid_t
  /// The read end of the child's standard output.
  let output: Int32
  private var reaped = false
  private var status: Int32 = 0

  /// Where `setpriv` is looked for.
  static let setprivPath = "/usr/bin/setpriv"

  /// Starts `executable` with `arguments`.
  ///
  /// - Parameters:
  ///   - executable: an absolute path.
  ///   - arguments: the arguments after the program name.
  ///   - errorLog: the file the child's standard error is written to (truncated).
  /// - Throws: ``DemoError/sumoFailed(_:)`` when the pipe or the spawn fails.
  init(executable: String, arguments: [String], errorLog: URL) throws(DemoError) {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else {
      throw .sumoFailed("pipe: \(String(cString: strerror(errno)))")
    }
    // Neither end may leak into other children; the spawn's dup2 gives the child its own
    // standard output without the flag. (Glibc's pipe2 is not visible to Swift.)
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    var command = [executable] + arguments
    if FileManager.default.isExecutableFile(atPath: Self.setprivPath) {
      command = [Self.setprivPath, "--pdeathsig", "KILL", "--"] + command
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_addopen(
      &actions, 2, errorLog.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setpgroup(&attributes, 0)
    var emptyMask = sigset_t()
    sigemptyset(&emptyMask)
    posix_spawnattr_setsigmask(&attributes, &emptyMask)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(
      &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var child: pid_t = 0
    let result = argv.withUnsafeBufferPointer { buffer -> Int32 in
      guard let base = buffer.baseAddress else { return EINVAL }
      return posix_spawn(&child, command[0], &actions, &attributes, base, environ)
    }
    close(fds[1])
    guard result == 0 else {
      close(fds[0])
      throw .sumoFailed("cannot start \(command[0]): \(String(cString: strerror(result)))")
    }
    pid = child
    output = fds[0]
  }

  deinit {
    close(output)
  }

  /// Reads up to `count` bytes of the child's output; 0 at the end.
  func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
    while true {
      let count = Glibc.read(output, buffer.baseAddress, buffer.count)
      if count < 0 && errno == EINTR { continue }
      return max(count, 0)
    }
  }

  /// Waits for the child to exit and collects it (once).
  ///
  /// - Parameter blocking: whether to wait; otherwise returns `nil` while it runs.
  /// - Returns: the exit status (`128 + signal` for a signal), or `nil` while it runs.
  @discardableResult
  func reap(blocking: Bool) -> Int32? {
    if reaped { return Self.exitCode(status) }
    var raw: Int32 = 0
    while true {
      let result = waitpid(pid, &raw, blocking ? 0 : WNOHANG)
      if result == pid {
        reaped = true
        status = raw
        return Self.exitCode(raw)
      }
      if result == 0 { return nil }
      if errno == EINTR { continue }
      // ECHILD: someone else collected it; it is gone either way.
      reaped = true
      return -1
    }
  }

  /// Whether the child has been collected.
  var hasExited: Bool { reaped }

  /// Sends `signal` to the child's process group.
  func signalGroup(_ signal: Int32) {
    guard !reaped else { return }
    kill(-pid, signal)
  }

  /// The exit code of a `waitpid` status: the code, or 128 + the signal.
  static func exitCode(_ status: Int32) -> Int32 {
    let signal = status & 0x7f
    return signal == 0 ? (status >> 8) & 0xff : 128 + signal
  }
}
