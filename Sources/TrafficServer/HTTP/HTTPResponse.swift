import Foundation
import Traffic

/// One HTTP response: a status, header fields and a body, or an open event stream.
public struct HTTPResponse: Sendable {
  /// The status code.
  public var status: Int
  /// The header fields (the socket layer adds `Date`, `Content-Length` and `Connection`).
  public var headers: HTTPHeaders
  /// The body; empty for 204 and 304.
  public var body: Data
  /// For `text/event-stream` responses, the stream that produces the body over time.
  package var eventStream: EventStream?
  /// For a large document, the body written as it is sent (`body` is then empty).
  package var bodyStream: ResponseBodyStream?
  /// Whether `ETag`, `Vary` and compression are already applied (an answer from the
  /// response cache).
  var isPrepared = false
  /// The buffer `body` refers to when it comes from the response cache: the socket layer
  /// sends it without a copy. Set only while `body` is exactly these bytes.
  var sharedBody: SharedBytes?

  /// Creates a response.
  ///
  /// - Parameters:
  ///   - status: The status code.
  ///   - headers: The header fields.
  ///   - body: The body.
  public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// A JSON response.
  static func json(_ body: Data, status: Int = 200) -> HTTPResponse {
    HTTPResponse(
      status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: body)
  }

  /// A JSON answer that describes the moment (status, counts): never cached.
  static func uncachedJSON(_ body: [UInt8]) -> HTTPResponse {
    var response = json(Data(body))
    response.headers.add("Cache-Control", "no-store")
    return response
  }

  /// The body as UTF-8 text (for tests and logs).
  public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
