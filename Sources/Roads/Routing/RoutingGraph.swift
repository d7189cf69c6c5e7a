import Codec

/// Turn-aware shortest paths over the directed segments of a ``RoadNetwork``.
///
/// The search runs on segments rather than nodes (an edge-based graph), so that turn rules
/// can depend on the segment a vehicle arrives on: from a segment, a vehicle may continue
/// onto any segment leaving its end node except the segment's own opposite direction — a
/// U-turn — which is allowed only at a dead end, where it is the sole way on.
///
/// Searches are Dijkstra's algorithm (Dijkstra 1959) with a binary heap and lazy deletion;
/// costs are meters (``Metric/length``) or seconds at the speed limit
/// (``Metric/travelTime``).
public struct RoutingGraph: Sendable {
  /// What a route minimises.
  public enum Metric: Hashable, Sendable {
    /// Driven distance, meters.
    case length
    /// Driving time at the speed limit, seconds.
    case travelTime
  }

  /// A path through the network.
  public struct Path: Hashable, Sendable {
    /// The segments driven, in order; the first and last may be driven in part.
    public let segmentIDs: [Int]
    /// The minimised cost (meters or seconds, by the metric used).
    public let cost: Double
    /// Driven distance, meters.
    public let lengthInMeters: Double
    /// Driving time at the speed limits, seconds.
    public let travelTimeInSeconds: Double
  }

  /// The network routed on.
  public let network: RoadNetwork
  private let offsets: [Int]
  private let outgoing: [Int]

  /// Builds the adjacency of a network.
  ///
  /// - Complexity: O(n + m) for n nodes and m segments.
  public init(network: RoadNetwork) {
    self.network = network
    (offsets, outgoing) = network.outgoingAdjacency()
  }

  /// The segments leaving a node.
  ///
  /// - Complexity: O(1) (a slice of the adjacency array).
  public func segments(leaving nodeID: Int) -> ArraySlice<Int> {
    guard nodeID >= 0, nodeID < network.nodes.count else { return [] }
    return outgoing[offsets[nodeID]..<offsets[nodeID + 1]]
  }

  /// The segments a vehicle may continue onto at the end of a segment: those the network's
  /// ``RoadNetwork/turns`` name when it has them; else all segments leaving its end node
  /// except its opposite direction, unless that is the only one (a dead end).
  ///
  /// - Complexity: O(d) for d segments leaving the end node.
  public func successors(of segmentID: Int) -> [Int] {
    guard network.segments.indices.contains(segmentID) else { return [] }
    if let turns = network.turns { return turns[segmentID].map { Int($0) } }
    let segment = network.segments[segmentID]
    let leaving = segments(leaving: segment.toNode)
    let turns = leaving.filter { $0 != segment.oppositeID }
    return turns.isEmpty ? Array(leaving) : turns
  }

  func cost(_ segmentID: Int, _ metric: Metric) -> Double {
    let segment = network.segments[segmentID]
    switch metric {
    case .length: return segment.lengthInMeters
    case .travelTime: return segment.travelTimeInSeconds
    }
  }

  /// The cost of driving `meters` of a segment.
  func partialCost(_ segmentID: Int, meters: Double, _ metric: Metric) -> Double {
    let segment = network.segments[segmentID]
    switch metric {
    case .length: return meters
    case .travelTime:
      return segment.speedLimitInMetersPerSecond > 0
        ? meters / segment.speedLimitInMetersPerSecond : .infinity
    }
  }

  func check(_ position: RoadPosition) throws(RoadsError) {
    guard network.segments.indices.contains(position.segmentID) else {
      throw .invalidArgument("segment \(position.segmentID) does not exist")
    }
    let length = network.segments[position.segmentID].lengthInMeters
    guard position.offsetInMeters.isFinite,
      position.offsetInMeters >= 0, position.offsetInMeters <= length + 1e-6
    else {
      throw .invalidArgument(
        "offset \(position.offsetInMeters) m lies outside segment \(position.segmentID) "
          + "(length \(length) m)")
    }
  }

