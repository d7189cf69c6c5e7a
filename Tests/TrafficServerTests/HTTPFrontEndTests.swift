import Foundation
import Synchronization
import Testing
import Traffic

@testable import TrafficServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The server on a real loopback socket, queried with URLSession.
@Suite(.serialized) struct HTTPFrontEndTests {
  struct Answer {
    var status: Int
    var headers: [String: String]
    var body: Data

    func header(_ name: String) -> String? {
      headers.first { $0.key.caseInsensitiveEquals(name) }?.value
    }
  }

  static func fetch(
    _ port: Int, _ target: String, method: String = "GET", headers: [String: String] = [:],
    body: Data? = nil
  ) async throws -> Answer {
    let url = try #require(URL(string: "http://127.0.0.1:\(port)\(target)"))
    var request = URLRequest(url: url)
    request.httpMethod = method
    request.httpBody = body
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let (data, response) = try await URLSession.shared.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    var fields: [String: String] = [:]
    for (name, value) in http.allHeaderFields {
      if let name = name as? String, let value = value as? String { fields[name] = value }
    }
    return Answer(status: http.statusCode, headers: fields, body: data)
  }

  static func started(
    _ configuration: ServerConfiguration = quietLoopback()
  ) throws
    -> (TrafficServer, Int)
  {
    let server = try ServerFixtures.server(configuration)
    try server.start()
    return (server, try #require(server.port))
  }

  static func quietLoopback() -> ServerConfiguration {
    ServerConfiguration(port: 0, threads: 2, heartbeatIntervalSeconds: 0.1, accessLog: .none)
  }

  @Test func everyRouteOverTheSocket() async throws {
    let (server, port) = try Self.started()
    defer { server.stop() }
    #expect(port > 0)

    let incidents = try await Self.fetch(
      port, "/v7/incidents?in=circle:52.52,13.40;r=2000&sort=distance&from=52.53,13.4")
    #expect(incidents.status == 200)
    #expect(incidents.header("Access-Control-Allow-Origin") == "*")
    #expect(incidents.header("ETag") != nil)
    #expect(
      try ServerFixtures.resultIds(HTTPResponse(status: 200, body: incidents.body)) == ["B", "A"])

    let posted = try await Self.fetch(
      port, "/v7/incidents", method: "POST", headers: ["Content-Type": "application/json"],
      body: Data(
        #"{"in": {"type": "bbox", "west": 11, "south": 48, "east": 12, "north": 48.5}}"#.utf8))
    #expect(
      try ServerFixtures.resultIds(HTTPResponse(status: posted.status, body: posted.body)) == ["C"])

    let lookup = try await Self.fetch(port, "/v7/incidents/here%3Atraffic%3Aincident%3AA")
    #expect(lookup.status == 200)
    let details = try ServerFixtures.object(lookup.body)["incidentDetails"] as? [String: Any]
    #expect(details?["originalId"] as? String == "A")

    let flow = try await Self.fetch(port, "/v7/flow?in=circle:52.5,13.4;r=100&maxJamFactor=4")
    #expect(flow.status == 200)
    #expect(String(decoding: flow.body, as: UTF8.self) == #"{"sourceUpdated":null,"results":[]}"#)

    let push = try await Self.fetch(
      port, "/v1/feeds/open511?source=loop", method: "POST",
      body: Data(FeedIngestTests.open511(["L1"]).utf8))
    #expect(push.status == 200)
    #expect(try ServerFixtures.object(push.body)["added"] as? Int == 1)
    #expect(try await Self.fetch(port, "/v7/incidents/L1").status == 200)

    let feeds = try await Self.fetch(port, "/v1/feeds")
    #expect(String(decoding: feeds.body, as: UTF8.self).contains(#""source":"loop""#))
    #expect(try await Self.fetch(port, "/healthz").status == 200)
    let metrics = try await Self.fetch(port, "/metrics")
    #expect(String(decoding: metrics.body, as: UTF8.self).contains("traffic_incidents 5"))
    let index = try await Self.fetch(port, "/")
    #expect(index.header("Content-Type") == "text/html; charset=utf-8")
    let options = try await Self.fetch(port, "/v7/incidents", method: "OPTIONS")
    #expect(options.status == 204)
    #expect(options.header("Access-Control-Allow-Methods")?.contains("POST") == true)

    let bad = try await Self.fetch(port, "/v7/incidents?in=circle:52.5,13.4;r=500&limit=0")
    ServerFixtures.expectError(
      HTTPResponse(
        status: bad.status,
        headers: [
          "Content-Type": bad.header("Content-Type") ?? "",
          "X-Correlation-Id": bad.header("X-Correlation-Id") ?? "",
        ], body: bad.body),
      status: 400, code: "invalidParameter", mentions: "limit")
    #expect(try await Self.fetch(port, "/nowhere").status == 404)
    let wrongMethod = try await Self.fetch(port, "/healthz", method: "POST", body: Data("x".utf8))
    #expect(wrongMethod.status == 405)
    #expect(wrongMethod.header("Allow") == "GET, HEAD, OPTIONS")
  }

  @Test func conditionalRequestsAndGzipOverTheSocket() async throws {
    let (server, port) = try Self.started()
    defer { server.stop() }
    let target = "/v7/incidents?in=circle:52.52,13.40;r=2000"
    let first = try await Self.fetch(port, target, headers: ["Accept-Encoding": "identity"])
    let tag = try #require(first.header("ETag"))
    let second = try await Self.fetch(
      port, target, headers: ["If-None-Match": tag, "Accept-Encoding": "identity"])
    #expect(second.status == 304)
    #expect(second.body.isEmpty)
  }

  /// Cached answers are sent from the cache's own buffer (no copy per response): repeated
  /// answers over the socket are byte for byte the first, also while the cache is being
  /// cleared underneath by many other queries, and the cache did answer them.
  @Test func cachedAnswersOverTheSocketStayIntact() async throws {
    let (server, port) = try Self.started()
    defer { server.stop() }
    let target = "/v7/incidents?in=circle:52.52,13.40;r=2000"
    let first = try await Self.fetch(port, target, headers: ["Accept-Encoding": "identity"])
    #expect(first.status == 200 && !first.body.isEmpty)
    let hitsBefore = server.responseCache.statistics.hits
    for round in 0..<40 {
      // Distinct queries, each asked twice so that it is kept, fill the cache (4,096
      // entries) and make it clear itself.
      for offset in 0..<120 {
        for _ in 0..<2 {
          _ = server.handle(
            ServerFixtures.get(
              "/v7/incidents?in=circle:52.52,13.40;r=\(3_000 + round * 200 + offset)"))
        }
      }
      let again = try await Self.fetch(port, target, headers: ["Accept-Encoding": "identity"])
      #expect(again.body == first.body, "round \(round)")
    }
    #expect(server.responseCache.statistics.hits > hitsBefore)
  }

  @Test(arguments: ["127.0.0.1", "::1"])
  func theAccessLogNamesTheSocketPeer(_ host: String) async throws {
    let lines = Mutex([String]())
    var configuration = Self.quietLoopback()
    configuration.host = host
    configuration.accessLog = .custom { line in lines.withLock { $0.append(line) } }
    let (server, port) = try Self.started(configuration)
    defer { server.stop() }
    // Only the socket peer counts, whatever a client claims. (A plain socket: URLSession on
    // Linux refuses IPv6 literals in URLs.)
    let answer = try Self.rawGet(
      host: host, port: port,
      "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 198.51.100.9\r\n"
        + "Connection: close\r\n\r\n")
    #expect(answer.hasPrefix("HTTP/1.1 200"))
    let line = try #require(lines.withLock { $0.first })
    #expect(line.contains(" client=\(host) method=GET path=\"/healthz\" status=200 "))
    #expect(!line.contains("198.51.100.9"))
  }

  /// Behind a trusted proxy, `X-Forwarded-For` lines are one list (RFC 9110 §5.3) read
  /// from the right: a proxy adding its own line after the client's leaves the client's
  /// claim on the left (the first line alone named the client: any address it claimed).
  @Test func repeatedForwardedForLinesAreOneListReadFromTheRight() async throws {
    let lines = Mutex([String]())
    var configuration = Self.quietLoopback()
    configuration.trustedProxies = ["127.0.0.1"]
    configuration.accessLog = .custom { line in lines.withLock { $0.append(line) } }
    let (server, port) = try Self.started(configuration)
    defer { server.stop() }
    let answer = try Self.rawGet(
      host: "127.0.0.1", port: port,
      "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.0.0.7\r\n"
        + "X-Forwarded-For: 192.0.2.1\r\nConnection: close\r\n\r\n")
    #expect(answer.hasPrefix("HTTP/1.1 200"))
    let line = try #require(lines.withLock { $0.first })
    #expect(line.contains(" client=192.0.2.1 "), "\(line)")
  }

  /// Sends `request` to an IPv4 or IPv6 literal and reads the answer until the server
  /// closes the connection.
  static func rawGet(host: String, port: Int, _ request: String) throws -> String {
    try rawExchange(host: host, port: port, Array(request.utf8)).text
  }

  /// What a raw exchange read back.
  struct RawAnswer {
    /// Everything read.
    var bytes: Data
    /// Everything read, as UTF-8 text.
    var text: String
    /// Whether the server closed the connection (else reading stopped at the 10 s receive
    /// timeout: a failure for every test that expects a close, never a wait that passes).
    var closedByServer: Bool

    /// The status lines in `text`, in order, wherever they start: a second answer on the
    /// connection follows the first one's body directly.
    var statusLines: [String] {
      text.matches(of: /HTTP\/1\.[01] [1-5][0-9][0-9] [^\r]*/).map { String($0.output) }
    }
  }

  /// Sends `bytes` to an IPv4 or IPv6 literal and reads the answer until the server closes
  /// the connection (or 10 s pass without a byte).
  static func rawExchange(host: String, port: Int, _ bytes: [UInt8]) throws -> RawAnswer {
    var storage = sockaddr_storage()
    let length: socklen_t
    let family: Int32
    if host.contains(":") {
      family = AF_INET6
      length = socklen_t(MemoryLayout<sockaddr_in6>.size)
      try withUnsafeMutablePointer(to: &storage) {
        try $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
          address.pointee.sin6_family = sa_family_t(AF_INET6)
          address.pointee.sin6_port = UInt16(port).bigEndian
          try #require(inet_pton(AF_INET6, host, &address.pointee.sin6_addr) == 1)
        }
      }
    } else {
      family = AF_INET
      length = socklen_t(MemoryLayout<sockaddr_in>.size)
      try withUnsafeMutablePointer(to: &storage) {
        try $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
          address.pointee.sin_family = sa_family_t(AF_INET)
          address.pointee.sin_port = UInt16(port).bigEndian
          try #require(inet_pton(AF_INET, host, &address.pointee.sin_addr) == 1)
        }
      }
    }
    let socketDescriptor = socket(family, Int32(SOCK_STREAM.rawValue), 0)
    try #require(socketDescriptor >= 0)
    defer { close(socketDescriptor) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(
      socketDescriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let connected = withUnsafePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socketDescriptor, $0, length)
      }
    }
    try #require(connected == 0, "connect to \(host) port \(port): errno \(errno)")
    try #require(write(socketDescriptor, bytes, bytes.count) == bytes.count)
    var answer = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    var count = 0
    repeat {
      count = read(socketDescriptor, &buffer, buffer.count)
      if count > 0 { answer.append(contentsOf: buffer[0..<count]) }
    } while count > 0
    // A close with bytes still unread on the server's side arrives as a reset.
    return RawAnswer(
      bytes: answer, text: String(decoding: answer, as: UTF8.self),
      closedByServer: count == 0 || errno == ECONNRESET)
  }

  @Test func oversizedBodiesAndTargetsOverTheSocket() async throws {
    var configuration = Self.quietLoopback()
    configuration.maxBodyBytes = 10_000
    let (server, port) = try Self.started(configuration)
    defer { server.stop() }
    let big = try await Self.fetch(
      port, "/v1/feeds/open511", method: "POST", body: Data(repeating: 32, count: 50_000))
    #expect(big.status == 413)
    #expect(String(decoding: big.body, as: UTF8.self).contains("\"code\":\"httpError\""))
    // The same body chunked (no length to refuse it by) is read to its end and answered
    // 413 then: libmicrohttpd sent nothing for an answer queued while it still came.
    func chunked(_ bytes: Int) throws -> RawAnswer {
      let chunk = String(repeating: "a", count: 1_000)
      let body =
        String(repeating: "3E8\r\n\(chunk)\r\n", count: bytes / 1_000) + "0\r\n\r\n"
      return try Self.rawExchange(
        host: "127.0.0.1", port: port,
        Array(
          ("POST /v1/feeds/open511?source=big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n" + body).utf8))
    }
    let refused = try chunked(50_000)
    #expect(refused.statusLines == ["HTTP/1.1 413 Content Too Large"], "\(refused.text)")
    #expect(refused.text.contains("larger than the limit of 10000 bytes"))
    // Past the bound of what is read and dropped, the connection is closed.
    let bound = HTTPFrontEnd.discardedBodyBound(limit: 10_000)
    let beyond = try chunked(bound + 10_000)
    #expect(beyond.closedByServer)
    #expect(beyond.statusLines.isEmpty)
    let long = try await Self.fetch(
      port, "/v7/incidents?in=circle:52.5,13.4;r=500&x=" + String(repeating: "y", count: 20_000))
    #expect(long.status == 414)
    #expect(String(decoding: long.body, as: UTF8.self).contains("\"code\":\"httpError\""))
    // A head beyond the connection memory is refused by libmicrohttpd itself, still a 4xx,
    // and the request's context is released.
    let huge = try await Self.fetch(
      port, "/healthz", headers: ["X-Padding": String(repeating: "z", count: 400_000)])
    #expect((400..<500).contains(huge.status))
    try await Self.eventually { server.requestsInFlight == 0 }
    #expect(try await Self.fetch(port, "/healthz").status == 200)
  }

  /// Thousands of short query pairs within the 16 KiB target limit once made libmicrohttpd
  /// run out of connection memory splitting them into arguments and close the connection
  /// without an answer; the server now parses the query itself.
  @Test func queriesOfManyPairsAndAbsoluteTargetsOverTheSocket() async throws {
    let (server, port) = try Self.started()
    defer { server.stop() }
    let area = "/v7/incidents?in=circle:52.5,13.4;r=500&"
    let named = try await Self.fetch(
      port, area + (0..<2000).map { "a\($0)=1" }.joined(separator: "&"))
    #expect(named.status == 200)
    let bare = try await Self.fetch(port, area + String(repeating: "a&", count: 7000))
    #expect(bare.status == 200)
    let repeated = try await Self.fetch(port, area + String(repeating: "lang=de&", count: 1500))
    #expect(repeated.status == 400)
    #expect(String(decoding: repeated.body, as: UTF8.self).contains("lang is given 1500 times"))
    let absolute = try Self.rawGet(
      host: "127.0.0.1", port: port,
      "GET http://127.0.0.1:\(port)/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Connection: close\r\n\r\n")
    #expect(absolute.hasPrefix("HTTP/1.1 200"), "\(absolute.prefix(200))")
  }

  @Test func eventStreamOverTheSocketEndsWhenTheClientGoes() async throws {
    let (server, port) = try Self.started()
    defer { server.stop() }
    let collector = StreamCollector()
    let session = URLSession(configuration: .default, delegate: collector, delegateQueue: nil)
    let url = try #require(
      URL(string: "http://127.0.0.1:\(port)/v7/incidents/stream?in=bbox:13.3,52.4,13.5,52.6"))
    let task = session.dataTask(with: url)
    task.resume()
    try await Self.eventually { collector.text.contains("retry: 5000") }
    #expect(server.openEventStreams == 1)
    let push = try await Self.fetch(
      port, "/v1/feeds/open511?source=sse", method: "POST",
      body: Data(FeedIngestTests.open511(["S1"]).utf8))
    #expect(push.status == 200)
    try await Self.eventually { collector.text.contains(#""originalId":"S1""#) }
    #expect(collector.text.contains("event: added\nid: 1\ndata: "))
    try await Self.eventually { collector.text.contains(": heartbeat") }
    task.cancel()
    session.invalidateAndCancel()
    // The next heartbeat meets the closed socket; the stream is then released.
    try await Self.eventually { server.openEventStreams == 0 }
  }

  @Test func stopEndsStreamsAndRefusesNewConnections() async throws {
    let (server, port) = try Self.started()
    let collector = StreamCollector()
    let session = URLSession(configuration: .default, delegate: collector, delegateQueue: nil)
    defer { session.invalidateAndCancel() }
    let url = try #require(
      URL(string: "http://127.0.0.1:\(port)/v7/incidents/stream?in=bbox:1,1,2,2"))
    session.dataTask(with: url).resume()
    try await Self.eventually { server.openEventStreams == 1 }
    let started = ContinuousClock.now
    server.stop()
    #expect(started.duration(to: .now) < .seconds(3))
    #expect(server.openEventStreams == 0)
    #expect(server.port == nil)
    await #expect(throws: (any Error).self) { try await Self.fetch(port, "/healthz") }
    // It can start again.
    try server.start()
    #expect(try await Self.fetch(try #require(server.port), "/healthz").status == 200)
    server.stop()
  }

  /// A push whose work has not answered when the server stops (a long merge) is answered
  /// 503 and its connection closed; the server stops (libmicrohttpd 0.9.75 aborted the
  /// process when its daemon stopped with the connection still suspended), and the work's
  /// own answer, later, goes nowhere.
  @Test func stoppingAnswersAPushStillRunningAndDoesNotAbort() async throws {
    var configuration = Self.quietLoopback()
    configuration.shutdownGracePeriodSeconds = 0.2
    configuration.shutdownIngestDrainSeconds = 0.2
    let (server, port) = try Self.started(configuration)
    let before = server.engine.incidentCount
    let release = DispatchSemaphore(value: 0)
    server.feedQueue.async { release.wait() }
    let document = FeedIngestTests.open511(["late"])
    let head =
      "POST /v1/feeds/open511?source=late HTTP/1.1\r\nHost: x\r\nContent-Length: "
      + "\(document.utf8.count)\r\n\r\n"
    let answer = Task.detached {
      try HTTPFrontEndTests.rawExchange(
        host: "127.0.0.1", port: port, Array((head + document).utf8))
    }
    try await Self.eventually { server.suspendedRequests == 1 }
    server.stop()
    let raw = try await answer.value
    #expect(raw.statusLines == ["HTTP/1.1 503 Service Unavailable"])
    #expect(raw.text.contains("the server stopped before this request's work was done"))
    release.signal()
    // The push itself still runs to its end.
    try await Self.eventually { server.engine.incidentCount == before + 1 }
  }

  @Test func refusesAPortInUse() throws {
    let (server, port) = try Self.started()
    defer { server.stop() }
    var configuration = Self.quietLoopback()
    configuration.port = port
    let second = try ServerFixtures.server(configuration)
    #expect(throws: ServerError.self) { try second.start() }
    var bad = Self.quietLoopback()
    bad.host = "not-an-address"
    #expect(throws: ServerError.self) { try ServerFixtures.server(bad).start() }
  }

  /// Waits up to five seconds for `condition`.
  static func eventually(
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
  ) async throws {
    let deadline = ContinuousClock.now + .seconds(5)
    while !condition() {
      guard ContinuousClock.now < deadline else {
        Issue.record("condition not met in 5 s", sourceLocation: sourceLocation)
        return
      }
      try await Task.sleep(for: .milliseconds(10))
    }
  }
}

/// Collects the bytes of a streaming response.
final class StreamCollector: NSObject, URLSessionDataDelegate, Sendable {
  private let received = Mutex(Data())

  var text: String { String(decoding: received.withLock { $0 }, as: UTF8.self) }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    received.withLock { $0.append(data) }
  }
}
