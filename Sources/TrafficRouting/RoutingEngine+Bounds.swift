import Codec
import Dispatch
import Foundation
import Geo
import Roads
import Synchronization
import Traffic

/// The routing bounds (the hierarchy that bounds the search) and the speed bound of the
/// engine's network: built once per network, in the background on a large one.
extension RoutingEngine {
  /// Starts building the routing bounds of the engine's network in the background (a server
  /// starting), unless they are there or on the way; routes are answered meanwhile.
  package func prepareBoundsInBackground() {
    guard let view = trafficEngine.routingView(),
      boundsState.withLock({ $0.current?.fits(view) != true })
    else { return }
    buildInBackground(view)
  }

  /// Whether the routing bounds of the engine's current network are ready.
  package var hasBounds: Bool {
    guard let view = trafficEngine.routingView() else { return false }
    return boundsState.withLock { $0.current?.fits(view) == true }
  }

  /// The routing bounds in use: their hierarchy's nodes and edges (0 while none are ready)
  /// and how long their build took, seconds.
  package var boundsStatistics: (nodes: Int, edges: Int, buildSeconds: Double) {
    boundsState.withLock { state in
      guard let current = state.current else { return (0, 0, 0) }
      return (current.hierarchy.nodeCount, current.hierarchy.edgeCount, current.buildSeconds)
    }
  }

  /// The bounds a query on `view` uses: those of its network when built (a rebuild started
  /// in the background when they are stale), else built now on a small network or started
  /// in the background on a large one (`nil` meanwhile).
  func bounds(for view: RoutingView) -> RoutingBounds? {
    let (current, building) = boundsState.withLock { ($0.current, $0.building) }
    if let current, current.fits(view) {
      if !building, current.isStale(for: view),
        ProcessInfo.processInfo.systemUptime - current.finishedUptime
          > Self.boundsRefreshInterval
      {
        buildInBackground(view)
      }
      return current
    }
    guard view.network.segments.count <= Self.synchronousBoundsLimit else {
      buildInBackground(view)
      return nil
    }
    let built = RoutingBounds(view: view)
    boundsState.withLock { state in
      if state.current?.fits(view) != true { state.current = built }
    }
    return built
  }

  /// The segment table of `view`'s network without caps (for searches before its bounds
  /// are ready), built once per network.
  func plainSegments(_ view: RoutingView) -> SegmentTable {
    if let known = plainTable.withLock({ $0 }), known.graph === view.graph { return known.table }
    let table = SegmentTable(network: view.network)
    plainTable.withLock { $0 = (view.graph, table) }
    return table
  }

  /// Whether `view`'s network leaves ways across junctions out of its segments (SUMO's): a
  /// segment that does not start or end on its node's point. Read once per network.
  func hasJunctionGaps(_ view: RoutingView) -> Bool {
    if let known = junctionGaps.withLock({ $0 }), known.graph === view.graph { return known.gapped }
    let nodes = view.network.nodes
    let gapped = view.network.segments.contains { segment in
      let vertices = segment.geometry.vertices
      return vertices[0] != nodes[segment.fromNode].coordinates
        || vertices[vertices.count - 1] != nodes[segment.toNode].coordinates
    }
    junctionGaps.withLock { $0 = (view.graph, gapped) }
    return gapped
  }

  func buildInBackground(_ view: RoutingView) {
    let starts = boundsState.withLock { state -> Bool in
      guard !state.building else { return false }
      state.building = true
      return true
    }
    guard starts else { return }
    DispatchQueue.global(qos: .utility).async {
      // The network's components too (a fifth of a second on 2M segments), so that the
      // first route or table after the build does not pay for them.
      _ = self.components(view)
      let built = RoutingBounds(view: view)
      self.boundsState.withLock { state in
        state.current = built
        state.building = false
      }
    }
  }

  /// The fastest speed any segment may be driven at in `view` (speed limits, learned free
  /// flow, typical and live speeds). The limits are read once per network; the flow's speeds once per
  /// flow snapshot.
  func fastestSpeed(_ view: RoutingView) -> Double {
    let key = SpeedBoundKey(segments: view.network.segments.count, builtAt: view.flow.builtAt)
    let cached = speedBound.withLock { $0 }
    if let cached, cached.key == key { return cached.speed }
    let limit =
      cached.flatMap { $0.key.segments == key.segments ? $0.limit : nil }
      ?? view.network.segments.reduce(0) { max($0, $1.speedLimitInMetersPerSecond) }
    var speed = limit
    for value in view.flow.freeFlow.values { speed = max(speed, value) }
    speed = max(speed, view.flow.typical?.fastest ?? 0)
    for live in view.flow.live.values { speed = max(speed, live.speedUncapped) }
    speedBound.withLock { $0 = (key, limit, speed) }
    return speed
  }
}
