/// The source node ids of the vertices between each segment's end nodes, in the segment's
/// direction of travel: for a network imported from OpenStreetMap, the OSM ids of the nodes
/// a segment passes (its end nodes are ``RoadNode/sourceID``). Routing engines that address
/// roads by node pairs (OSRM's segment speed files) need them.
///
/// Stored flat (one array of ids and one of start offsets), so that a region's millions of
/// segments cost two allocations, not one per segment.
public struct SegmentNodeIDs: Hashable, Sendable {
  /// `ids[starts[s]..<starts[s + 1]]` are segment `s`'s interior node ids.
  package private(set) var starts: [UInt32]
  package private(set) var ids: [Int64]

  /// No segments yet.
  package init() {
    starts = [0]
    ids = []
  }

  /// The number of segments covered.
  public var segmentCount: Int { starts.count - 1 }

  /// Appends the next segment's interior ids.
  package mutating func append(_ interior: some Sequence<Int64>) {
    ids.append(contentsOf: interior)
    starts.append(UInt32(ids.count))
  }

  /// A segment's interior node ids, in its direction of travel.
  public subscript(segment: Int) -> ArraySlice<Int64> {
    ids[Int(starts[segment])..<Int(starts[segment + 1])]
  }

  /// The ids of all the nodes a segment passes, its end nodes' ids first and last, when the
  /// network's node ids are numbers (OpenStreetMap); `nil` otherwise.
  public func path(of segment: RoadSegment, in network: RoadNetwork) -> [Int64]? {
    guard segment.id < segmentCount,
      let first = Int64(network.nodes[segment.fromNode].sourceID),
      let last = Int64(network.nodes[segment.toNode].sourceID)
    else { return nil }
    return [first] + self[segment.id] + [last]
  }
}
