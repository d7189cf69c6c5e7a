import Foundation

/// Writes JSON text straight into a byte buffer — the server's hot path, where building a
/// tree of values first would cost more than the query.
///
/// The writer places the commas: `beginObject`/`endObject`, `beginArray`/`endArray` and
/// `key` give the structure, and each value follows a key or another value. The caller
/// decides the member order, so output is deterministic. Strings are escaped as
/// RFC 8259 §7 requires (quote, backslash, control characters), plus U+2028 and U+2029 so
/// the text is also safe inside JavaScript.
package struct JSONWriter {
  /// The UTF-8 text written so far.
  @usableFromInline
  package internal(set) var bytes: [UInt8] = []
  /// Whether the next value or member follows another in the same array or object, and so
  /// needs a comma: set after each value, cleared by `beginObject`, `beginArray` and `key`.
  @usableFromInline
  var needsSeparator = false

  /// Creates an empty writer, reserving `capacity` bytes.
  @inlinable
  package init(capacity: Int = 0) {
    bytes.reserveCapacity(capacity)
  }

  /// Takes the bytes written, leaving the writer empty.
  @inlinable
  package mutating func take() -> [UInt8] {
    let taken = bytes
    bytes = []
    needsSeparator = false
    return taken
  }

  /// Takes the text written so far, keeping the place in the structure (the next member
  /// still gets its comma): the next piece of a document written piece by piece.
  package mutating func takeWritten() -> [UInt8] {
    let taken = bytes
    bytes = []
    bytes.reserveCapacity(taken.count)
    return taken
  }

  /// The comma before a value or member that follows another.
  @inline(__always)
  @usableFromInline
  mutating func separate() {
    if needsSeparator { bytes.append(UInt8(ascii: ",")) }
  }

  @inline(__always)
  @usableFromInline
  mutating func raw(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  // MARK: Structure

  /// Opens an object (as a value: after a key, in an array, or at the top).
  @inline(__always) @inlinable package mutating func beginObject() { open(UInt8(ascii: "{")) }

  /// Closes the innermost open object.
  @inline(__always) @inlinable package mutating func endObject() { close(UInt8(ascii: "}")) }

  /// Opens an array (as a value).
  @inline(__always) @inlinable package mutating func beginArray() { open(UInt8(ascii: "[")) }

  /// Closes the innermost open array.
  @inline(__always) @inlinable package mutating func endArray() { close(UInt8(ascii: "]")) }

  /// Opens an object or array: the comma before it when it follows a value, then `bracket`.
  @inline(__always)
  @usableFromInline
  mutating func open(_ bracket: UInt8) {
    separate()
    bytes.append(bracket)
    needsSeparator = false
  }

  /// Closes an object or array with `bracket`; what follows is separated from it.
  @inline(__always)
  @usableFromInline
  mutating func close(_ bracket: UInt8) {
    bytes.append(bracket)
    needsSeparator = true
  }

  /// Starts a member of the open object: `"name":` (with the comma before it when it follows
  /// another member), for a name known to need no escaping. Its value comes next.
  @inline(__always)
  @inlinable
  package mutating func key(_ name: StaticString) {
    separate()
    bytes.append(UInt8(ascii: "\""))
    name.withUTF8Buffer { bytes.append(contentsOf: $0) }
    bytes.append(UInt8(ascii: "\""))
    bytes.append(UInt8(ascii: ":"))
    needsSeparator = false
  }

  /// Starts a member of the open object whose name is escaped as a string.
  @inlinable
  package mutating func key(_ name: String) {
    separate()
    appendString(name)
    bytes.append(UInt8(ascii: ":"))
    needsSeparator = false
  }

  // MARK: Values

  /// Appends a JSON string literal with escaping.
  ///
  /// - Complexity: O(n) in the UTF-8 length of `text`.
  @inlinable
  package mutating func string(_ text: String) {
    separate()
    appendString(text)
    needsSeparator = true
  }

  @usableFromInline
  mutating func appendString(_ text: String) {
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

  @usableFromInline
  mutating func appendUnicodeEscape(_ code: UInt16) {
    let hex: [UInt8] = Array("0123456789abcdef".utf8)
    bytes.append(UInt8(ascii: "\\"))
    bytes.append(UInt8(ascii: "u"))
    for shift in stride(from: 12, through: 0, by: -4) {
      bytes.append(hex[Int((code >> UInt16(shift)) & 0xF)])
    }
  }

  /// Appends a number in its shortest form that reads back to the same `Double`
  /// (`13.0` is written `13`); non-finite values, which JSON cannot carry, are written `null`.
  @inlinable
  package mutating func number(_ value: Double) {
    separate()
    appendNumber(value)
    needsSeparator = true
  }

  /// Appends a number rounded to `decimals` fractional digits (at most 9), trailing zeros
  /// dropped — for measured values such as lengths, where more digits are noise.
  @inlinable
  package mutating func number(_ value: Double, decimals: Int) {
    let scale = [1.0, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9][max(0, min(decimals, 9))]
    number((value * scale).rounded() / scale)
  }

  @usableFromInline
  mutating func appendNumber(_ value: Double) {
    guard value.isFinite else {
      raw("null")
      return
    }
    if value == value.rounded(), abs(value) < 1e15 {
      appendInteger(Int(value))
      return
    }
    bytes.append(contentsOf: value.description.utf8)
  }

  /// Appends an integer.
  @inlinable
  package mutating func integer(_ value: Int) {
    separate()
    appendInteger(value)
    needsSeparator = true
  }

  @usableFromInline
  mutating func appendInteger(_ value: Int) {
    if value >= 0, value < 10 {
      bytes.append(UInt8(ascii: "0") &+ UInt8(value))
      return
    }
    bytes.append(contentsOf: String(value).utf8)
  }

  /// Appends `true` or `false`.
  @inlinable
  package mutating func bool(_ value: Bool) {
    separate()
    if value { raw("true") } else { raw("false") }
    needsSeparator = true
  }

  /// Appends `null`.
  @inlinable
  package mutating func null() {
    separate()
    raw("null")
    needsSeparator = true
  }

  /// Appends one complete JSON value written elsewhere (an encoded fragment kept for reuse)
  /// as it is.
  @inlinable
  package mutating func append(_ json: UnsafeBufferPointer<UInt8>) {
    separate()
    bytes.append(contentsOf: json)
    needsSeparator = true
  }

  /// Appends one complete JSON value written elsewhere (see `append(_:)`).
  @inlinable
  package mutating func append(_ json: [UInt8]) {
    json.withUnsafeBufferPointer { append($0) }
  }

  /// Appends one complete JSON value written elsewhere (such as `GeoJSON.encode`'s output).
  @inlinable
  package mutating func append(_ json: Data) {
    separate()
    bytes.append(contentsOf: json)
    needsSeparator = true
  }

  /// Appends a parsed JSON value; object members are written sorted by name, so the output
  /// does not depend on dictionary order, and numbers as their source text.
  ///
  /// - Parameter value: The value (from `JSONParser`, whose numbers are valid JSON text).
  /// - Complexity: O(n log n) in the number of members of the largest object, O(n) otherwise.
  @inlinable
  package mutating func value(_ value: JSONValue) {
    switch value {
    case .null: null()
    case .bool(let flag): bool(flag)
    case .number(let text):
      separate()
      bytes.append(contentsOf: text.utf8)
      needsSeparator = true
    case .string(let text): string(text)
    case .array(let elements):
      beginArray()
      for element in elements { self.value(element) }
      endArray()
    case .object(let members):
      beginObject()
      for name in members.keys.sorted() {
        key(name)
        if let member = members[name] { self.value(member) }
      }
      endObject()
    }
  }

  /// Appends a JSON string literal, or `null` for `nil`.
  @inlinable
  package mutating func string(_ text: String?) {
    if let text { string(text) } else { null() }
  }

  /// Appends a date as RFC 3339 in UTC, or `null` for `nil`.
  @inlinable
  package mutating func date(_ value: Date?) {
    if let value { date(value) } else { null() }
  }

  /// Appends a date as RFC 3339 in UTC (see `RFC3339.format`).
  @inlinable
  package mutating func date(_ value: Date) {
    date(value, offsetSeconds: 0)
  }

  /// Appends a date as RFC 3339 in the local time of a place `offsetSeconds` east of UTC,
  /// with its offset (see `RFC3339.format(_:offsetSeconds:)`).
  @inlinable
  package mutating func date(_ value: Date, offsetSeconds: Int) {
    separate()
    bytes.append(UInt8(ascii: "\""))
    RFC3339.append(value, offsetSeconds: offsetSeconds, to: &bytes)
    bytes.append(UInt8(ascii: "\""))
    needsSeparator = true
  }
}

extension JSONWriter {
  /// Where a JSON array of values encoded before is assembled straight into a buffer of
  /// known size (the server's cached answers): the text before the first value, the values
  /// separated by commas, and the text that closes the document.
  package struct Assembly {
    /// The text before the first value, ending with the array's `[`.
    package var prefix: [UInt8]
    /// The text after the last value, such as `]}`.
    package var suffix: StaticString

    @inlinable
    package init(prefix: [UInt8], suffix: StaticString) {
      self.prefix = prefix
      self.suffix = suffix
    }

    /// The size of the document of `count` values of `valueBytes` bytes in all.
    @inlinable
    package func size(count: Int, valueBytes: Int) -> Int {
      prefix.count + valueBytes + max(0, count - 1) + suffix.utf8CodeUnitCount
    }

    /// Writes the document into `buffer` (at least `size(count:valueBytes:)` bytes): `value`
    /// hands the bytes of the value numbered by its first argument to its second.
    ///
    /// - Returns: The number of bytes written.
    @inlinable
    package func write(
      into buffer: UnsafeMutableRawBufferPointer, count: Int,
      value: (Int, (UnsafeRawBufferPointer) -> Void) -> Void
    ) -> Int {
      var offset = 0
      func put(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + bytes.count])
          .copyMemory(from: bytes)
        offset += bytes.count
      }
      prefix.withUnsafeBytes { put($0) }
      for slot in 0..<count {
        if slot > 0 {
          buffer[offset] = UInt8(ascii: ",")
          offset += 1
        }
        value(slot, put)
      }
      suffix.withUTF8Buffer { put(UnsafeRawBufferPointer($0)) }
      return offset
    }
  }
}

