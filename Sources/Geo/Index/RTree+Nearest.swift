import Codec

extension RTree {
  /// The `k` items whose boxes are nearest to a point in the plane, nearest first.
  ///
  /// - Parameters:
  ///   - x: The point's x.
  ///   - y: The point's y.
  ///   - k: How many items at most; 0 or less gives none.
  ///   - maxDistance: Items farther than this (planar distance to their box) are left out.
  /// - Returns: Payloads with their planar distance to the point (0 inside the box), sorted
  ///   by distance; equal distances in insertion order.
  /// - Complexity: O(k log n) on typical data (best-first search, Hjaltason & Samet 1999,
  ///   "Distance browsing in spatial databases").
  @inlinable
  public func nearest(
    x: Double, y: Double, k: Int = 1, maxDistance: Double = .infinity
  ) -> [(payload: Payload, distance: Double)] {
    // Ranks by squared distance (no square roots in the search), reports the distance.
    var result = nearest(
      k: k, maxDistance: maxDistance >= 0 ? maxDistance * maxDistance : -1, refinesItems: false,
      boxLowerBound: { $0.distanceSquared(toX: x, y: y) },
      itemDistance: { _, _, bound in bound })
    for index in result.indices { result[index].distance.formSquareRoot() }
    return result
  }

  /// The `k` items nearest to a point in the plane by the true distance to each item's own
  /// geometry, nearest first.
  ///
  /// Boxes are ranked by their planar distance to the point, which is a lower bound of the
  /// distance to any geometry inside them; `itemDistance` is called only for items whose
  /// box is close enough to matter.
  ///
  /// - Parameters:
  ///   - x: The point's x.
  ///   - y: The point's y.
  ///   - k: How many items at most; 0 or less gives none.
  ///   - maxDistance: Items farther than this are left out.
  ///   - itemDistance: The exact planar distance from the point to an item's geometry; it
  ///     must not be smaller than the distance to the item's box.
  /// - Returns: Payloads with their distance, sorted by distance; equal distances in
  ///   insertion order.
  /// - Complexity: O(k log n) box steps on typical data, plus one `itemDistance` call per
  ///   item whose box is nearer than the k-th result.
  @inlinable
  public func nearest(
    x: Double, y: Double, k: Int = 1, maxDistance: Double = .infinity,
    itemDistance: (_ payload: Payload, _ box: RTreeBox) -> Double
  ) -> [(payload: Payload, distance: Double)] {
    nearest(
      k: k, maxDistance: maxDistance, boxLowerBound: { $0.distance(toX: x, y: y) },
      itemDistance: itemDistance)
  }

  /// The `k` items nearest to some query under any distance, given a lower bound for boxes
  /// and the exact distance for items — the general form of the nearest-neighbour search.
  ///
  /// - Parameters:
  ///   - k: How many items at most; 0 or less gives none.
  ///   - maxDistance: Items farther than this are left out.
  ///   - boxLowerBound: A value no greater than the distance from the query to anything
  ///     inside the box (node boxes and item boxes alike).
  ///   - itemDistance: The exact distance from the query to an item's geometry; must be at
  ///     least `boxLowerBound` of the item's box. NaN counts as out of range.
  /// - Returns: Payloads with their distance, sorted by distance; equal distances in
  ///   insertion order.
  /// - Complexity: O(k log n) box steps on typical data, plus one `itemDistance` call per
  ///   item whose box bound is below the k-th result.
  @inlinable
  public func nearest(
    k: Int, maxDistance: Double = .infinity,
    boxLowerBound: (RTreeBox) -> Double,
    itemDistance: (_ payload: Payload, _ box: RTreeBox) -> Double
  ) -> [(payload: Payload, distance: Double)] {
    nearest(
      k: k, maxDistance: maxDistance, refinesItems: true, boxLowerBound: boxLowerBound,
      itemDistance: { payload, box, _ in itemDistance(payload, box) })
  }

  /// Best-first search (Hjaltason & Samet 1999). A priority queue holds nodes and items
  /// keyed by a distance: nodes by their lower bound; items first by their box bound and,
  /// when `refinesItems`, again by their exact distance once they reach the front. An item
  /// reaching the front with its exact distance is nearer than everything still queued.
  ///
  /// At equal keys nodes come before unrefined items, which come before refined items, and
  /// refined items in insertion order, so that every item at the tied distance is queued and
  /// refined before the first of them is reported: ties are broken by insertion order.
  @inlinable
  func nearest(
    k: Int, maxDistance: Double, refinesItems: Bool,
    boxLowerBound: (RTreeBox) -> Double,
    itemDistance: (_ payload: Payload, _ box: RTreeBox, _ bound: Double) -> Double
  ) -> [(payload: Payload, distance: Double)] {
    var result: [(payload: Payload, distance: Double)] = []
    guard k > 0, !payloads.isEmpty, maxDistance >= 0 else { return result }
    result.reserveCapacity(min(k, count))
    let nodeSize = self.nodeSize
    let levelCount = levelBounds.count
    payloads.withUnsafeBufferPointer { payloads in
      boxes.withUnsafeBufferPointer { boxes in
        indices.withUnsafeBufferPointer { indices in
          levelBounds.withUnsafeBufferPointer { levelBounds in
            @inline(__always) func box(at position: Int) -> RTreeBox {
              RTreeBox(
                uncheckedMinX: boxes[4 * position], minY: boxes[4 * position + 1],
                maxX: boxes[4 * position + 2], maxY: boxes[4 * position + 3])
            }
            let itemCount = levelBounds[0]
            var queue = Heap<NearestEntry>(capacity: 64)
            var nextNode: Int? = levelBounds[levelCount - 1] - 1
            while let node = nextNode {
              let first = Int(indices[node])
              var level = 0
              while levelBounds[level] <= first { level += 1 }
              let end = min(first + nodeSize, levelBounds[level])
              for child in first..<end {
                var bound = boxLowerBound(box(at: child))
                if bound.isNaN { bound = 0 }
                guard bound <= maxDistance else { continue }
                if child >= itemCount {
                  queue.insert(
                    NearestEntry(distance: bound, rank: UInt64(child), position: child))
                } else {
                  let order = UInt64(UInt32(bitPattern: indices[child]))
                  let kind = refinesItems ? NearestEntry.unrefined : NearestEntry.refined
                  queue.insert(
                    NearestEntry(distance: bound, rank: kind | order, position: child))
                }
              }
              nextNode = nil
              while let entry = queue.popFirst() {
                if entry.rank & NearestEntry.refined != 0 {
                  result.append((payloads[entry.position], entry.distance))
                  if result.count == k { return }
                } else if entry.rank & NearestEntry.unrefined != 0 {
                  let exact = itemDistance(
                    payloads[entry.position], box(at: entry.position), entry.distance)
                  guard exact <= maxDistance else { continue }
                  queue.insert(
                    NearestEntry(
                      distance: exact, rank: NearestEntry.refined | (entry.rank & 0xFFFF_FFFF),
                      position: entry.position))
                } else {
                  nextNode = entry.position
                  break
                }
              }
            }
          }
        }
      }
    }
    return result
  }
}
