import Zlib

/// Decompression of PBF blobs (zlib, LZ4 and Zstandard), through the `Zlib` module.
enum Inflater {
  /// Decompresses a PBF blob's data of any kind the format allows and we read.
  static func decompress<Bytes: Collection<UInt8>>(
    _ compressed: Bytes, kind: Compression, expectedSize: Int,
    error makeError: (String) -> RoadsError
  ) throws(RoadsError) -> [UInt8] {
    do {
      switch kind {
      case .zlib: return try ZlibStream.inflate(compressed, expectedSize: expectedSize)
      case .lz4: return try BlockDecompression.lz4(compressed, expectedSize: expectedSize)
      case .zstd: return try BlockDecompression.zstd(compressed, expectedSize: expectedSize)
      }
    } catch .truncated {
      throw makeError(
        "\(kind.rawValue) data is truncated or larger than its raw_size \(expectedSize)")
    } catch {
      throw makeError(kind == .zlib ? "\(error)" : "\(kind.rawValue): \(error)")
    }
  }
}

/// The compressions of PBF blobs that are read.
enum Compression: String, Sendable {
  case zlib, lz4, zstd
}
