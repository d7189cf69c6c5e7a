import Foundation

/// Writes JSON text straight into a byte buffer — the server's hot path, where building
/// `[String: Any]` trees for `JSONSerialization` would cost more than the query.
///
/// The caller decides the member order, so output is deterministic. Strings are escaped as
/// RFC 8259 §7 requires (quote, backslash, control characters), plus U+2028 and U+2029 so
/// the text is also safe inside JavaScript.
package struct JSONWriter {
  /// The UTF-8 text written so far.
  package private(set) var bytes: [UInt8] = []

  /// Creates an empty writer, reserving `capacity` bytes.
  package init(capacity: Int = 0) {
    bytes.reserveCapacity(capacity)
  }

  /// Appends raw JSON punctuation or a pre-escaped fragment.
  @inline(__always)
  package mutating func raw(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  /// Appends one byte of punctuation.
  @inline(__always)
  package mutating func byte(_ value: UInt8) {
    bytes.append(value)
  }

  /// Appends `"key":` for a member name known to need no escaping.
  @inline(__always)
  package mutating func key(_ name: StaticString) {
    bytes.append(UInt8(ascii: "\""))
    name.withUTF8Buffer { bytes.append(contentsOf: $0) }
    bytes.append(UInt8(ascii: "\""))
    bytes.append(UInt8(ascii: ":"))
  }

  /// Appends a JSON string literal with escaping.
  ///
  /// - Complexity: O(n) in the UTF-8 length of `text`.
  package mutating func string(_ text: String) {
    bytes.append(UInt8(ascii: "\""))
    var text = text
    text.withUTF8 { utf8 in
      var runStart = 0
      var index = 0
      let count = utf8.count
      while index < count {
        let byte = utf8[index]
        var escape: StaticString? = nil
        var unicodeEscape = false
        switch byte {
        case UInt8(ascii: "\""): escape = "\\\""
        case UInt8(ascii: "\\"): escape = "\\\\"
        case 0x0A: escape = "\\n"
        case 0x0D: escape = "\\r"
        case 0x09: escape = "\\t"
        case 0x08: escape = "\\b"
        case 0x0C: escape = "\\f"
        case 0x00..<0x20: unicodeEscape = true
        case 0xE2:
          // U+2028 / U+2029 are E2 80 A8 / E2 80 A9.
          if index + 2 < count, utf8[index + 1] == 0x80, utf8[index + 2] & 0xFE == 0xA8 {
            bytes.append(contentsOf: utf8[runStart..<index])
            appendUnicodeEscape(utf8[index + 2] == 0xA8 ? 0x2028 : 0x2029)
            index += 3
            runStart = index
            continue
          }
        default: break
        }
        if escape != nil || unicodeEscape {
          bytes.append(contentsOf: utf8[runStart..<index])
          if let escape {
            escape.withUTF8Buffer { bytes.append(contentsOf: $0) }
          } else {
            appendUnicodeEscape(UInt16(byte))
          }
          runStart = index + 1
        }
        index += 1
      }
      bytes.append(contentsOf: utf8[runStart..<count])
    }
    bytes.append(UInt8(ascii: "\""))
  }

  private mutating func appendUnicodeEscape(_ code: UInt16) {
    let hex: [UInt8] = Array("0123456789abcdef".utf8)
    bytes.append(UInt8(ascii: "\\"))
    bytes.append(UInt8(ascii: "u"))
    for shift in stride(from: 12, through: 0, by: -4) {
      bytes.append(hex[Int((code >> UInt16(shift)) & 0xF)])
    }
  }

  /// Appends a number in its shortest form that reads back to the same `Double`
  /// (`13.0` is written `13`); non-finite values, which JSON cannot carry, are written `null`.
  package mutating func number(_ value: Double) {
    guard value.isFinite else {
      raw("null")
      return
    }
    if value == value.rounded(), abs(value) < 1e15 {
      integer(Int(value))
      return
    }
    bytes.append(contentsOf: value.description.utf8)
  }

  /// Appends a number rounded to `decimals` fractional digits (at most 9), trailing zeros
  /// dropped — for measured values such as lengths, where more digits are noise.
  package mutating func number(_ value: Double, decimals: Int) {
    let scale = [1.0, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9][max(0, min(decimals, 9))]
    number((value * scale).rounded() / scale)
  }

  /// Appends an integer.
  package mutating func integer(_ value: Int) {
    if value >= 0, value < 10 {
      bytes.append(UInt8(ascii: "0") &+ UInt8(value))
      return
    }
    bytes.append(contentsOf: String(value).utf8)
  }

  /// Appends `true` or `false`.
  package mutating func bool(_ value: Bool) {
    if value { raw("true") } else { raw("false") }
  }

  /// Appends `null`.
  package mutating func null() {
    raw("null")
  }

  /// Appends JSON text written elsewhere (an encoded fragment kept for reuse) as it is.
  ///
  /// - Parameter json: One complete JSON value, UTF-8.
  package mutating func append(_ json: [UInt8]) {
    bytes.append(contentsOf: json)
  }

  /// Appends JSON text written elsewhere (an encoded fragment kept for reuse) as it is.
  ///
  /// - Parameter json: One complete JSON value, UTF-8.
  package mutating func append(_ json: UnsafeBufferPointer<UInt8>) {
    bytes.append(contentsOf: json)
  }

  /// Appends JSON text written elsewhere (such as `GeoJSON.encode`'s output) as it is.
  ///
  /// - Parameter json: One complete JSON value, UTF-8.
  package mutating func fragment(_ json: Data) {
    bytes.append(contentsOf: json)
  }

  /// Appends a parsed JSON value; object members are written sorted by name, so the output
  /// does not depend on dictionary order, and numbers as their source text.
  ///
  /// - Parameter value: The value (from `JSONParser`, whose numbers are valid JSON text).
  /// - Complexity: O(n log n) in the number of members of the largest object, O(n) otherwise.
  package mutating func value(_ value: JSONValue) {
    switch value {
    case .null: null()
    case .bool(let flag): bool(flag)
    case .number(let text): bytes.append(contentsOf: text.utf8)
    case .string(let text): string(text)
    case .array(let elements):
      byte(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { byte(UInt8(ascii: ",")) }
        self.value(element)
      }
      byte(UInt8(ascii: "]"))
    case .object(let members):
      byte(UInt8(ascii: "{"))
      for (index, name) in members.keys.sorted().enumerated() {
        if index > 0 { byte(UInt8(ascii: ",")) }
        string(name)
        byte(UInt8(ascii: ":"))
        if let member = members[name] { self.value(member) }
      }
      byte(UInt8(ascii: "}"))
    }
  }

  /// Appends a JSON string literal, or `null` for `nil`.
  package mutating func string(_ text: String?) {
    if let text { string(text) } else { null() }
  }

  /// Appends a date as RFC 3339 in UTC, or `null` for `nil`.
  package mutating func date(_ value: Date?) {
    if let value { date(value) } else { null() }
  }

  /// Appends a date as RFC 3339 in UTC (see `RFC3339.format`).
  package mutating func date(_ value: Date) {
    bytes.append(UInt8(ascii: "\""))
    RFC3339.append(value, to: &bytes)
    bytes.append(UInt8(ascii: "\""))
  }
}
