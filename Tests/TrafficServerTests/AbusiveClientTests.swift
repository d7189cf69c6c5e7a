import Foundation
import Testing

@testable import TrafficServer

#if canImport(Glibc)
  import Glibc
#endif

/// One abusive client must not take the service down: an attacker on 127.0.0.2 holds
/// connections with partial request heads (slowloris) and idle keep-alive connections;
/// beyond its share (`maxConnectionsPerAddress`) it is refused at accept, and a client on
/// 127.0.0.1 keeps getting answers quickly.
@Suite(.serialized) struct AbusiveClientTests {
  /// A TCP connection from `source` to 127.0.0.1:`port`, or `nil` when refused.
  static func connect(from source: String, port: Int) -> Int32? {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    var local = sockaddr_in()
    local.sin_family = sa_family_t(AF_INET)
    inet_pton(AF_INET, source, &local.sin_addr)
    var remote = sockaddr_in()
    remote.sin_family = sa_family_t(AF_INET)
    remote.sin_port = UInt16(port).bigEndian
    inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
    let bound = withUnsafePointer(to: &local) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    let connected = withUnsafePointer(to: &remote) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, connected == 0 else {
      close(descriptor)
      return nil
    }
    var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
    setsockopt(
      descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    return descriptor
  }

  /// Whether the server has closed the connection (a read sees its end, or a reset).
  static func isClosed(_ descriptor: Int32) -> Bool {
    var byte: UInt8 = 0
    let count = recv(descriptor, &byte, 1, 0)
    return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
  }

  /// Raises this process's descriptor limit toward `wanted` (up to the hard limit); returns
  /// the soft limit in force.
  static func raiseDescriptorLimit(to wanted: Int) -> Int {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    if limit.rlim_cur < rlim_t(wanted) {
      limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
      setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
      getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    return Int(limit.rlim_cur)
  }

  @Test("thousands of slowloris heads, slow bodies and idle connections leave others served")
  func slowlorisFromOneAddress() async throws {
    var configuration = HTTPFrontEndTests.quietLoopback()
    configuration.maxConnectionsPerAddress = 32
    configuration.maxConnections = 4_000
    let (server, port) = try HTTPFrontEndTests.started(configuration)
    defer { server.stop() }

    // Thousands of connections from the attacker (as many as descriptors allow): a third
    // send a partial head, a third a head and the start of a large body, a third nothing.
    let attempts = min(2_000, Self.raiseDescriptorLimit(to: 2_600) - 300)
    var attacker: [Int32] = []
    defer { for descriptor in attacker { close(descriptor) } }
    let partial = Array("GET /v7/incidents?in=circle:52.5,13.4;r=500 HTTP/1.1\r\nHost: x\r\n".utf8)
    let slowBody = Array(
      "POST /v1/feeds/open511 HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{\"ev".utf8)
    for k in 0..<attempts {
      guard let descriptor = Self.connect(from: "127.0.0.2", port: port) else { continue }
      if k % 3 == 0 { _ = write(descriptor, partial, partial.count) }
      if k % 3 == 1 { _ = write(descriptor, slowBody, slowBody.count) }
      attacker.append(descriptor)
    }
    #expect(attacker.count >= 700)
    // The kernel completes every handshake; the server keeps only the attacker's share.
    try await Task.sleep(for: .milliseconds(500))
    // (A burst may pass the share by one connection per server thread: each thread checks
    // the count before the others' new connections are counted.)
    let share = 32 + configuration.threads
    let alive = attacker.filter { !Self.isClosed($0) }.count
    #expect(alive <= share, "\(alive) of the attacker's connections are held")
    #expect(server.connections.openConnections(from: "127.0.0.2") <= share)

    // Meanwhile a client on another address is answered, fast and without error.
    var latencies: [Double] = []
    for _ in 0..<200 {
      let started = ContinuousClock.now
      let answer = try await HTTPFrontEndTests.fetch(
        port, "/v7/incidents?in=circle:52.5,13.4;r=500")
      let elapsed = ContinuousClock.now - started
      #expect(answer.status == 200)
      latencies.append(
        Double(elapsed.components.seconds) * 1000
          + Double(elapsed.components.attoseconds) / 1e15)
    }
    latencies.sort()
    let p99 = latencies[Int(Double(latencies.count) * 0.99) - 1]
    #expect(p99 <= 50, "p99 \(p99) ms")

    // The refusals are counted where operators look.
    let metrics = try await HTTPFrontEndTests.fetch(port, "/metrics")
    let text = String(decoding: metrics.body, as: UTF8.self)
    let refused = text.split(separator: "\n").first {
      $0.hasPrefix("traffic_connections_refused_total{reason=\"per_address\"}")
    }
    let count = refused.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    #expect(count >= attacker.count - 100, "\(refused ?? "no counter")")
    #expect(text.contains("traffic_connections_open "))
  }

  @Test("a body trickling in below the minimum rate closes its connection")
  func slowBody() async throws {
    var configuration = HTTPFrontEndTests.quietLoopback()
    configuration.slowBodyGraceSeconds = 1
    let (server, port) = try HTTPFrontEndTests.started(configuration)
    defer { server.stop() }
    let descriptor = try #require(Self.connect(from: "127.0.0.2", port: port))
    defer { close(descriptor) }
    let head = Array(
      "POST /v1/feeds/open511 HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{".utf8)
    #expect(write(descriptor, head, head.count) == head.count)
    try await Task.sleep(for: .milliseconds(1_500))
    _ = write(descriptor, "\"", 1)
    var closed = false
    for _ in 0..<20 where !closed {
      try await Task.sleep(for: .milliseconds(100))
      closed = Self.isClosed(descriptor)
    }
    #expect(closed)
    let metrics = try await HTTPFrontEndTests.fetch(port, "/metrics")
    #expect(
      String(decoding: metrics.body, as: UTF8.self).contains("traffic_slow_bodies_closed_total 1"))
  }

  @Test("a head that does not arrive within the head timeout is closed, trickling or not")
  func lateHeads() async throws {
    var configuration = HTTPFrontEndTests.quietLoopback()
    configuration.headTimeoutSeconds = 2
    let (server, port) = try HTTPFrontEndTests.started(configuration)
    defer { server.stop() }
    let silent = try #require(Self.connect(from: "127.0.0.2", port: port))
    let trickling = try #require(Self.connect(from: "127.0.0.2", port: port))
    defer {
      close(silent)
      close(trickling)
    }
    let partial = Array("GET /healthz HTTP/1.1\r\nHost: x\r\n".utf8)
    #expect(write(silent, partial, partial.count) == partial.count)
    #expect(write(trickling, partial, partial.count) == partial.count)
    // One header byte every 300 ms: never silent for the timeout, but late as a whole.
    var closed = (silent: false, trickling: false)
    let started = ContinuousClock.now
    for _ in 0..<20 where !(closed.silent && closed.trickling) {
      try await Task.sleep(for: .milliseconds(300))
      if !closed.trickling { _ = write(trickling, "X", 1) }
      closed.silent = closed.silent || Self.isClosed(silent)
      closed.trickling = closed.trickling || Self.isClosed(trickling)
    }
    #expect(closed.silent && closed.trickling, "\(closed)")
    #expect(started.duration(to: .now) < .seconds(5))
    let metrics = String(
      decoding: try await HTTPFrontEndTests.fetch(port, "/metrics").body, as: UTF8.self)
    // The trickling head is the sweeper's (the silent one may go by the silence timeout).
    let late = metrics.split(separator: "\n").first {
      $0.hasPrefix("traffic_late_heads_closed_total ")
    }
    #expect((late.flatMap { Int($0.split(separator: " ")[1]) } ?? 0) >= 1, "\(late ?? "none")")
    // A whole request is answered as before, on a connection that then waits for the next.
    let answer = try await HTTPFrontEndTests.fetch(port, "/healthz")
    #expect(answer.status == 200)
  }

  @Test("a bad per-address limit is refused by name")
  func badLimit() {
    var configuration = ServerConfiguration()
    configuration.maxConnectionsPerAddress = 0
    #expect(throws: ServerError.self) { try configuration.validate() }
  }
}

/// `X-Forwarded-For` counts only from trusted proxies, read from the right.
@Suite struct ClientAddressTests {
  @Test("the client is the last untrusted address a trusted proxy names")
  func forwardedFor() {
    let trusted: Set<String> = ["10.0.0.1", "10.0.0.2"]
    // No trusted proxies, or an untrusted peer: the header is ignored.
    #expect(
      ClientAddress.resolve(peer: "10.0.0.1", forwardedFor: "1.2.3.4", trusted: []) == "10.0.0.1")
    #expect(
      ClientAddress.resolve(peer: "203.0.113.9", forwardedFor: "1.2.3.4", trusted: trusted)
        == "203.0.113.9")
    // Through two trusted proxies: the client they were given.
    #expect(
      ClientAddress.resolve(
        peer: "10.0.0.1", forwardedFor: "1.2.3.4, 198.51.100.7, 10.0.0.2", trusted: trusted)
        == "198.51.100.7")
    #expect(
      ClientAddress.resolve(peer: "10.0.0.1", forwardedFor: "2001:db8::7", trusted: trusted)
        == "2001:db8::7")
    // Garbage stops the walk at the last believable address.
    #expect(
      ClientAddress.resolve(peer: "10.0.0.1", forwardedFor: "1.2.3.4, bogus", trusted: trusted)
        == "10.0.0.1")
    #expect(
      ClientAddress.resolve(peer: "10.0.0.1", forwardedFor: "10.0.0.2", trusted: trusted)
        == "10.0.0.2")
    var configuration = ServerConfiguration()
    configuration.trustedProxies = ["nginx"]
    #expect(throws: ServerError.self) { try configuration.validate() }
  }
}
