import CLZ4
import CZstd

/// Whole blocks compressed with LZ4 (block format) or Zstandard whose decompressed size is
/// known in advance, as OpenStreetMap PBF blobs declare it (`lz4_data`, `zstd_data`, which
/// osmium writes).
public enum BlockDecompression {
  /// Decompresses an LZ4 block that must give exactly `expectedSize` bytes.
  ///
  /// - Throws: `ZlibError.malformed` for corrupt data or another size.
  /// - Complexity: O(expectedSize).
  public static func lz4(
    _ compressed: some Collection<UInt8>, expectedSize: Int
  ) throws(ZlibError) -> [UInt8] {
    let source = Array(compressed)
    guard source.count <= Int(Int32.max), expectedSize <= Int(Int32.max) else {
      throw .malformed("an LZ4 block of more than 2 GiB")
    }
    guard !source.isEmpty else {
      guard expectedSize == 0 else {
        throw .malformed("an empty LZ4 block for \(expectedSize) bytes")
      }
      return []
    }
    var output = [UInt8](repeating: 0, count: max(expectedSize, 1))
    let written = output.withUnsafeMutableBytes { out in
      source.withUnsafeBytes { input -> Int32 in
        guard let from = input.bindMemory(to: CChar.self).baseAddress,
          let to = out.bindMemory(to: CChar.self).baseAddress
        else { return -1 }
        return LZ4_decompress_safe(from, to, Int32(input.count), Int32(expectedSize))
      }
    }
    guard written >= 0 else { throw .malformed("corrupt LZ4 data") }
    guard Int(written) == expectedSize else {
      throw .malformed("decompresses to \(written) bytes, \(expectedSize) were declared")
    }
    output.removeSubrange(expectedSize...)
    return output
  }

  /// Decompresses a Zstandard frame that must give exactly `expectedSize` bytes.
  ///
  /// - Throws: `ZlibError.malformed` for corrupt data or another size.
  /// - Complexity: O(expectedSize).
  public static func zstd(
    _ compressed: some Collection<UInt8>, expectedSize: Int
  ) throws(ZlibError) -> [UInt8] {
    let source = Array(compressed)
    // One byte more than declared, so that a frame larger than declared is noticed.
    var output = [UInt8](repeating: 0, count: expectedSize + 1)
    let written = output.withUnsafeMutableBufferPointer { out in
      source.withUnsafeBufferPointer { input in
        ZSTD_decompress(out.baseAddress, out.count, input.baseAddress, input.count)
      }
    }
    if ZSTD_isError(written) != 0 {
      throw .malformed("corrupt Zstandard data (\(String(cString: ZSTD_getErrorName(written))))")
    }
    guard written == expectedSize else {
      throw .malformed("decompresses to \(written) bytes, \(expectedSize) were declared")
    }
    output.removeSubrange(expectedSize...)
    return output
  }
}
