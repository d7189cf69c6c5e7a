import Foundation
import TrafficFeeds
import Zlib

/// A response body sent as it is written: a published document taken piece by piece from
/// its `DocumentStream` (gzip-compressed on the way when the client asked for it), so that
/// a region's document costs a piece of memory, not the document.
///
/// The socket layer reads it from one thread at a time and closes it when libmicrohttpd is
/// done with the response; in-process callers collect it whole.
package final class ResponseBodyStream: @unchecked Sendable {
  private let document: DocumentStream
  private let deflater: StreamingDeflater?
  /// Bytes written and not yet sent, from `sent` on.
  private var pending: [UInt8] = []
  private var sent = 0
  private var isEnded = false
  /// The whole body so far, while it stays within `keepLimit` (for the cache).
  private var kept: [UInt8]? = []
  private let keepLimit: Int
  /// Called once when the stream is closed: with the whole body when it was sent to the
  /// end and kept, else `nil`.
  private var onClose: (@Sendable (Data?) -> Void)?

  /// A body of `document`, compressed when `gzipLevel` is given.
  ///
  /// - Parameters:
  ///   - document: The document's pieces.
  ///   - first: What was already taken of it.
  ///   - gzipLevel: The compression level, or `nil` to send the text.
  ///   - keepLimit: The largest body handed to `onClose` whole.
  ///   - onClose: Called once when the stream closes (sent or abandoned).
  package init(
    _ document: DocumentStream, first: [UInt8], gzipLevel: Int?, keepLimit: Int,
    onClose: @escaping @Sendable (Data?) -> Void
  ) {
    self.document = document
    deflater = gzipLevel.map { StreamingDeflater(level: $0) }
    self.keepLimit = keepLimit
    self.onClose = onClose
    append(first)
  }

  deinit { close() }

  /// The most bytes the socket layer asks for at a time.
  package static let blockBytes = 65_536

  /// Copies the next bytes into `buffer`.
  ///
  /// - Returns: The number of bytes copied, or `nil` at the end of the body.
  package func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
    while sent == pending.count {
      guard !isEnded else { return nil }
      pending.removeAll(keepingCapacity: true)
      sent = 0
      if let piece = document.next() {
        append(piece)
      } else {
        isEnded = true
        if let deflater { add(deflater.finish()) }
      }
    }
    let count = min(buffer.count, pending.count - sent)
    pending.withUnsafeBytes { bytes in
      guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
      target.copyMemory(from: source + sent, byteCount: count)
    }
    sent += count
    return count
  }

  /// The rest of the body, whole (for in-process callers); closes the stream.
  package func collect() -> Data {
    var body = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while let count = buffer.withUnsafeMutableBytes({ read(into: $0) }) {
      body.append(contentsOf: buffer[0..<count])
    }
    close()
    return body
  }

  /// Ends the stream: tells `onClose` the whole body when all of it was read and kept.
  package func close() {
    guard let onClose else { return }
    self.onClose = nil
    onClose(isEnded && sent == pending.count ? kept.map { Data($0) } : nil)
  }

  private func append(_ text: [UInt8]) {
    add(deflater.map { $0.compress(text) } ?? text)
  }

  private func add(_ bytes: [UInt8]) {
    pending.append(contentsOf: bytes)
    guard var whole = kept else { return }
    kept = nil
    if whole.count + bytes.count <= keepLimit {
      whole.append(contentsOf: bytes)
      kept = whole
    }
  }
}
