import Foundation
import Traffic

/// One HTTP request as the server's router sees it: independent of the socket layer, so
/// that every route can be exercised in-process.
public struct HTTPRequest: Sendable, Hashable {
  /// The method, uppercase: `GET`, `POST`, `OPTIONS`...
  public var method: String
  /// The request target as sent, path and query still percent-encoded:
  /// `/v7/incidents?in=circle:52.5,13.4;r=500`.
  public var target: String
  /// The header fields.
  public var headers: HTTPHeaders
  /// The body (empty for `GET`), as received (possibly compressed; see
  /// `Content-Encoding`).
  public var body: Data
  /// The client's address (`"127.0.0.1"`), when known; rate limits of servers without keys
  /// count per address.
  public var remoteAddress: String?
  /// Set by the socket layer when the body was cut off at `maxBodyBytes`; answered with 413.
  var bodyExceedsLimit = false
  /// Set by the socket layer when the head breaks RFC 9112 (`RequestHeadCheck`): answered
  /// with this error before any route runs, and the connection closed.
  var headViolation: TrafficQueryError?
  /// Set by the socket layer when admission control did not run the request (its client
  /// waits too many, or it waited too long): answered 503 with `Retry-After`.
  var admissionRefusal: AdmissionControl.Refusal?
  /// When the socket layer had the request's head (wall clock, and the monotonic clock):
  /// the access log's `time` and the start of its `us` and of the duration metrics, so that
  /// the wait for a worker counts. `nil` in-process: the handling starts the clock.
  var arrival: Arrival?

  /// A moment on both clocks.
  struct Arrival: Sendable, Hashable {
    var date: Date
    var instant: ContinuousClock.Instant
  }

  /// Creates a request.
  ///
  /// - Parameters:
  ///   - method: The method, e.g. `"GET"`.
  ///   - target: The path and query, percent-encoded as on the wire.
  ///   - headers: The header fields.
  ///   - body: The body.
  ///   - remoteAddress: The client's address, when known.
  public init(
    method: String = "GET", target: String, headers: HTTPHeaders = [:], body: Data = Data(),
    remoteAddress: String? = nil
  ) {
    self.method = method
    self.target = target
    self.headers = headers
    self.body = body
    self.remoteAddress = remoteAddress
  }

  /// The path part of the target, still percent-encoded. A target in absolute form
  /// (`http://host:8080/v7/flow?...`, which RFC 9112 §3.2.2 requires servers to accept) is
  /// read as its path, `/v7/flow`.
  public var rawPath: Substring {
    let origin = originForm
    // Byte-wise: the target is ASCII on the wire, and a Character search costs far more.
    return origin.utf8.firstIndex(of: UInt8(ascii: "?")).map { origin[..<$0] } ?? origin
  }

  /// The query part of the target without the `?`, still percent-encoded; empty when none.
  public var rawQuery: Substring {
    let origin = originForm
    return origin.utf8.firstIndex(of: UInt8(ascii: "?")).map {
      origin[origin.utf8.index(after: $0)...]
    } ?? ""
  }

  /// The target without the scheme and authority of the absolute form; the target itself
  /// otherwise.
  private var originForm: Substring {
    let whole = target[...]
    guard whole.utf8.first != UInt8(ascii: "/") else { return whole }
    let head = whole.prefix(8).lowercased()
    let scheme: Int
    if head.hasPrefix("http://") {
      scheme = 7
    } else if head.hasPrefix("https://") {
      scheme = 8
    } else {
      return whole
    }
    let authority = whole.dropFirst(scheme)
    guard let end = authority.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
    return authority[end] == "/" ? authority[end...] : Substring("/" + authority[end...])
  }
}
