import Foundation
import Synchronization
import Testing

@testable import Traffic

#if canImport(Glibc)
  import Glibc
#endif

@Suite struct LowPriorityThreadTests {
  #if os(Linux)
    /// The calling thread's niceness.
    static func niceness() -> Int32 {
      getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    }

    @Test("background work runs at the lower priority; the thread that started it keeps its own")
    func theWorkRunsNicedAndTheCallerDoesNot() async throws {
      let before = Self.niceness()
      let seen = await withCheckedContinuation { continuation in
        LowPriorityThread.start("test.low-priority") {
          continuation.resume(returning: Self.niceness())
        }
      }
      #expect(seen == min(19, before + LowPriorityThread.niceness))
      #expect(Self.niceness() == before)
    }
  #endif
}
