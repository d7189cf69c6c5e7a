import Foundation

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

  /// The path part of the target, still percent-encoded.
  public var rawPath: Substring {
    target.firstIndex(of: "?").map { target[..<$0] } ?? target[...]
  }

  /// The query part of the target without the `?`, still percent-encoded; empty when none.
  public var rawQuery: Substring {
    target.firstIndex(of: "?").map { target[target.index(after: $0)...] } ?? ""
  }
}
