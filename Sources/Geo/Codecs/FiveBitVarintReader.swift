import Codec

/// Reads the varints of Google's encoded polylines and HERE's flexible polylines: values
/// split into 5-bit chunks, least significant first, with `0x20` set on every chunk but the
/// last, each chunk written as one character of the format's alphabet.
struct FiveBitVarintReader {
  let bytes: [UInt8]
  var position = 0
  /// Character → chunk value (0...63), or -1 for characters outside the alphabet.
  let chunkValues: [Int8]
  /// The format's name, for errors.
  let format: String

  var isAtEnd: Bool { position == bytes.count }

  /// An error at `position` (a character offset) of the format.
  func failure(_ position: Int?, _ reason: String) -> GeoError {
    .malformed(format: format, position: position, reason: reason)
  }

  mutating func readUnsigned() throws(GeoError) -> UInt64 {
    let start = position
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard position < bytes.count else {
        throw failure(start, "value cut off: the input ends inside it")
      }
      let chunk = chunkValues[Int(bytes[position])]
      guard chunk >= 0 else {
        throw failure(position, "invalid character \(describeByte(bytes[position]))")
      }
      position += 1
      let bits = UInt64(chunk & 0x1F)
      // Chunk 13 starts at bit 60 and may only carry 4 bits; anything beyond is lost.
      guard shift < 64, shift < 60 || bits >> (64 - shift) == 0 else {
        throw failure(start, "value does not fit in 64 bits")
      }
      result |= bits << shift
      if chunk & 0x20 == 0 { return result }
      shift += 5
    }
  }

  /// A zig-zag encoded value (the sign in bit 0).
  mutating func readSigned() throws(GeoError) -> Int64 {
    let unsigned = try readUnsigned()
    let magnitude = Int64(bitPattern: unsigned >> 1)
    return unsigned & 1 == 0 ? magnitude : ~magnitude
  }

  /// A signed value added to `previous` (the formats write differences).
  mutating func accumulate(_ previous: Int64) throws(GeoError) -> Int64 {
    let start = position
    let (sum, overflow) = previous.addingReportingOverflow(try readSigned())
    guard !overflow else { throw failure(start, "accumulated value overflows 64 bits") }
    return sum
  }
}
