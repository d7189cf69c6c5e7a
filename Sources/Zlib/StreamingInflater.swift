import CZlib
import Foundation

/// Inflates a gzip (RFC 1952) or zlib (RFC 1950) stream piece by piece, so that a large
/// compressed document is decompressed as it is read and never held whole.
///
/// Concatenated gzip members (what `cat a.gz b.gz` and some publishers produce) are read as
/// one stream. Used from one thread at a time.
public final class StreamingInflater {
  /// zlib keeps a pointer back to its `z_stream`, so the struct lives at a fixed address.
  private let stream: UnsafeMutablePointer<z_stream>
  private let maxOutputBytes: Int
  private var produced = 0
  /// Whether the last member ended and no input followed it.
  private var atEnd = false

  /// Starts a stream.
  ///
  /// - Parameter maxOutputBytes: The most bytes the whole stream may inflate to; guards
  ///   against compression bombs.
  /// - Throws: `ZlibError.malformed` when zlib cannot be initialised.
  public init(maxOutputBytes: Int) throws(ZlibError) {
    self.maxOutputBytes = maxOutputBytes
    stream = .allocate(capacity: 1)
    stream.initialize(to: z_stream())
    // windowBits 15 + 32 detects a gzip or a zlib header automatically.
    guard inflateInit2_(stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
    else {
      stream.deallocate()
      throw .malformed("zlib could not be initialised")
    }
  }

  deinit {
    inflateEnd(stream)
    stream.deallocate()
  }

  /// Inflates the next piece of the compressed stream.
  ///
  /// - Parameter input: The next compressed bytes (any split is fine).
  /// - Returns: The bytes they inflate to (possibly none).
  /// - Throws: `ZlibError.malformed` for corrupt data, `.tooLarge` beyond `maxOutputBytes`.
  /// - Complexity: O(n) in the input and output size.
  public func inflate(_ input: Data) throws(ZlibError) -> Data {
    guard !input.isEmpty else { return Data() }
    var bytes = [UInt8](input)
    var output = Data()
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    let outcome: Result<Void, ZlibError> = bytes.withUnsafeMutableBufferPointer { inputBuffer in
      stream.pointee.next_in = inputBuffer.baseAddress
      stream.pointee.avail_in = uInt(inputBuffer.count)
      while stream.pointee.avail_in > 0 {
        if atEnd {
          // Another gzip member follows the one that ended.
          guard inflateReset(stream) == Z_OK else {
            return .failure(.malformed("zlib could not start the next member"))
          }
          atEnd = false
        }
        let before = stream.pointee.avail_in
        switch step(&chunk, into: &output) {
        case .failure(let error): return .failure(error)
        case .success(let count):
          // zlib must take input or give output; neither would loop forever.
          if count == 0, stream.pointee.avail_in == before, !atEnd {
            return .failure(.malformed("zlib made no progress"))
          }
        }
      }
      // Output zlib still holds once the input is used up.
      while !atEnd {
        switch step(&chunk, into: &output) {
        case .failure(let error): return .failure(error)
        case .success(let count): if count == 0 { return .success(()) }
        }
      }
      return .success(())
    }
    if case .failure(let error) = outcome { throw error }
    return output
  }

  /// One call of zlib's `inflate` into `chunk`, appending what it produced to `output`.
  ///
  /// - Returns: The number of bytes produced, or the error.
  private func step(_ chunk: inout [UInt8], into output: inout Data) -> Result<Int, ZlibError> {
    let size = chunk.count
    let (status, count) = chunk.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
      stream.pointee.next_out = out.baseAddress
      stream.pointee.avail_out = uInt(size)
      let status = CZlib.inflate(stream, Z_NO_FLUSH)
      return (status, size - Int(stream.pointee.avail_out))
    }
    if count > 0 {
      produced += count
      guard produced <= maxOutputBytes else { return .failure(.tooLarge(limit: maxOutputBytes)) }
      output.append(contentsOf: chunk[0..<count])
    }
    switch status {
    case Z_STREAM_END:
      atEnd = true
      return .success(count)
    case Z_OK, Z_BUF_ERROR: return .success(count)
    default:
      let message = stream.pointee.msg.map { String(cString: $0) } ?? "error \(status)"
      return .failure(.malformed(message))
    }
  }

  /// Checks that the compressed stream ended where its input did.
  ///
  /// - Throws: `ZlibError.truncated` when the input ended inside a member.
  public func finish() throws(ZlibError) {
    guard atEnd else { throw .truncated }
  }

  /// Whether `data` starts like a gzip stream (magic bytes 1F 8B).
  public static func isGzip(_ data: Data) -> Bool {
    data.count >= 2 && data[data.startIndex] == 0x1F && data[data.startIndex + 1] == 0x8B
  }
}
