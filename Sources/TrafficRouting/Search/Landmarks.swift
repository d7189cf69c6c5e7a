import Codec
import Dispatch
import Foundation
import Geo
import Roads
import Synchronization
import Traffic

/// Landmarks for A* (ALT: A*, landmarks and the triangle inequality; Goldberg & Harrelson
/// 2005): for a few landmark nodes, the least seconds from each landmark to every node and
/// from every node to each landmark, at each segment's *bound speed*.
///
/// A segment's bound speed is the fastest it could be driven at when the landmarks were
/// built (its speed limit, learned free flow, fastest typical bin and live speed, whichever
/// is highest), with ``headroom`` on top; the route search drives no segment faster than its
/// bound (see `TravelTimes.speed`), so the landmark distances are lower bounds of every
/// search's seconds, whatever the live speeds do after the build, and the heuristic
/// `max(d(v, L) − d(t, L), d(L, t) − d(L, v))` never overestimates: routes stay the fastest.
/// Live speeds therefore apply at once, without preprocessing; only a segment driven faster
/// than its bound (more than ``headroom`` above everything known of it at the build) is
/// capped, until the next build takes its speeds in.
///
/// The distances are on the node graph of the segments open to cars (turn rules left out),
/// which allows every route the edge-based search takes, so they bound it from below too;
/// a node one cannot reach a landmark from (or be reached from it) proves the target
/// unreachable when the target can, so searches into another component stop at once.
final class Landmarks: Sendable {
  /// How much faster than the fastest known speed a segment's bound allows.
  static let headroom = 1.0
  /// The number of landmarks on networks of many nodes.
  static let defaultCount = 16
  /// Landmarks used by one search: those giving the best bound between its ends.
  static let activeCount = 4

  /// The network's turn graph the landmarks were built for (its identity keys them).
  let graph: MatchingGraph
  /// The flow snapshot whose speeds the bounds took in.
  let builtAt: Date
  let freeFlowCount: Int
  let typicalRevision: UInt64
  /// When the build finished (monotonic seconds).
  let finishedUptime: Double
  /// How long the build took, seconds.
  let buildSeconds: Double
  /// Landmark nodes.
  let nodes: [Int32]
  /// Each segment's bound speed, m/s (0 for a segment not open to cars).
  let boundSpeed: [Double]
  /// The segments as searches read them, capped at their bound speeds.
  let segments: SegmentTable
  /// The fastest bound.
  let fastest: Double
  /// Per node and landmark, the seconds from the node to the landmark and from the landmark
  /// to the node (∞: unreachable), side by side: `table[2 (v * count + l)]` and
  /// `table[2 (v * count + l) + 1]`, so that a node's values share cache lines.
  let table: [Float]
  /// What a bound gives up for the tables' Float rounding: two units in the last place of
  /// the largest distance (each entry is rounded down from the exact sum).
  let slack: Double
  /// The contraction hierarchy at the bound speeds: exact bounds where built.
  let hierarchy: BoundHierarchy?
  /// How long the hierarchy took, seconds.
  let hierarchySeconds: Double

  var count: Int { nodes.count }

