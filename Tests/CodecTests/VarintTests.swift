import Codec
import Testing

/// The one varint (`Varint`) and the readers and writers built on it: the same bytes from
/// `BinaryWriter` and `ProtobufWriter`, and one rule for what `BinaryReader` and
/// `ProtobufReader` refuse.
@Suite struct VarintTests {
  /// Values at the edges of each byte count, and the widest.
  static let edges: [UInt64] = [
    0, 1, 127, 128, 300, 16_383, 16_384, 1 << 35, 1 << 56, 1 << 63, UInt64.max - 1, UInt64.max,
  ]

  /// The encodings every LEB128 implementation agrees on.
  @Test func encodesAsLEB128() {
    #expect(Varint.encoded(0) == [0x00])
    #expect(Varint.encoded(127) == [0x7F])
    #expect(Varint.encoded(128) == [0x80, 0x01])
    #expect(Varint.encoded(300) == [0xAC, 0x02])
    #expect(
      Varint.encoded(1 << 63) == [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01])
    #expect(
      Varint.encoded(UInt64.max) == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
  }

  @Test("Round trip, the same bytes from both writers", arguments: edges)
  func roundTrips(value: UInt64) throws {
    let bytes = Varint.encoded(value)
    #expect(bytes.count == max(1, (64 - value.leadingZeroBitCount + 6) / 7))
    #expect(bytes.count <= Varint.maximumLength)
    var index = 0
    #expect(try Varint.read(from: bytes, at: &index) == value)
    #expect(index == bytes.count)

    var binary = BinaryWriter()
    binary.varint(value)
    var protobuf = ProtobufWriter()
    protobuf.varint(value)
    #expect(binary.bytes == bytes)
    #expect(protobuf.bytes == bytes)

    var reader = BinaryReader(bytes: bytes, name: "v")
    #expect(try reader.varint() == value)
    #expect(reader.isAtEnd)
    let read = try ProtobufReader.withBytes(bytes) { raw throws(ProtobufError) in
      var protobufReader = ProtobufReader(raw, range: 0..<raw.count)
      return (try protobufReader.varint(), protobufReader.isAtEnd)
    }
    #expect(read.0 == value)
    #expect(read.1)
  }

  @Test("Zigzag: small magnitudes of either sign are short, and map back", arguments: edges)
  func zigzagRoundTrips(value: UInt64) throws {
    let signed = Int64(bitPattern: value)
    #expect(Varint.unzigzag(Varint.zigzag(signed)) == signed)
    var writer = BinaryWriter()
    writer.signedVarint(signed)
    var reader = BinaryReader(bytes: writer.bytes, name: "v")
    #expect(try reader.signedVarint() == signed)
    #expect(Varint.zigzag(0) == 0)
    #expect(Varint.zigzag(-1) == 1)
    #expect(Varint.zigzag(1) == 2)
    #expect(Varint.zigzag(Int64.min) == UInt64.max)
    #expect(Varint.zigzag32(Int32.min) == UInt32.max)
  }

  @Test("A varint cut off by the end is truncated", arguments: edges.filter { $0 >= 128 })
  func truncated(value: UInt64) {
    let bytes = Varint.encoded(value)
    for length in 0..<bytes.count {
      var index = 0
      #expect(throws: VarintError.truncated) {
        try Varint.read(from: bytes.prefix(length), at: &index)
      }
      #expect(index == length)
      var reader = BinaryReader(bytes: Array(bytes.prefix(length)), name: "v")
      #expect(throws: BinaryDataError(name: "v", offset: length, reason: "unexpected end of data"))
      {
        try reader.varint()
      }
    }
    // Within a protobuf message, the varint ends where the field does.
    #expect(throws: ProtobufError.self) {
      try ProtobufReader.withBytes(bytes) { raw throws(ProtobufError) in
        var reader = ProtobufReader(raw, range: 0..<(raw.count - 1))
        return try reader.varint()
      }
    }
  }

  /// Longer than 10 bytes, or a tenth byte with bits beyond the 64th: one rule for every
  /// reader, the offending byte named.
  @Test(
    "A varint longer than 10 bytes or 64 bits overflows",
    arguments: [
      [UInt8](repeating: 0x80, count: 10) + [0x01],  // 11 bytes
      [UInt8](repeating: 0xFF, count: 9) + [0x02],  // the 65th bit
      [UInt8](repeating: 0xFF, count: 9) + [0x7F],
      [UInt8](repeating: 0xFF, count: 10),  // a tenth byte that goes on
      [UInt8](repeating: 0xFF, count: 20),
    ])
  func overflows(bytes: [UInt8]) {
    var index = 0
    #expect(throws: VarintError.overflow) { try Varint.read(from: bytes, at: &index) }
    #expect(index == 9)
    var reader = BinaryReader(bytes: bytes, name: "v")
    #expect(
      throws: BinaryDataError(name: "v", offset: 9, reason: "varint longer than 64 bits")
    ) { try reader.varint() }
    var caught: ProtobufError?
    do {
      _ = try ProtobufReader.withBytes(bytes) { raw throws(ProtobufError) in
        var reader = ProtobufReader(raw, range: 0..<raw.count)
        return try reader.varint()
      }
    } catch { caught = error }
    #expect(caught?.offset == 9)
    #expect(caught?.reason == "varint too long")
  }

  @Test func readsOverlongEncodingsOfSmallValuesAndStopsAtTheEnd() throws {
    // 0 in two bytes, then 1: the index moves past each.
    let bytes: [UInt8] = [0x80, 0x00, 0x01, 0x7F]
    var index = 0
    #expect(try Varint.read(from: bytes, at: &index) == 0)
    #expect(index == 2)
    #expect(try Varint.read(from: bytes, at: &index) == 1)
    // A slice keeps its indices: the varint is read where the slice says.
    var sliceIndex = 3
    #expect(try Varint.read(from: bytes[3...], at: &sliceIndex) == 127)
    #expect(sliceIndex == 4)
  }
}
