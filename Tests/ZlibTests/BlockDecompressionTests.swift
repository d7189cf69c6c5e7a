import Foundation
import Testing

@testable import Zlib

/// The edges of LZ4 and Zstandard blocks that real PBF files rarely show: empty blocks,
/// sizes other than declared, bytes that are no block at all. Whole files are checked
/// against independent compressors in RoadsTests.CompressedOSMFilesTests.
@Suite struct BlockDecompressionTests {
  /// "hello " six times as python3-lz4 writes it (`lz4.block.compress(..., store_size=False)`,
  /// the block format libosmium writes): six literals, a match of 24 at offset 6, five more
  /// literals.
  static let helloLZ4: [UInt8] = [
    0x6F, 0x68, 0x65, 0x6C, 0x6C, 0x6F, 0x20, 0x06, 0x00, 0x05, 0x50, 0x68, 0x65, 0x6C, 0x6C,
    0x6F,
  ]

  @Test func anEmptyBlockIsEmptyOnlyWhenDeclaredSo() throws {
    #expect(try BlockDecompression.lz4([], expectedSize: 0) == [])
    #expect(throws: ZlibError.self) { try BlockDecompression.lz4([], expectedSize: 5) }
    #expect(throws: ZlibError.self) { try BlockDecompression.zstd([], expectedSize: 5) }
  }

  @Test func anLZ4BlockGivesItsBytesAndOnlyTheDeclaredSize() throws {
    let text = Array("hello hello hello hello hello hello".utf8)
    #expect(try BlockDecompression.lz4(Self.helloLZ4, expectedSize: text.count) == text)
    #expect(throws: ZlibError.self) {
      try BlockDecompression.lz4(Self.helloLZ4, expectedSize: text.count + 1)
    }
    #expect(throws: ZlibError.self) {
      try BlockDecompression.lz4(Self.helloLZ4, expectedSize: text.count - 1)
    }
  }

  @Test func bytesThatAreNoBlockAreRefused() {
    let junk = Array("this is not compressed".utf8)
    #expect(throws: ZlibError.self) { try BlockDecompression.lz4(junk, expectedSize: 100) }
    #expect(throws: ZlibError.self) { try BlockDecompression.zstd(junk, expectedSize: 100) }
  }
}
