import Traffic

extension TrafficQueryError {
  /// The 503 answered for a write that failed because the store's database is out of reach
  /// (a connection attempt failed, or the store is in an outage), or `nil` for any other
  /// failure.
  ///
  /// Nothing of the write took effect, so the client should send it again: the answer says
  /// so, and `Retry-After` (added to every 503) says when.
  /// - Parameters:
  ///   - error: What the write threw.
  ///   - engine: The engine written, whose `storeOutage` names the cause.
  static func storeUnavailable(_ error: TrafficStoreError, engine: TrafficEngine) -> Self? {
    let outage = engine.storeOutage
    guard outage != nil || { if case .cannotOpen = error { true } else { false } }() else {
      return nil
    }
    let reason = outage?.reason ?? "\(error)"
    return .httpError(
      status: 503,
      "the database is out of reach (\(reason)); nothing was stored: send it again once it is"
        + " back (reads still answer)")
  }
}
