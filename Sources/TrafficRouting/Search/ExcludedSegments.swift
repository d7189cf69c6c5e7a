import Roads

/// The segments of a network that a route avoiding some ``RoadFeature``s never drives, one
/// bit a segment (a region's two million segments in 256 KiB), read by every search step of
/// such a route (``TravelTimes/excluded``).
struct ExcludedSegments: Sendable {
  /// The features avoided.
  let features: Set<RoadFeature>
  /// How many segments are excluded.
  let count: Int
  private let words: [UInt64]

  /// The segments of `network` that are of any of `features`.
  ///
  /// - Complexity: O(s) for the s segments.
  init(network: RoadNetwork, features: Set<RoadFeature>) {
    self.features = features
    var words = [UInt64](repeating: 0, count: (network.segments.count + 63) / 64)
    var count = 0
    for segment in network.segments where features.contains(where: { $0.contains(segment) }) {
      words[segment.id >> 6] |= 1 << UInt64(segment.id & 63)
      count += 1
    }
    self.words = words
    self.count = count
  }

  /// Whether the segment is excluded.
  @inline(__always) func contains(_ segmentID: Int) -> Bool {
    words[segmentID >> 6] & (1 << UInt64(segmentID & 63)) != 0
  }
}
