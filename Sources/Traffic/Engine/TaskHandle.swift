import Synchronization

/// A running query started with a completion handler; cancel it to stop waiting.
///
/// The completion handler is called exactly once: with the result, or with
/// `TrafficQueryError.operationCancelled` when `cancel()` won the race.
public final class TaskHandle: Sendable {
  private enum State { case running, finished, cancelled }
  private let state = Mutex(State.running)
  private let task = Mutex<Task<Void, Never>?>(nil)
  private let onCancel: @Sendable () -> Void

  init(onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = onCancel
  }

  func attach(_ task: Task<Void, Never>) {
    self.task.withLock { $0 = task }
  }

  /// Marks the work finished; `false` when it had been cancelled already (the result must
  /// then be dropped).
  func finish() -> Bool {
    state.withLock { state in
      guard state == .running else { return false }
      state = .finished
      return true
    }
  }

  /// Cancels the query: its completion handler is called with `operationCancelled` right
  /// away, unless the result was delivered first.
  ///
  /// - Returns: `true` when the query was still running and is now cancelled.
  @discardableResult
  public func cancel() -> Bool {
    let cancelled = state.withLock { state in
      guard state == .running else { return false }
      state = .cancelled
      return true
    }
    guard cancelled else { return false }
    task.withLock { $0?.cancel() }
    onCancel()
    return true
  }

  /// Whether `cancel()` stopped the query.
  public var isCancelled: Bool { state.withLock { $0 == .cancelled } }

  /// Whether the result has been delivered.
  public var isFinished: Bool { state.withLock { $0 == .finished } }
}
