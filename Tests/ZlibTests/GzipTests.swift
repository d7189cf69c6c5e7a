import Foundation
import Testing
import TrafficTestSupport
import Zlib

@Suite struct GzipTests {
  @Test(arguments: [0, 1, 100, 70_000, 300_000])
  func roundTrip(size: Int) throws {
    var generator = SeededGenerator(seed: UInt64(size))
    // Text-like bytes so that compression has something to find, plus random noise.
    let data = Data((0..<size).map { _ in UInt8.random(in: 97...104, using: &generator) })
    let compressed = Gzip.compress(data)
    #expect(compressed.prefix(2) == Data([0x1f, 0x8b]))
    if size >= 1000 { #expect(compressed.count < data.count) }
    #expect(try Gzip.decompress(compressed, maxOutputBytes: size) == data)
  }

  /// `printf 'hello traffic\n' | gzip -n | xxd -i`, made by the gzip program.
  @Test func readsGzipOutput() throws {
    let fromGzip = Data([
      0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd, 0xc9,
      0xc9, 0x57, 0x28, 0x29, 0x4a, 0x4c, 0x4b, 0xcb, 0x4c, 0xe6, 0x02, 0x00, 0xcd, 0xf0,
      0x11, 0xd9, 0x0e, 0x00, 0x00, 0x00,
    ])
    #expect(try Gzip.decompress(fromGzip, maxOutputBytes: 100) == Data("hello traffic\n".utf8))
  }

  /// The zlib (RFC 1950) stream of "abc": header 78 9c, DEFLATE data, Adler-32 trailer.
  @Test func readsZlibStreams() throws {
    let zlibStream = Data([0x78, 0x9c, 0x4b, 0x4c, 0x4a, 0x06, 0x00, 0x02, 0x4d, 0x01, 0x27])
    #expect(try Gzip.decompress(zlibStream, maxOutputBytes: 10) == Data("abc".utf8))
  }

  /// `cat a.gz b.gz`: a gzip file of two members reads as both texts one after the other
  /// (RFC 1952 §2.2); a zlib stream takes nothing after its end, and the members together
  /// keep to the output limit.
  @Test func readsEveryMemberOfAGzipFile() throws {
    let first = Gzip.compress(Data("first member\n".utf8))
    let second = Gzip.compress(Data("second member\n".utf8))
    #expect(
      try Gzip.decompress(first + second, maxOutputBytes: 100)
        == Data("first member\nsecond member\n".utf8))
    #expect(throws: ZlibError.tooLarge(limit: 20)) {
      try Gzip.decompress(first + second, maxOutputBytes: 20)
    }
    #expect(throws: ZlibError.truncated) {
      try Gzip.decompress(first + second.prefix(second.count - 4), maxOutputBytes: 100)
    }
    let zlibStream = Data([0x78, 0x9c, 0x4b, 0x4c, 0x4a, 0x06, 0x00, 0x02, 0x4d, 0x01, 0x27])
    #expect(throws: ZlibError.self) {
      try Gzip.decompress(zlibStream + second, maxOutputBytes: 100)
    }
  }

  @Test func rejectsBombsBeyondTheLimit() {
    let compressed = Gzip.compress(Data(repeating: 0, count: 1_000_000))
    #expect(compressed.count < 5_000)
    #expect(throws: ZlibError.tooLarge(limit: 999_999)) {
      try Gzip.decompress(compressed, maxOutputBytes: 999_999)
    }
  }

  @Test func rejectsTruncatedAndCorruptData() {
    let compressed = Gzip.compress(Data("some text that is long enough".utf8))
    #expect(throws: ZlibError.truncated) {
      try Gzip.decompress(compressed.prefix(compressed.count - 6), maxOutputBytes: 1000)
    }
    var corrupt = compressed
    corrupt[corrupt.count - 3] ^= 0xff  // the CRC-32 of the trailer
    #expect(throws: ZlibError.self) { try Gzip.decompress(corrupt, maxOutputBytes: 1000) }
    #expect(throws: ZlibError.self) {
      try Gzip.decompress(Data("not compressed".utf8), maxOutputBytes: 1000)
    }
    #expect(throws: ZlibError.self) {
      try Gzip.decompress(compressed + Data([1, 2, 3]), maxOutputBytes: 1000)
    }
  }
}

