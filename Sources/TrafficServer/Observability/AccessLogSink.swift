import Codec
import Foundation
import Traffic

/// Where the access log goes: one line per request, in logfmt
/// (`time=2026-11-29T20:10:00.123Z client=127.0.0.1 method=GET path="/v7/incidents?in=..."
/// status=200 bytes=1234 us=532 ...`).
///
/// The standard error and file sinks write in batches off the request path (every 100 ms,
/// or sooner when 64 KiB are pending, as nginx's `buffer=`/`flush=`), and write everything
/// pending when the server stops.
public struct AccessLogSink: Sendable {
  enum Target: Sendable {
    case none
    case buffered(BufferedLogWriter)
    case custom(@Sendable (String) -> Void)
  }

  let target: Target

  /// Writes to standard error, in batches (the default).
  public static let standardError = AccessLogSink(.buffered(BufferedLogWriter(fileDescriptor: 2)))

  /// Writes nothing.
  public static let none = AccessLogSink(.none)

  /// Hands each line (without a newline) to `write`, which must be thread-safe.
  ///
  /// - Parameter write: Called once per request from the serving threads.
  /// - Returns: The sink.
  public static func custom(_ write: @escaping @Sendable (String) -> Void) -> AccessLogSink {
    AccessLogSink(.custom(write))
  }

