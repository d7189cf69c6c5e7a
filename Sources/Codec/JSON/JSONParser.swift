import Foundation

/// Why a JSON text could not be parsed: the place (line, column and byte offset) and the
/// reason.
package struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
  /// 1-based line of the offending byte.
  package var line: Int
  /// 1-based column (in bytes) of the offending byte.
  package var column: Int
  /// 0-based byte offset of the offending byte.
  package var offset: Int
  /// What was wrong there.
  package var reason: String

  /// `"line L, column C (byte B)"`.
  package var place: String { "line \(line), column \(column) (byte \(offset))" }

  /// `"line L, column C (byte B): reason"`.
  package var description: String { "\(place): \(reason)" }
}

/// A strict, bounded JSON parser producing `JSONValue`.
///
/// Hostile input ends in a `JSONSyntaxError`, never a trap or unbounded recursion: nesting is
/// limited to `maximumDepth`, strings must be valid UTF-8, numbers must be finite doubles,
/// and UTF-16/UTF-32 documents are reported as such. A UTF-8 byte-order mark is skipped.
package enum JSONParser {
  /// Deeper nesting is rejected rather than risking the stack.
  package static let maximumDepth = 256

  /// Parses one JSON value filling the whole of `data` (surrounding whitespace allowed).
  ///
  /// - Parameter data: UTF-8 JSON text.
  /// - Returns: The value.
  /// - Throws: `JSONSyntaxError` naming the place and the reason.
  /// - Complexity: O(n) in the size of `data`.
  package static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
    try parse(bytes: [UInt8](data))
  }

  /// Parses one JSON value filling the whole of `bytes` (surrounding whitespace allowed).
  ///
  /// - Parameters:
  ///   - bytes: UTF-8 JSON text.
  ///   - isFragment: Whether the bytes are one value cut out of a larger text, whose start
  ///     was already checked for a byte-order mark and UTF-16/32 (`JSONStreamReader`).
  /// - Returns: The value.
  /// - Throws: `JSONSyntaxError` naming the place (relative to `bytes`) and the reason.
  /// - Complexity: O(n) in the number of bytes.
  package static func parse(
    bytes: [UInt8], isFragment: Bool = false
  ) throws(JSONSyntaxError) -> JSONValue {
    var parser = Parser(bytes: bytes)
    if !isFragment, bytes.count >= 2,
      (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF)
        || (bytes[0] == 0 || bytes[1] == 0)
    {
      throw parser.failure("the text is UTF-16 or UTF-32 encoded; JSON feeds must be UTF-8")
    }
    if !isFragment, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
      parser.position = 3
    }
    parser.skipWhitespace()
    let value = try parser.readValue(depth: 0)
    parser.skipWhitespace()
    guard parser.position == bytes.count else {
      throw parser.failure("unexpected \(parser.describeHere()) after the value")
    }
    return value
  }

  private struct Parser {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    func failure(_ reason: String, at offset: Int? = nil) -> JSONSyntaxError {
      let offset = min(offset ?? position, bytes.count)
      var line = 1
      var lineStart = 0
      for index in 0..<offset where bytes[index] == 0x0A {
        line += 1
        lineStart = index + 1
      }
      return JSONSyntaxError(
        line: line, column: offset - lineStart + 1, offset: offset, reason: reason)
    }

    func describeHere() -> String {
      guard position < bytes.count else { return "the end of the text (truncated document?)" }
      return describeByte(bytes[position])
    }

    mutating func skipWhitespace() {
      while position < bytes.count {
        switch bytes[position] {
        case 0x20, 0x09, 0x0A, 0x0D: position += 1
        default: return
        }
      }
    }

    mutating func readValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
      guard depth < JSONParser.maximumDepth else {
        throw failure("nesting deeper than \(JSONParser.maximumDepth) levels")
      }
      guard position < bytes.count else {
        throw failure("expected a value, found the end of the text (truncated document?)")
      }
      switch bytes[position] {
      case UInt8(ascii: "{"): return try readObject(depth: depth)
      case UInt8(ascii: "["): return try readArray(depth: depth)
      case UInt8(ascii: "\""): return .string(try readString())
      case UInt8(ascii: "t"):
        try readLiteral("true")
        return .bool(true)
      case UInt8(ascii: "f"):
        try readLiteral("false")
        return .bool(false)
      case UInt8(ascii: "n"):
        try readLiteral("null")
        return .null
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
      default: throw failure("expected a value, found \(describeHere())")
      }
    }

    mutating func readLiteral(_ word: StaticString) throws(JSONSyntaxError) {
      let start = position
      let count = word.utf8CodeUnitCount
      guard position + count <= bytes.count else {
        throw failure("invalid literal, expected \(word)", at: start)
      }
      let matches = word.withUTF8Buffer { literal in
        literal.elementsEqual(bytes[position..<(position + count)])
      }
      guard matches else { throw failure("invalid literal, expected \(word)", at: start) }
      position += count
    }

    mutating func readObject(depth: Int) throws(JSONSyntaxError) -> JSONValue {
      position += 1
      var members: [String: JSONValue] = [:]
      skipWhitespace()
      if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
        position += 1
        return .object(members)
      }
      while true {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
          throw failure("expected a member name in quotes, found \(describeHere())")
        }
        let key = try readString()
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
          throw failure("expected ':' after member \"\(key)\", found \(describeHere())")
        }
        position += 1
        skipWhitespace()
        members[key] = try readValue(depth: depth + 1)
        skipWhitespace()
        guard position < bytes.count else {
          throw failure("expected ',' or '}', found the end of the text (truncated document?)")
        }
        switch bytes[position] {
        case UInt8(ascii: ","): position += 1
        case UInt8(ascii: "}"):
          position += 1
          return .object(members)
        default: throw failure("expected ',' or '}', found \(describeHere())")
        }
      }
    }

    mutating func readArray(depth: Int) throws(JSONSyntaxError) -> JSONValue {
      position += 1
      var elements: [JSONValue] = []
      skipWhitespace()
      if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
        position += 1
        return .array(elements)
      }
      while true {
        skipWhitespace()
        elements.append(try readValue(depth: depth + 1))
        skipWhitespace()
        guard position < bytes.count else {
          throw failure("expected ',' or ']', found the end of the text (truncated document?)")
        }
        switch bytes[position] {
        case UInt8(ascii: ","): position += 1
        case UInt8(ascii: "]"):
          position += 1
          return .array(elements)
        default: throw failure("expected ',' or ']', found \(describeHere())")
        }
      }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, whose value must be a finite double.
    mutating func readNumber() throws(JSONSyntaxError) -> JSONValue {
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
        guard isDigit(position) else {
          throw failure("digits must follow the exponent", at: start)
        }
        while isDigit(position) { position += 1 }
      }
      guard position - start <= 400 else {
        throw failure("number of \(position - start) characters is too long", at: start)
      }
      let token = String(decoding: bytes[start..<position], as: UTF8.self)
      guard let value = Double(token), value.isFinite else {
        throw failure("number \(token) is out of range", at: start)
      }
      return .number(token)
    }

    mutating func readString() throws(JSONSyntaxError) -> String {
      let start = position
      position += 1
      // Fast path: no escapes.
      var end = position
      while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"),
        bytes[end] >= 0x20
      {
        end += 1
      }
      if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
        guard let text = String(validating: bytes[position..<end], as: UTF8.self) else {
          throw failure("string is not valid UTF-8", at: start)
        }
        position = end + 1
        return text
      }
      var scalars: [UInt8] = Array(bytes[position..<end])
      position = end
      while true {
        guard position < bytes.count else {
          throw failure("unterminated string (truncated document?)", at: start)
        }
        let byte = bytes[position]
        switch byte {
        case UInt8(ascii: "\""):
          position += 1
          guard let text = String(validating: scalars, as: UTF8.self) else {
            throw failure("string is not valid UTF-8", at: start)
          }
          return text
        case UInt8(ascii: "\\"):
          position += 1
          let escapeStart = position
          do {
            try JSONEscape.decode(bytes, at: &position, into: &scalars)
          } catch {
            switch error {
            case .truncated:
              throw failure("unterminated string (truncated document?)", at: start)
            case .invalid(let letter):
              throw failure("invalid escape \\\(describeByte(letter))", at: escapeStart - 1)
            case .badHex:
              throw failure("\\u needs 4 hex digits")
            case .unpairedSurrogate:
              throw failure("unpaired surrogate in \\u escape", at: position - 6)
            case .loneSurrogate(let scalarEnd):
              // A surrogate on its own stands for U+FFFD, as decoders commonly read it.
              position = scalarEnd
              scalars.append(contentsOf: [0xEF, 0xBF, 0xBD])
            }
          }
        case 0x00..<0x20:
          throw failure(
            "control character \(describeByte(byte)) inside a string")
        default:
          scalars.append(byte)
          position += 1
        }
      }
    }
  }
}
