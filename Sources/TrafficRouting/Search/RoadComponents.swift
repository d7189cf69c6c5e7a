import Roads

/// The strongly connected components of a network's turn graph (its segments open to cars,
/// each leading on to its turn successors open to cars): the parts in which every segment
/// reaches every other. A waypoint snapped into a *tiny* one (fewer than
/// ``tinySegmentCount`` segments: a parking aisle or a road piece cut off by an access
/// restriction) could reach, or be reached from, almost nothing, so the snapping also looks
/// for the nearest road of a big component, as OSRM does (`osrm-routed`'s
/// `--small-component-size`, 1000, and its phantom node "from the big component").
///
/// Built once per network (Tarjan 1972, iteratively: no recursion however long a chain of
/// segments is).
struct RoadComponents: Sendable {
  /// Components of fewer segments than this are tiny (OSRM's default small component size).
  static let tinySegmentCount = 1_000

  /// Each segment's component (`-1` for a segment not open to cars).
  let componentOfSegment: [Int32]
  /// Whether each component is tiny.
  let isTinyComponent: [Bool]
  /// Whether any component is big (a small network may have none: then nothing is snapped
  /// elsewhere).
  let hasBigComponent: Bool

  /// The component of a segment.
  func component(_ segmentID: Int) -> Int { Int(componentOfSegment[segmentID]) }

  /// Whether a segment lies in a tiny component (or is not open to cars).
  func isTiny(_ segmentID: Int) -> Bool {
    let component = componentOfSegment[segmentID]
    return component < 0 || isTinyComponent[Int(component)]
  }

  /// The components of `network`, whose turn successors `graph` holds.
  ///
  /// - Complexity: O(m + t) for m segments and t turns.
  init(network: RoadNetwork, graph: MatchingGraph) {
    let segments = network.segments
    let count = segments.count
    let open = segments.map(\.isOpenToCars)
    let offsets = graph.successorOffsets
    let successors = graph.successors
    var index = [Int32](repeating: -1, count: count)
    var lowLink = [Int32](repeating: 0, count: count)
    var onStack = [Bool](repeating: false, count: count)
    var component = [Int32](repeating: -1, count: count)
    var stack: [Int32] = []
    var sizes: [Int] = []
    // The depth-first path: each segment with the position of the next successor to try.
    var path: [(segment: Int32, next: Int32)] = []
    var counter: Int32 = 0
    // Numbers a segment reached for the first time and goes on from it.
    func enter(_ segment: Int) {
      index[segment] = counter
      lowLink[segment] = counter
      counter += 1
      stack.append(Int32(segment))
      onStack[segment] = true
      path.append((Int32(segment), offsets[segment]))
    }
    for root in 0..<count where open[root] && index[root] < 0 {
      enter(root)
      while let (segment, next) = path.last {
        let s = Int(segment)
        if next < offsets[s + 1] {
          path[path.count - 1].next = next + 1
          let successor = Int(successors[Int(next)])
          guard open[successor] else { continue }
          if index[successor] < 0 {
            enter(successor)
          } else if onStack[successor] {
            lowLink[s] = min(lowLink[s], index[successor])
          }
          continue
        }
        // Every successor tried: a root of a component takes its segments off the stack.
        path.removeLast()
        if let parent = path.last {
          let p = Int(parent.segment)
          lowLink[p] = min(lowLink[p], lowLink[s])
        }
        guard lowLink[s] == index[s] else { continue }
        let id = Int32(sizes.count)
        var size = 0
        while let top = stack.popLast() {
          onStack[Int(top)] = false
          component[Int(top)] = id
          size += 1
          if top == segment { break }
        }
        sizes.append(size)
      }
    }
    componentOfSegment = component
    isTinyComponent = sizes.map { $0 < Self.tinySegmentCount }
    hasBigComponent = isTinyComponent.contains(false)
  }
}