  func route(_ segmentIDs: [Int], cost: Double, from: Double, to: Double) -> Path {
    // `from`: meters skipped at the start of the first segment; `to`: meters driven on the
    // last one.
    var length = 0.0
    var time = 0.0
    for (k, id) in segmentIDs.enumerated() {
      let segment = network.segments[id]
      var driven = segment.lengthInMeters
      if k == segmentIDs.count - 1 { driven = to }
      if k == 0 { driven -= from }
      if segmentIDs.count == 1 { driven = to - from }
      length += driven
      time += partialCost(id, meters: driven, .travelTime)
    }
    return Path(
      segmentIDs: segmentIDs, cost: cost, lengthInMeters: length, travelTimeInSeconds: time)
  }

  /// The shortest path between two positions on the network.
  ///
  /// - Parameters:
  ///   - source: where the route starts.
  ///   - target: where it ends.
  ///   - metric: what to minimise.
  /// - Returns: the route, or `nil` when the target cannot be reached.
  /// - Throws: ``RoadsError/invalidArgument(_:)`` for a position off the network.
  /// - Complexity: O((m + n) log m) for the m segments and n turns explored.
  public func shortestPath(
    from source: RoadPosition, to target: RoadPosition, metric: Metric = .length
  ) throws(RoadsError) -> Path? {
    try check(source)
    try check(target)
    let sourceLength = network.segments[source.segmentID].lengthInMeters
    if source.segmentID == target.segmentID, target.offsetInMeters >= source.offsetInMeters {
      return route(
        [source.segmentID],
        cost: partialCost(
          source.segmentID, meters: target.offsetInMeters - source.offsetInMeters, metric),
        from: source.offsetInMeters, to: target.offsetInMeters)
    }
    let start = partialCost(
      source.segmentID, meters: max(0, sourceLength - source.offsetInMeters), metric)
    let targetCost = partialCost(target.segmentID, meters: target.offsetInMeters, metric)
    var best: (cost: Double, last: Int)?
    var search = Search()
    search.run(graph: self, starts: [(source.segmentID, start)], metric: metric, limit: .infinity) {
      segment, cost in
      // Labels only grow and the last part costs >= 0: nothing settled later can do better.
      if let best, cost >= best.cost { return false }
      if successors(of: segment).contains(target.segmentID) {
        let total = cost + targetCost
        if total < best?.cost ?? .infinity { best = (total, segment) }
      }
      return true
    }
    guard let best else { return nil }
    var path = search.path(to: best.last)
    path.append(target.segmentID)
    return route(path, cost: best.cost, from: source.offsetInMeters, to: target.offsetInMeters)
  }

  /// The shortest path between two nodes.
  ///
  /// - Parameters:
  ///   - sourceNode: the start node's id.
  ///   - targetNode: the end node's id.
  ///   - metric: what to minimise.
  /// - Returns: the route (empty for the same node), or `nil` when unreachable.
  /// - Throws: ``RoadsError/invalidArgument(_:)`` for a node that does not exist.
  /// - Complexity: O((m + n) log m) for the m segments and n turns explored.
  public func shortestPath(
    fromNode sourceNode: Int, toNode targetNode: Int, metric: Metric = .length
  )
    throws(RoadsError) -> Path?
  {
    guard network.nodes.indices.contains(sourceNode), network.nodes.indices.contains(targetNode)
    else { throw .invalidArgument("node \(sourceNode) or \(targetNode) does not exist") }
    if sourceNode == targetNode {
      return Path(segmentIDs: [], cost: 0, lengthInMeters: 0, travelTimeInSeconds: 0)
    }
    let starts = segments(leaving: sourceNode).map { ($0, cost($0, metric)) }
    var found: (segment: Int, cost: Double)?
    var search = Search()
    search.run(graph: self, starts: starts, metric: metric, limit: .infinity) { segment, cost in
      // Labels are costs to the end of a segment: the first to end at the target is best.
      guard network.segments[segment].toNode == targetNode else { return true }
      found = (segment, cost)
      return false
    }
    guard let found else { return nil }
    let last = network.segments[found.segment].lengthInMeters
    return route(search.path(to: found.segment), cost: found.cost, from: 0, to: last)
  }

