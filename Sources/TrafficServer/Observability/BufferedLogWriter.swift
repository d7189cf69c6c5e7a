import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Lines written to a file descriptor in batches, off the request path, as nginx's
/// `access_log ... buffer=64k flush=100ms` does.
///
/// Serving threads only append to a buffer in memory. A background thread writes the
/// buffer every `flushInterval`, and sooner when it holds `flushBytes`; when the output
/// cannot keep up (a blocked terminal or pipe) and the buffer reaches `maxPendingBytes`, the
/// appending thread writes it itself, so memory stays bounded and no line is dropped.
/// ``flush()`` writes what is pending at once (the server calls it when it stops). Chunks
/// reach the descriptor whole and in the order their lines were appended.
final class BufferedLogWriter: Sendable {
  /// How often the background thread writes, seconds.
  static let flushInterval = 0.1
  /// The buffer size that wakes the background thread early.
  static let flushBytes = 64 << 10
  /// The buffer size at which an appending thread writes the buffer itself.
  static let maxPendingBytes = 1 << 20

  private struct Pending {
    var bytes: [UInt8] = []
    var flusherStarted = false
  }

  private let descriptor: Int32
  private let pending = Mutex(Pending())
  /// Held while a chunk is written, so that chunks leave in the order they were taken.
  private let output = Mutex<[UInt8]>([])
  private let wake = DispatchSemaphore(value: 0)

  /// A writer to `descriptor`, which it never closes.
  init(fileDescriptor descriptor: Int32) {
    self.descriptor = descriptor
  }

  /// Appends one line; a newline is added.
  ///
  /// - Parameter line: The line's bytes, without a newline.
  /// - Complexity: O(n) in the line's length, amortised; a write when the buffer is full.
  func append(_ line: some Collection<UInt8>) {
    let (count, startFlusher) = pending.withLock { pending -> (Int, Bool) in
      if pending.bytes.capacity == 0 { pending.bytes.reserveCapacity(Self.flushBytes * 2) }
      pending.bytes.append(contentsOf: line)
      pending.bytes.append(UInt8(ascii: "\n"))
      let start = !pending.flusherStarted
      pending.flusherStarted = true
      return (pending.bytes.count, start)
    }
    if startFlusher { self.startFlusher() }
    if count >= Self.maxPendingBytes {
      flush()
    } else if count >= Self.flushBytes, count - line.count - 1 < Self.flushBytes {
      wake.signal()
    }
  }

  /// Writes every line appended so far.
  func flush() {
    output.withLock { spare in
      var chunk = pending.withLock { pending -> [UInt8] in
        var chunk = spare
        swap(&chunk, &pending.bytes)
        return chunk
      }
      guard !chunk.isEmpty else {
        spare = chunk
        return
      }
      chunk.withUnsafeBytes { bytes in
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
          let written = write(descriptor, base + offset, bytes.count - offset)
          if written > 0 {
            offset += written
          } else if written < 0, errno == EINTR || errno == EAGAIN {
            continue
          } else {
            break  // the descriptor is gone; the lines cannot go anywhere
          }
        }
      }
      chunk.removeAll(keepingCapacity: true)
      spare = chunk
    }
  }

  /// The background thread: lives as long as the process (writers are few and long-lived:
  /// one per log destination).
  private func startFlusher() {
    let thread = Thread { [self] in
      while true {
        _ = wake.wait(timeout: .now() + Self.flushInterval)
        flush()
      }
    }
    thread.name = "traffic.access-log"
    thread.start()
  }
}
