import CZlib
import Foundation

/// gzip compression and decompression on zlib (RFC 1952 gzip, RFC 1950 zlib, RFC 1951
/// DEFLATE), for HTTP `Content-Encoding: gzip` responses and compressed request bodies.
public enum Gzip {
  /// Compresses `data` into one gzip member (RFC 1952).
  ///
  /// - Parameters:
  ///   - data: The bytes to compress.
  ///   - level: zlib's compression level, 1 (fastest) ... 9 (smallest); 6 by default. Values
  ///     outside are clamped.
  /// - Returns: A complete gzip stream, readable by `gunzip`.
  /// - Complexity: O(n).
  public static func compress(_ data: Data, level: Int = 6) -> Data {
    var stream = z_stream()
    let clamped = Int32(min(max(level, 1), 9))
    // windowBits 15 + 16 asks deflate for a gzip header and trailer instead of zlib's.
    let status = deflateInit2_(
      &stream, clamped, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
      Int32(MemoryLayout<z_stream>.size))
    guard status == Z_OK else { return Data() }
    defer { deflateEnd(&stream) }
    let bound = Int(deflateBound(&stream, uLong(data.count)))
    var output = [UInt8](repeating: 0, count: bound)
    var input = [UInt8](data)
    let produced = input.withUnsafeMutableBufferPointer { inputBuffer in
      output.withUnsafeMutableBufferPointer { outputBuffer -> Int in
        stream.next_in = inputBuffer.baseAddress
        stream.avail_in = uInt(inputBuffer.count)
        stream.next_out = outputBuffer.baseAddress
        stream.avail_out = uInt(outputBuffer.count)
        // deflateBound guarantees one call with Z_FINISH completes the stream.
        guard deflate(&stream, Z_FINISH) == Z_STREAM_END else { return 0 }
        return outputBuffer.count - Int(stream.avail_out)
      }
    }
    return Data(output[0..<produced])
  }

  /// Decompresses a gzip (RFC 1952) or zlib (RFC 1950) stream, told apart by its header.
  ///
  /// - Parameters:
  ///   - data: The compressed bytes: one complete zlib stream, or one or more complete gzip
  ///     members one after the other.
  ///   - maxOutputBytes: The most bytes the result may have; guards against compression
  ///     bombs.
  /// - Returns: The decompressed bytes.
  /// - Throws: `ZlibError.malformed` for a bad header, corrupt data or bytes after the end
  ///   (other than a further gzip member),
  ///   `.truncated` when the stream ends early, `.tooLarge` beyond `maxOutputBytes`.
  /// - Complexity: O(n) in the output size.
  public static func decompress(_ data: Data, maxOutputBytes: Int) throws(ZlibError) -> Data {
    var stream = z_stream()
    // windowBits 15 + 32 detects a gzip or a zlib header automatically.
    guard
      inflateInit2_(&stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
    else { throw .malformed("zlib could not be initialised") }
    defer { inflateEnd(&stream) }
    var input = [UInt8](data)
    let isGzip = input.count >= 2 && input[0] == 0x1F && input[1] == 0x8B
    var output: [UInt8] = []
    let chunkSize = 64 * 1024
    var chunk = [UInt8](repeating: 0, count: chunkSize)
    let outcome: Result<Void, ZlibError> = input.withUnsafeMutableBufferPointer { inputBuffer in
      stream.next_in = inputBuffer.baseAddress
      stream.avail_in = uInt(inputBuffer.count)
      while true {
        let (status, produced) = chunk.withUnsafeMutableBufferPointer {
          chunkBuffer -> (Int32, Int) in
          stream.next_out = chunkBuffer.baseAddress
          stream.avail_out = uInt(chunkSize)
          let status = inflate(&stream, Z_NO_FLUSH)
          return (status, chunkSize - Int(stream.avail_out))
        }
        if produced > 0 {
          guard output.count + produced <= maxOutputBytes else {
            return .failure(.tooLarge(limit: maxOutputBytes))
          }
          output.append(contentsOf: chunk[0..<produced])
        }
        switch status {
        case Z_STREAM_END:
          guard stream.avail_in != 0 else { return .success(()) }
          // A gzip file is a series of members (RFC 1952 §2.2), as `cat a.gz b.gz` makes:
          // the next one is read on. After a zlib stream, or anything but a gzip header,
          // the bytes left over are an error.
          guard isGzip, stream.avail_in >= 2, stream.next_in[0] == 0x1F, stream.next_in[1] == 0x8B,
            inflateReset(&stream) == Z_OK
          else {
            return .failure(.malformed("\(stream.avail_in) bytes follow the end of the stream"))
          }
          continue
        case Z_OK:
          continue
        case Z_BUF_ERROR:
          // No progress is possible: the input ran out before the end of the stream.
          if stream.avail_in == 0 { return .failure(.truncated) }
          continue
        default:
          let message = stream.msg.map { String(cString: $0) } ?? "error \(status)"
          return .failure(.malformed(message))
        }
      }
    }
    if case .failure(let error) = outcome { throw error }
    return Data(output)
  }
}

/// Why compressed data could not be read.
public enum ZlibError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The data is not a gzip or zlib stream, or is corrupt; zlib's message says where.
  case malformed(String)
  /// The data ends before the end of the compressed stream.
  case truncated
  /// The decompressed data would exceed the limit, bytes.
  case tooLarge(limit: Int)

  /// A sentence saying what is wrong.
  public var description: String {
    switch self {
    case .malformed(let reason): return "malformed compressed data: \(reason)"
    case .truncated: return "the compressed data is truncated"
    case .tooLarge(let limit): return "the decompressed data exceeds \(limit) bytes"
    }
  }
}
