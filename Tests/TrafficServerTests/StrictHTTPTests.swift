import Foundation
import Testing
import Traffic
import Zlib

@testable import TrafficServer

/// RFC 9112's rules on request heads, over a raw loopback socket: every head the server
/// refuses is answered once, with the exact status, `Connection: close`, and the connection
/// closed, so that the request sent right after it on the same connection (what a proxy
/// framing the first one differently would forward as a second request: request smuggling)
/// is never answered. Well-framed requests, chunked and gzip uploads and keep-alive keep
/// working. `docs/operations.md` has the table of these cases.
@Suite(.serialized) struct StrictHTTPTests {
  /// A head the server refuses, and the status line it answers with.
  struct Refused: Sendable, CustomTestStringConvertible {
    var name: String
    /// The request's bytes before the smuggled one.
    var head: String
    var statusLine: String
    var testDescription: String { name }
  }

  /// The request sent after each refused one on the same connection.
  static let smuggled = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"

  static let push = "POST /v1/feeds/open511?source=strict HTTP/1.1\r\nHost: x\r\n"
  static let get = "GET /healthz HTTP/1.1\r\n"
  static let badRequest = "HTTP/1.1 400 Bad Request"

  static let refused: [Refused] = [
    Refused(
      name: "conflicting Content-Length (the second one frames the smuggled request)",
      head: push + "Content-Length: 0\r\nContent-Length: \(smuggled.utf8.count)\r\n\r\n",
      statusLine: badRequest),
    Refused(
      name: "repeated equal Content-Length",
      head: push + "Content-Length: 2\r\nContent-Length: 2\r\n\r\nab", statusLine: badRequest),
    Refused(
      name: "Content-Length with Transfer-Encoding",
      head: push + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      statusLine: badRequest),
    Refused(
      name: "space before the colon of Content-Length",
      head: push + "Content-Length : \(smuggled.utf8.count)\r\n\r\n", statusLine: badRequest),
    Refused(
      name: "space before the colon of Transfer-Encoding",
      head: push + "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n", statusLine: badRequest),
    Refused(
      name: "tab before a colon", head: get + "Host: x\r\nX-Trace\t: 1\r\n\r\n",
      statusLine: badRequest),
    Refused(
      name: "obsolete line folding", head: get + "Host: x\r\nX-Trace: 1\r\n folded\r\n\r\n",
      statusLine: badRequest),
    Refused(
      name: "obsolete line folding with a tab",
      head: get + "Host: x\r\nX-Trace: 1\r\n\tfolded\r\n\r\n", statusLine: badRequest),
    Refused(
      name: "obsolete line folding of Host", head: get + "Host: x\r\n y\r\n\r\n",
      statusLine: badRequest),
    Refused(
      name: "NUL in a value", head: get + "Host: x\r\nX-Trace: a\u{0}b\r\n\r\n",
      statusLine: badRequest),
    Refused(
      name: "bare CR in a value", head: get + "Host: x\r\nX-Trace: a\rb\r\n\r\n",
      statusLine: badRequest),
    Refused(
      name: "control character in a value", head: get + "Host: x\r\nX-Trace: a\u{1}b\r\n\r\n",
      statusLine: badRequest),
    Refused(
      name: "DEL in a value", head: get + "Host: x\r\nX-Trace: a\u{7F}b\r\n\r\n",
      statusLine: badRequest),
    Refused(name: "missing Host on HTTP/1.1", head: get + "\r\n", statusLine: badRequest),
    Refused(
      name: "space in the request target", head: "GET /healthz x HTTP/1.1\r\nHost: x\r\n\r\n",
      statusLine: badRequest),
    Refused(
      name: "tab in the request target", head: "GET /healthz\tx HTTP/1.1\r\nHost: x\r\n\r\n",
      statusLine: badRequest),
    Refused(
      name: "NUL in the request target",
      head: "GET /healthz\u{0}x HTTP/1.1\r\nHost: x\r\n\r\n", statusLine: badRequest),
    Refused(
      name: "NUL in the query", head: "GET /healthz?a=1\u{0}b=2 HTTP/1.1\r\nHost: x\r\n\r\n",
      statusLine: badRequest),
    Refused(
      name: "NUL before the space of the version",
      head: "GET /healthz\u{0} HTTP/1.1\r\nHost: x\r\n\r\n", statusLine: badRequest),
    Refused(
      name: "two spaces after the method", head: "GET  /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
      statusLine: badRequest),
    Refused(
      name: "two different Host fields", head: get + "Host: x\r\nHost: y\r\n\r\n",
      statusLine: badRequest),
    Refused(
      name: "two equal Host fields", head: get + "Host: x\r\nHost: x\r\n\r\n",
      statusLine: badRequest),
    Refused(name: "invalid Host", head: get + "Host: x y\r\n\r\n", statusLine: badRequest),
    Refused(
      name: "Host with two ports", head: get + "Host: x:80:80\r\n\r\n", statusLine: badRequest),
    Refused(
      name: "Host of an unclosed IPv6 literal", head: get + "Host: [::1\r\n\r\n",
      statusLine: badRequest),
    Refused(
      name: "Host with a negative port", head: get + "Host: x:-1\r\n\r\n", statusLine: badRequest),
    Refused(
      name: "Host with a port of letters", head: get + "Host: x:abc\r\n\r\n", statusLine: badRequest
    ),
    Refused(
      name: "unknown transfer coding before chunked",
      head: push + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
      statusLine: "HTTP/1.1 501 Not Implemented"),
    Refused(
      name: "chunked not the last transfer coding",
      head: push + "Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n", statusLine: badRequest),
    Refused(
      name: "transfer coding without chunked",
      head: push + "Transfer-Encoding: identity\r\n\r\nab", statusLine: badRequest),
    Refused(
      name: "chunked twice",
      head: push + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      statusLine: badRequest),
    Refused(
      name: "Transfer-Encoding on HTTP/1.0",
      head: "POST /v1/feeds/open511 HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      statusLine: badRequest),
    Refused(
      name: "Content-Length 2^63 (beyond Int)",
      head: push + "Content-Length: 9223372036854775808\r\n\r\n",
      statusLine: "HTTP/1.1 413 Content Too Large"),
  ]

  @Test(arguments: refused)
  func refusedAndClosedBeforeTheNextRequest(_ refused: Refused) throws {
    let (server, port) = try HTTPFrontEndTests.started()
    defer { server.stop() }
    let answer = try HTTPFrontEndTests.rawExchange(
      host: "127.0.0.1", port: port, Array((refused.head + Self.smuggled).utf8))
    // One answer only: the smuggled GET would add a second "HTTP/1.1 200 OK".
    #expect(answer.statusLines == [refused.statusLine])
    #expect(answer.text.contains("\r\nConnection: close\r\n"))
    #expect(answer.closedByServer)
    #expect(answer.text.contains(#""code":""#), "the server's own JSON error")
  }

  /// Heads libmicrohttpd 0.9.75 refuses itself, before the server sees them: its own
  /// answer (an HTML body, its head written twice by that version), then a close.
  @Test(arguments: [
    ("Content-Length: 18446744073709551616", "HTTP/1.1 413 Content Too Large"),
    ("Content-Length: 2, 2", badRequest),
    ("Content-Length: -1", badRequest),
  ])
  func refusedByLibmicrohttpdAndClosed(_ field: String, _ statusLine: String) throws {
    let (server, port) = try HTTPFrontEndTests.started()
    defer { server.stop() }
    let answer = try HTTPFrontEndTests.rawExchange(
      host: "127.0.0.1", port: port, Array((Self.push + field + "\r\n\r\nab" + Self.smuggled).utf8))
    #expect(answer.text.hasPrefix(statusLine + "\r\n"))
    #expect(answer.text.contains("\r\nConnection: close\r\n"))
    #expect(!answer.text.contains("200 OK"))
    #expect(answer.closedByServer)
  }

  /// The control for the tests above: well-framed requests in a row on one connection are
  /// each answered (so one answer there means the second request was dropped).
  @Test func wellFramedRequestsInARowAreEachAnswered() throws {
    let (server, port) = try HTTPFrontEndTests.started()
    defer { server.stop() }
    let document = FeedIngestTests.open511(["S1"])
    let incidents = server.engine.incidentCount
    let answer = try HTTPFrontEndTests.rawExchange(
      host: "127.0.0.1", port: port,
      Array(
        (Self.push + "Content-Length: \(document.utf8.count)\r\n\r\n" + document + Self.get
          + "Host: x\r\nConnection: close\r\n\r\n").utf8))
    #expect(answer.statusLines == ["HTTP/1.1 200 OK", "HTTP/1.1 200 OK"])
    #expect(answer.closedByServer)
    #expect(server.engine.incidentCount == incidents + 1)
  }

  /// Chunked uploads (any letter case of `chunked`) of a gzip body, and heads RFC 9112
  /// allows (bare LF line ends, an empty Host, HTTP/1.0 without Host, UTF-8 and tabs in
  /// values, `TE`), are answered and the connection kept.
  @Test func chunkedGzipUploadsAndLenientButValidHeadsKeepTheConnection() throws {
    let (server, port) = try HTTPFrontEndTests.started()
    defer { server.stop() }
    let incidents = server.engine.incidentCount
    let body = [UInt8](Gzip.compress(Data(FeedIngestTests.open511(["C1"]).utf8), level: 5))
    let half = body.count / 2
    var upload = Array(
      (Self.push + "Transfer-Encoding: Chunked\r\nContent-Encoding: gzip\r\n\r\n").utf8)
    for chunk in [body[..<half], body[half...]] {
      upload += Array((String(chunk.count, radix: 16) + "\r\n").utf8) + chunk + Array("\r\n".utf8)
    }
    upload += Array("0\r\n\r\n".utf8)
    let kept = [
      "GET /healthz HTTP/1.1\nHost: x\nX-Trace: 1\n\n",
      Self.get + "Host:\r\n\r\n",
      Self.get + "Host: x\r\nX-Name: Grüße\tund mehr\r\nTE: gzip, chunked\r\n\r\n",
    ]
    let last = Self.get + "Host: x\r\nConnection: close\r\n\r\n"
    let answer = try HTTPFrontEndTests.rawExchange(
      host: "127.0.0.1", port: port, upload + Array((kept.joined() + last).utf8))
    #expect(answer.statusLines == Array(repeating: "HTTP/1.1 200 OK", count: kept.count + 2))
    #expect(answer.closedByServer)
    #expect(server.engine.incidentCount == incidents + 1)
    let old = try HTTPFrontEndTests.rawGet(
      host: "127.0.0.1", port: port, "GET /healthz HTTP/1.0\r\n\r\n")
    #expect(old.hasPrefix("HTTP/1.1 200 OK"))
  }

  /// The check on its own: heads that follow RFC 9112 pass.
  @Test func wellFormedHeadsPass() {
    let heads: [(String, HTTPHeaders)] = [
      ("HTTP/1.1", ["Host": "example.org:8080", "Accept-Encoding": "gzip"]),
      ("HTTP/1.1", ["Host": "[::1]:8080", "Transfer-Encoding": "chunked"]),
      ("HTTP/1.1", ["Host": "[2001:db8::7]"]),
      ("HTTP/1.1", ["Host": "192.0.2.1:80"]),
      ("HTTP/1.1", ["Host": "traffic.example.org:"]),
      ("HTTP/1.1", ["Host": "", "Content-Length": "12"]),
      ("HTTP/1.0", ["Content-Length": "0"]),
      ("HTTP/1.1", ["Host": "x", "User-Agent": "Grüße\tv1", "TE": "gzip, chunked"]),
    ]
    for (version, headers) in heads {
      #expect(
        RequestHeadCheck.violation(
          target: "/v7/incidents?in=circle:52.5,13.4;r=500&x=%20", version: version,
          headers: headers, requestLineVerbatim: true, linesVerbatim: true)
          == nil, "\(version) \(headers.fields)")
    }
  }
}
