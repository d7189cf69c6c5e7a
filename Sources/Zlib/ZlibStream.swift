import CZlib

/// Raw zlib (RFC 1950) streams whose decompressed size is known in advance, as OSM PBF blobs
/// declare it.
public enum ZlibStream {
  /// Inflates a complete zlib stream that must decompress to exactly `expectedSize` bytes.
  ///
  /// - Parameters:
  ///   - compressed: The zlib stream.
  ///   - expectedSize: The declared decompressed size.
  /// - Returns: The decompressed bytes.
  /// - Throws: `ZlibError.malformed` for corrupt data or a size other than declared,
  ///   `.truncated` when the stream ends early or inflates beyond the declared size.
  /// - Complexity: O(expectedSize).
  public static func inflate(
    _ compressed: some Collection<UInt8>, expectedSize: Int
  )
    throws(ZlibError) -> [UInt8]
  {
    let source = Array(compressed)
    var output = [UInt8](repeating: 0, count: max(expectedSize, 1))
    var outputLength = uLongf(output.count)
    let status = output.withUnsafeMutableBufferPointer { out in
      source.withUnsafeBufferPointer { input in
        uncompress(out.baseAddress, &outputLength, input.baseAddress, uLong(input.count))
      }
    }
    switch status {
    case Z_OK:
      guard Int(outputLength) == expectedSize else {
        throw .malformed("inflates to \(outputLength) bytes, \(expectedSize) were declared")
      }
      output.removeSubrange(expectedSize...)
      return output
    case Z_BUF_ERROR:
      throw .truncated
    case Z_DATA_ERROR:
      throw .malformed("corrupt zlib data")
    case Z_MEM_ERROR:
      throw .malformed("out of memory while inflating")
    default:
      throw .malformed("zlib error \(status)")
    }
  }
}
