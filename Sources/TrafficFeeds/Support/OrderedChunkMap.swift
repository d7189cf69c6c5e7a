import Dispatch
import Foundation
import Synchronization

/// Maps a stream's elements on other threads, a chunk at a time, while the stream is still
/// being read, and hands the results on in the stream's order: a document's records are
/// parsed and turned into incidents on the cores while the reader delimits the next ones.
///
/// Up to `maxInFlight` chunks are mapped while the next is collected, so memory holds that
/// many chunks of elements and their results beside those handed on. A stream shorter
/// than a chunk is mapped on the calling thread. Used from one thread.
struct OrderedChunkMap<Element: Sendable, Output: Sendable> {
  /// The results of a chunk being mapped.
  private final class Outputs: Sendable {
    let values = Mutex<[Output]>([])
  }

  private let chunkSize: Int
  private let maxInFlight: Int
  private let transform: @Sendable (Element) -> Output
  private var collecting: [Element] = []
  /// The chunks being mapped, oldest first.
  private var inFlight: [(group: DispatchGroup, outputs: Outputs)] = []

  /// - Parameters:
  ///   - chunkSize: Elements mapped at a time, > 0.
  ///   - maxInFlight: Chunks mapped at once, > 0 (by default one per core).
  ///   - transform: The mapping; it runs on other threads.
  init(
    chunkSize: Int, maxInFlight: Int = ProcessInfo.processInfo.activeProcessorCount,
    transform: @escaping @Sendable (Element) -> Output
  ) {
    self.chunkSize = max(1, chunkSize)
    self.maxInFlight = max(1, maxInFlight)
    self.transform = transform
    collecting.reserveCapacity(self.chunkSize)
  }

  /// Adds the next element; hands on the results of the chunk mapped before, once a chunk
  /// is full.
  mutating func append(_ element: Element, into sink: (Output) -> Void) {
    collecting.append(element)
    guard collecting.count == chunkSize else { return }
    if inFlight.count >= maxInFlight { drainOldest(into: sink) }
    let chunk = collecting
    collecting = []
    collecting.reserveCapacity(chunkSize)
    let outputs = Outputs()
    let group = DispatchGroup()
    let transform = self.transform
    DispatchQueue.global(qos: .userInitiated).async(group: group) {
      let mapped = chunk.map(transform)
      outputs.values.withLock { $0 = mapped }
    }
    inFlight.append((group, outputs))
  }

  /// Hands on the results of every element appended, in order.
  mutating func finish(into sink: (Output) -> Void) {
    // The last, partial chunk on this thread while the others are still being mapped.
    let rest = collecting.map(transform)
    collecting = []
    while !inFlight.isEmpty { drainOldest(into: sink) }
    for output in rest { sink(output) }
  }

  /// Waits for the oldest chunk being mapped, if any, and hands its results on.
  private mutating func drainOldest(into sink: (Output) -> Void) {
    guard !inFlight.isEmpty else { return }
    let (group, outputs) = inFlight.removeFirst()
    group.wait()
    let mapped = outputs.values.withLock { values in
      defer { values = [] }
      return values
    }
    for output in mapped { sink(output) }
  }
}
