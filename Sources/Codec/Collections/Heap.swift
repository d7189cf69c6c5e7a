/// A binary min-heap: the element that orders first (by `<`) comes out first. Elements that
/// compare equal come out in no particular order; give them a tie-break in `<` where order
/// matters.
///
/// It is the priority queue of the R-tree's nearest-neighbour search, of Dijkstra and A*,
/// and of the flow aggregator's due times.
public struct Heap<Element: Comparable> {
  @usableFromInline var storage: [Element] = []

  /// An empty heap.
  @inlinable public init() {}

  /// An empty heap with room for `capacity` elements.
  @inlinable public init(capacity: Int) { storage.reserveCapacity(capacity) }

  /// The element that comes out next, if any.
  @inlinable public var first: Element? { storage.first }

  /// Adds an element.
  ///
  /// - Complexity: O(log n).
  @inlinable
  public mutating func insert(_ element: Element) {
    storage.append(element)
    storage.withUnsafeMutableBufferPointer { heap in
      var child = heap.count - 1
      while child > 0 {
        let parent = (child - 1) / 2
        guard element < heap[parent] else { break }
        heap[child] = heap[parent]
        child = parent
      }
      heap[child] = element
    }
  }

  /// Removes and returns the first element.
  ///
  /// - Complexity: O(log n).
  @inlinable
  public mutating func popFirst() -> Element? {
    guard let last = storage.popLast() else { return nil }
    guard !storage.isEmpty else { return last }
    return storage.withUnsafeMutableBufferPointer { heap in
      let first = heap[0]
      let count = heap.count
      var parent = 0
      while true {
        var child = 2 * parent + 1
        guard child < count else { break }
        if child + 1 < count && heap[child + 1] < heap[child] { child += 1 }
        guard heap[child] < last else { break }
        heap[parent] = heap[child]
        parent = child
      }
      heap[parent] = last
      return first
    }
  }
}

extension Heap: Sendable where Element: Sendable {}

/// An item queued by a cost, ordered by the cost alone (ties in no particular order): the
/// entries of Dijkstra's and A*'s queues.
public struct CostedItem: Comparable, Sendable {
  /// What orders the entries.
  public var cost: Double
  /// What is queued (a segment, a node, an index).
  public var item: Int

  /// An entry.
  @inlinable
  public init(cost: Double, item: Int) {
    self.cost = cost
    self.item = item
  }

  /// Ordered by cost alone.
  @inlinable
  public static func < (a: CostedItem, b: CostedItem) -> Bool { a.cost < b.cost }

  /// Equal costs compare equal, whatever the items (the order `<` gives).
  @inlinable
  public static func == (a: CostedItem, b: CostedItem) -> Bool { a.cost == b.cost }
}
