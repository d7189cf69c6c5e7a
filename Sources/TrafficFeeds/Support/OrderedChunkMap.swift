import Dispatch
import Synchronization

/// Maps a stream's elements on a second thread, a chunk at a time, while the stream is
/// still being read, and hands the results on in the stream's order: a document's records
/// are turned into incidents on one core while the next ones are parsed on the other.
///
/// One chunk is mapped while the next is collected, so memory holds two chunks of elements
/// beside the results handed on. A stream shorter than a chunk is mapped on the calling
/// thread. Used from one thread.
struct OrderedChunkMap<Element: Sendable, Output: Sendable> {
  /// The results of a chunk being mapped.
  private final class Outputs: Sendable {
    let values = Mutex<[Output]>([])
  }

  private let chunkSize: Int
  private let transform: @Sendable (Element) -> Output
  private var collecting: [Element] = []
  private var inFlight: (group: DispatchGroup, outputs: Outputs)?

  /// - Parameters:
  ///   - chunkSize: Elements mapped at a time, > 0.
  ///   - transform: The mapping; it runs on another thread.
  init(chunkSize: Int, transform: @escaping @Sendable (Element) -> Output) {
    self.chunkSize = max(1, chunkSize)
    self.transform = transform
    collecting.reserveCapacity(self.chunkSize)
  }

  /// Adds the next element; hands on the results of the chunk mapped before, once a chunk
  /// is full.
  mutating func append(_ element: Element, into sink: (Output) -> Void) {
    collecting.append(element)
    guard collecting.count == chunkSize else { return }
    drain(into: sink)
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
    inFlight = (group, outputs)
  }

  /// Hands on the results of every element appended, in order.
  mutating func finish(into sink: (Output) -> Void) {
    drain(into: sink)
    for element in collecting { sink(transform(element)) }
    collecting = []
  }

  /// Waits for the chunk being mapped, if any, and hands its results on.
  private mutating func drain(into sink: (Output) -> Void) {
    guard let (group, outputs) = inFlight else { return }
    group.wait()
    inFlight = nil
    let mapped = outputs.values.withLock { values in
      defer { values = [] }
      return values
    }
    for output in mapped { sink(output) }
  }
}
