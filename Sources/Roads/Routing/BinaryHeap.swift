/// A binary min-heap of (cost, item) pairs, the priority queue of Dijkstra's algorithm.
package struct BinaryHeap: Sendable {
  private var storage: [(cost: Double, item: Int)] = []

  /// An empty heap.
  package init() {}

  package var isEmpty: Bool { storage.isEmpty }
  package var count: Int { storage.count }

  /// The smallest cost, if any.
  package var minimumCost: Double? { storage.first?.cost }

  /// Adds an item. - Complexity: O(log n).
  package mutating func insert(_ item: Int, cost: Double) {
    storage.append((cost, item))
    var child = storage.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard storage[child].cost < storage[parent].cost else { break }
      storage.swapAt(child, parent)
      child = parent
    }
  }

  /// Removes and returns the pair with the smallest cost. - Complexity: O(log n).
  package mutating func popMinimum() -> (cost: Double, item: Int)? {
    guard let first = storage.first else { return nil }
    let last = storage.removeLast()
    guard !storage.isEmpty else { return first }
    storage[0] = last
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < storage.count, storage[left].cost < storage[smallest].cost { smallest = left }
      if right < storage.count, storage[right].cost < storage[smallest].cost { smallest = right }
      guard smallest != parent else { break }
      storage.swapAt(parent, smallest)
      parent = smallest
    }
    return first
  }
}
