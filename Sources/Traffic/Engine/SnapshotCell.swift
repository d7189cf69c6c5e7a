import Dispatch
import Synchronization

/// The engine's current snapshot, or, while the first one is loaded in the background, the
/// promise of it: `withLock` waits until it is there, so that everything reading or
/// replacing the snapshot sees the loaded one; `isLoaded` tells the few readers that can
/// answer from the store meanwhile (`TrafficEngine.Loading.inBackground`) not to wait.
final class SnapshotCell: Sendable {
  private let value: Mutex<IncidentIndex>
  private let loaded: Atomic<Bool>
  /// Entered until the snapshot is loaded; waiters wait on it.
  private let loading = DispatchGroup()
  /// Why the load failed (the snapshot is empty then).
  private let failure = Mutex<TrafficStoreError?>(nil)
  /// The next snapshot, to be built by the first reader (`buildOnFirstRead`); its lock is
  /// held while it is built, so that other readers wait for it rather than build it again.
  private let pending = Mutex<(@Sendable () -> IncidentIndex)?>(nil)
  private let hasPending = Atomic<Bool>(false)

  /// A cell holding `index`.
  init(_ index: IncidentIndex) {
    value = Mutex(index)
    loaded = Atomic(true)
  }

  /// A cell whose snapshot `load()` will give (call it once, on any thread).
  init(loadingLater: Void) {
    value = Mutex(.empty)
    loaded = Atomic(false)
    loading.enter()
  }

  /// Whether the snapshot is there (always, unless it is still being loaded or its load
  /// failed).
  var isLoaded: Bool { loaded.load(ordering: .acquiring) }

  /// Puts the loaded snapshot in and wakes everything waiting for it. After a failed load
  /// the snapshot stays empty and `isLoaded` false (the store keeps answering what it can
  /// answer); the waiters wake and find `loadFailure`.
  func load(_ result: Result<IncidentIndex, TrafficStoreError>) {
    switch result {
    case .success(let index):
      value.withLock { $0 = index }
      loaded.store(true, ordering: .releasing)
    case .failure(let error):
      failure.withLock { $0 = error }
    }
    loading.leave()
  }

  /// Why the background load failed, once it did.
  var loadFailure: TrafficStoreError? { failure.withLock { $0 } }

  /// Waits until the snapshot is there, or its load failed.
  func waitUntilLoaded() {
    if !isLoaded { loading.wait() }
  }

  /// Makes `build` the next snapshot, built when it is first read (at once, by whoever
  /// reads or writes it first), not now: a write whose snapshot may never be read (a
  /// one-shot import) does not build it.
  func buildOnFirstRead(_ build: @escaping @Sendable () -> IncidentIndex) {
    pending.withLock { $0 = build }
    hasPending.store(true, ordering: .releasing)
  }

  /// Runs `body` on the snapshot under its lock, once it is there.
  func withLock<Result: Sendable, E: Error>(
    _ body: (inout IncidentIndex) throws(E) -> Result
  ) throws(E) -> Result {
    waitUntilLoaded()
    if hasPending.load(ordering: .acquiring) {
      pending.withLock { build in
        guard let next = build?() else { return }
        value.withLock { $0 = next }
        build = nil
        hasPending.store(false, ordering: .releasing)
      }
    }
    return try value.withLock { index throws(E) -> Result in try body(&index) }
  }
}
