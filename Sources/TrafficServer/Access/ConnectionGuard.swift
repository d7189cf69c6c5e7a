import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Connections by client address: each address may hold at most
/// `ServerConfiguration.maxConnectionsPerAddress` at once, so that one client (a slowloris
/// attacker holding connections open with partial request heads, thousands of idle
/// keep-alive connections) cannot take the connections every other client needs. Beyond its
/// share a new connection is refused at accept, before it costs a thread or a buffer.
///
/// libmicrohttpd asks ``admits(_:)`` for every connection it accepts and tells
/// ``opened(_:)`` / ``closed(_:)`` when connections start and end; the counts are what
/// `/metrics` reports.
final class ConnectionGuard: Sendable {
  /// The most connections one address may hold.
  let perAddressLimit: Int
  private let open = Mutex<[String: Int]>([:])
  private let openTotal = Atomic<Int>(0)
  private let refusedPerAddress = Atomic<Int>(0)
  private let timedOut = Atomic<Int>(0)
  private let slowBodies = Atomic<Int>(0)
  private let lateHeads = Atomic<Int>(0)
  /// Connections waiting for a request's head: their socket and since when, by connection.
  private let awaitingHead = Mutex<[UInt: (socket: Int32, since: ContinuousClock.Instant)]>([:])

  init(perAddressLimit: Int) {
    self.perAddressLimit = perAddressLimit
  }

  /// Whether a new connection from `address` may be accepted; counts a refusal.
  func admits(_ address: String) -> Bool {
    let allowed = open.withLock { ($0[address] ?? 0) < perAddressLimit }
    if !allowed { refusedPerAddress.add(1, ordering: .relaxed) }
    return allowed
  }

  /// A connection from `address` started.
  func opened(_ address: String) {
    open.withLock { $0[address, default: 0] += 1 }
    openTotal.add(1, ordering: .relaxed)
  }

  /// A connection from `address` closed.
  func closed(_ address: String) {
    open.withLock { counts in
      let left = (counts[address] ?? 1) - 1
      counts[address] = left > 0 ? left : nil
    }
    openTotal.subtract(1, ordering: .relaxed)
  }

  /// A request ended because its connection was idle (or trickled) too long.
  func requestTimedOut() { timedOut.add(1, ordering: .relaxed) }

  // MARK: The head deadline

  /// A connection starts waiting for a request's head (it opened, or answered a request and
  /// stays open).
  func awaitHead(connection: UInt, socket: Int32) {
    guard socket >= 0 else { return }
    awaitingHead.withLock { $0[connection] = (socket, .now) }
  }

  /// A connection's request head is complete.
  func headComplete(connection: UInt) {
    awaitingHead.withLock { _ = $0.removeValue(forKey: connection) }
  }

  /// A connection closes (libmicrohttpd tells before it closes the socket).
  func forget(connection: UInt) {
    awaitingHead.withLock { _ = $0.removeValue(forKey: connection) }
  }

  /// Shuts the sockets of connections that have waited longer than `deadline` for a head
  /// (however their bytes trickle); libmicrohttpd then closes them as any connection its
  /// client closed. Done under the lock that `forget(connection:)` takes, so a socket is
  /// never shut after its connection closed (and its descriptor may have been reused).
  ///
  /// - Returns: The connections shut.
  @discardableResult
  func closeLateHeads(deadline: Duration) -> Int {
    let now = ContinuousClock.now
    let shut = awaitingHead.withLock { waiting -> Int in
      var count = 0
      for (connection, entry) in waiting where entry.since.duration(to: now) > deadline {
        shutdown(entry.socket, Int32(SHUT_RDWR))
        waiting[connection] = nil
        count += 1
      }
      return count
    }
    if shut > 0 { lateHeads.add(shut, ordering: .relaxed) }
    return shut
  }

  /// A connection was closed because its request body arrived below the minimum rate.
  func slowBodyClosed() { slowBodies.add(1, ordering: .relaxed) }

  /// Connections open from `address`.
  func openConnections(from address: String) -> Int { open.withLock { $0[address] ?? 0 } }

  /// The counters as Prometheus text.
  func exposition() -> String {
    var text = "# HELP traffic_connections_open Connections open now.\n"
    text += "# TYPE traffic_connections_open gauge\n"
    text += "traffic_connections_open \(openTotal.load(ordering: .relaxed))\n"
    text += "# HELP traffic_connection_addresses Client addresses holding connections now.\n"
    text += "# TYPE traffic_connection_addresses gauge\n"
    text += "traffic_connection_addresses \(open.withLock { $0.count })\n"
    text +=
      "# HELP traffic_connections_refused_total Connections refused at accept: the address "
      + "held its share (max connections per address).\n"
    text += "# TYPE traffic_connections_refused_total counter\n"
    text +=
      "traffic_connections_refused_total{reason=\"per_address\"} "
      + "\(refusedPerAddress.load(ordering: .relaxed))\n"
    text +=
      "# HELP traffic_requests_timed_out_total Requests ended because their connection was "
      + "idle or trickled past the connection timeout.\n"
    text += "# TYPE traffic_requests_timed_out_total counter\n"
    text += "traffic_requests_timed_out_total \(timedOut.load(ordering: .relaxed))\n"
    text +=
      "# HELP traffic_slow_bodies_closed_total Connections closed because a request body "
      + "arrived below the minimum rate.\n"
    text += "# TYPE traffic_slow_bodies_closed_total counter\n"
    text += "traffic_slow_bodies_closed_total \(slowBodies.load(ordering: .relaxed))\n"
    text +=
      "# HELP traffic_late_heads_closed_total Connections closed because a request's head "
      + "had not arrived within the head timeout.\n"
    text += "# TYPE traffic_late_heads_closed_total counter\n"
    text += "traffic_late_heads_closed_total \(lateHeads.load(ordering: .relaxed))\n"
    return text
  }
}