extension JSONWriter {
  /// Writes a member of the open object: `"name":` and its value.
  @inline(__always)
  @inlinable
  package mutating func member(_ name: StaticString, _ value: String) {
    key(name)
    string(value)
  }

  /// Writes a member whose value may be `null`.
  @inline(__always)
  @inlinable
  package mutating func member(_ name: StaticString, _ value: String?) {
    key(name)
    string(value)
  }

  /// Writes an integer member.
  @inline(__always)
  @inlinable
  package mutating func member(_ name: StaticString, _ value: Int) {
    key(name)
    integer(value)
  }

  /// Writes a number member (shortest form that reads back the same; `null` if not finite).
  @inline(__always)
  @inlinable
  package mutating func member(_ name: StaticString, _ value: Double) {
    key(name)
    number(value)
  }

  /// Writes a number member rounded to `decimals` fractional digits.
  @inline(__always)
  @inlinable
  package mutating func member(_ name: StaticString, _ value: Double, decimals: Int) {
    key(name)
    number(value, decimals: decimals)
  }

  /// Writes a Boolean member.
  @inline(__always)
  @inlinable
  package mutating func member(_ name: StaticString, _ value: Bool) {
    key(name)
    bool(value)
  }

  /// Writes a date member (RFC 3339 in UTC).
  @inline(__always)
  @inlinable
  package mutating func member(_ name: StaticString, _ value: Date) {
    key(name)
    date(value)
  }

  /// Writes a date member, `null` for `nil`.
  @inline(__always)
  @inlinable
  package mutating func member(_ name: StaticString, _ value: Date?) {
    key(name)
    date(value)
  }

  /// Writes a member only when it has a value (nothing for `nil`).
  @inlinable
  package mutating func memberIfPresent(_ name: StaticString, _ value: String?) {
    if let value { member(name, value) }
  }

  /// Writes an integer member only when it has a value.
  @inlinable
  package mutating func memberIfPresent(_ name: StaticString, _ value: Int?) {
    if let value { member(name, value) }
  }

  /// Writes a number member only when it has a value.
  @inlinable
  package mutating func memberIfPresent(_ name: StaticString, _ value: Double?) {
    if let value { member(name, value) }
  }
}