@Suite struct StreamingInflaterTests {
  static let text = Data(
    (0..<2_000).map { "line \($0): roadworks between junctions \($0 % 7) and \($0 % 11)\n" }
      .joined().utf8)

  /// Inflates `compressed` fed in pieces of `size` bytes.
  static func inflate(_ compressed: Data, pieces size: Int) throws -> Data {
    let inflater = try StreamingInflater(maxOutputBytes: 1 << 24)
    var output = Data()
    var offset = compressed.startIndex
    while offset < compressed.endIndex {
      let end = min(offset + size, compressed.endIndex)
      output += try inflater.inflate(compressed[offset..<end])
      offset = end
    }
    try inflater.finish()
    return output
  }

  @Test("any split of the input inflates to the original", arguments: [1, 7, 512, 1 << 20])
  func pieces(size: Int) throws {
    #expect(try Self.inflate(Gzip.compress(Self.text), pieces: size) == Self.text)
  }

  @Test("concatenated gzip members read as one stream")
  func members() throws {
    let joined = Gzip.compress(Self.text) + Gzip.compress(Data("tail\n".utf8))
    #expect(try Self.inflate(joined, pieces: 100) == Self.text + Data("tail\n".utf8))
  }

  @Test("a truncated stream is reported at finish; a bomb at the limit")
  func errors() throws {
    let compressed = Gzip.compress(Self.text)
    #expect(throws: ZlibError.truncated) {
      _ = try Self.inflate(compressed.prefix(compressed.count - 10), pieces: 64)
    }
    let zeros = Gzip.compress(Data(count: 1 << 20))
    let small = try StreamingInflater(maxOutputBytes: 1_000)
    #expect(throws: ZlibError.tooLarge(limit: 1_000)) { _ = try small.inflate(zeros) }
  }
}

@Suite struct StreamingDeflaterTests {
  /// Pieces of any size compress into one gzip member that the `gzip` program reads back
  /// (an independent reader) as the pieces joined.
  @Test(arguments: [1, 700, 65_536, 1 << 20])
  func piecesCompressIntoOneMemberGzipReads(pieceSize: Int) throws {
    var generator = SeededGenerator(seed: UInt64(pieceSize))
    let text = (0..<400_000).map { _ in UInt8.random(in: 97...104, using: &generator) }
    let deflater = StreamingDeflater(level: 5)
    var compressed: [UInt8] = []
    var start = 0
    while start < text.count {
      let end = min(start + pieceSize, text.count)
      compressed += deflater.compress(Array(text[start..<end]))
      start = end
    }
    compressed += deflater.finish()
    #expect(deflater.finish().isEmpty)
    #expect(compressed.count < text.count / 2)
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("deflater-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("text.gz")
    try Data(compressed).write(to: file)
    let gzip = Process()
    gzip.executableURL = URL(fileURLWithPath: "/usr/bin/gzip")
    gzip.arguments = ["-dc", file.path]
    let output = Pipe()
    gzip.standardOutput = output
    try gzip.run()
    let read = output.fileHandleForReading.readDataToEndOfFile()
    gzip.waitUntilExit()
    #expect(gzip.terminationStatus == 0)
    #expect(read == Data(text))
  }

  @Test func anEmptyStreamIsAnEmptyMember() throws {
    let deflater = StreamingDeflater()
    let member = Data(deflater.finish())
    #expect(member.prefix(2) == Data([0x1f, 0x8b]))
    #expect(try Gzip.decompress(member, maxOutputBytes: 10).isEmpty)
  }
}
