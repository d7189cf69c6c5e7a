import Foundation

/// A time a store's server could not be reached: since when, and why.
public struct StoreOutage: Sendable, Hashable {
  /// When the first connection attempt failed.
  public var since: Date
  /// What failed, on one line (libpq's message, without any password).
  public var reason: String

  /// Creates an outage.
  public init(since: Date, reason: String) {
    self.since = since
    self.reason = reason
  }
}

/// A store on a server of its own (PostgreSQL), which can go out of reach while the engine
/// runs: the engine's snapshot keeps answering reads, and writes fail until it is back.
///
/// The server checks it (`TrafficEngine.storeOutage`) to answer writes that fail meanwhile
/// with 503 and `Retry-After` rather than 500, and to say so in `/healthz` and `/readyz`.
public protocol StoreReachability: Sendable {
  /// The current outage, or `nil` while the server answers.
  var outage: StoreOutage? { get }
}

extension TrafficEngine {
  /// Why the engine's store is out of reach now (its database server stopped or cannot be
  /// reached), or `nil` while it answers (always for a store in this process).
  public var storeOutage: StoreOutage? { (store as? any StoreReachability)?.outage }
}
