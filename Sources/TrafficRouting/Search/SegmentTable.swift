import Roads

/// What a route search reads of each segment, packed in 24 bytes a segment: its length,
/// end node, speed limit and the fastest it may be driven at.
///
/// A search reads these for every segment it reaches, in no order memory likes; read from
/// `RoadSegment`s (144 bytes each, with names and geometry) they were the largest cost of
/// a long route on a region-size network (one cache miss per segment, 40 % of the search's
/// time in a profile), and the packed table of a 2M-segment region fits in the cache.
struct SegmentTable: Sendable {
  struct Record: Sendable {
    /// Meters.
    var length: Double
    /// The speed limit, m/s.
    var limit: Double
    /// The fastest the segment may be driven at, m/s (∞: no cap; 0: not open to cars).
    var cap: Float
    var toNode: Int32
  }

  let records: [Record]

  /// The table of `network`, without caps, or with the speeds `caps` (m/s per segment)
  /// rounded down to a `Float`, so that no speed exceeds them.
  init(network: RoadNetwork, caps: [Double]? = nil) {
    records = network.segments.enumerated().map { id, segment in
      var cap = Float.infinity
      if let caps {
        let rounded = Float(caps[id])
        cap = Double(rounded) > caps[id] ? rounded.nextDown : rounded
      }
      return Record(
        length: segment.lengthInMeters, limit: segment.speedLimitInMetersPerSecond,
        cap: segment.isOpenToCars ? cap : 0, toNode: Int32(segment.toNode))
    }
  }
}
