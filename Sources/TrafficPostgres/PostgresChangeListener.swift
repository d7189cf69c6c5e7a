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
/// `PostgresTrafficStore.notificationChannel` (or on the channels given) on a connection of
/// its own, on a thread of its own, and calls back after each burst of notifications.
///
/// The thread sleeps in `poll(2)` on the connection's socket (and on a pipe that `stop()`
/// writes to, so stopping is immediate), then reads with `PQconsumeInput` and `PQnotifies`.
/// Notifications that arrive together give one call, with the highest sequence among them
/// per channel. When the connection is lost the listener reconnects (pausing between
/// attempts) and calls back with `nil`: notifications may have been missed, so the receiver
/// should read the logs from where it was.
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
  public convenience init(
    url: String, onNotification: @escaping @Sendable (Int64?) -> Void
  ) throws(TrafficStoreError) {
    let channel = PostgresTrafficStore.notificationChannel
    try self.init(url: url, channels: [channel]) { sequences in
      guard let sequences else { return onNotification(nil) }
      if let latest = sequences[channel] { onNotification(latest) }
    }
  }

  /// Connects, starts listening on `channels` and starts the listener thread.
  ///
  /// - Parameters:
  ///   - url: The database's connection string.
  ///   - channels: The channels, e.g. `PostgresTrafficStore.notificationChannel` and
  ///     `.probeChannel`; each must be a plain SQL identifier (letters, digits, `_`).
  ///   - onNotifications: Called on the listener thread with the highest sequence announced
  ///     per channel that announced one, or `nil` after a reconnection. Calls never
  ///     overlap; a slow callback delays the next.
  /// - Throws: `TrafficStoreError.cannotOpen` when the server cannot be reached or the
  ///   string is malformed; `.operationFailed` when a channel name is not a plain
  ///   identifier or `LISTEN` fails.
  public convenience init(
    url: String, channels: [String],
    onNotifications: @escaping @Sendable ([String: Int64]?) -> Void
  ) throws(TrafficStoreError) {
    try self.init(target: PostgresTarget(url), channels: channels, onNotifications: onNotifications)
  }

  /// Listens as `init(url:channels:onNotifications:)` on a target of a store, whose
  /// connection health then hears of the listener's reconnection attempts too.
  init(
    target: PostgresTarget, channels: [String],
    onNotifications: @escaping @Sendable ([String: Int64]?) -> Void
  ) throws(TrafficStoreError) {
    let plain = { (name: String) in
      !name.isEmpty
        && name.utf8.allSatisfy { byte in
          byte == UInt8(ascii: "_") || (byte >= 48 && byte <= 57)
            || (byte | 0x20 >= 97 && byte | 0x20 <= 122)
        }
    }
    if let bad = channels.first(where: { !plain($0) }) {
      throw .operationFailed("cannot listen on \(bad.debugDescription): not a plain identifier")
    }
    let connection = try PostgresChangeListener.listening(target, channels: channels)
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else {
      throw .operationFailed("cannot create a pipe for the listener: errno \(errno)")
    }
    wakeRead = ends[0]
    wakeWrite = ends[1]
    let handoff = Handoff(connection: connection)
    let thread = Thread { [self] in
      run(handoff.connection, target: target, channels: channels, onNotifications: onNotifications)
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
    _ target: PostgresTarget, channels: [String]
  ) throws(TrafficStoreError)
    -> PostgresConnection
  {
    let connection = try PostgresConnection(target: target)
    // Checked plain identifiers: LISTEN takes no parameters.
    for channel in channels { try connection.execute("LISTEN \(channel)") }
    return connection
  }

  private func run(
    _ first: PostgresConnection, target: PostgresTarget, channels: [String],
    onNotifications: @Sendable ([String: Int64]?) -> Void
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
          connection = try PostgresChangeListener.listening(target, channels: channels)
          attempt = 0
          state.withLock { $0.lastError = nil }
          onNotifications(nil)
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
      var latest: [String: Int64] = [:]
      for notification in current.takeNotifications() {
        guard let sequence = Int64(notification.payload) else { continue }
        latest[notification.channel] = max(latest[notification.channel] ?? .min, sequence)
      }
      if !latest.isEmpty { onNotifications(latest) }
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
