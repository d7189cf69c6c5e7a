/// A static spatial index: a packed R-tree bulk-loaded once from boxes with payloads.
///
/// Items are sorted along a Hilbert curve through their box centres and packed bottom-up
/// into nodes of `nodeSize` entries, as in Kamel & Faloutsos 1993 ("On packing R-trees")
/// and the flatbush library. The whole tree lives in three flat arrays — four `Double`s per
/// box, one `Int32` per entry, and the payloads in tree order — so building allocates no
/// per-node objects and searches walk contiguous memory.
///
/// The tree is immutable: build a new one to change the content (the engine publishes
/// snapshots and rebuilds them in the background).
///
/// Layout: entries `0..<count` are the items in Hilbert order; after them each level of
/// nodes follows, the root last. For an item, `indices` holds its insertion index; for a
/// node, the position of its first child (its children are the next `nodeSize` entries, or
/// fewer at the end of a level).
public struct RTree<Payload: Sendable>: Sendable {
  /// Maximum number of children per node.
  public let nodeSize: Int
  /// Entry positions at which each level ends: `levelBounds[0] == count` (the items), the
  /// last element is the total number of entries (the root is the last entry).
  @usableFromInline var levelBounds: [Int]
  /// Four values per entry: minX, minY, maxX, maxY.
  @usableFromInline var boxes: [Double]
  /// Per entry: an item's insertion index, or a node's first child position.
  @usableFromInline var indices: [Int32]
  /// The items' payloads, in tree (Hilbert) order.
  @usableFromInline var payloads: [Payload]

  /// Builds the tree from all its items at once.
  ///
  /// Payloads are kept in the order of a Hilbert curve through the box centres; results
  /// whose order is not otherwise defined come in that order, which depends only on the
  /// input.
  ///
  /// - Parameters:
  ///   - items: The boxes and their payloads; may be empty. At most `Int32.max` items.
  ///   - nodeSize: Children per node, clamped to 2...65535; 16 suits most data.
  /// - Complexity: O(n) time (a linear-time radix sort of Hilbert codes) and O(n) memory.
  public init(_ items: [(box: RTreeBox, payload: Payload)], nodeSize: Int = 16) {
    precondition(items.count < Int(Int32.max), "an RTree holds at most Int32.max items")
    let nodeSize = min(max(nodeSize, 2), 65535)
    self.nodeSize = nodeSize
    let count = items.count

    var levelBounds = [count]
    var entryCount = count
    if count > 0 {
      var levelCount = count
      repeat {
        levelCount = (levelCount + nodeSize - 1) / nodeSize
        entryCount += levelCount
        levelBounds.append(entryCount)
      } while levelCount != 1
    }
    self.levelBounds = levelBounds

    let order = RTree.hilbertOrder(items)
    var boxes = [Double](repeating: 0, count: 4 * entryCount)
    var indices = [Int32](repeating: 0, count: entryCount)
    var payloads: [Payload] = []
    payloads.reserveCapacity(count)
    for (position, original) in order.enumerated() {
      let box = items[original].box
      boxes[4 * position] = box.minX
      boxes[4 * position + 1] = box.minY
      boxes[4 * position + 2] = box.maxX
      boxes[4 * position + 3] = box.maxY
      indices[position] = Int32(truncatingIfNeeded: original)
      payloads.append(items[original].payload)
    }

    // Pack each level into the next: every run of `nodeSize` entries gets a parent box.
    var child = 0
    var parent = count
    for level in 0..<max(0, levelBounds.count - 1) {
      let levelEnd = levelBounds[level]
      while child < levelEnd {
        let first = child
        let end = min(child + nodeSize, levelEnd)
        var minX = Double.infinity, minY = Double.infinity
        var maxX = -Double.infinity, maxY = -Double.infinity
        while child < end {
          minX = min(minX, boxes[4 * child])
          minY = min(minY, boxes[4 * child + 1])
          maxX = max(maxX, boxes[4 * child + 2])
          maxY = max(maxY, boxes[4 * child + 3])
          child += 1
        }
        boxes[4 * parent] = minX
        boxes[4 * parent + 1] = minY
        boxes[4 * parent + 2] = maxX
        boxes[4 * parent + 3] = maxY
        indices[parent] = Int32(truncatingIfNeeded: first)
        parent += 1
      }
    }
    self.boxes = boxes
    self.indices = indices
    self.payloads = payloads
    #if GEO_INVARIANTS
      checkInvariants()
    #endif
  }

  /// The number of items.
  public var count: Int { payloads.count }

  /// Whether the tree holds no items.
  public var isEmpty: Bool { payloads.isEmpty }

  /// The box enclosing every item, or `nil` for an empty tree.
  public var bounds: RTreeBox? {
    guard !isEmpty else { return nil }
    return box(at: levelBounds[levelBounds.count - 1] - 1)
  }

  /// The box stored at an entry position.
  @inlinable
  func box(at position: Int) -> RTreeBox {
    RTreeBox(
      uncheckedMinX: boxes[4 * position], minY: boxes[4 * position + 1],
      maxX: boxes[4 * position + 2], maxY: boxes[4 * position + 3])
  }

  /// The positions `first..<end` of the children of the node at `position`.
  @inlinable
  func childRange(ofNodeAt position: Int) -> Range<Int> {
    let first = Int(indices[position])
    var level = 0
    while levelBounds[level] <= first { level += 1 }
    return first..<min(first + nodeSize, levelBounds[level])
  }
}
