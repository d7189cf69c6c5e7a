import Foundation
import Traffic

/// Hands probes to a sink in batches, no earlier than their time on the demo clock.
///
/// Used by one thread at a time (the stream's reader thread).
final class ProbePacer {
  let clock: DemoClock
  let batchIntervalInSeconds: Double
  let isPaced: Bool
  let sink: @Sendable ([Probe]) -> Void
  let isStopped: @Sendable () -> Bool
  private var pending: [Probe] = []
  private var lastFlush = Date()
  /// Probes handed to the sink so far.
  private(set) var delivered = 0
  /// Batches handed to the sink so far.
  private(set) var batches = 0

  /// Unpaced batches hold at most this many probes.
  static let unpacedBatchSize = 10_000

  init(
    clock: DemoClock, batchIntervalInSeconds: Double, isPaced: Bool,
    sink: @escaping @Sendable ([Probe]) -> Void, isStopped: @escaping @Sendable () -> Bool
  ) {
    self.clock = clock
    self.batchIntervalInSeconds = batchIntervalInSeconds
    self.isPaced = isPaced
    self.sink = sink
    self.isStopped = isStopped
  }

  /// Waits until the demo clock reaches `time`, delivering the pending batch when it is due.
  ///
  /// - Returns: `false` when the stream was stopped meanwhile.
  func wait(until time: Date) -> Bool {
    guard isPaced else {
      if pending.count >= Self.unpacedBatchSize { flush() }
      return !isStopped()
    }
    while true {
      if isStopped() { return false }
      if clock.now() >= time { return true }
      flushIfDue()
      let remaining = clock.wallTime(atDemoTime: time).timeIntervalSinceNow
      Thread.sleep(forTimeInterval: min(max(remaining, 0.001), 0.05))
    }
  }

  /// Adds a probe to the pending batch.
  func add(_ probe: Probe) {
    pending.append(probe)
  }

  /// Delivers the pending batch when a batch interval has passed since the last.
  func flushIfDue() {
    if !pending.isEmpty, -lastFlush.timeIntervalSinceNow >= batchIntervalInSeconds { flush() }
  }

  /// Delivers the pending batch now.
  func flush() {
    lastFlush = Date()
    guard !pending.isEmpty else { return }
    let batch = pending
    pending.removeAll(keepingCapacity: true)
    delivered += batch.count
    batches += 1
    sink(batch)
  }
}