  /// The landmarks of `view`'s network at the bound speeds of its flow.
  ///
  /// - Complexity: O(k (n + m) log n) for k landmarks on n nodes and m segments: two
  ///   Dijkstra searches per landmark, run side by side.
  init(view: RoutingView, count requested: Int = Landmarks.defaultCount) {
    let started = ProcessInfo.processInfo.systemUptime
    let network = view.network
    let flow = view.flow
    graph = view.graph
    builtAt = flow.builtAt
    freeFlowCount = flow.freeFlow.count
    typicalRevision = flow.typical?.revision ?? 0
    let segments = network.segments
    // Bound speeds: everything known of each segment, with headroom.
    var known = [Double](repeating: 0, count: segments.count)
    var fastestLimit = 0.0
    for (id, segment) in segments.enumerated() where segment.isOpenToCars {
      known[id] = segment.speedLimitInMetersPerSecond
      fastestLimit = max(fastestLimit, segment.speedLimitInMetersPerSecond)
    }
    for (id, speed) in flow.freeFlow where known.indices.contains(id) {
      known[id] = max(known[id], speed)
    }
    for (id, live) in flow.live where known.indices.contains(id) {
      known[id] = max(known[id], live.speedUncapped)
    }
    if let typical = flow.typical {
      for (id, profile) in typical.profiles where known.indices.contains(id) {
        known[id] = max(known[id], profile.week.fastest)
      }
    }
    var bound = [Double](repeating: 0, count: segments.count)
    var fastest = 0.0
    for (id, segment) in segments.enumerated() where segment.isOpenToCars {
      // A segment nothing is known of yet may be given a speed later: the network's
      // fastest limit (else motorway speed) bounds it.
      let speed = known[id] > 0 ? known[id] : (fastestLimit > 0 ? fastestLimit : 36)
      // Rounded up to a Float, which the segment table's caps hold exactly.
      let rounded = Float(speed * Landmarks.headroom)
      bound[id] = Double(Double(rounded) < speed * Landmarks.headroom ? rounded.nextUp : rounded)
      fastest = max(fastest, bound[id])
    }
    boundSpeed = bound
    self.segments = SegmentTable(network: network, caps: bound)
    self.fastest = fastest

    let nodeCount = network.nodes.count
    let forward = NodeGraph(segments: segments, bound: bound, nodeCount: nodeCount, reversed: false)
    let backward = NodeGraph(segments: segments, bound: bound, nodeCount: nodeCount, reversed: true)
    let wanted = max(1, min(requested, nodeCount))
    var chosen: [Int32] = []
    var table = [Float](repeating: .infinity, count: 2 * nodeCount * wanted)
    var largest: Float = 0
    // Farthest selection: the first landmark is the node farthest from a seed in the largest
    // part of the network found; each next one the node farthest from those chosen.
    var nearestChosen = [Float](repeating: .infinity, count: nodeCount)
    var seedDistances: [Float] = []
    var reachedMost = -1
    let candidates = segments.indices.filter { segments[$0].isOpenToCars }
    let carNodes = Set(candidates.map { segments[$0].fromNode }).count
    for attempt in 0..<5 where reachedMost * 2 < carNodes && !candidates.isEmpty {
      let seed = segments[candidates[candidates.count * attempt / 5]].fromNode
      let distances = forward.distances(from: seed)
      let reached = distances.reduce(0) { $0 + ($1.isFinite ? 1 : 0) }
      if reached > reachedMost {
        reachedMost = reached
        seedDistances = distances
      }
    }
    var next = Self.farthest(in: seedDistances)
    while let landmark = next, chosen.count < wanted {
      let l = chosen.count
      chosen.append(Int32(landmark))
      let sides = Mutex<[[Float]]>([[], []])
      DispatchQueue.concurrentPerform(iterations: 2) { side in
        let distances = (side == 0 ? forward : backward).distances(from: landmark)
        sides.withLock { $0[side] = distances }
      }
      let (outward, inward) = sides.withLock { ($0[0], $0[1]) }
      for v in 0..<nodeCount {
        table[2 * (v * wanted + l)] = inward[v]
        table[2 * (v * wanted + l) + 1] = outward[v]
        nearestChosen[v] = min(nearestChosen[v], outward[v])
        if inward[v].isFinite { largest = max(largest, inward[v]) }
        if outward[v].isFinite { largest = max(largest, outward[v]) }
      }
      next = Self.farthest(in: nearestChosen)
      if let candidate = next, chosen.contains(Int32(candidate)) { next = nil }
    }
    // Fewer landmarks than wanted (a network of few nodes): the table shrinks to them.
    let kept = chosen.count
    if kept < wanted {
      var shrunk = [Float](repeating: .infinity, count: 2 * nodeCount * kept)
      for v in 0..<nodeCount {
        for l in 0..<kept {
          shrunk[2 * (v * kept + l)] = table[2 * (v * wanted + l)]
          shrunk[2 * (v * kept + l) + 1] = table[2 * (v * wanted + l) + 1]
        }
      }
      table = shrunk
    }
    nodes = chosen
    self.table = table
    slack = 2 * Double(largest.ulp)
    let hierarchyStarted = ProcessInfo.processInfo.systemUptime
    hierarchy = BoundHierarchy(network: network, bound: bound)
    hierarchySeconds = ProcessInfo.processInfo.systemUptime - hierarchyStarted
    finishedUptime = ProcessInfo.processInfo.systemUptime
    buildSeconds = finishedUptime - started
  }

