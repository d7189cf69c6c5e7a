import Foundation
import Traffic

/// Where the access log goes: one line per request, in logfmt
/// (`time=2026-11-29T20:10:00.123Z client=127.0.0.1 method=GET path="/v7/incidents?in=..."
/// status=200 bytes=1234 us=532 ...`).
public struct AccessLogSink: Sendable {
  let write: (@Sendable (String) -> Void)?

  /// Writes each line to standard error (the default).
  public static let standardError = AccessLogSink { line in
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }

  /// Writes nothing.
  public static let none = AccessLogSink(nil)

  /// Hands each line (without a newline) to `write`, which must be thread-safe.
  ///
  /// - Parameter write: Called once per request from the serving threads.
  /// - Returns: The sink.
  public static func custom(_ write: @escaping @Sendable (String) -> Void) -> AccessLogSink {
    AccessLogSink(write)
  }

  private init(_ write: (@Sendable (String) -> Void)?) {
    self.write = write
  }

  /// The request target with the value of every `apiKey` parameter replaced by `REDACTED`,
  /// so that keys never reach a log.
  ///
  /// - Parameter target: The raw request target.
  /// - Returns: The target safe to log.
  static func redacted(_ target: String) -> String {
    guard let question = target.firstIndex(of: "?") else { return target }
    let query = target[target.index(after: question)...]
    let pieces = query.split(separator: "&", omittingEmptySubsequences: false).map {
      piece -> String in
      let name = piece.prefix { $0 != "=" }
      let decoded = QueryParameters.percentDecoded(name) ?? String(name)
      return decoded.caseInsensitiveEquals("apiKey") ? "\(name)=REDACTED" : String(piece)
    }
    return target[...question] + pieces.joined(separator: "&")
  }

  /// When a request arrived, in RFC 3339 UTC, always with milliseconds
  /// (`2026-11-29T20:10:00.000Z`), so that lines sort and align as text.
  ///
  /// - Parameter date: When the request arrived.
  /// - Returns: The time stamp.
  static func timestamp(_ date: Date) -> String {
    let text = RFC3339.format(date)
    // `format` leaves out a zero fraction.
    return text.contains(".") ? text : text.dropLast() + ".000Z"
  }

  /// The client's address as logged: the socket peer's IPv4 or IPv6 address as it is, `-`
  /// when unknown (a request handled in-process), quoted when it is anything else.
  ///
  /// - Parameter address: The request's `remoteAddress`.
  /// - Returns: The logfmt value.
  static func client(_ address: String?) -> String {
    guard let address, !address.isEmpty else { return "-" }
    let isAddress = address.utf8.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
        UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: "."), UInt8(ascii: ":"):
        return true
      default: return false
      }
    }
    return isAddress ? address : quoted(address)
  }

  /// Quotes a value for logfmt.
  static func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case _ where scalar.value < 0x20 || scalar.value == 0x7f:
        out += "\\u{\(String(scalar.value, radix: 16))}"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }
}
