import Dispatch
import Foundation
import Synchronization

/// SIGINT and SIGTERM as an event of the process, never lost: while anyone watches, a
/// handler writes each signal's number to a pipe (all it does, which is safe in a signal
/// handler), and a thread of its own reading the pipe signals every watcher's semaphore.
///
/// Ignoring the signals and handing them to a Dispatch signal source instead loses those
/// that come before the source is registered (asynchronously, on Dispatch's own thread):
/// a server stopped right after it listened could then wait for ever. With a handler, a
/// signal is caught from the moment ``watch(_:)`` returns, on whichever thread the kernel
/// delivers it to; and child processes get the default action back at `exec`, as they
/// would not after `SIG_IGN`.
enum StopSignals {
  /// The signals that stop a server.
  static let numbers: [Int32] = [SIGINT, SIGTERM]

  private struct Watchers {
    var semaphores: [ObjectIdentifier: DispatchSemaphore] = [:]
    /// The actions before the first watcher, given back after the last.
    var previous: [(Int32, __sighandler_t?)] = []
  }

  private static let watchers = Mutex(Watchers())

  /// The pipe's write end, set once before any handler is installed (see `reader`).
  nonisolated(unsafe) private static var writeEnd: Int32 = -1

  /// Starts, once per process, the pipe and the thread that reads it: 0, or the `errno` of
  /// the pipe that could not be made (no descriptor left).
  private static let reader: Int32 = {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return errno }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    writeEnd = ends[1]
    let readEnd = ends[0]
    let thread = Thread {
      var byte: UInt8 = 0
      while true {
        let count = read(readEnd, &byte, 1)
        if count < 0, errno == EINTR { continue }
        guard count == 1 else { return }
        for semaphore in watchers.withLock({ Array($0.semaphores.values) }) {
          semaphore.signal()
        }
      }
    }
    thread.name = "traffic.server.signals"
    thread.start()
    return 0
  }()

  /// Signals `semaphore` on each SIGINT or SIGTERM from now until ``unwatch(_:)``.
  ///
  /// - Throws: `ServerError.cannotListen` when the process has no descriptor left for the
  ///   pipe (then the signals keep their actions).
  static func watch(_ semaphore: DispatchSemaphore) throws(ServerError) {
    guard reader == 0 else {
      let reason = String(cString: strerror(reader)).lowercased()
      throw .cannotListen("no pipe for SIGINT and SIGTERM to stop the server: \(reason)")
    }
    watchers.withLock { state in
      if state.semaphores.isEmpty {
        state.previous = numbers.map { ($0, signal($0, stopSignalHandler)) }
      }
      state.semaphores[ObjectIdentifier(semaphore)] = semaphore
    }
  }

  /// Stops signalling `semaphore`; after the last watcher, the signals' earlier actions are
  /// given back.
  static func unwatch(_ semaphore: DispatchSemaphore) {
    watchers.withLock { state in
      guard state.semaphores.removeValue(forKey: ObjectIdentifier(semaphore)) != nil,
        state.semaphores.isEmpty
      else { return }
      for (number, action) in state.previous { signal(number, action) }
      state.previous = []
    }
  }

  /// The handler: the signal's number into the pipe, nothing else.
  fileprivate static func deliver(_ number: Int32) {
    var byte = UInt8(truncatingIfNeeded: number)
    let saved = errno
    _ = write(writeEnd, &byte, 1)
    errno = saved
  }
}

/// A C function for `signal(2)` (a closure that captures nothing would do as well, but a
/// named function says what runs in the handler).
private func stopSignalHandler(_ number: Int32) {
  StopSignals.deliver(number)
}