  /// The node with the largest finite distance, if any is positive.
  private static func farthest(in distances: [Float]) -> Int? {
    var best: Int?
    var bestDistance: Float = 0
    for (v, d) in distances.enumerated() where d.isFinite && d > bestDistance {
      best = v
      bestDistance = d
    }
    return best
  }

  /// Whether these landmarks were built for `view`'s network.
  func fits(_ view: RoutingView) -> Bool { graph === view.graph }

  /// Whether `view`'s flow knows speeds the bounds did not take in (new free flow or typical
  /// weeks since the build).
  func isStale(for view: RoutingView) -> Bool {
    view.flow.freeFlow.count != freeFlowCount
      || (view.flow.typical?.revision ?? 0) != typicalRevision
  }

  /// Seconds from node `v` to landmark `l`.
  @inline(__always) func seconds(from v: Int, toLandmark l: Int) -> Float {
    table[2 * (v * count + l)]
  }

  /// Seconds from landmark `l` to node `v`.
  @inline(__always) func seconds(fromLandmark l: Int, to v: Int) -> Float {
    table[2 * (v * count + l) + 1]
  }

  /// The lower bound of one search toward a set of target nodes, with the landmarks giving
  /// the best bound between `source` and the targets.
  func bound(
    from source: Int, toward targets: [Int], scratch: BoundHierarchy.Scratch? = nil
  ) -> Bound {
    if let hierarchy, let scratch, scratch.potential.count == hierarchy.nodeCount {
      var bound = Bound(landmarks: self, active: [], targets: targets, slack: slack)
      bound.potential = BoundHierarchy.Query(
        hierarchy: hierarchy, targets: targets, scratch: scratch)
      return bound
    }
    let all = Bound(landmarks: self, active: Array(0..<count), targets: targets, slack: slack)
    let ranked = (0..<count).map { l in (all.landmarkBound(node: source, index: l), l) }
      .sorted { ($0.0, -$0.1) > ($1.0, -$1.1) }
    let active = ranked.prefix(Landmarks.activeCount).map(\.1)
    return Bound(landmarks: self, active: active, targets: targets, slack: slack)
  }

  /// The heuristic of one search: seconds at least from a node to the nearest of its
  /// target nodes, from a few landmarks.
  ///
  /// The targets are taken together (they lie within metres of each other): per landmark
  /// the largest of their seconds to it and the smallest from it, which bound the seconds
  /// to the nearest target from below as each target's own values bound its own.
  struct Bound {
    let landmarks: Landmarks
    /// The landmarks used, and per landmark (in that order) the targets' largest seconds
    /// to it (∞ when one cannot reach it) and smallest seconds from it.
    let active: [Int]
    let toTargets: [Float]
    let fromTargets: [Float]
    let slack: Double
    /// The hierarchy's exact potential, when there is one.
    var potential: BoundHierarchy.Query?

    init(landmarks: Landmarks, active: [Int], targets: [Int], slack: Double) {
      self.landmarks = landmarks
      self.active = active
      self.slack = slack
      toTargets = active.map { l in
        targets.map { landmarks.seconds(from: $0, toLandmark: l) }.max() ?? .infinity
      }
      fromTargets = active.map { l in
        targets.map { landmarks.seconds(fromLandmark: l, to: $0) }.min() ?? .infinity
      }
    }

