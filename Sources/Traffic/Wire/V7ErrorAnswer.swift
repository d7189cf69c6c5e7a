import Codec
import Foundation

/// The error answer of the v7 routes, written by the server and read by the remote engine:
///
/// ```
/// {"status": 400, "title": "Invalid geometry", "code": "invalidGeometry",
///  "detail"?: "in: circle radius 60000.0 m exceeds the limit of 50000.0 m",
///  "correlationId": "..."}
/// ```
///
/// `code` is a ``TrafficQueryError`` case name, `status` its HTTP status, `title` and
/// `detail` its ``TrafficQueryError/title`` and ``TrafficQueryError/detail``. For
/// `httpError` the detail begins with `status N`, which reading takes off again, so every
/// error reads back equal. An answer without a `code` (a proxy's, say) reads as the case
/// its status stands for.
package enum V7ErrorAnswer {
  /// Writes the error body of `error`.
  ///
  /// - Parameters:
  ///   - error: The error.
  ///   - correlationId: The request's correlation id; the server writes it empty and fills
  ///     it in as it finishes the response.
  ///   - explanation: The detail of a case that carries none (which of the server's checks
  ///     refused a key or a rate); reading it back gives the case alone.
  ///   - detail: Rewrites the detail before it is written (the server takes API keys out).
  /// - Returns: UTF-8 JSON text, `correlationId` its last member.
  package static func encode(
    _ error: TrafficQueryError, correlationId: String = "", explanation: String? = nil,
    detail: (String) -> String = { $0 }
  ) -> [UInt8] {
    var writer = JSONWriter(capacity: 256)
    writer.beginObject()
    writer.member("status", error.httpStatus)
    writer.member("title", error.title)
    writer.member("code", error.name)
    if let text = error.detail ?? explanation {
      writer.member("detail", detail(text))
    }
    writer.member("correlationId", correlationId)
    writer.endObject()
    return writer.bytes
  }

  /// The error an HTTP answer other than 200 stands for: the `code` and `detail` of its
  /// error body when it has one, else the status.
  ///
  /// - Parameters:
  ///   - status: The HTTP status.
  ///   - body: The answer's body.
  package static func decode(status: Int, body: Data) -> TrafficQueryError {
    if let root = try? JSONParser.parse(body), case .object(let members) = root,
      case .string(let code)? = members["code"]
    {
      var detail: String?
      if case .string(let text)? = members["detail"] { detail = text }
      if code == "httpError", let text = detail {
        // The detail was written as `status N` or `status N: text`.
        let prefix = "status \(status)"
        if text == prefix {
          detail = nil
        } else if text.hasPrefix(prefix + ": ") {
          detail = String(text.dropFirst(prefix.count + 2))
        }
      }
      return TrafficQueryError(code: code, detail: detail, status: status)
    }
    switch status {
    case 401: return .authenticationFailed
    case 403: return .forbidden
    case 404: return .httpError(status: 404, "not found")
    case 407: return .proxyAuthenticationFailed
    case 429: return .tooManyRequests
    case 504: return .timedOut
    default:
      return .httpError(status: status, String(decoding: body.prefix(200), as: UTF8.self))
    }
  }
}
