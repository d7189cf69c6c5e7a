import Foundation
import Traffic

/// The rules of RFC 9112 on a request's head that libmicrohttpd 0.9.75 does not enforce
/// itself: checked in the socket layer before any route runs. A head that breaks one is
/// answered with the error and the connection is closed (what follows on it may be a
/// second request smuggled past a proxy that framed the first one differently).
///
/// What libmicrohttpd refuses itself, with its own 400 or 413 and a close, never gets here:
/// a `Content-Length` that is not a decimal number (`-1`, `+3`, `3, 3`) or exceeds 2^64 - 1,
/// a header line without a colon. `docs/operations.md` lists every case.
enum RequestHeadCheck {
  /// The error a request head is answered with; `nil` for a well-formed head.
  ///
  /// - Parameters:
  ///   - target: The request target as sent (libmicrohttpd splits the request line at its
  ///     first and last space, so a space inside the target stays in it).
  ///   - version: The request's HTTP version, `HTTP/1.1` or `HTTP/1.0`.
  ///   - headers: The header fields as received, in order, repeated names kept.
  ///   - requestLineVerbatim: Whether the socket layer found the request line as
  ///     `method SP target SP version`: `false` for more than one space after the method
  ///     or a NUL inside the target, which libmicrohttpd skips or cuts.
  ///   - linesVerbatim: Whether the socket layer found every header line as it arrived:
  ///     `false` for an obsolete folded line or a NUL inside a value, which libmicrohttpd
  ///     merges or cuts before the fields are listed.
  /// - Returns: A 400 (`badRequest`), or an `httpError` 413 or 501.
  static func violation(
    target: String, version: String, headers: HTTPHeaders, requestLineVerbatim: Bool,
    linesVerbatim: Bool
  ) -> TrafficQueryError? {
    // RFC 9112 §3: method, one space, target, one space, version.
    guard requestLineVerbatim else {
      return .badRequest(
        "the request line is not a method, one space, the target and the version (a NUL in "
          + "the target, or more than one space); send it as GET /path HTTP/1.1")
    }
    // RFC 9112 §3.2: the target holds no whitespace (a client must percent-encode it).
    if target.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
      return .badRequest(
        "the request target holds a space or a control character; percent-encode it")
    }
    guard linesVerbatim else {
      return .badRequest(
        "a header line is folded onto the previous one (obsolete line folding) or holds a "
          + "NUL; send each field on one line")
    }
    var hosts = 0
    var lengths: [String] = []
    var codings: [String] = []
    for field in headers {
      // Whitespace before the colon stays in the name as libmicrohttpd lists it.
      guard isToken(field.name) else {
        return .badRequest(
          "header field name \(quoted(field.name)) is not a token (whitespace before the "
            + "colon?)")
      }
      guard !field.value.utf8.contains(where: isControl) else {
        return .badRequest("header field \(quoted(field.name)) holds a control character")
      }
      if field.name.caseInsensitiveEquals("Host") {
        hosts += 1
        guard isHost(field.value) else {
          return .badRequest("Host \(quoted(field.value)) is not a host and port")
        }
      } else if field.name.caseInsensitiveEquals("Content-Length") {
        lengths.append(field.value)
      } else if field.name.caseInsensitiveEquals("Transfer-Encoding") {
        codings += field.value.split(separator: ",").map {
          $0.trimmingCharacters(in: .whitespaces).lowercased()
        }.filter { !$0.isEmpty }
      }
    }
    if hosts > 1 {
      return .badRequest("Host is given \(hosts) times; send it once")
    }
    if hosts == 0, version == "HTTP/1.1" {
      return .badRequest("Host is missing; HTTP/1.1 requests must name the host")
    }
    if lengths.count > 1 {
      return .badRequest("Content-Length is given \(lengths.count) times; send it once")
    }
    if let length = lengths.first, Int(length) == nil {
      // libmicrohttpd lets only decimal digits up to 2^64 - 1 through: a length beyond
      // Int.max is far beyond any body limit.
      return .httpError(
        status: 413, "Content-Length \(quoted(length)) is beyond any body this server takes")
    }
    if headers["Transfer-Encoding"] != nil {
      if version != "HTTP/1.1" {
        return .badRequest("Transfer-Encoding is not part of HTTP/1.0; send Content-Length")
      }
      if !lengths.isEmpty {
        return .badRequest("Content-Length and Transfer-Encoding together; send only one")
      }
      guard codings.last == "chunked" else {
        return .badRequest("Transfer-Encoding must end with chunked")
      }
      if let unknown = codings.first(where: { $0 != "chunked" }) {
        return .httpError(
          status: 501,
          "transfer coding \(quoted(unknown)) is not implemented; send chunked alone, and "
            + "compress with Content-Encoding: gzip")
      }
      // libmicrohttpd decodes chunked only from a single field spelled exactly so.
      let fields = headers.values(of: "Transfer-Encoding")
      guard codings.count == 1, fields.count == 1, fields[0].caseInsensitiveEquals("chunked")
      else {
        return .badRequest("Transfer-Encoding must be chunked, once")
      }
    }
    return nil
  }

  /// Whether `name` is an RFC 9110 token: one or more of ALPHA, DIGIT and
  /// ``!#$%&'*+-.^_`|~``.
  private static func isToken(_ name: String) -> Bool {
    !name.isEmpty
      && name.utf8.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
          UInt8(ascii: "0")...UInt8(ascii: "9"):
          return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
      }
  }

  /// Whether `byte` is a control character other than tab (RFC 9110 §5.5: CR, LF and NUL
  /// must be refused, the others are not field content either).
  private static func isControl(_ byte: UInt8) -> Bool {
    (byte < 0x20 && byte != 0x09) || byte == 0x7F
  }

  /// Whether `value` can be a Host field value (RFC 9110 §7.2: `uri-host [":" port]`, empty
  /// allowed; RFC 3986 §3.2.2: an IP literal in brackets, else a name of letters, digits,
  /// `-._~`, sub-delimiters and `%`; the port all digits). `x:80:80`, `[::1` and `x:abc`
  /// are not.
  private static func isHost(_ value: String) -> Bool {
    var rest = Substring(value)
    if rest.hasPrefix("[") {
      guard let close = rest.firstIndex(of: "]") else { return false }
      let literal = rest[rest.index(after: rest.startIndex)..<close]
      guard !literal.isEmpty,
        literal.utf8.allSatisfy({
          isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".")
        })
      else { return false }
      rest = rest[rest.index(after: close)...]
    } else {
      let end = rest.firstIndex(of: ":") ?? rest.endIndex
      guard
        rest[..<end].utf8.allSatisfy({ byte in
          switch byte {
          case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
          default: return "-._~!$&'()*+,;=%".utf8.contains(byte)
          }
        })
      else { return false }
      rest = rest[end...]
    }
    guard !rest.isEmpty else { return true }
    // ":" and the port: digits only (RFC 3986 allows none).
    return rest.first == ":"
      && rest.dropFirst().utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
  }

  private static func isHexDigit(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
      UInt8(ascii: "A")...UInt8(ascii: "F"):
      return true
    default: return false
    }
  }

  /// A short, quoted excerpt of a client's text for an error detail.
  private static func quoted(_ text: String) -> String {
    "\"" + QueryParameters.excerpt(text) + "\""
  }
}
