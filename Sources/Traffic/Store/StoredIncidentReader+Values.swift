import Codec
import Foundation

extension StoredIncidentReader {
  /// A member name in the body, compared without making a string of it.
  struct Key {
    let bytes: UnsafeRawBufferPointer

    func `is`(_ name: StaticString) -> Bool {
      guard name.utf8CodeUnitCount == bytes.count, let base = bytes.baseAddress else {
        return false
      }
      return memcmp(name.utf8Start, base, bytes.count) == 0
    }
  }

  mutating func skipWhitespace() {
    while offset < bytes.count {
      switch bytes[offset] {
      case 0x20, 0x0A, 0x0D, 0x09: offset += 1
      default: return
      }
    }
  }

  mutating func expect(_ byte: UInt8) throws(GiveUp) {
    skipWhitespace()
    guard offset < bytes.count, bytes[offset] == byte else { throw GiveUp() }
    offset += 1
  }

  /// Consumes `byte` (after whitespace) if it comes next.
  mutating func take(_ byte: UInt8) -> Bool {
    skipWhitespace()
    guard offset < bytes.count, bytes[offset] == byte else { return false }
    offset += 1
    return true
  }

  /// `null` as `nil`, else the value `read` reads.
  mutating func readOptional<Value>(
    _ read: (inout StoredIncidentReader) throws(GiveUp) -> Value
  ) throws(GiveUp) -> Value? {
    skipWhitespace()
    if offset + 4 <= bytes.count, bytes[offset] == UInt8(ascii: "n") {
      guard bytes[offset + 1] == UInt8(ascii: "u"), bytes[offset + 2] == UInt8(ascii: "l"),
        bytes[offset + 3] == UInt8(ascii: "l")
      else { throw GiveUp() }
      offset += 4
      return nil
    }
    return try read(&self)
  }

  mutating func readObject(
    _ member: (inout StoredIncidentReader, Key) throws(GiveUp) -> Void
  ) throws(GiveUp) {
    try expect(UInt8(ascii: "{"))
    if take(UInt8(ascii: "}")) { return }
    repeat {
      let key = try readKey()
      try expect(UInt8(ascii: ":"))
      try member(&self, key)
    } while take(UInt8(ascii: ","))
    try expect(UInt8(ascii: "}"))
  }

  mutating func readArray<Element>(
    _ element: (inout StoredIncidentReader) throws(GiveUp) -> Element
  ) throws(GiveUp) -> [Element] {
    try expect(UInt8(ascii: "["))
    var elements: [Element] = []
    if take(UInt8(ascii: "]")) { return elements }
    repeat {
      elements.append(try element(&self))
    } while take(UInt8(ascii: ","))
    try expect(UInt8(ascii: "]"))
    return elements
  }

  mutating func readEmptyObjectOrNull() throws(GiveUp) {
    _ = try readOptional { r throws(GiveUp) in
      try r.expect(UInt8(ascii: "{"))
      try r.expect(UInt8(ascii: "}"))
    }
  }

  mutating func readEmptyArrayOrNull() throws(GiveUp) {
    _ = try readOptional { r throws(GiveUp) in
      try r.expect(UInt8(ascii: "["))
      try r.expect(UInt8(ascii: "]"))
    }
  }

