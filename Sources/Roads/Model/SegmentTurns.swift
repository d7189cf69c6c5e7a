/// The turns a network's source allows: for each segment, the segments a vehicle may go on to
/// at its end. SUMO networks say it with their lane `connection`s (a left turn the junction
/// does not connect is not there, a U-turn is only where the network has one); networks
/// without such a table (OpenStreetMap, values you made) allow every segment leaving the end
/// node but the way back (see ``RoutingGraph/successors(of:)``).
///
/// Stored flat (one array of successors and one of start offsets), like ``SegmentNodeIDs``.
public struct SegmentTurns: Hashable, Sendable {
  /// `successors[starts[s]..<starts[s + 1]]` are the segments segment `s` leads to.
  package private(set) var starts: [UInt32]
  package private(set) var successors: [Int32]

  /// No segments yet.
  package init() {
    starts = [0]
    successors = []
  }

  /// The number of segments covered.
  public var segmentCount: Int { starts.count - 1 }

  /// Appends the next segment's successors.
  package mutating func append(_ next: some Sequence<Int>) {
    successors.append(contentsOf: next.map { Int32(truncatingIfNeeded: $0) })
    starts.append(UInt32(successors.count))
  }

  /// The segments a segment leads to, ascending.
  public subscript(segment: Int) -> ArraySlice<Int32> {
    successors[Int(starts[segment])..<Int(starts[segment + 1])]
  }
}
