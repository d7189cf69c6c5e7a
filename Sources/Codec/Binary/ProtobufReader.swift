import Foundation

/// A failure while decoding protocol-buffer bytes: where (offset within the buffer) and why.
package struct ProtobufError: Error, Sendable {
  package let offset: Int
  package let reason: String

  @inlinable
  package init(offset: Int, reason: String) {
    self.offset = offset
    self.reason = reason
  }
}

/// A bounds-checked reader of protocol-buffer wire format (varints, fixed, and
/// length-delimited fields), over bytes the caller keeps alive.
///
/// Every read checks the remaining length first, so a truncated or corrupt message throws a
/// ``ProtobufError`` instead of reading out of bounds. Encoding: Protocol Buffers
/// "Encoding" (developers.google.com/protocol-buffers/docs/encoding).
package struct ProtobufReader {
  package let bytes: UnsafeRawBufferPointer
  @usableFromInline
  package internal(set) var position: Int
  package let end: Int

  /// A reader over `bytes[range]`; the range must lie within `bytes`.
  @inlinable
  package init(_ bytes: UnsafeRawBufferPointer, range: Range<Int>) {
    self.bytes = bytes
    self.position = range.lowerBound
    self.end = range.upperBound
  }

  @inlinable
  package var isAtEnd: Bool { position >= end }

  /// Reads a base-128 varint (``Varint``).
  ///
  /// - Throws: ``ProtobufError`` when it is truncated, or longer than 10 bytes or 64 bits.
  @inlinable
  package mutating func varint() throws(ProtobufError) -> UInt64 {
    do throws(VarintError) {
      return try Varint.read(from: bytes[..<end], at: &position)
    } catch {
      switch error {
      case .truncated: throw ProtobufError(offset: position, reason: "truncated varint")
      case .overflow: throw ProtobufError(offset: position, reason: "varint too long")
      }
    }
  }

  /// Reads a field key: field number and wire type, or `nil` at the end.
  @inlinable
  package mutating func field() throws(ProtobufError) -> (number: Int, wireType: Int)? {
    guard !isAtEnd else { return nil }
    let start = position
    let key = try varint()
    let number = key >> 3
    guard number > 0, number <= 536_870_911 else {
      throw ProtobufError(offset: start, reason: "invalid field number \(number)")
    }
    return (Int(number), Int(key & 7))
  }

  /// Reads a length-delimited field's bounds.
  @inlinable
  package mutating func lengthDelimited() throws(ProtobufError) -> Range<Int> {
    let start = position
    let length = try varint()
    guard length <= UInt64(end - position) else {
      throw ProtobufError(offset: start, reason: "length \(length) runs past the end")
    }
    let range = position..<(position + Int(length))
    position = range.upperBound
    return range
  }

  /// Skips a field's value of the given wire type.
  @inlinable
  package mutating func skip(wireType: Int) throws(ProtobufError) {
    switch wireType {
    case 0: _ = try varint()
    case 1: try advance(8)
    case 2: _ = try lengthDelimited()
    case 5: try advance(4)
    default:
      throw ProtobufError(offset: position, reason: "unsupported wire type \(wireType)")
    }
  }

  @usableFromInline
  mutating func advance(_ count: Int) throws(ProtobufError) {
    guard end - position >= count else {
      throw ProtobufError(offset: position, reason: "truncated fixed-size value")
    }
    position += count
  }

  /// Reads the values of a repeated varint field, packed (wire type 2) or not (wire type 0),
  /// appending them to `values`.
  @inlinable
  package mutating func repeatedVarints(
    wireType: Int, into values: inout [UInt64]
  ) throws(ProtobufError) {
    switch wireType {
    case 0:
      values.append(try varint())
    case 2:
      let range = try lengthDelimited()
      var inner = ProtobufReader(bytes, range: range)
      while !inner.isAtEnd { values.append(try inner.varint()) }
    default:
      throw ProtobufError(offset: position, reason: "wire type \(wireType) for a varint list")
    }
  }

  /// Reads a packed (or single) list of zigzag-encoded, delta-coded signed integers and
  /// appends their running sums, using wrapping arithmetic so hostile input cannot trap.
  @inlinable
  package mutating func deltaCodedSignedVarints(
    wireType: Int, into values: inout [Int64]
  )
    throws(ProtobufError)
  {
    var raw: [UInt64] = []
    try repeatedVarints(wireType: wireType, into: &raw)
    var sum: Int64 = values.last ?? 0
    values.reserveCapacity(values.count + raw.count)
    for value in raw {
      sum = sum &+ Varint.unzigzag(value)
      values.append(sum)
    }
  }
}

extension ProtobufReader {
  /// Calls `body` with the bytes of `data`, keeping the typed error (the standard library's
  /// `withUnsafeBytes` only rethrows untyped errors).
  @inlinable
  package static func withBytes<T>(
    _ data: some ContiguousBytes, _ body: (UnsafeRawBufferPointer) throws(ProtobufError) -> T
  ) throws(ProtobufError) -> T {
    let result: Result<T, ProtobufError> = data.withUnsafeBytes { raw in
      Result { () throws(ProtobufError) -> T in try body(raw) }
    }
    return try result.get()
  }
}
