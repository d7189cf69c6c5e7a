/// The turns a network's source allows: for each segment, the segments a vehicle may go on to
/// at its end. SUMO networks say it with their lane `connection`s (a left turn the junction
/// does not connect is not there, a U-turn is only where the network has one); networks
/// without such a table (OpenStreetMap, values you made) allow every segment leaving the end
/// node but the way back (see ``RoutingGraph/successors(of:)``).
///
/// Where the source says which lanes a turn leaves from (SUMO's `fromLane`), each turn also
/// has its lanes (``lanes(from:to:)``): a lane closure then shuts the turns that leave only
/// from closed lanes.
///
/// Stored flat (one array of successors and one of start offsets), like ``SegmentNodeIDs``.
public struct SegmentTurns: Hashable, Sendable {
  /// A lane mask: bit k is the (k + 1)-th driving lane from the left, as a driver faces the
  /// segment's direction (lanes open to motor vehicles; the 32 leftmost are told apart).
  public typealias Lanes = UInt32
  /// Every lane: a turn whose lanes the source does not say.
  public static let everyLane = Lanes.max

  /// `successors[starts[s]..<starts[s + 1]]` are the segments segment `s` leads to.
  package private(set) var starts: [UInt32]
  package private(set) var successors: [Int32]
  /// The lanes of each successor (parallel to `successors`), empty when no turn's lanes are
  /// known.
  package private(set) var lanes: [Lanes]

  /// No segments yet.
  package init() {
    starts = [0]
    successors = []
    lanes = []
  }

  /// The number of segments covered.
  public var segmentCount: Int { starts.count - 1 }

  /// Whether any turn's lanes are known.
  public var knowsLanes: Bool { !lanes.isEmpty }

  /// Appends the next segment's successors, their lanes unknown.
  package mutating func append(_ next: some Sequence<Int>) {
    successors.append(contentsOf: next.map { Int32(truncatingIfNeeded: $0) })
    if !lanes.isEmpty {
      lanes.append(contentsOf: repeatElement(Self.everyLane, count: successors.count - lanes.count))
    }
    starts.append(UInt32(successors.count))
  }

  /// Appends the next segment's successors with the lanes each leaves from.
  package mutating func append(_ next: some Sequence<(segment: Int, lanes: Lanes)>) {
    if lanes.count < successors.count {
      lanes.append(contentsOf: repeatElement(Self.everyLane, count: successors.count - lanes.count))
    }
    for (segment, mask) in next {
      successors.append(Int32(truncatingIfNeeded: segment))
      lanes.append(mask)
    }
    starts.append(UInt32(successors.count))
  }

  /// The segments a segment leads to, ascending.
  public subscript(segment: Int) -> ArraySlice<Int32> {
    successors[Int(starts[segment])..<Int(starts[segment + 1])]
  }

  /// The lanes of each of `segment`'s successors (in the order of `self[segment]`), `nil`
  /// when no turn's lanes are known.
  public func laneMasks(of segment: Int) -> ArraySlice<Lanes>? {
    lanes.isEmpty ? nil : lanes[Int(starts[segment])..<Int(starts[segment + 1])]
  }

  /// The lanes of `segment` the turn into `next` leaves from; `nil` when that is no turn
  /// of the table or its lanes are not known.
  public func lanes(from segment: Int, to next: Int) -> Lanes? {
    guard !lanes.isEmpty else { return nil }
    let range = Int(starts[segment])..<Int(starts[segment + 1])
    guard let k = successors[range].firstIndex(of: Int32(truncatingIfNeeded: next)) else {
      return nil
    }
    return lanes[k] == Self.everyLane ? nil : lanes[k]
  }
}
