import Foundation
import Roads
import Traffic

/// What makes route searches fast and keeps them exact: each segment's *bound speed* and a
/// contraction hierarchy of the road network at those speeds (``BoundHierarchy``), whose
/// least times are the A* heuristic.
///
/// A segment's bound speed is the fastest it could be driven at when the bounds were built:
/// its speed limit, learned free flow, fastest typical bin and live speed, whichever is
/// highest. The route search drives no segment faster than its bound (the cap of the
/// packed ``SegmentTable``, see `TravelTimes.speed`), so the hierarchy's least times are
/// lower bounds of every search's seconds, whatever the live speeds do after the build:
/// routes stay the fastest. Live speeds therefore apply at once, with no preprocessing per
/// flow refresh; only a segment driven faster than everything known of it at the build is
/// capped until the next build takes its speeds in.
///
/// The hierarchy is of the node graph of the segments open to cars (turn rules left out),
/// which allows every route the edge-based search takes, so its times bound it from below
/// too, and a node from which it reaches no target proves the target out of reach: a search
/// into another component stops at once.
final class RoutingBounds: Sendable {
  /// The network's turn graph the bounds were built for (its identity keys them).
  let graph: MatchingGraph
  /// The flow snapshot whose speeds the bounds took in.
  let builtAt: Date
  let freeFlowCount: Int
  let typicalRevision: UInt64
  /// When the build finished (monotonic seconds).
  let finishedUptime: Double
  /// How long the build took, seconds.
  let buildSeconds: Double
  /// Each segment's bound speed, m/s (0 for a segment not open to cars).
  let boundSpeed: [Double]
  /// The segments as searches read them, capped at their bound speeds.
  let segments: SegmentTable
  /// The fastest bound.
  let fastest: Double
  /// The hierarchy at the bound speeds.
  let hierarchy: BoundHierarchy

  /// The bounds of `view`'s network at the speeds its flow knows.
  ///
  /// - Complexity: about O(n log² n) for the order of n nodes, and the hierarchy's edges
  ///   and triangles for the contraction and customisation (on road networks a few times
  ///   the segments).
  init(view: RoutingView) {
    let started = ProcessInfo.processInfo.systemUptime
    let network = view.network
    let flow = view.flow
    graph = view.graph
    builtAt = flow.builtAt
    freeFlowCount = flow.freeFlow.count
    typicalRevision = flow.typical?.revision ?? 0
    let segments = network.segments
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
      let rounded = Float(speed)
      bound[id] = Double(Double(rounded) < speed ? rounded.nextUp : rounded)
      fastest = max(fastest, bound[id])
    }
    boundSpeed = bound
    self.segments = SegmentTable(network: network, caps: bound)
    self.fastest = fastest
    hierarchy = BoundHierarchy(network: network, bound: bound)
    finishedUptime = ProcessInfo.processInfo.systemUptime
    buildSeconds = finishedUptime - started
  }

  /// Whether these bounds were built for `view`'s network.
  func fits(_ view: RoutingView) -> Bool { graph === view.graph }

  /// Whether `view`'s flow knows speeds the bounds did not take in (new free flow or typical
  /// weeks since the build).
  func isStale(for view: RoutingView) -> Bool {
    view.flow.freeFlow.count != freeFlowCount
      || (view.flow.typical?.revision ?? 0) != typicalRevision
  }

  /// The heuristic of one search toward `targets` (nodes): least seconds at bound speeds
  /// from any node to the nearest of them.
  func potential(toward targets: [Int], scratch: BoundHierarchy.Scratch) -> BoundHierarchy.Query {
    BoundHierarchy.Query(hierarchy: hierarchy, targets: targets, scratch: scratch)
  }
}