  /// A member name without escapes (every name the coder writes).
  mutating func readKey() throws(GiveUp) -> Key {
    try expect(UInt8(ascii: "\""))
    let start = offset
    while offset < bytes.count, bytes[offset] != UInt8(ascii: "\"") {
      guard bytes[offset] != UInt8(ascii: "\\") else { throw GiveUp() }
      offset += 1
    }
    guard offset < bytes.count else { throw GiveUp() }
    let key = Key(bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
    offset += 1
    return key
  }

  /// A string. `reuse`, given the string's UTF-8 bytes, may return an equal string already
  /// held (shared instead of copied).
  mutating func readString(
    reusing reuse: (UnsafeRawBufferPointer) -> String? = { _ in nil }
  ) throws(GiveUp) -> String {
    try expect(UInt8(ascii: "\""))
    let start = offset
    var isASCII = true
    while offset < bytes.count {
      let byte = bytes[offset]
      if byte == UInt8(ascii: "\"") {
        let run = UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
        offset += 1
        if let held = reuse(run) { return held }
        if isASCII { return String(decoding: run, as: UTF8.self) }
        // Bytes that are not UTF-8 are an error, as for `JSONDecoder`, not repaired.
        guard let text = String(validating: run, as: UTF8.self) else { throw GiveUp() }
        return text
      }
      if byte >= 0x80 { isASCII = false }
      if byte == UInt8(ascii: "\\") {
        offset = start
        return try readEscapedString(reusing: reuse)
      }
      guard byte >= 0x20 else { throw GiveUp() }
      offset += 1
    }
    throw GiveUp()
  }

  /// Whether `text`'s UTF-8 form is `bytes`.
  static func same(_ text: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
    text.utf8.count == bytes.count
      && text.utf8.withContiguousStorageIfAvailable { utf8 in
        guard let held = utf8.baseAddress, let read = bytes.baseAddress else {
          return bytes.isEmpty
        }
        return memcmp(held, read, bytes.count) == 0
      } ?? false
  }

  /// The rest of a string with escapes, from its first character: `\" \\ \/ \b \f \n \r
  /// \t` and `\uXXXX` (a surrogate pair as one scalar). Anything else — another escape, a
  /// lone surrogate, a control character, bytes that are not UTF-8 — gives up, and
  /// `JSONDecoder` decides.
  mutating func readEscapedString(
    reusing reuse: (UnsafeRawBufferPointer) -> String?
  ) throws(GiveUp) -> String {
    var decoded: [UInt8] = []
    while offset < bytes.count {
      let byte = bytes[offset]
      if byte == UInt8(ascii: "\"") {
        offset += 1
        let text = decoded.withUnsafeBytes { run in
          reuse(run) ?? String(validating: run, as: UTF8.self)
        }
        guard let text else { throw GiveUp() }
        return text
      }
      guard byte >= 0x20 else { throw GiveUp() }
      guard byte == UInt8(ascii: "\\") else {
        decoded.append(byte)
        offset += 1
        continue
      }
      offset += 1
      do { try JSONEscape.decode(bytes, at: &offset, into: &decoded) } catch { throw GiveUp() }
    }
    throw GiveUp()
  }

  mutating func readEnum<Value: RawRepresentable<String>>() throws(GiveUp) -> Value {
    guard let value = Value(rawValue: try readString()) else { throw GiveUp() }
    return value
  }

  mutating func readBool() throws(GiveUp) -> Bool {
    skipWhitespace()
    if bytes[offset...].starts(with: "true".utf8) {
      offset += 4
      return true
    }
    if bytes[offset...].starts(with: "false".utf8) {
      offset += 5
      return false
    }
    throw GiveUp()
  }

  /// The text of a JSON number: `-? digits (. digits)? ([eE] [+-]? digits)?`.
  mutating func numberText() throws(GiveUp) -> (start: Int, isInteger: Bool) {
    skipWhitespace()
    let start = offset
    var isInteger = true
    if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
    // No leading zeros (`01`), as JSON says.
    if offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "0"),
      (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset + 1])
    {
      throw GiveUp()
    }
    func digits(_ reader: inout StoredIncidentReader) throws(GiveUp) {
      let first = reader.offset
      while reader.offset < reader.bytes.count,
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(reader.bytes[reader.offset])
      {
        reader.offset += 1
      }
      guard reader.offset > first else { throw GiveUp() }
    }
    try digits(&self)
    if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
      isInteger = false
      offset += 1
      try digits(&self)
    }
    if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
      isInteger = false
      offset += 1
      if offset < bytes.count,
        bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-")
      {
        offset += 1
      }
      try digits(&self)
    }
    guard offset - start <= 64 else { throw GiveUp() }
    return (start, isInteger)
  }

  mutating func readDouble() throws(GiveUp) -> Double {
    let (start, _) = try numberText()
    if let exact = exactDouble(start: start) { return exact }
    let count = offset - start
    // glibc's correctly rounded `strtod` on a NUL-terminated copy of the number (at most 64
    // bytes, checked) on the stack. Under a locale whose decimal point is not "." it stops
    // early; the end check then gives up, and `JSONDecoder` reads the body.
    let number = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 65) { buffer in
      guard let base = buffer.baseAddress else { return Double.nan }
      for index in 0..<count { buffer[index] = CChar(bitPattern: bytes[start + index]) }
      buffer[count] = 0
      var end: UnsafeMutablePointer<CChar>?
      errno = 0
      let value = strtod(base, &end)
      // Out of range (overflow, underflow to zero or a subnormal): `JSONDecoder` decides.
      guard errno == 0 else { return Double.nan }
      return end == base + count ? value : .nan
    }
    guard number.isFinite else { throw GiveUp() }
    return number
  }

  /// The number at `start..<offset` when Clinger's fast path gives it exactly: the integer
  /// of its significant digits at most 2^53 and a power of ten up to 10^22 to scale it by
  /// (both exact as `Double`s, so one correctly rounded multiplication or division gives the
  /// correctly rounded value, as `strtod` would). `nil` otherwise: `strtod` reads it.
  func exactDouble(start: Int) -> Double? {
    var index = start
    let negative = bytes[index] == UInt8(ascii: "-")
    if negative { index += 1 }
    var mantissa: UInt64 = 0
    var significantDigits = 0
    var scale = 0
    var isFraction = false
    while index < offset {
      let byte = bytes[index]
      index += 1
      if byte == UInt8(ascii: ".") {
        isFraction = true
        continue
      }
      if byte | 0x20 == UInt8(ascii: "e") { break }
      let digit = UInt64(byte &- UInt8(ascii: "0"))
      if mantissa != 0 || digit != 0 {
        significantDigits += 1
        guard significantDigits <= 19 else { return nil }
      }
      mantissa = mantissa &* 10 &+ digit
      if isFraction { scale -= 1 }
    }
    if index < offset {
      var exponentIsNegative = false
      if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
        exponentIsNegative = bytes[index] == UInt8(ascii: "-")
        index += 1
      }
      var exponent = 0
      while index < offset {
        exponent = exponent * 10 + Int(bytes[index] &- UInt8(ascii: "0"))
        guard exponent < 1_000 else { return nil }
        index += 1
      }
      scale += exponentIsNegative ? -exponent : exponent
    }
    guard mantissa <= 1 << 53, (-22...22).contains(scale) else { return nil }
    var value = Double(mantissa)
    if scale < 0 {
      value /= Self.powersOfTen[-scale]
    } else {
      value *= Self.powersOfTen[scale]
    }
    return negative ? -value : value
  }

  /// 10^0 through 10^22, each exact as a `Double`.
  static let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  ]

  mutating func readInt() throws(GiveUp) -> Int {
    let (start, isInteger) = try numberText()
    guard isInteger, offset - start <= 18 else { throw GiveUp() }
    var value = 0
    var index = start
    let negative = bytes[index] == UInt8(ascii: "-")
    if negative { index += 1 }
    while index < offset {
      value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
      index += 1
    }
    return negative ? -value : value
  }

  mutating func readInts() throws(GiveUp) -> [Int] {
    try readArray { reader throws(GiveUp) in try reader.readInt() }
  }

  mutating func readDate() throws(GiveUp) -> Date {
    Date(timeIntervalSinceReferenceDate: try readDouble())
  }
}
