import CZlib
import Foundation

/// Compresses a stream into one gzip member (RFC 1952) piece by piece, so that a document
/// written as it is sent is compressed as it is sent and never held whole.
///
/// Used from one thread at a time.
public final class StreamingDeflater {
  /// zlib keeps a pointer back to its `z_stream`, so the struct lives at a fixed address.
  private let stream: UnsafeMutablePointer<z_stream>
  private var isFinished = false

  /// Starts a gzip member.
  ///
  /// - Parameter level: zlib's compression level, 1 (fastest) ... 9 (smallest); clamped.
  public init(level: Int = 6) {
    stream = .allocate(capacity: 1)
    stream.initialize(to: z_stream())
    // windowBits 15 + 16 asks deflate for a gzip header and trailer instead of zlib's.
    let status = deflateInit2_(
      stream, Int32(min(max(level, 1), 9)), Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
      zlibVersion(), Int32(MemoryLayout<z_stream>.size))
    // deflateInit2 fails only without memory or with parameters that are constants here.
    precondition(status == Z_OK, "zlib's deflateInit2 failed (\(status))")
  }

  deinit {
    deflateEnd(stream)
    stream.deallocate()
  }

  /// Compresses the next bytes of the stream.
  ///
  /// - Returns: The compressed bytes ready so far (often none: deflate keeps a window).
  /// - Complexity: O(n).
  public func compress(_ input: [UInt8]) -> [UInt8] {
    precondition(!isFinished, "StreamingDeflater.compress after finish")
    return run(input, flush: Z_NO_FLUSH)
  }

  /// Ends the member: the rest of the compressed bytes and the gzip trailer.
  public func finish() -> [UInt8] {
    guard !isFinished else { return [] }
    isFinished = true
    return run([], flush: Z_FINISH)
  }

  private func run(_ input: [UInt8], flush: Int32) -> [UInt8] {
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: max(16_384, input.count / 2))
    var input = input
    input.withUnsafeMutableBufferPointer { inputBuffer in
      stream.pointee.next_in = inputBuffer.baseAddress
      stream.pointee.avail_in = uInt(inputBuffer.count)
      while true {
        let (status, produced) = chunk.withUnsafeMutableBufferPointer { chunkBuffer in
          stream.pointee.next_out = chunkBuffer.baseAddress
          stream.pointee.avail_out = uInt(chunkBuffer.count)
          let status = deflate(stream, flush)
          return (status, chunkBuffer.count - Int(stream.pointee.avail_out))
        }
        output.append(contentsOf: chunk[0..<produced])
        // More output is pending while deflate filled the whole chunk; with Z_FINISH until
        // it reports the end of the stream.
        if status == Z_STREAM_END || status == Z_STREAM_ERROR || status == Z_BUF_ERROR { break }
        if flush == Z_FINISH { continue }
        if stream.pointee.avail_out != 0 && stream.pointee.avail_in == 0 { break }
      }
      stream.pointee.next_in = nil
    }
    return output
  }
}
