import Foundation

/// Writes Protocol Buffers wire format: varints, zigzag, fixed 64-bit and length-delimited
/// fields (https://protobuf.dev/programming-guides/encoding/). Enough for Mapbox Vector
/// Tiles; no schema, the caller writes field numbers.
package struct ProtobufWriter {
  @usableFromInline
  package internal(set) var bytes: [UInt8] = []

  /// An empty message.
  @inlinable
  package init() {}

  /// Wire types.
  package enum WireType: UInt64 {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case fixed32 = 5
  }

  /// Appends a base-128 varint (``Varint``).
  @inlinable
  package mutating func varint(_ value: UInt64) {
    Varint.append(value, to: &bytes)
  }

  @inlinable
  package mutating func key(_ field: UInt64, _ type: WireType) {
    varint(field << 3 | type.rawValue)
  }

  /// A `uint32`/`uint64` field.
  @inlinable
  package mutating func uint(_ field: UInt64, _ value: UInt64) {
    key(field, .varint)
    varint(value)
  }

  /// A `sint64` field (zigzag).
  @inlinable
  package mutating func sint(_ field: UInt64, _ value: Int64) {
    key(field, .varint)
    varint(Varint.zigzag(value))
  }

  /// A `double` field.
  @inlinable
  package mutating func double(_ field: UInt64, _ value: Double) {
    key(field, .fixed64)
    var bits = value.bitPattern.littleEndian
    withUnsafeBytes(of: &bits) { bytes.append(contentsOf: $0) }
  }

  /// A `string` field.
  @inlinable
  package mutating func string(_ field: UInt64, _ value: String) {
    bytes(field, Array(value.utf8))
  }

  /// A `bytes` or embedded-message field.
  @inlinable
  package mutating func bytes(_ field: UInt64, _ value: [UInt8]) {
    key(field, .lengthDelimited)
    varint(UInt64(value.count))
    bytes.append(contentsOf: value)
  }

  /// A packed repeated `uint32` field.
  @inlinable
  package mutating func packed(_ field: UInt64, _ values: [UInt32]) {
    var inner = ProtobufWriter()
    for value in values { inner.varint(UInt64(value)) }
    bytes(field, inner.bytes)
  }

}
