import Foundation
import Synchronization
import Traffic

/// The writers' turn of the nodes sharing a database: a session-level advisory lock held on
/// a connection of its own for the whole of an engine's write, plan included, and taken
/// before the node catches up with what the others committed.
///
/// Each batch's own transaction also takes the writers' lock (`PostgresSchema.lockKey`), but
/// that only orders the batches: both nodes' plans were made before, each against a
/// snapshot without the other's batch. Two sources pushing one id to two nodes at once then
/// both added it, and one report was lost; two full refreshes of one source each ended
/// only what the other had not written.
final class PostgresWriterTurn: Sendable {
  private struct State {
    var connection: PostgresConnection?
    /// Brings the engine's snapshot up to the change log (`PostgresSync.catchUp()`).
    var catchUp: (@Sendable () throws(TrafficStoreError) -> Void)?
  }

  private let state = Mutex(State())
  private let target: PostgresTarget

  /// How long a node waits for the others' turns before its write fails.
  static let waitLimit = "30s"

  init(target: PostgresTarget) { self.target = target }

  /// Sets (or with `nil` clears) what brings the engine up to date at the start of a turn.
  func setCatchUp(_ catchUp: (@Sendable () throws(TrafficStoreError) -> Void)?) {
    state.withLock { $0.catchUp = catchUp }
  }

  /// Runs `body` holding the turn, after catching up.
  ///
  /// - Throws: `TrafficStoreError` when the database cannot be reached, the turn is not
  ///   free within `waitLimit`, the catch-up fails (nothing is written then), or `body`'s.
  func run(
    _ body: () throws(TrafficStoreError) -> [IncidentChange]
  ) throws(TrafficStoreError) -> [IncidentChange] {
    try state.withLock { state throws(TrafficStoreError) -> [IncidentChange] in
      let target = self.target
      func connect() throws(TrafficStoreError) -> PostgresConnection {
        if let held = state.connection, !held.isBroken { return held }
        let fresh = try PostgresConnection(target: target)
        try fresh.execute("SET lock_timeout = '\(Self.waitLimit)'")
        state.connection = fresh
        return fresh
      }
      func lock(_ connection: PostgresConnection) throws(TrafficStoreError) {
        do throws(TrafficStoreError) {
          try connection.query(
            "SELECT pg_advisory_lock($1::bigint)", [PostgresSchema.writerTurnKey])
        } catch {
          if connection.isBroken { state.connection = nil }
          throw error
        }
      }
      var connection = try connect()
      do throws(TrafficStoreError) { try lock(connection) } catch {
        // A connection the server dropped since the last turn (it restarted) is replaced
        // once: while it is still down, that attempt says so (`cannotOpen`).
        guard state.connection == nil else { throw error }
        connection = try connect()
        try lock(connection)
      }
      defer {
        if (try? connection.query(
          "SELECT pg_advisory_unlock($1::bigint)", [PostgresSchema.writerTurnKey])) == nil
        {
          // A connection that cannot unlock is dropped: its end releases the lock.
          state.connection = nil
        }
      }
      try state.catchUp?()
      return try body()
    }
  }
}

extension PostgresTrafficStore {
  /// Runs one engine write holding the writers' turn of every node on the database, after
  /// bringing the engine up to what the others committed (when a `PostgresSync` follows it).
  public func takeWriterTurn(
    _ body: () throws(TrafficStoreError) -> [IncidentChange]
  ) throws(TrafficStoreError) -> [IncidentChange] {
    try writerTurn.run(body)
  }
}
