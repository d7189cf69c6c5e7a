import Codec

/// An entry of the R-tree's nearest-neighbour queue (a `Heap`): ordered by distance, then
/// by rank.
@usableFromInline
struct NearestEntry: Comparable {
  /// Rank bit of an item queued by its box bound, awaiting its exact distance.
  @usableFromInline static let unrefined: UInt64 = 1 << 62
  /// Rank bit of an item queued by its exact distance.
  @usableFromInline static let refined: UInt64 = 1 << 63

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
  static func < (a: NearestEntry, b: NearestEntry) -> Bool {
    a.distance < b.distance || (a.distance == b.distance && a.rank < b.rank)
  }
}
