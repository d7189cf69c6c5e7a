import Foundation

/// Binary data that cannot be read: what it is, the offset where reading failed, and why.
package struct BinaryDataError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What the bytes are ("segment chunk 3 of /tmp/traffic.sqlite").
  package var name: String
  /// The offset of the byte where reading failed.
  package var offset: Int
  /// What is wrong.
  package var reason: String

  @inlinable
  package init(name: String, offset: Int, reason: String) {
    self.name = name
    self.offset = offset
    self.reason = reason
  }

  @inlinable
  package var description: String { "malformed \(name) at byte \(offset): \(reason)" }
}

/// Reads what ``BinaryWriter`` wrote, checking every length and value against the bytes
/// left, so that damaged or foreign input throws instead of trapping or allocating wildly.
package struct BinaryReader: Sendable {
  @usableFromInline
  let bytes: [UInt8]
  /// The offset of the next byte to read.
  @usableFromInline
  package internal(set) var offset: Int = 0
  /// What the bytes are, for error messages ("segment chunk 3 of /tmp/traffic.sqlite").
  package let name: String

  /// Creates a reader over `data`.
  ///
  /// - Parameters:
  ///   - data: the bytes.
  ///   - name: what the bytes are, for error messages.
  @inlinable
  package init(_ data: Data, name: String) {
    bytes = [UInt8](data)
    self.name = name
  }

  /// Creates a reader over bytes.
  @inlinable
  package init(bytes: [UInt8], name: String) {
    self.bytes = bytes
    self.name = name
  }

  /// Whether every byte has been read.
  @inlinable
  package var isAtEnd: Bool { offset >= bytes.count }

  /// The bytes not read yet.
  @inlinable
  package var remaining: Int { bytes.count - offset }

  /// An error naming the input and the offset where reading failed.
  @inlinable
  package func failure(_ reason: String) -> BinaryDataError {
    BinaryDataError(name: name, offset: offset, reason: reason)
  }

  /// Reads one byte.
  ///
  /// - Throws: ``BinaryDataError`` at the end of the input.
  @inlinable
  package mutating func byte() throws(BinaryDataError) -> UInt8 {
    guard offset < bytes.count else { throw failure("unexpected end of data") }
    defer { offset += 1 }
    return bytes[offset]
  }

  /// Reads an unsigned LEB128 varint (``Varint``).
  ///
  /// - Throws: ``BinaryDataError`` when it is truncated, or longer than 10 bytes or 64 bits.
  @inlinable
  package mutating func varint() throws(BinaryDataError) -> UInt64 {
    do throws(VarintError) {
      return try Varint.read(from: bytes, at: &offset)
    } catch {
      switch error {
      case .truncated: throw failure("unexpected end of data")
      case .overflow: throw failure("varint longer than 64 bits")
      }
    }
  }

  /// Reads a zigzag varint.
  ///
  /// - Throws: as ``varint()``.
  @inlinable
  package mutating func signedVarint() throws(BinaryDataError) -> Int64 {
    Varint.unzigzag(try varint())
  }

  /// Reads a non-negative integer of at most `limit`.
  ///
  /// - Parameters:
  ///   - limit: the largest acceptable value.
  ///   - what: what the number is, for the error message.
  /// - Throws: ``BinaryDataError`` when it exceeds `limit`.
  @inlinable
  package mutating func integer(atMost limit: Int, _ what: String) throws(BinaryDataError) -> Int {
    let value = try varint()
    guard limit >= 0, value <= UInt64(limit) else {
      throw failure("\(what) \(value) exceeds \(limit)")
    }
    return Int(value)
  }

  /// Reads a count of items that each take at least `bytesPerItem` bytes, checked against
  /// the bytes left (so that a damaged count cannot make the caller reserve gigabytes).
  ///
  /// - Throws: ``BinaryDataError`` when the items cannot fit.
  @inlinable
  package mutating func count(
    bytesPerItem: Int, _ what: String
  ) throws(BinaryDataError) -> Int {
    let value = try varint()
    guard value <= UInt64(remaining / max(bytesPerItem, 1)) else {
      throw failure("\(value) \(what) cannot fit in the \(remaining) bytes left")
    }
    return Int(value)
  }

  /// Reads a double from its 8-byte little-endian bit pattern.
  ///
  /// - Throws: ``BinaryDataError`` at the end of the input.
  @inlinable
  package mutating func double() throws(BinaryDataError) -> Double {
    guard remaining >= 8 else { throw failure("unexpected end of data in a number") }
    var bits: UInt64 = 0
    for k in 0..<8 { bits |= UInt64(bytes[offset + k]) << (8 * UInt64(k)) }
    offset += 8
    return Double(bitPattern: bits)
  }

  /// Reads a finite double.
  ///
  /// - Parameter what: what the number is, for the error message.
  /// - Throws: ``BinaryDataError`` for NaN or an infinity.
  @inlinable
  package mutating func finiteDouble(_ what: String) throws(BinaryDataError) -> Double {
    let value = try double()
    guard value.isFinite else { throw failure("\(what) \(value) is not a finite number") }
    return value
  }

  /// Reads a string written by ``BinaryWriter/string(_:)``.
  ///
  /// - Throws: ``BinaryDataError`` when it is truncated or not
  ///   UTF-8.
  @inlinable
  package mutating func string() throws(BinaryDataError) -> String {
    let length = try count(bytesPerItem: 1, "string bytes")
    let slice = bytes[offset..<offset + length]
    guard let text = String(validating: slice, as: UTF8.self) else {
      throw failure("a string is not valid UTF-8")
    }
    offset += length
    return text
  }

  /// Reads `count` raw bytes.
  ///
  /// - Throws: ``BinaryDataError`` when fewer are left.
  @inlinable
  package mutating func raw(_ count: Int) throws(BinaryDataError) -> ArraySlice<UInt8> {
    guard count >= 0, count <= remaining else { throw failure("unexpected end of data") }
    defer { offset += count }
    return bytes[offset..<offset + count]
  }
}
