import Foundation

/// A strict JSON reader (RFC 8259) producing `JSONSerialization`'s vocabulary: `NSNull`, `Bool`,
/// `Double`, `String`, `[Any]` and `[String: Any]`.
///
/// It exists because the codecs need two things Foundation's readers on Linux do not give:
/// correctly rounded numbers (swift-corelibs `JSONSerialization` can be one unit in the last
/// place off, breaking exact round trips) and the byte offset of a syntax error.
struct JSONReader {
  /// Deeper nesting is rejected rather than risking the stack.
  static let maximumDepth = 512

  private let bytes: [UInt8]
  private let format: String
  private var position = 0

  /// Reads one JSON value filling the whole of `data` (surrounding whitespace allowed).
  ///
  /// - Parameters:
  ///   - data: UTF-8 JSON text.
  ///   - format: The format named in errors (e.g. "GeoJSON").
  /// - Returns: The value.
  /// - Throws: `GeoError.malformed(format:, position: <byte offset>, reason: "not valid JSON: ...")`.
  /// - Complexity: O(n) in the size of `data`.
  static func read(_ data: Data, format: String) throws(GeoError) -> Any {
    var reader = JSONReader(bytes: Array(data), format: format)
    reader.skipWhitespace()
    let value = try reader.readValue(depth: 0)
    reader.skipWhitespace()
    guard reader.position == reader.bytes.count else {
      throw reader.failure("unexpected \(reader.describeHere()) after the value")
    }
    return value
  }

  private init(bytes: [UInt8], format: String) {
    self.bytes = bytes
    self.format = format
  }

  private func failure(_ reason: String, at offset: Int? = nil) -> GeoError {
    .malformed(format: format, position: offset ?? position, reason: "not valid JSON: \(reason)")
  }

  private func describeHere() -> String {
    position < bytes.count ? FlexiblePolyline.describe(bytes[position]) : "the end of the text"
  }

  private mutating func skipWhitespace() {
    while position < bytes.count {
      switch bytes[position] {
      case 0x20, 0x09, 0x0A, 0x0D: position += 1
      default: return
      }
    }
  }

  private mutating func readValue(depth: Int) throws(GeoError) -> Any {
    guard depth < JSONReader.maximumDepth else {
      throw failure("nesting deeper than \(JSONReader.maximumDepth) levels")
    }
    guard position < bytes.count else {
      throw failure("expected a value, found the end of the text")
    }
    switch bytes[position] {
    case UInt8(ascii: "{"): return try readObject(depth: depth)
    case UInt8(ascii: "["): return try readArray(depth: depth)
    case UInt8(ascii: "\""): return try readString()
    case UInt8(ascii: "t"): try readLiteral("true"); return true
    case UInt8(ascii: "f"): try readLiteral("false"); return false
    case UInt8(ascii: "n"): try readLiteral("null"); return NSNull()
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
    default: throw failure("expected a value, found \(describeHere())")
    }
  }

  private mutating func readLiteral(_ word: String) throws(GeoError) {
    let start = position
    for byte in word.utf8 {
      guard position < bytes.count, bytes[position] == byte else {
        throw failure("invalid literal, expected \(word)", at: start)
      }
      position += 1
    }
  }

  private mutating func readObject(depth: Int) throws(GeoError) -> [String: Any] {
    position += 1  // {
    var object: [String: Any] = [:]
    skipWhitespace()
    if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
      position += 1
      return object
    }
    while true {
      skipWhitespace()
      guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
        throw failure("expected a member name in quotes, found \(describeHere())")
      }
      let key = try readString()
      skipWhitespace()
      guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
        throw failure("expected ':', found \(describeHere())")
      }
      position += 1
      skipWhitespace()
      object[key] = try readValue(depth: depth + 1)
      skipWhitespace()
      guard position < bytes.count else {
        throw failure("expected ',' or '}', found the end of the text")
      }
      switch bytes[position] {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "}"):
        position += 1
        return object
      default: throw failure("expected ',' or '}', found \(describeHere())")
      }
    }
  }

  private mutating func readArray(depth: Int) throws(GeoError) -> [Any] {
    position += 1  // [
    var array: [Any] = []
    skipWhitespace()
    if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
      position += 1
      return array
    }
    while true {
      skipWhitespace()
      array.append(try readValue(depth: depth + 1))
      skipWhitespace()
      guard position < bytes.count else {
        throw failure("expected ',' or ']', found the end of the text")
      }
      switch bytes[position] {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "]"):
        position += 1
        return array
      default: throw failure("expected ',' or ']', found \(describeHere())")
      }
    }
  }

  /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, converted with correct rounding.
  private mutating func readNumber() throws(GeoError) -> Double {
    let start = position
    func isDigit(_ index: Int) -> Bool {
      index < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
    }
    if bytes[position] == UInt8(ascii: "-") { position += 1 }
    guard isDigit(position) else { throw failure("a number needs digits", at: start) }
    if bytes[position] == UInt8(ascii: "0") {
      position += 1
    } else {
      while isDigit(position) { position += 1 }
    }
    if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
      position += 1
      guard isDigit(position) else { throw failure("digits must follow '.'", at: start) }
      while isDigit(position) { position += 1 }
    }
    if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
      position += 1
      if position < bytes.count,
        bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")
      {
        position += 1
      }
      guard isDigit(position) else { throw failure("digits must follow the exponent", at: start) }
      while isDigit(position) { position += 1 }
    }
    let token = String(decoding: bytes[start..<position], as: UTF8.self)
    guard let value = Double(token), value.isFinite else {
      throw failure("number \(token) is out of range", at: start)
    }
    return value
  }

  private mutating func readString() throws(GeoError) -> String {
    let start = position
    position += 1  // opening quote
    var scalars: [UInt8] = []
    while true {
      guard position < bytes.count else { throw failure("unterminated string", at: start) }
      let byte = bytes[position]
      switch byte {
      case UInt8(ascii: "\""):
        position += 1
        return String(decoding: scalars, as: UTF8.self)
      case UInt8(ascii: "\\"):
        position += 1
        guard position < bytes.count else { throw failure("unterminated string", at: start) }
        let escape = bytes[position]
        position += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
        case UInt8(ascii: "b"): scalars.append(0x08)
        case UInt8(ascii: "f"): scalars.append(0x0C)
        case UInt8(ascii: "n"): scalars.append(0x0A)
        case UInt8(ascii: "r"): scalars.append(0x0D)
        case UInt8(ascii: "t"): scalars.append(0x09)
        case UInt8(ascii: "u"):
          var code = try readHexQuad()
          if (0xD800...0xDBFF).contains(code), position + 1 < bytes.count,
            bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
          {
            position += 2
            let low = try readHexQuad()
            guard (0xDC00...0xDFFF).contains(low) else {
              throw failure("unpaired surrogate in \\u escape", at: position - 6)
            }
            code = 0x10000 + (code - 0xD800) << 10 + (low - 0xDC00)
          }
          // Lone surrogates become U+FFFD, as in Foundation.
          let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
          scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
          throw failure("invalid escape \\\(FlexiblePolyline.describe(escape))", at: position - 2)
        }
      case 0x00..<0x20:
        throw failure("control character \(FlexiblePolyline.describe(byte)) inside a string")
      default:
        scalars.append(byte)
        position += 1
      }
    }
  }

  private mutating func readHexQuad() throws(GeoError) -> UInt32 {
    guard position + 4 <= bytes.count else { throw failure("\\u needs 4 hex digits") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[position]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw failure("\\u needs 4 hex digits")
      }
      value = value << 4 | UInt32(digit)
      position += 1
    }
    return value
  }
}
