/// The priority queue of the R-tree's nearest-neighbour search: a binary min-heap of
/// entries ordered by distance, then by rank.
@usableFromInline
struct NearestQueue {
  /// A queued node or item.
  @usableFromInline
  struct Entry {
    /// A lower bound (nodes, unrefined items) or the exact distance (refined items).
    @usableFromInline var distance: Double
    /// The tie-break: the kind in the top bits (node 0, `unrefined`, `refined`), then a node's
    /// position or an item's insertion index.
    @usableFromInline var rank: UInt64
    /// The entry's position in the tree.
    @usableFromInline var position: Int

    @inlinable
    init(distance: Double, rank: UInt64, position: Int) {
      self.distance = distance
      self.rank = rank
      self.position = position
    }

    @inlinable
    func precedes(_ other: Entry) -> Bool {
      distance < other.distance || (distance == other.distance && rank < other.rank)
    }
  }

  /// Rank bit of an item queued by its box bound, awaiting its exact distance.
  @usableFromInline static let unrefined: UInt64 = 1 << 62
  /// Rank bit of an item queued by its exact distance.
  @usableFromInline static let refined: UInt64 = 1 << 63

  @usableFromInline var heap: [Entry] = []

  @inlinable
  init() { heap.reserveCapacity(64) }

  @inlinable
  var isEmpty: Bool { heap.isEmpty }

  /// Adds an entry.
  ///
  /// - Complexity: O(log n).
  @inlinable
  mutating func push(_ entry: Entry) {
    heap.append(entry)
    heap.withUnsafeMutableBufferPointer { heap in
      var child = heap.count - 1
      while child > 0 {
        let parent = (child - 1) / 2
        guard entry.precedes(heap[parent]) else { break }
        heap[child] = heap[parent]
        child = parent
      }
      heap[child] = entry
    }
  }

  /// Removes and returns the first entry (smallest distance, then rank).
  ///
  /// - Complexity: O(log n).
  @inlinable
  mutating func popFirst() -> Entry? {
    guard let last = heap.popLast() else { return nil }
    guard !heap.isEmpty else { return last }
    return heap.withUnsafeMutableBufferPointer { heap in
      let first = heap[0]
      let count = heap.count
      var parent = 0
      while true {
        var child = 2 * parent + 1
        guard child < count else { break }
        if child + 1 < count && heap[child + 1].precedes(heap[child]) { child += 1 }
        guard heap[child].precedes(last) else { break }
        heap[parent] = heap[child]
        parent = child
      }
      heap[parent] = last
      return first
    }
  }
}
