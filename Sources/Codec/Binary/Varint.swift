/// Unsigned LEB128 varints and the zigzag mapping of signed values: the one encoding of
/// variable-length integers that ``BinaryWriter``/``BinaryReader`` (the stored road
/// network, flow state and probes) and ``ProtobufWriter``/``ProtobufReader`` (vector tiles,
/// OSM PBF) share.
///
/// A value is written seven bits at a time, least significant first, each byte but the
/// last with its high bit set: 1 byte below 128, at most ``maximumLength`` (10) bytes.
/// Reading has one rule: a varint longer than 10 bytes, or whose tenth byte carries bits
/// beyond the 64th, is an error (``VarintError/overflow``), as is one cut off by the end of
/// the input (``VarintError/truncated``). Overlong encodings of small values (`0x80 0x00`
/// for 0) are read as the value.
package enum Varint {
  /// The most bytes a 64-bit value takes.
  package static let maximumLength = 10

  /// Appends the encoding of `value` to `bytes`.
  @inlinable
  package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
    var rest = value
    while rest >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    bytes.append(UInt8(rest))
  }

  /// The encoding of `value`.
  @inlinable
  package static func encoded(_ value: UInt64) -> [UInt8] {
    var bytes: [UInt8] = []
    append(value, to: &bytes)
    return bytes
  }

  /// Reads the varint that starts at `index`, moving `index` past it.
  ///
  /// - Parameters:
  ///   - bytes: The input; reading stops at its end (a slice ends where the caller says).
  ///   - index: Where the varint starts; after an error, where reading failed: `endIndex`
  ///     for a truncated varint, the offending byte for an overflow.
  /// - Returns: The value.
  /// - Throws: ``VarintError`` for a varint cut off by the end of `bytes`, or longer than
  ///   10 bytes or 64 bits.
  /// - Complexity: O(1): at most ``maximumLength`` bytes are read.
  @inlinable
  package static func read<Bytes: Collection<UInt8>>(
    from bytes: Bytes, at index: inout Bytes.Index
  ) throws(VarintError) -> UInt64 {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard index < bytes.endIndex else { throw .truncated }
      let byte = bytes[index]
      // The tenth byte holds the 64th bit only, and ends the varint.
      guard shift < 63 || byte <= 1 else { throw .overflow }
      bytes.formIndex(after: &index)
      result |= UInt64(byte & 0x7F) << shift
      if byte < 0x80 { return result }
      shift += 7
    }
  }

  /// The zigzag mapping of a signed value: 0, -1, 1, -2, … become 0, 1, 2, 3, …, so that
  /// small magnitudes of either sign have short varints (protobuf's `sint64`).
  @inlinable
  package static func zigzag(_ value: Int64) -> UInt64 {
    UInt64(bitPattern: (value << 1) ^ (value >> 63))
  }

  /// The zigzag mapping of a 32-bit value, as vector tile geometry parameters use.
  @inlinable
  package static func zigzag32(_ value: Int32) -> UInt32 {
    UInt32(bitPattern: (value << 1) ^ (value >> 31))
  }

  /// The signed value of a zigzag-mapped one (the inverse of ``zigzag(_:)``).
  @inlinable
  package static func unzigzag(_ value: UInt64) -> Int64 {
    Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
  }
}

/// Why a varint cannot be read.
package enum VarintError: Error, Hashable, Sendable {
  /// The input ends inside the varint.
  case truncated
  /// The varint is longer than 10 bytes or its value wider than 64 bits.
  case overflow
}
