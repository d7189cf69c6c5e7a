import Foundation
import Traffic

/// The store's connection and what the store remembers beside it, used under the store's
/// `Mutex` only.
///
/// A lost connection (the server restarted, a backend was terminated, the network dropped)
/// is noticed after the statement it broke, dropped, and replaced on the next use: libpq
/// reports `CONNECTION_BAD`, and reconnecting tries a few times with a growing pause.
final class PostgresSession {
  let target: PostgresTarget
  private var connection: PostgresConnection?
  /// Change-log sequences of the batches this store committed that its listener has not
  /// passed yet: `changes(since:)` leaves them out, as the engine that wrote them has them.
  var ownSequences: Set<Int64> = []
  /// The change-log sequence that the last `currentIncidents()` read was current at.
  var loadedSequence: Int64 = 0

  /// Pauses before each connection attempt when replacing a lost connection, seconds
  /// (while no outage is known: a connection lost by a restarted backend or pooler).
  static let reconnectDelaysInSeconds: [TimeInterval] = [0, 0.05, 0.1, 0.2, 0.4, 0.8]

  init(target: PostgresTarget, connection: PostgresConnection) {
    self.target = target
    self.connection = connection
  }

  /// A session that connects on first use.
  init(target: PostgresTarget) {
    self.target = target
    connection = nil
  }

  /// A live connection: the current one, or a new one when it was lost.
  ///
  /// - Throws: `TrafficStoreError.cannotOpen` from the last attempt when the server stays
  ///   unreachable.
  func connected() throws(TrafficStoreError) -> PostgresConnection {
    if let connection, !connection.isBroken { return connection }
    connection = nil
    var lastError = TrafficStoreError.cannotOpen(target.displayName)
    // A database known to be out of reach gets one attempt, not the series (the health
    // spaces those out for the whole store).
    let delays =
      target.health?.isOut == true ? [0] : PostgresSession.reconnectDelaysInSeconds
    for delay in delays {
      if delay > 0 { Thread.sleep(forTimeInterval: delay) }
      do {
        let fresh = try PostgresConnection(target: target)
        connection = fresh
        return fresh
      } catch {
        lastError = error
      }
    }
    throw lastError
  }

  /// Forgets the current connection (after it was lost).
  func drop() { connection = nil }

  /// Runs a read; when the connection is lost during it, reconnects and runs it once more
  /// (reads change nothing, so running one twice is harmless).
  func retrying<Result>(
    _ body: (PostgresConnection) throws(TrafficStoreError) -> Result
  ) throws(TrafficStoreError) -> Result {
    let first = try connected()
    do {
      return try body(first)
    } catch {
      guard first.isBroken else { throw error }
      drop()
      return try body(try connected())
    }
  }
}
