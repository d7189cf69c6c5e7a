import Foundation
import Geo
import Roads
import Testing
import TrafficTestSupport

@Suite struct RoutingGraphTests {
  /// A random network of `nodeCount` nodes near Vaduz with two-way and one-way roads.
  static func randomNetwork(seed: UInt64, nodeCount: Int, roadCount: Int) throws -> RoadNetwork {
    var generator = SeededGenerator(seed: seed)
    var nodes: [RoadNode] = []
    for i in 0..<nodeCount {
      let coordinates = try GeoCoordinates(
        latitude: 47.1 + Double.random(in: 0..<0.02, using: &generator),
        longitude: 9.5 + Double.random(in: 0..<0.03, using: &generator))
      nodes.append(RoadNode(id: i, sourceID: "n\(i)", coordinates: coordinates))
    }
    var segments: [RoadSegment] = []
    for road in 0..<roadCount {
      let a = Int.random(in: 0..<nodeCount, using: &generator)
      var b = Int.random(in: 0..<nodeCount, using: &generator)
      if a == b { b = (a + 1) % nodeCount }
      let line = try GeoPolyline(vertices: [nodes[a].coordinates, nodes[b].coordinates])
      let speed = SpeedLimit(
        metersPerSecond: [8.33, 13.89, 22.22, 27.78].randomElement(using: &generator) ?? 13.89,
        source: .posted)
      let twoWay = Bool.random(using: &generator)
      let id = segments.count
      segments.append(
        RoadSegment(
          id: id, sourceID: "r\(road)", fromNode: a, toNode: b, geometry: line,
          roadClass: .residential, speedLimit: speed, oppositeID: twoWay ? id + 1 : nil))
      if twoWay {
        segments.append(
          RoadSegment(
            id: id + 1, sourceID: "r\(road)", fromNode: b, toNode: a,
            geometry: try GeoPolyline(vertices: line.vertices.reversed()),
            roadClass: .residential, speedLimit: speed, isReversed: true, oppositeID: id))
      }
    }
    return try RoadNetwork(nodes: nodes, segments: segments)
  }

  /// Successors by the rule, written independently of RoutingGraph.
  static func oracleSuccessors(_ network: RoadNetwork, _ s: Int) -> [Int] {
    let segment = network.segments[s]
    let leaving = network.segments.filter { $0.fromNode == segment.toNode }.map(\.id)
    let turns = leaving.filter { $0 != segment.oppositeID }
    return turns.isEmpty ? leaving : turns
  }

  static func cost(_ segment: RoadSegment, _ metric: RoutingGraph.Metric, meters: Double) -> Double
  {
    metric == .length ? meters : meters / segment.speedLimitInMetersPerSecond
  }

  /// Bellman-Ford over segment labels (cost to the end of each segment).
  static func bellmanFord(
    _ network: RoadNetwork, starts: [Int: Double], metric: RoutingGraph.Metric
  ) -> [Double] {
    var label = [Double](repeating: .infinity, count: network.segments.count)
    for (s, c) in starts { label[s] = min(label[s], c) }
    let successors = network.segments.indices.map { oracleSuccessors(network, $0) }
    var changed = true
    while changed {
      changed = false
      for s in network.segments.indices where label[s] < .infinity {
        for t in successors[s] {
          let candidate =
            label[s] + cost(network.segments[t], metric, meters: network.segments[t].lengthInMeters)
          if candidate < label[t] - 1e-9 {
            label[t] = candidate
            changed = true
          }
        }
      }
    }
    return label
  }

