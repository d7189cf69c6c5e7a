extension RTree {
  /// The payloads of all items whose box intersects `box` (edges included).
  ///
  /// - Parameter box: The query box.
  /// - Returns: The matching payloads, in tree order.
  /// - Complexity: O(log n + m) for m results on typical data (the nodes visited are those
  ///   whose box meets the query).
  @inlinable
  public func search(intersecting box: RTreeBox) -> [Payload] {
    search(descendingInto: { $0.intersects(box) }, where: { itemBox, _ in itemBox.intersects(box) })
  }

  /// Calls `body` with each payload whose box intersects `box`, without allocating a result
  /// array, until `body` returns `false`.
  ///
  /// - Parameters:
  ///   - box: The query box.
  ///   - body: Receives each matching payload and its box, in tree order; returns `true` to
  ///     continue, `false` to stop the search.
  /// - Complexity: O(log n + m) for m payloads visited, on typical data.
  @inlinable
  public func visit(
    intersecting box: RTreeBox, _ body: (_ payload: Payload, _ box: RTreeBox) -> Bool
  ) {
    visit(
      descendingInto: { $0.intersects(box) }, where: { itemBox, _ in itemBox.intersects(box) },
      body)
  }

  /// The payloads of the items accepted by `itemTest`, descending only into nodes whose box
  /// passes `nodeTest` — for example "boxes within 50 m of this segment", then an exact test.
  ///
  /// `nodeTest` must accept every node box that encloses an item `itemTest` could accept
  /// (a node's box encloses its items' boxes), or those items are missed.
  ///
  /// - Parameters:
  ///   - nodeTest: Whether the subtree under a node box can hold a match.
  ///   - itemTest: Whether an item (its box and payload) matches.
  /// - Returns: The matching payloads, in tree order.
  /// - Complexity: O(n) in the worst case; proportional to the nodes accepted by `nodeTest`.
  @inlinable
  public func search(
    descendingInto nodeTest: (RTreeBox) -> Bool,
    where itemTest: (_ box: RTreeBox, _ payload: Payload) -> Bool
  ) -> [Payload] {
    var result: [Payload] = []
    visit(descendingInto: nodeTest, where: itemTest) { payload, _ in
      result.append(payload)
      return true
    }
    return result
  }

  /// Calls `body` with each item accepted by `itemTest`, descending only into nodes whose box
  /// passes `nodeTest`, until `body` returns `false`.
  ///
  /// - Parameters:
  ///   - nodeTest: Whether the subtree under a node box can hold a match; must accept every
  ///     node whose items `itemTest` could accept.
  ///   - itemTest: Whether an item (its box and payload) matches.
  ///   - body: Receives each matching payload and its box, in tree order; returns `true` to
  ///     continue, `false` to stop the search.
  /// - Complexity: O(n) in the worst case; proportional to the nodes accepted by `nodeTest`.
  @inlinable
  public func visit(
    descendingInto nodeTest: (RTreeBox) -> Bool,
    where itemTest: (_ box: RTreeBox, _ payload: Payload) -> Bool,
    _ body: (_ payload: Payload, _ box: RTreeBox) -> Bool
  ) {
    guard !payloads.isEmpty else { return }
    let nodeSize = self.nodeSize
    let levelCount = levelBounds.count
    // A depth-first stack never holds more than one node's children per level.
    let stackCapacity = levelCount * nodeSize + 1
    payloads.withUnsafeBufferPointer { payloads in
      boxes.withUnsafeBufferPointer { boxes in
        indices.withUnsafeBufferPointer { indices in
          levelBounds.withUnsafeBufferPointer { levelBounds in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: stackCapacity) { stack in
              let itemCount = levelBounds[0]
              var stackCount = 0
              var node = levelBounds[levelCount - 1] - 1
              while true {
                let first = Int(indices[node])
                var level = 0
                while levelBounds[level] <= first { level += 1 }
                let end = min(first + nodeSize, levelBounds[level])
                for child in first..<end {
                  let box = RTreeBox(
                    uncheckedMinX: boxes[4 * child], minY: boxes[4 * child + 1],
                    maxX: boxes[4 * child + 2], maxY: boxes[4 * child + 3])
                  if child < itemCount {
                    if itemTest(box, payloads[child]) && !body(payloads[child], box) { return }
                  } else if nodeTest(box) {
                    stack[stackCount] = child
                    stackCount += 1
                  }
                }
                guard stackCount > 0 else { return }
                stackCount -= 1
                node = stack[stackCount]
              }
            }
          }
        }
      }
    }
  }
}
