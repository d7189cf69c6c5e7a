import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Standard output or standard error, written with `write(2)` and every failure caught.
///
/// Foundation's `FileHandle.write(_:)` traps (`try!`) when a write fails: a full disk
/// (`> /dev/full`), a closed descriptor (`>&-`), a broken pipe while `SIGPIPE` is ignored.
/// Here the first failure is remembered (`failure`) and what is written after it is
/// dropped, so that a command finishes its work and reports the failure once, at its end.
/// A broken pipe on standard output ends the process as `SIGPIPE` ends other Unix tools
/// (quietly: the reader has gone, as after `| head -1`).
package final class StandardStream: Sendable {
  /// The process's standard output.
  package static let output = StandardStream(descriptor: STDOUT_FILENO, endsOnBrokenPipe: true)
  /// The process's standard error.
  package static let error = StandardStream(descriptor: STDERR_FILENO, endsOnBrokenPipe: false)

  private let descriptor: Int32
  private let endsOnBrokenPipe: Bool
  /// `errno` of the first write that failed; `nil` while every write succeeded. The lock
  /// also keeps the pieces of concurrent writers whole.
  private let failedWith = Mutex<Int32?>(nil)

  /// A stream writing to `descriptor` (which it never closes).
  ///
  /// - Parameter endsOnBrokenPipe: Whether a broken pipe (`EPIPE`) ends the process by
  ///   `SIGPIPE`, as it ends other Unix tools, instead of being remembered as a failure.
  package init(descriptor: Int32, endsOnBrokenPipe: Bool = false) {
    self.descriptor = descriptor
    self.endsOnBrokenPipe = endsOnBrokenPipe
  }

  /// Keeps the descriptors of standard input, output and error from being given to files
  /// the process opens: each one closed (`traffic … >&-`) is opened on /dev/null, and a
  /// closed standard output or error is remembered as failed ("bad file descriptor"), not
  /// written into some other file that took its number. Call before anything else opens.
  package static func occupyClosedDescriptors() {
    for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO]
    where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
      let null = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
      if null >= 0, null != descriptor {
        dup2(null, descriptor)
        close(null)
      }
      if descriptor == STDOUT_FILENO { output.failedWith.withLock { $0 = EBADF } }
      if descriptor == STDERR_FILENO { error.failedWith.withLock { $0 = EBADF } }
    }
  }

  /// Why the first failed write failed, in plain words ("no space left on device"), or
  /// `nil` when none failed.
  package var failure: String? {
    failedWith.withLock { $0 }.map { SystemErrorText.describe(errno: $0) }
  }

  /// Writes `text` as UTF-8; nothing once a write has failed.
  package func write(_ text: String) {
    var text = text
    text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
  }

  /// Writes `data` as it is; nothing once a write has failed.
  package func write(_ data: Data) {
    data.withUnsafeBytes { write($0) }
  }

  /// Writes `bytes` whole (a short write is continued); nothing once a write has failed.
  package func write(_ bytes: UnsafeRawBufferPointer) {
    failedWith.withLock { failed in
      guard failed == nil, var next = bytes.baseAddress else { return }
      var left = bytes.count
      while left > 0 {
        let written = Glibc.write(descriptor, next, left)
        if written < 0 {
          if errno == EINTR { continue }
          if errno == EPIPE, endsOnBrokenPipe { Self.endByBrokenPipe() }
          failed = errno
          return
        }
        left -= written
        next += written
      }
    }
  }

  /// Ends the process as `SIGPIPE`'s default action does, even where it was ignored.
  private static func endByBrokenPipe() -> Never {
    signal(SIGPIPE, SIG_DFL)
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGPIPE)
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    raise(SIGPIPE)
    _exit(128 + SIGPIPE)
  }
}