  @Test(
    "Node-to-node shortest paths equal Bellman-Ford's on random graphs",
    arguments: [RoutingGraph.Metric.length, .travelTime])
  func nodeToNode(metric: RoutingGraph.Metric) throws {
    var generator = SeededGenerator(seed: 42)
    var routed = 0
    defer { #expect(routed >= 20, "too few reachable pairs to test anything") }
    for seed in 0..<12 as Range<UInt64> {
      let network = try Self.randomNetwork(seed: seed, nodeCount: 25, roadCount: 45)
      let graph = RoutingGraph(network: network)
      for _ in 0..<6 {
        let u = Int.random(in: 0..<25, using: &generator)
        let v = Int.random(in: 0..<25, using: &generator)
        guard u != v else { continue }
        var starts: [Int: Double] = [:]
        for s in network.segments where s.fromNode == u {
          starts[s.id] = Self.cost(s, metric, meters: s.lengthInMeters)
        }
        let label = Self.bellmanFord(network, starts: starts, metric: metric)
        let expected =
          network.segments.filter { $0.toNode == v }.map { label[$0.id] }.min() ?? .infinity
        let route = try graph.shortestPath(fromNode: u, toNode: v, metric: metric)
        if expected == .infinity {
          #expect(route == nil)
          continue
        }
        let found = try #require(route)
        routed += 1
        #expect(found.segmentIDs.count >= 1)
        #expect(abs(found.cost - expected) < 1e-6 * max(1, expected))
        // The path is drivable under the turn rule and costs what it claims.
        #expect(network.segments[found.segmentIDs[0]].fromNode == u)
        #expect(network.segments[found.segmentIDs[found.segmentIDs.count - 1]].toNode == v)
        for (a, b) in zip(found.segmentIDs, found.segmentIDs.dropFirst()) {
          #expect(Self.oracleSuccessors(network, a).contains(b))
        }
        let sum = found.segmentIDs.reduce(0) {
          $0 + Self.cost(network.segments[$1], metric, meters: network.segments[$1].lengthInMeters)
        }
        #expect(abs(sum - found.cost) < 1e-6 * max(1, sum))
      }
    }
  }

  @Test("Position-to-position paths and bounded distances equal Bellman-Ford's")
  func positions() throws {
    var generator = SeededGenerator(seed: 9)
    var routed = 0
    var boundedCount = 0
    defer {
      #expect(
        routed >= 100 && boundedCount >= 50, "too few reachable targets: \(routed) \(boundedCount)")
    }
    for seed in 100..<110 as Range<UInt64> {
      let network = try Self.randomNetwork(seed: seed, nodeCount: 20, roadCount: 40)
      let graph = RoutingGraph(network: network)
      func randomPosition() -> RoadPosition {
        let s = Int.random(in: 0..<network.segments.count, using: &generator)
        return RoadPosition(
          segmentID: s,
          offsetInMeters: Double.random(in: 0...1, using: &generator)
            * network.segments[s].lengthInMeters)
      }
      for _ in 0..<5 {
        let source = randomPosition()
        let targets =
          (0..<6).map { _ in randomPosition() } + [
            RoadPosition(segmentID: source.segmentID, offsetInMeters: source.offsetInMeters / 2),
            RoadPosition(
              segmentID: source.segmentID,
              offsetInMeters: (source.offsetInMeters
                + network.segments[source.segmentID].lengthInMeters) / 2),
          ]
        let first = network.segments[source.segmentID]
        let label = Self.bellmanFord(
          network, starts: [source.segmentID: first.lengthInMeters - source.offsetInMeters],
          metric: .length)
        let expected = targets.map { target -> Double in
          var best = Double.infinity
          if target.segmentID == source.segmentID, target.offsetInMeters >= source.offsetInMeters {
            best = target.offsetInMeters - source.offsetInMeters
          }
          for s in network.segments.indices
          where Self.oracleSuccessors(network, s).contains(target.segmentID) {
            best = min(best, label[s] + target.offsetInMeters)
          }
          return best
        }
        for (target, wanted) in zip(targets, expected) {
          let route = try graph.shortestPath(from: source, to: target)
          if wanted == .infinity {
            #expect(route == nil)
          } else {
            let cost = try #require(route).cost
            routed += 1
            #expect(abs(cost - wanted) < 1e-6 * max(1, wanted))
            #expect(abs((route?.lengthInMeters ?? 0) - wanted) < 1e-6 * max(1, wanted))
          }
        }
        let bound = 1500.0
        let bounded = try graph.distances(from: source, to: targets, maxCostInMeters: bound)
        for (value, wanted) in zip(bounded, expected) {
          if wanted <= bound {
            boundedCount += 1
            #expect(value != nil && abs((value ?? 0) - wanted) < 1e-6 * max(1, wanted))
          } else {
            #expect(value == nil)
          }
        }
      }
    }
  }

  @Test("U-turns only at dead ends")
  func uTurns() throws {
    // A - B - C, two-way, plus B -> D one-way: C is a dead end.
    let points = [(47.0, 9.5), (47.0, 9.501), (47.0, 9.502), (47.001, 9.501)]
    let nodes = try points.enumerated().map {
      RoadNode(
        id: $0.offset, sourceID: "\($0.offset)",
        coordinates: try GeoCoordinates(latitude: $0.element.0, longitude: $0.element.1))
    }
    func segment(_ id: Int, _ a: Int, _ b: Int, _ opposite: Int?) throws -> RoadSegment {
      RoadSegment(
        id: id, sourceID: "w", fromNode: a, toNode: b,
        geometry: try GeoPolyline(vertices: [nodes[a].coordinates, nodes[b].coordinates]),
        roadClass: .residential, speedLimit: SpeedLimit(metersPerSecond: 10, source: .posted),
        oppositeID: opposite)
    }
    let network = try RoadNetwork(
      nodes: nodes,
      segments: [
        try segment(0, 0, 1, 1), try segment(1, 1, 0, 0), try segment(2, 1, 2, 3),
        try segment(3, 2, 1, 2), try segment(4, 1, 3, nil),
      ])
    let graph = RoutingGraph(network: network)
    #expect(graph.successors(of: 0).sorted() == [2, 4])  // no U-turn back to A at B
    #expect(graph.successors(of: 2) == [3])  // C is a dead end: turn round
    #expect(graph.successors(of: 4) == [])  // D: nothing leaves
    // From A->B to B->A: must go to the dead end C and back.
    let route = try #require(
      try graph.shortestPath(
        from: RoadPosition(segmentID: 0, offsetInMeters: 0),
        to: RoadPosition(segmentID: 1, offsetInMeters: network.segments[1].lengthInMeters)))
    #expect(route.segmentIDs == [0, 2, 3, 1])
  }

  @Test("Inconsistent networks and positions are refused")
  func invalidInput() throws {
    let network = try Self.randomNetwork(seed: 1, nodeCount: 5, roadCount: 4)
    let graph = RoutingGraph(network: network)
    #expect(throws: RoadsError.self) {
      try graph.shortestPath(
        from: RoadPosition(segmentID: 0, offsetInMeters: -1),
        to: RoadPosition(segmentID: 0, offsetInMeters: 0))
    }
    #expect(throws: RoadsError.self) { try graph.shortestPath(fromNode: 0, toNode: 99) }
    var segments = network.segments
    segments.swapAt(0, 1)
    #expect(throws: RoadsError.self) { try RoadNetwork(nodes: network.nodes, segments: segments) }
  }
}
