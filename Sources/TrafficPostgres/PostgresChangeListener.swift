import CLibPQ
import Foundation
import Synchronization
import Traffic

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Waits for the batches other nodes commit: `LISTEN`s on
/// `PostgresTrafficStore.notificationChannel` on a connection of its own, on a thread of its
/// own, and calls back after each burst of notifications.
///
/// The thread sleeps in `poll(2)` on the connection's socket (and on a pipe that `stop()`
/// writes to, so stopping is immediate), then reads with `PQconsumeInput` and `PQnotifies`.
/// Notifications that arrive together give one call, with the highest sequence among them.
/// When the connection is lost the listener reconnects (pausing between attempts) and calls
/// back with `nil`: notifications may have been missed, so the receiver should read the
/// change log from where it was.
public final class PostgresChangeListener: Sendable {
  private struct State {
    var isStopping = false
    var lastError: TrafficStoreError?
  }

  /// A connection handed to the listener thread, which alone uses it from then on.
  private struct Handoff: @unchecked Sendable {
    // Invariant: `connection` is touched by exactly one thread at a time — the creating
    // thread until `Thread.start()`, the listener thread after.
    let connection: PostgresConnection
  }

  private let state = Mutex(State())
  private let wakeRead: Int32
  private let wakeWrite: Int32
  private let finished = DispatchSemaphore(value: 0)

  /// The error that made the last reconnection attempt fail, while the server is unreachable.
  public var lastError: TrafficStoreError? { state.withLock { $0.lastError } }

  /// Connects, starts listening and starts the listener thread.
  ///
  /// - Parameters:
  ///   - url: The database's connection string.
  ///   - onNotification: Called on the listener thread with the highest sequence announced,
  ///     or `nil` after a reconnection. Calls never overlap; a slow callback delays the next.
  /// - Throws: `TrafficStoreError.cannotOpen` when the server cannot be reached or the
  ///   string is malformed; `.operationFailed` when `LISTEN` fails.
  public init(
    url: String, onNotification: @escaping @Sendable (Int64?) -> Void
  ) throws(TrafficStoreError) {
    let target = try PostgresTarget(url)
    let connection = try PostgresChangeListener.listening(target)
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else {
      throw .operationFailed("cannot create a pipe for the listener: errno \(errno)")
    }
    wakeRead = ends[0]
    wakeWrite = ends[1]
    let handoff = Handoff(connection: connection)
    let thread = Thread { [self] in
      run(handoff.connection, target: target, onNotification: onNotification)
      finished.signal()
    }
    thread.name = "traffic-postgres-listener"
    thread.start()
  }

  deinit {
    close(wakeRead)
    close(wakeWrite)
  }

  /// Stops the thread and closes the connection; returns once the thread has ended (unless
  /// called from the callback itself). Calling it again does nothing.
  public func stop() {
    let first = state.withLock { state in
      defer { state.isStopping = true }
      return !state.isStopping
    }
    guard first else { return }
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
    if Thread.current.name != "traffic-postgres-listener" { finished.wait() }
  }

  private var isStopping: Bool { state.withLock { $0.isStopping } }

  private static func listening(
    _ target: PostgresTarget
  ) throws(TrafficStoreError)
    -> PostgresConnection
  {
    let connection = try PostgresConnection(target: target)
    // A constant identifier: LISTEN takes no parameters.
    try connection.execute("LISTEN \(PostgresTrafficStore.notificationChannel)")
    return connection
  }

  private func run(
    _ first: PostgresConnection, target: PostgresTarget,
    onNotification: @Sendable (Int64?) -> Void
  ) {
    var connection: PostgresConnection? = first
    var attempt = 0
    while !isStopping {
      guard let current = connection else {
        // Reconnect, pausing longer after each failure (at most 2 s).
        let pause = attempt == 0 ? 0 : min(2.0, 0.05 * pow(2, Double(attempt)))
        attempt += 1
        if pause > 0, wait(socket: -1, seconds: pause) { break }
        do {
          connection = try PostgresChangeListener.listening(target)
          attempt = 0
          state.withLock { $0.lastError = nil }
          onNotification(nil)
        } catch {
          state.withLock { $0.lastError = error }
        }
        continue
      }
      if wait(socket: current.socket, seconds: nil) { break }
      guard current.consumeInput() else {
        connection = nil
        continue
      }
      let sequences = current.takeNotifications().compactMap { Int64($0) }
      if let latest = sequences.max() { onNotification(latest) }
    }
  }

  /// Sleeps until `socket` is readable, `seconds` pass (forever when `nil`) or `stop()` is
  /// called.
  ///
  /// - Returns: Whether the listener is stopping.
  private func wait(socket: Int32, seconds: Double?) -> Bool {
    var descriptors = [
      pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
      pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
    ]
    let timeout = seconds.map { Int32($0 * 1000) } ?? -1
    let count = nfds_t(socket >= 0 ? 2 : 1)
    while poll(&descriptors, count, timeout) < 0 && errno == EINTR {}
    return isStopping
  }
}
