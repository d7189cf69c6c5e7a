import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Background work that may take seconds of CPU (a merge of the incident index rebuilds a
/// million incidents' R-tree and shapes) on a thread of its own at a lower CPU priority, so
/// that on a machine whose cores are all busy the writes and queries it would slow down
/// get them first (a push of 1,000 changes to a million incidents answered up to a fifth
/// later while a merge ran beside it at the same priority).
///
/// The thread is made for the work and ends with it: Linux keeps a thread's niceness, and an
/// unprivileged process cannot raise it back, so pooled threads are never lowered.
enum LowPriorityThread {
  /// The niceness of the thread (Linux's `nice` scale: 10 gets about a tenth of a core
  /// that a thread at 0 also wants).
  static let niceness: Int32 = 10

  /// Runs `work` on a new thread named `name` at `niceness`.
  static func start(_ name: String, _ work: @escaping @Sendable () -> Void) {
    let thread = Thread {
      lowerCurrentThreadsPriority()
      work()
    }
    thread.name = name
    thread.start()
  }

  /// Lowers the calling thread's priority (where the platform allows one thread's alone).
  private static func lowerCurrentThreadsPriority() {
    #if os(Linux)
      // Who 0 is the calling thread: Linux keeps a niceness per thread, not per process.
      _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
    #endif
  }
}