    /// The bound from one active landmark (by its index in ``active``): ∞ when it proves
    /// that no target can be reached from `node`.
    @inline(__always) func landmarkBound(node: Int, index: Int) -> Float {
      let l = active[index]
      let toV = landmarks.seconds(from: node, toLandmark: l)
      let fromV = landmarks.seconds(fromLandmark: l, to: node)
      let toT = toTargets[index]
      let fromT = fromTargets[index]
      var best: Float = 0
      if toT.isFinite {
        // Every target reaches the landmark: so would the node, if it reached one.
        guard toV.isFinite else { return .infinity }
        best = toV - toT
      }
      if fromT.isFinite {
        if fromV.isFinite { best = max(best, fromT - fromV) }
      } else if fromV.isFinite {
        // The landmark reaches the node but no target: the node reaches none.
        return .infinity
      }
      return best
    }

    /// Seconds at least from `node` to any target (∞ when none can be reached).
    func seconds(from node: Int) -> Double {
      if let potential {
        // The hierarchy sums the same seconds in another order: a billionth given up for
        // the rounding.
        return potential.seconds(from: node) * (1 - 1e-9)
      }
      var best: Float = 0
      for index in active.indices {
        best = max(best, landmarkBound(node: node, index: index))
      }
      guard best.isFinite else { return .infinity }
      // Float rounding of the tables must not overestimate.
      return max(0, Double(best) - slack)
    }
  }
}

/// The node graph of the segments open to cars, as offsets into flat arrays, with each
/// segment's seconds at its bound speed (in reverse: the segments arriving at each node).
private struct NodeGraph: Sendable {
  let offsets: [Int32]
  let heads: [Int32]
  let seconds: [Double]

  init(segments: [RoadSegment], bound: [Double], nodeCount: Int, reversed: Bool) {
    var degree = [Int32](repeating: 0, count: nodeCount + 1)
    for (id, segment) in segments.enumerated() where bound[id] > 0 {
      degree[(reversed ? segment.toNode : segment.fromNode) + 1] += 1
    }
    for v in 0..<nodeCount { degree[v + 1] += degree[v] }
    var fill = degree
    var heads = [Int32](repeating: 0, count: Int(degree[nodeCount]))
    var seconds = [Double](repeating: 0, count: Int(degree[nodeCount]))
    for (id, segment) in segments.enumerated() where bound[id] > 0 {
      let tail = reversed ? segment.toNode : segment.fromNode
      let head = reversed ? segment.fromNode : segment.toNode
      let slot = Int(fill[tail])
      fill[tail] += 1
      heads[slot] = Int32(head)
      seconds[slot] = segment.lengthInMeters / bound[id]
    }
    offsets = degree
    self.heads = heads
    self.seconds = seconds
  }

  /// Least seconds from `source` to every node (∞ where none leads), each rounded down to
  /// a Float.
  func distances(from source: Int) -> [Float] {
    let exact = exactDistances(from: source)
    return exact.map { value in
      let rounded = Float(value)
      return Double(rounded) > value ? rounded.nextDown : rounded
    }
  }

  private func exactDistances(from source: Int) -> [Double] {
    let n = offsets.count - 1
    var distance = [Double](repeating: .infinity, count: n)
    guard source >= 0, source < n else { return distance }
    var heap = Heap<NodeEntry>(capacity: 1_024)
    distance[source] = 0
    heap.insert(NodeEntry(seconds: 0, node: Int32(source)))
    offsets.withUnsafeBufferPointer { offsets in
      heads.withUnsafeBufferPointer { heads in
        seconds.withUnsafeBufferPointer { seconds in
          distance.withUnsafeMutableBufferPointer { distance in
            while let entry = heap.popFirst() {
              let v = Int(entry.node)
              guard entry.seconds <= distance[v] else { continue }
              for slot in Int(offsets[v])..<Int(offsets[v + 1]) {
                let head = Int(heads[slot])
                let total = entry.seconds + seconds[slot]
                if total < distance[head] {
                  distance[head] = total
                  heap.insert(NodeEntry(seconds: total, node: Int32(head)))
                }
              }
            }
          }
        }
      }
    }
    return distance
  }
}

private struct NodeEntry: Comparable {
  var seconds: Double
  var node: Int32
  static func < (a: NodeEntry, b: NodeEntry) -> Bool { a.seconds < b.seconds }
}
