import Codec
import Foundation
import Synchronization
import Testing
import Traffic
import TrafficTestSupport
import Zlib

@testable import TrafficServer

@Suite struct TrafficServerHandlingTests {
  let query = "/v7/incidents?in=circle:52.52,13.40;r=2000"

  /// Correlation ids are the server's random prefix, a dash and a counter in lowercase
  /// hexadecimal, one higher for each request.
  @Test func correlationIdsCountInHexadecimalAfterTheServersPrefix() throws {
    let server = try ServerFixtures.server()
    let ids = (0..<300).map { _ in server.nextCorrelationId() }
    let prefix = try #require(ids.first?.split(separator: "-").first)
    #expect(!prefix.isEmpty)
    for (offset, id) in ids.enumerated() {
      let parts = id.split(separator: "-", omittingEmptySubsequences: false)
      #expect(parts.count == 2 && parts[0] == prefix, "\(id)")
      #expect(parts[1] == String(offset + 1, radix: 16), "\(id)")
    }
    let answered = server.handle(ServerFixtures.get(query)).headers["X-Correlation-Id"]
    #expect(answered == "\(prefix)-\(String(301, radix: 16))")
  }

  @Test func apiKeysAsParameterOrBearer() throws {
    let server = try ServerFixtures.server(
      ServerConfiguration(apiKeys: ["k1", "k2"], accessLog: .none))
    // The detail says which check refused: no key at all, or one the server does not know.
    let missing = server.handle(ServerFixtures.get(query))
    ServerFixtures.expectError(
      missing, status: 401, code: "authenticationFailed", mentions: "needs an API key")
    // The hint as written, not scrubbed as a key would be ("send apiKey=REDACTED").
    #expect(missing.bodyText.contains("apiKey query parameter"), "\(missing.bodyText)")
    #expect(!missing.bodyText.contains("REDACTED"))
    let wrong = server.handle(ServerFixtures.get(query + "&apiKey=nope"))
    ServerFixtures.expectError(
      wrong, status: 401, code: "authenticationFailed", mentions: "not one this server knows")
    #expect(!wrong.bodyText.contains("nope"))
    #expect(wrong.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
    #expect(server.handle(ServerFixtures.get(query + "&apiKey=k1")).status == 200)
    #expect(
      server.handle(ServerFixtures.get(query, headers: ["Authorization": "Bearer k2"])).status
        == 200)
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get(query, headers: ["Authorization": "Basic k2"])),
      status: 401, code: "authenticationFailed")
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get(query + "&apiKey=k1&apiKey=k2")), status: 400,
      code: "badRequest", mentions: "apiKey")
    // Health and the index page stay open; OPTIONS preflights need no key.
    #expect(server.handle(ServerFixtures.get("/healthz")).status == 200)
    #expect(server.handle(HTTPRequest(method: "OPTIONS", target: query)).status == 204)
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get("/metrics")), status: 401, code: "authenticationFailed")
  }

  /// RFC 9112 §3.2.2: a server must accept a request target in absolute form.
  @Test func absoluteFormTargetsAreRoutedByTheirPath() throws {
    let server = try ServerFixtures.server()
    let absolute = HTTPRequest(target: "http://traffic.example:8080" + query + "&limit=1")
    #expect(absolute.rawPath == "/v7/incidents")
    #expect(absolute.rawQuery == "in=circle:52.52,13.40;r=2000&limit=1")
    #expect(server.handle(absolute).status == 200)
    #expect(server.handle(HTTPRequest(target: "HTTPS://traffic.example/healthz")).status == 200)
    #expect(HTTPRequest(target: "http://traffic.example").rawPath == "/")
    #expect(HTTPRequest(target: "http://traffic.example?a=1").rawQuery == "a=1")
    #expect(HTTPRequest(target: "/http://x").rawPath == "/http://x")
    ServerFixtures.expectError(
      server.handle(HTTPRequest(target: "ftp://traffic.example/healthz")), status: 404,
      code: "httpError")
  }

  @Test func keysFileSkipsCommentsAndBlankLines() throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "keys-\(UUID().uuidString)")
    try "# keys\n\n  alpha  \nbeta\n".write(to: url, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: url) }
    #expect(try ServerConfiguration.apiKeys(fromFile: url.path) == ["alpha": .full, "beta": .full])
    #expect(throws: ServerError.self) { try ServerConfiguration.apiKeys(fromFile: "/nonexistent") }
  }

  @Test func rateLimitAnswers429WithRetryAfterPerKey() throws {
    let server = try ServerFixtures.server(
      ServerConfiguration(
        apiKeys: ["a", "b"], rateLimit: .init(requestsPerSecond: 0.5, burst: 2),
        accessLog: .none))
    #expect(server.handle(ServerFixtures.get(query + "&apiKey=a")).status == 200)
    #expect(server.handle(ServerFixtures.get(query + "&apiKey=a")).status == 200)
    let limited = server.handle(ServerFixtures.get(query + "&apiKey=a"))
    ServerFixtures.expectError(
      limited, status: 429, code: "tooManyRequests",
      mentions: "rate limit (0.5 requests per second, bursts of 2) is spent")
    let retryAfter = try #require(limited.headers["Retry-After"].flatMap(Int.init))
    #expect((1...2).contains(retryAfter))
    // Another key has its own bucket.
    #expect(server.handle(ServerFixtures.get(query + "&apiKey=b")).status == 200)
  }

  @Test func tokenBucketRefillsAtTheConfiguredRate() {
    let limiter = RateLimiter(limit: .init(requestsPerSecond: 2, burst: 3))
    #expect(limiter.take(for: "x", now: 0) == nil)
    #expect(limiter.take(for: "x", now: 0) == nil)
    #expect(limiter.take(for: "x", now: 0) == nil)
    #expect(limiter.take(for: "x", now: 0) == 0.5)
    #expect(limiter.take(for: "x", now: 0.25) == 0.25)
    #expect(limiter.take(for: "x", now: 0.5) == nil)
    #expect(limiter.take(for: "x", now: 100) == nil)
    #expect(limiter.take(for: "y", now: 0.5) == nil)
  }

  @Test func etagAndIfNoneMatch() throws {
    let server = try ServerFixtures.server()
    let first = server.handle(ServerFixtures.get(query))
    let tag = try #require(first.headers["ETag"])
    #expect(tag.hasPrefix("\"") && tag.hasSuffix("\""))
    #expect(server.handle(ServerFixtures.get(query)).headers["ETag"] == tag)
    let again = server.handle(ServerFixtures.get(query, headers: ["If-None-Match": tag]))
    #expect(again.status == 304)
    #expect(again.body.isEmpty)
    #expect(again.headers["ETag"] == tag)
    let weak = server.handle(
      ServerFixtures.get(query, headers: ["If-None-Match": "\"other\", W/\(tag)"]))
    #expect(weak.status == 304)
    let other = server.handle(ServerFixtures.get(query, headers: ["If-None-Match": "\"x\""]))
    #expect(other.status == 200)
    // A different answer has a different tag.
    let smaller = server.handle(ServerFixtures.get(query + "&limit=1"))
    #expect(smaller.headers["ETag"] != tag)
  }

  @Test func gzipWhenAcceptedAndLargeEnough() throws {
    let server = try ServerFixtures.server(
      ServerConfiguration(minimumGzipBytes: 100, accessLog: .none))
    let plain = server.handle(ServerFixtures.get(query))
    let zipped = server.handle(
      ServerFixtures.get(query, headers: ["Accept-Encoding": "br;q=1, gzip;q=0.8"]))
    #expect(zipped.headers["Content-Encoding"] == "gzip")
    #expect(zipped.headers["Vary"] == "Accept-Encoding")
    #expect(try Gzip.decompress(zipped.body, maxOutputBytes: 1 << 20) == plain.body)
    #expect(zipped.headers["ETag"] != plain.headers["ETag"])
    let refused = server.handle(ServerFixtures.get(query, headers: ["Accept-Encoding": "gzip;q=0"]))
    #expect(refused.headers["Content-Encoding"] == nil)
    #expect(refused.body == plain.body)
    let small = server.handle(ServerFixtures.get("/readyz", headers: ["Accept-Encoding": "gzip"]))
    #expect(small.body.count < 100)
    #expect(small.headers["Content-Encoding"] == nil)
  }

  @Test func corsHeadersAndPreflight() throws {
    let server = try ServerFixtures.server()
    let response = server.handle(ServerFixtures.get(query))
    #expect(response.headers["Access-Control-Allow-Origin"] == "*")
    #expect(response.headers["Cache-Control"] == "no-cache")
    let preflight = server.handle(
      HTTPRequest(
        method: "OPTIONS", target: "/v7/incidents",
        headers: ["Origin": "https://example.org", "Access-Control-Request-Method": "POST"]))
    #expect(preflight.status == 204)
    #expect(preflight.headers["Access-Control-Allow-Methods"] == "GET, HEAD, POST, OPTIONS")
    #expect(preflight.headers["Access-Control-Allow-Headers"]?.contains("Authorization") == true)
    #expect(preflight.headers["Access-Control-Allow-Origin"] == "*")
  }

  @Test func oversizedTargetsAndBodies() throws {
    let server = try ServerFixtures.server(
      ServerConfiguration(maxBodyBytes: 1000, maxDecompressedBodyBytes: 5000, accessLog: .none))
    let long =
      "/v7/incidents?in=circle:52.5,13.4;r=500&pad=" + String(repeating: "x", count: 100_000)
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get(long)), status: 414, code: "httpError", mentions: "limit")
    let big = server.handle(
      ServerFixtures.post("/v7/incidents", String(repeating: " ", count: 1001)))
    ServerFixtures.expectError(big, status: 413, code: "httpError", mentions: "1000")
    let bomb = HTTPRequest(
      method: "POST", target: "/v1/feeds/open511", headers: ["Content-Encoding": "gzip"],
      body: Gzip.compress(Data(repeating: 32, count: 100_000)))
    ServerFixtures.expectError(server.handle(bomb), status: 413, code: "httpError")
    let brotli = HTTPRequest(
      method: "POST", target: "/v1/feeds/open511", headers: ["Content-Encoding": "br"],
      body: Data("x".utf8))
    ServerFixtures.expectError(server.handle(brotli), status: 415, code: "httpError")
    let broken = HTTPRequest(
      method: "POST", target: "/v1/feeds/open511", headers: ["Content-Encoding": "gzip"],
      body: Data("not gzip".utf8))
    ServerFixtures.expectError(server.handle(broken), status: 400, code: "badRequest")
  }

  @Test func gzipRequestBodies() throws {
    let server = try ServerFixtures.server()
    let body = #"{"in": "circle:52.52,13.40;r=500"}"#
    let response = server.handle(
      HTTPRequest(
        method: "POST", target: "/v7/incidents", headers: ["Content-Encoding": "gzip"],
        body: Gzip.compress(Data(body.utf8))))
    #expect(try ServerFixtures.resultIds(response) == ["A"])
  }

  @Test func accessLogHasOneLinePerRequestWithoutKeys() throws {
    let lines = Mutex([String]())
    let server = try ServerFixtures.server(
      ServerConfiguration(
        apiKeys: ["secret-key"],
        accessLog: .custom { line in lines.withLock { $0.append(line) } }))
    _ = server.handle(ServerFixtures.get(query + "&apiKey=secret-key"))
    _ = server.handle(ServerFixtures.get("/healthz?APIKEY=secret-key"))
    _ = server.handle(ServerFixtures.get(query, headers: ["Authorization": "Bearer secret-key"]))
    let logged = lines.withLock { $0 }
    #expect(logged.count == 3)
    #expect(!logged.contains { $0.contains("secret-key") })
    #expect(
      logged[0].contains(
        " client=- method=GET path=\"/v7/incidents?in=circle:52.52,13.40;r=2000&apiKey=REDACTED\" status=200 bytes="
      ))
    #expect(logged[0].contains(" us="))
    #expect(logged[1].contains("APIKEY=REDACTED"))
    // `bytes` is the body sent: none for a HEAD (its length was logged).
    _ = server.handle(HTTPRequest(method: "HEAD", target: "/healthz"))
    let head = try #require(lines.withLock { $0.last })
    #expect(head.contains(" method=HEAD ") && head.contains(" status=200 bytes=0 "), "\(head)")
  }

  /// A key inside a malformed query (after a stray `?` or `;`, or spelled with escapes) is
  /// neither echoed in the 400's detail nor logged.
  @Test(arguments: [
    "/v7/incidents?apiKey=secret-key&in=circle:1,2;r=5000?apiKey=other-secret",
    "/v7/incidents?apiKey=secret-key&in=circle:1,2;r=5000?APIKEY%3Dother-secret",
    "/v7/incidents?apiKey=secret-key&in=circle:1,2;r=5000%3Fapi%4Bey%3Dother-secret",
    "/v7/incidents?apiKey=secret-key&in=circle:1,2;r=500&lang=xx;apiKey=other-secret",
  ])
  func keysInMalformedQueriesAreNeitherEchoedNorLogged(_ target: String) throws {
    let lines = Mutex([String]())
    let server = try ServerFixtures.server(
      ServerConfiguration(
        apiKeys: ["secret-key"],
        accessLog: .custom { line in lines.withLock { $0.append(line) } }))
    let response = server.handle(ServerFixtures.get(target))
    #expect(response.status == 400)
    #expect(!response.bodyText.contains("secret"), "\(response.bodyText)")
    #expect(response.bodyText.contains("REDACTED"))
    let logged = lines.withLock { $0 }
    #expect(logged.count == 1)
    #expect(!logged.contains { $0.contains("secret") }, "\(logged)")
  }

  /// The key scrubber on its own: what follows `apiKey=` goes, up to a delimiter; text
  /// without a key stays as it is.
  @Test func keysAreRedactedUpToTheirDelimiter() {
    #expect(
      AccessLogSink.redactingKeys(in: #"radius "5000?apiKey=abc" is not a number"#)
        == #"radius "5000?apiKey=REDACTED" is not a number"#)
    #expect(AccessLogSink.redactingKeys(in: "x;APIKEY%3dabc&y=1") == "x;APIKEY%3dREDACTED&y=1")
    #expect(
      AccessLogSink.redactingKeys(in: "apikeys are fine, apiKey") == "apikeys are fine, apiKey")
    #expect(AccessLogSink.redactingKeys(in: "no key here") == "no key here")
  }

  @Test func accessLogLinesStartWithTheUTCTimeAndTheClientAddress() throws {
    let lines = Mutex([String]())
    let server = try ServerFixtures.server(
      ServerConfiguration(accessLog: .custom { line in lines.withLock { $0.append(line) } }))
    let before = Date()
    for address in ["203.0.113.7", "2001:db8::7", "::ffff:192.0.2.1", "a b\"c"] {
      _ = server.handle(HTTPRequest(target: "/healthz", remoteAddress: address))
    }
    let after = Date()
    let logged = lines.withLock { $0 }
    #expect(logged.count == 4)
    let clients = logged.map { line in
      line.split(separator: " ", maxSplits: 2).dropFirst().first.map(String.init)
    }
    #expect(
      clients == [
        "client=203.0.113.7", "client=2001:db8::7", "client=::ffff:192.0.2.1",
        "client=\"a",  // anything but an address is quoted
      ])
    #expect(logged[3].contains("client=\"a b\\\"c\" method=GET"))
    let time = try #require(logged[0].split(separator: " ").first)
    #expect(time.hasPrefix("time=") && time.hasSuffix("Z"))
    let stamp = String(time.dropFirst("time=".count))
    #expect(stamp.count == "2026-11-29T20:10:00.123Z".count, "always with milliseconds")
    let date = try #require(RFC3339.parse(stamp))
    #expect(date >= before.addingTimeInterval(-0.001) && date <= after.addingTimeInterval(0.001))
  }

  @Test(arguments: [
    (0.0, "1970-01-01T00:00:00.000Z"), (1_811_851_200.5, "2027-06-01T12:00:00.500Z"),
    (1_811_851_199.9996, "2027-06-01T12:00:00.000Z"),
  ])
  func accessLogTimestampsHaveMilliseconds(_ seconds: Double, _ text: String) {
    #expect(AccessLogSink.timestamp(Date(timeIntervalSince1970: seconds)) == text)
  }

  @Test func theLogLineInOperationsMdHasTheKeysTheServerWrites() throws {
    let manual = try String(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/operations.md"),
      encoding: .utf8)
    let documented = try #require(
      manual.components(separatedBy: "\n").first { $0.hasPrefix("time=") })
    let lines = Mutex([String]())
    let server = try ServerFixtures.server(
      ServerConfiguration(
        apiKeys: ["k"], accessLog: .custom { line in lines.withLock { $0.append(line) } }))
    _ = server.handle(
      HTTPRequest(
        target: "/v7/incidents?in=circle:52.52,13.40;r=2000&apiKey=k", remoteAddress: "203.0.113.7")
    )
    let written = try #require(lines.withLock { $0.first })
    func keys(_ line: String) -> [Substring] {
      // Keys are the words before '=' that start a field (values here hold no spaces but the
      // quoted path's, which holds no ' key=' either).
      line.split(separator: " ").compactMap { field in
        guard let equals = field.firstIndex(of: "="), field.first?.isLetter == true,
          field[..<equals].allSatisfy(\.isLetter)
        else { return nil }
        return field[..<equals]
      }
    }
    #expect(keys(documented) == keys(written))
    #expect(
      keys(written) == [
        "time", "client", "method", "path", "status", "bytes", "us", "route", "correlation",
      ])
  }

  @Test func configurationIsValidated() throws {
    let engine = try ServerFixtures.engine()
    #expect(throws: ServerError.self) {
      try TrafficServer(engine: engine, configuration: ServerConfiguration(port: 70_000))
    }
    #expect(throws: ServerError.self) {
      try TrafficServer(engine: engine, configuration: ServerConfiguration(threads: 0))
    }
    #expect(throws: ServerError.self) {
      try TrafficServer(
        engine: engine,
        configuration: ServerConfiguration(rateLimit: .init(requestsPerSecond: 0)))
    }
    #expect(throws: ServerError.self) {
      try TrafficServer(engine: engine, configuration: ServerConfiguration(apiKeys: [""]))
    }
  }
}
