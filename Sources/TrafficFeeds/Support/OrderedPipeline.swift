import Dispatch
import Synchronization

/// Transforms a stream of elements on other threads, in chunks, while the caller keeps
/// producing them (a streaming reader parses the next records meanwhile), and gives the
/// results back in the order the elements came.
///
/// Up to `maxInFlight` chunks are transformed at once; `add` waits when they are all busy,
/// so memory holds a bounded number of chunks. Fewer elements than one chunk are transformed
/// on the caller's thread, without any hand-off.
final class OrderedPipeline<Input: Sendable, Output: Sendable> {
  private let chunkSize: Int
  private let shared: Shared
  private let group = DispatchGroup()
  private var pending: [Input] = []
  private var dispatched = 0

  /// - Parameters:
  ///   - chunkSize: Elements per chunk handed to another thread.
  ///   - maxInFlight: Chunks transformed at once at most.
  ///   - transform: What is done to each element (on any thread).
  init(
    chunkSize: Int = 512, maxInFlight: Int = 3, transform: @escaping @Sendable (Input) -> Output
  ) {
    self.chunkSize = chunkSize
    shared = Shared(transform: transform, slots: DispatchSemaphore(value: maxInFlight))
  }

  /// What the worker threads use.
  private final class Shared: Sendable {
    let transform: @Sendable (Input) -> Output
    let slots: DispatchSemaphore
    let done = Mutex<[Int: [Output]]>([:])

    init(transform: @escaping @Sendable (Input) -> Output, slots: DispatchSemaphore) {
      self.transform = transform
      self.slots = slots
    }
  }

  /// Adds the next element.
  func add(_ input: Input) {
    pending.append(input)
    if pending.count == chunkSize { dispatchPending() }
  }

  /// Waits for every chunk and returns all results, in the order of `add`.
  func finish() -> [Output] {
    if dispatched == 0 { return pending.map(shared.transform) }
    if !pending.isEmpty { dispatchPending() }
    group.wait()
    let chunks = shared.done.withLock { $0 }
    return (0..<dispatched).flatMap { chunks[$0] ?? [] }
  }

  private func dispatchPending() {
    let chunk = pending
    let number = dispatched
    pending = []
    pending.reserveCapacity(chunkSize)
    dispatched += 1
    shared.slots.wait()
    let shared = self.shared
    DispatchQueue.global(qos: .userInitiated).async(group: group) {
      let results = chunk.map(shared.transform)
      shared.done.withLock { $0[number] = results }
      shared.slots.signal()
    }
  }
}
