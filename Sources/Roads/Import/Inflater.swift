import Zlib

/// zlib decompression of PBF blobs (RFC 1950 streams), through the `Zlib` module.
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
    _ compressed: Bytes, expectedSize: Int, error makeError: (String) -> RoadsError
  ) throws(RoadsError) -> [UInt8] {
    do {
      return try ZlibStream.inflate(compressed, expectedSize: expectedSize)
    } catch .truncated {
      throw makeError("zlib data is truncated or larger than its raw_size \(expectedSize)")
    } catch {
      throw makeError("\(error)")
    }
  }
}
