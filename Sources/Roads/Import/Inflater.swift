import CZlib

/// zlib decompression of PBF blobs (RFC 1950 streams), through the system zlib.
enum Inflater {
  /// Inflates a complete zlib stream whose decompressed size is known.
  ///
  /// - Parameters:
  ///   - compressed: the zlib stream.
  ///   - expectedSize: the declared decompressed size; a stream inflating to any other size
  ///     is rejected.
  ///   - error: makes the error to throw from a reason.
  /// - Returns: the decompressed bytes.
  /// - Throws: the error `error` makes, when the stream is corrupt or its size differs.
  /// - Complexity: O(expectedSize).
  static func inflate<Bytes: Collection<UInt8>>(
    _ compressed: Bytes, expectedSize: Int, error: (String) -> RoadsError
  ) throws(RoadsError) -> [UInt8] {
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
        throw error("zlib data inflates to \(outputLength) bytes, raw_size says \(expectedSize)")
      }
      output.removeSubrange(expectedSize...)
      return output
    case Z_BUF_ERROR:
      throw error("zlib data is truncated or larger than its raw_size \(expectedSize)")
    case Z_DATA_ERROR:
      throw error("corrupt zlib data")
    case Z_MEM_ERROR:
      throw error("out of memory while inflating")
    default:
      throw error("zlib error \(status)")
    }
  }
}
