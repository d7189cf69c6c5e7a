import Foundation
import Synchronization
import Traffic

/// Whether a store's database answers, from the outcome of every connection attempt its
/// sessions, writers' turn and listener make: the state operators are told about.
///
/// A connection lost mid-statement that is replaced at once is no outage (a backend
/// terminated, a pooler recycled it): only a connection attempt that fails starts one, and
/// the next attempt that succeeds ends it. Each change is reported once, whatever the
/// number of requests and retries that fail meanwhile, so that a log shows one line when
/// the database goes and one when it is back.
public final class PostgresConnectionHealth: Sendable {
  /// A change of reachability.
  public enum Event: Sendable, Hashable, CustomStringConvertible {
    /// The database could not be reached: what failed (libpq's message, one line).
    case lost(database: String, reason: String)
    /// The database answers again after `seconds` out of reach.
    case restored(database: String, seconds: Double)

    /// The line for the operator.
    public var description: String {
      switch self {
      case .lost(let database, let reason):
        return "database lost: \(database): \(reason); writes are refused (503) and reads "
          + "answer from memory until it is back"
      case .restored(let database, let seconds):
        return "database back: \(database) answers again after "
          + "\(String(format: "%.1f", seconds)) s out of reach; following the other nodes again"
      }
    }
  }

  private struct State {
    var outage: StoreOutage?
    var handler: (@Sendable (Event) -> Void)?
    /// When the last connection attempt failed (during an outage).
    var lastFailure: Date?
    /// Connection attempts made, failed or not (for tests).
    var attempts = 0
  }

  /// During an outage, how long after a failed connection attempt the next one is made;
  /// connections asked for meanwhile fail at once, as the last attempt did.
  static let retryIntervalInSeconds: TimeInterval = 0.5

  private let state = Mutex(State())
  private let database: String

  init(database: String) { self.database = database }

  /// The current outage, or `nil` while connections succeed.
  public var outage: StoreOutage? { state.withLock { $0.outage } }

  /// Sets (or with `nil` clears) what is told of each change; it is called outside the
  /// lock, on the thread whose connection attempt changed the state.
  public func onChange(_ handler: (@Sendable (Event) -> Void)?) {
    state.withLock { $0.handler = handler }
  }

  /// Connection attempts made so far.
  var attempts: Int { state.withLock { $0.attempts } }

  /// Whether a connection may be attempted now. During an outage, one attempt a
  /// ``retryIntervalInSeconds`` is made for the whole store (its sessions, writers' turn
  /// and listener): a write asked for meanwhile is refused at once, so that it answers a
  /// 503 in microseconds instead of spending seconds on attempts bound to fail, and a
  /// server whose requests keep coming does not reconnect to a lost database in a loop.
  ///
  /// - Returns: `nil` when an attempt may be made (and is counted), else the error of the
  ///   running outage.
  func refusal(now: Date = Date()) -> TrafficStoreError? {
    state.withLock { state -> TrafficStoreError? in
      if let outage = state.outage, let last = state.lastFailure,
        now.timeIntervalSince(last) < Self.retryIntervalInSeconds
      {
        return .cannotOpen("\(database): \(outage.reason)")
      }
      state.attempts += 1
      return nil
    }
  }

  /// Whether an outage is running (connections then get a single attempt, not a series).
  var isOut: Bool { state.withLock { $0.outage != nil } }

  /// Notes a failed connection attempt: starts an outage unless one is running.
  func connectionFailed(_ error: TrafficStoreError) {
    var reason = Self.oneLine(error)
    // Connection errors start with the database's name, which the event names already.
    if reason.hasPrefix(database + ": ") { reason.removeFirst(database.count + 2) }
    let (event, handler) = state.withLock { state -> (Event?, (@Sendable (Event) -> Void)?) in
      state.lastFailure = Date()
      guard state.outage == nil else { return (nil, nil) }
      state.outage = StoreOutage(since: Date(), reason: reason)
      return (.lost(database: database, reason: reason), state.handler)
    }
    if let event { handler?(event) }
  }

  /// Notes a connection made: ends the running outage, if any.
  func connected() {
    let (event, handler) = state.withLock { state -> (Event?, (@Sendable (Event) -> Void)?) in
      state.lastFailure = nil
      guard let outage = state.outage else { return (nil, nil) }
      state.outage = nil
      let seconds = max(0, Date().timeIntervalSince(outage.since))
      return (.restored(database: database, seconds: seconds), state.handler)
    }
    if let event { handler?(event) }
  }

  /// The error's detail on one line: libpq's messages span lines ("Is the server running on
  /// that host and accepting TCP/IP connections?").
  static func oneLine(_ error: TrafficStoreError) -> String {
    let detail: String
    switch error {
    case .cannotOpen(let text), .operationFailed(let text), .incompatibleSchema(let text),
      .invalidBatch(let text), .limitExceeded(let text):
      detail = text
    }
    return
      detail.split(whereSeparator: \.isNewline)
      .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
      .joined(separator: " ")
  }
}
