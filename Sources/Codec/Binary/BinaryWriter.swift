import Foundation

/// Appends values to a byte buffer in the compact little-endian encoding that
/// ``BinaryReader`` reads: LEB128 varints (zigzag for signed values), IEEE 754 doubles as
/// their 8-byte bit pattern (so every value, `-0.0` and NaN payloads included, round-trips
/// exactly), and strings as a varint byte count followed by UTF-8.
///
/// Used for the stored road network and flow state, where JSON would be several times
/// larger and slower to read back.
package struct BinaryWriter: Sendable {
  /// The bytes written so far.
  @usableFromInline
  package internal(set) var bytes: [UInt8] = []

  /// Creates an empty writer, reserving room for `capacity` bytes.
  @inlinable
  package init(capacity: Int = 0) {
    bytes.reserveCapacity(capacity)
  }

  /// The bytes written so far, as `Data`.
  @inlinable
  package var data: Data { Data(bytes) }

  /// Appends one byte.
  @inlinable
  package mutating func byte(_ value: UInt8) {
    bytes.append(value)
  }

  /// Appends raw bytes as they are.
  @inlinable
  package mutating func raw(_ values: some Sequence<UInt8>) {
    bytes.append(contentsOf: values)
  }

  /// Appends an unsigned LEB128 varint (``Varint``: 1 byte below 128, at most 10 bytes).
  @inlinable
  package mutating func varint(_ value: UInt64) {
    Varint.append(value, to: &bytes)
  }

  /// Appends a non-negative `Int` as a varint; a negative value is written as its
  /// two's-complement bit pattern, which a reader expecting a count rejects as too large.
  @inlinable
  package mutating func count(_ value: Int) {
    varint(UInt64(bitPattern: Int64(value)))
  }

  /// Appends a signed value as a zigzag varint (small magnitudes of either sign are short).
  @inlinable
  package mutating func signedVarint(_ value: Int64) {
    varint(Varint.zigzag(value))
  }

  /// Appends the 8-byte little-endian bit pattern of a double.
  @inlinable
  package mutating func double(_ value: Double) {
    var bits = value.bitPattern
    for _ in 0..<8 {
      bytes.append(UInt8(truncatingIfNeeded: bits))
      bits >>= 8
    }
  }

  /// Appends a string: its UTF-8 byte count as a varint, then the bytes.
  @inlinable
  package mutating func string(_ value: String) {
    var value = value
    value.withUTF8 { utf8 in
      count(utf8.count)
      bytes.append(contentsOf: utf8)
    }
  }
}