  /// Route lengths from one position to many, up to a bound — the transition distances of
  /// map matching (Newson & Krumm 2009, section 4.2).
  ///
  /// - Parameters:
  ///   - source: where the routes start.
  ///   - targets: where they end.
  ///   - maxCostInMeters: routes longer than this are not searched.
  /// - Returns: for each target, the shortest route length in meters, or `nil` when it is
  ///   longer than `maxCostInMeters` or unreachable.
  /// - Throws: ``RoadsError/invalidArgument(_:)`` for a position off the network or a
  ///   negative bound.
  /// - Complexity: O((m + n) log m) for the m segments and n turns within the bound.
  public func distances(
    from source: RoadPosition, to targets: [RoadPosition], maxCostInMeters: Double
  ) throws(RoadsError) -> [Double?] {
    try check(source)
    for target in targets { try check(target) }
    guard maxCostInMeters >= 0, !maxCostInMeters.isNaN else {
      throw .invalidArgument("maxCostInMeters \(maxCostInMeters) must be >= 0")
    }
    var results = [Double?](repeating: nil, count: targets.count)
    var entries: [Int: [(index: Int, offset: Double)]] = [:]
    for (i, target) in targets.enumerated() {
      if target.segmentID == source.segmentID, target.offsetInMeters >= source.offsetInMeters {
        let direct = target.offsetInMeters - source.offsetInMeters
        if direct <= maxCostInMeters { results[i] = direct }
        continue
      }
      entries[target.segmentID, default: []].append((i, target.offsetInMeters))
    }
    guard !entries.isEmpty else { return results }
    let sourceLength = network.segments[source.segmentID].lengthInMeters
    let start = max(0, sourceLength - source.offsetInMeters)
    var search = Search()
    var open = entries.values.reduce(0) { $0 + $1.count }
    search.run(
      graph: self, starts: [(source.segmentID, start)], metric: .length, limit: maxCostInMeters
    ) {
      segment, cost in
      for next in successors(of: segment) {
        guard let waiting = entries[next] else { continue }
        for (index, offset) in waiting {
          let total = cost + offset
          if total <= maxCostInMeters, total < results[index] ?? .infinity {
            if results[index] == nil { open -= 1 }
            results[index] = total
          }
        }
      }
      // Every target found, and no cheaper route can come from a label this large.
      if open == 0 {
        let worst = results.lazy.compactMap { $0 }.max() ?? 0
        if cost >= worst { return false }
      }
      return true
    }
    return results
  }
}

/// The state of one Dijkstra run over segments: settled labels and parents.
struct Search {
  /// Cost to the end of each reached segment, and the segment before it.
  private(set) var labels: [Int: (cost: Double, parent: Int)] = [:]
  private var settled: Set<Int> = []

  /// Runs until `visit` returns `false`, the heap empties, or labels exceed `limit`.
  ///
  /// - Parameter visit: called once per settled segment, in order of cost, with the cost of
  ///   reaching its end.
  mutating func run(
    graph: RoutingGraph, starts: [(Int, Double)], metric: RoutingGraph.Metric, limit: Double,
    visit: (_ segment: Int, _ cost: Double) -> Bool
  ) {
    var heap = Heap<CostedItem>()
    for (segment, cost) in starts where cost < labels[segment]?.cost ?? .infinity {
      labels[segment] = (cost, -1)
      heap.insert(CostedItem(cost: cost, item: segment))
    }
    while let entry = heap.popFirst() {
      let cost = entry.cost, segment = entry.item
      guard cost <= limit else { return }
      guard settled.insert(segment).inserted, cost == labels[segment]?.cost else { continue }
      guard visit(segment, cost) else { return }
      for next in graph.successors(of: segment) {
        let total = cost + graph.cost(next, metric)
        if total < labels[next]?.cost ?? .infinity, !settled.contains(next) {
          labels[next] = (total, segment)
          heap.insert(CostedItem(cost: total, item: next))
        }
      }
    }
  }

  /// The settled segments from a start to `segment`, in driving order.
  func path(to segment: Int) -> [Int] {
    var path: [Int] = []
    var current = segment
    while current >= 0 {
      path.append(current)
      current = labels[current]?.parent ?? -1
    }
    return path.reversed()
  }
}