  /// Appends to the file at `path` (created when absent), in batches. The file stays open,
  /// and its writer thread runs, for the rest of the process (a server's lifetime).
  ///
  /// - Parameter path: The log file.
  /// - Returns: The sink.
  /// - Throws: `ServerError.invalidConfiguration` when the file cannot be opened.
  public static func file(atPath path: String) throws(ServerError) -> AccessLogSink {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw .invalidConfiguration(
        "the access log \(path) cannot be opened: \(String(cString: strerror(errno)))")
    }
    return AccessLogSink(.buffered(BufferedLogWriter(fileDescriptor: descriptor)))
  }

  private init(_ target: Target) {
    self.target = target
  }

  /// Whether lines go anywhere.
  var isEnabled: Bool {
    if case .none = target { return false }
    return true
  }

  /// Writes one line (without a newline).
  func write(_ line: [UInt8]) {
    switch target {
    case .none: return
    case .buffered(let writer): writer.append(line)
    case .custom(let write): write(String(decoding: line, as: UTF8.self))
    }
  }

  /// Writes every line still pending.
  public func flush() {
    if case .buffered(let writer) = target { writer.flush() }
  }

  // MARK: The fields of a line

  /// The request target with the value of every `apiKey` parameter replaced by `REDACTED`,
  /// so that keys never reach a log: also a key inside another parameter's value, as in a
  /// malformed query (`in=circle:1,2;r=5000?apiKey=K`), percent-encoded or not.
  ///
  /// - Parameter target: The raw request target.
  /// - Returns: The target safe to log.
  static func redacted(_ target: String) -> String {
    guard let question = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target }
    // Most targets name no key: no `apikey` in any letter case and nothing percent-encoded
    // that could spell one.
    if !mayNameAPIKey(target.utf8) { return target }
    let query = target[target.utf8.index(after: question)...]
    let pieces = query.split(separator: "&", omittingEmptySubsequences: false).map {
      piece -> String in
      let name = piece.prefix { $0 != "=" }
      let decoded = QueryParameters.percentDecoded(name) ?? String(name)
      if decoded.caseInsensitiveEquals("apiKey") { return "\(name)=REDACTED" }
      let raw = redactingKeys(in: String(piece))
      // A key spelled with escapes inside a value (`api%4Bey%3DK`): the whole value goes.
      if raw == piece, piece.utf8.contains(UInt8(ascii: "%")),
        let whole = QueryParameters.percentDecoded(piece), redactingKeys(in: whole) != whole
      {
        return "\(name)=REDACTED"
      }
      return raw
    }
    return target[...question] + pieces.joined(separator: "&")
  }

  /// `text` with whatever follows `apiKey=` (any letter case; `=` also as `%3D`) replaced by
  /// `REDACTED`, up to the next `&`, quote, backslash, whitespace or the end: for a log line
  /// or an error detail that quotes a client's malformed query.
  ///
  /// - Parameter text: Any text.
  /// - Returns: The text without keys.
  static func redactingKeys(in text: String) -> String {
    guard mayNameAPIKey(text.utf8) else { return text }
    let bytes = Array(text.utf8)
    let word = Array("apikey".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
      let end = index + word.count
      guard end < bytes.count,
        zip(bytes[index..<end], word).allSatisfy({ $0 | 0x20 == $1 })
      else {
        out.append(bytes[index])
        index += 1
        continue
      }
      let valueStart: Int
      if bytes[end] == UInt8(ascii: "=") {
        valueStart = end + 1
      } else if end + 2 < bytes.count, bytes[end] == UInt8(ascii: "%"),
        bytes[end + 1] == UInt8(ascii: "3"), bytes[end + 2] | 0x20 == UInt8(ascii: "d")
      {
        valueStart = end + 3
      } else {
        out.append(contentsOf: bytes[index..<end])
        index = end
        continue
      }
      out.append(contentsOf: bytes[index..<valueStart])
      out.append(contentsOf: "REDACTED".utf8)
      index = valueStart
      while index < bytes.count, !"&\"\\ \t\r\n".utf8.contains(bytes[index]) { index += 1 }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Whether `text` holds a percent escape or `apikey` in any letter case.
  private static func mayNameAPIKey(_ text: String.UTF8View) -> Bool {
    let scan = { (bytes: UnsafeBufferPointer<UInt8>) -> Bool in
      // "apikey" has no repeated letter, so a mismatch restarts the match at this byte.
      let word: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (97, 112, 105, 107, 101, 121)
      var matched = 0
      for byte in bytes {
        if byte == UInt8(ascii: "%") { return true }
        let lower = byte >= 65 && byte <= 90 ? byte | 0x20 : byte
        let expected = withUnsafeBytes(of: word) { $0[matched] }
        if lower == expected {
          matched += 1
          if matched == 6 { return true }
        } else {
          matched = lower == word.0 ? 1 : 0
        }
      }
      return false
    }
    return text.withContiguousStorageIfAvailable(scan) ?? Array(text).withUnsafeBufferPointer(scan)
  }

  /// When a request arrived, in RFC 3339 UTC, always with milliseconds
  /// (`2026-11-29T20:10:00.000Z`), so that lines sort and align as text.
  ///
  /// - Parameter date: When the request arrived.
  /// - Returns: The time stamp.
  static func timestamp(_ date: Date) -> String {
    var bytes: [UInt8] = []
    appendTimestamp(date, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends ``timestamp(_:)`` to `bytes`.
  static func appendTimestamp(_ date: Date, to bytes: inout [UInt8]) {
    let start = bytes.count
    RFC3339.append(date, to: &bytes)
    // `append` leaves out a zero fraction.
    if !bytes[start...].contains(UInt8(ascii: ".")) {
      bytes.insert(contentsOf: ".000".utf8, at: bytes.count - 1)
    }
  }

  /// The client's address as logged: the socket peer's IPv4 or IPv6 address as it is, `-`
  /// when unknown (a request handled in-process), quoted when it is anything else.
  ///
  /// - Parameter address: The request's `remoteAddress`.
  /// - Returns: The logfmt value.
  static func client(_ address: String?) -> String {
    var bytes: [UInt8] = []
    appendClient(address, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends ``client(_:)`` to `bytes`.
  static func appendClient(_ address: String?, to bytes: inout [UInt8]) {
    guard let address, !address.isEmpty else {
      bytes.append(UInt8(ascii: "-"))
      return
    }
    let isAddress = address.utf8.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
        UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: "."), UInt8(ascii: ":"):
        return true
      default: return false
      }
    }
    if isAddress {
      bytes.append(contentsOf: address.utf8)
    } else {
      appendQuoted(address, to: &bytes)
    }
  }

  /// Quotes a value for logfmt.
  static func quoted(_ text: String) -> String {
    var bytes: [UInt8] = []
    appendQuoted(text, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends ``quoted(_:)`` to `bytes`: quotes and backslashes escaped, control characters
  /// as `\u{hex}`.
  static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\""))
    let needsNoEscape =
      text.utf8.withContiguousStorageIfAvailable { text in
        guard !text.contains(where: Self.needsEscape) else { return false }
        bytes.append(contentsOf: text)
        return true
      } ?? false
    if needsNoEscape {
      bytes.append(UInt8(ascii: "\""))
      return
    }
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
      case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
      case 0..<0x20, 0x7f:
        bytes.append(contentsOf: "\\u{\(String(byte, radix: 16))}".utf8)
      default: bytes.append(byte)  // bytes of multi-byte UTF-8 sequences pass unchanged
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  private static func needsEscape(_ byte: UInt8) -> Bool {
    byte < 0x20 || byte == 0x7f || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
  }
}
