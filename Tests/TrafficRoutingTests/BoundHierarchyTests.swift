import Foundation
import Geo
import Roads
import Testing
import TrafficTestSupport

@testable import Traffic
@testable import TrafficRouting

/// The contraction hierarchy at bound speeds: its potentials against exact least times (the
/// Dijkstra written here), toward one target and toward several.
@Suite struct BoundHierarchyTests {
  /// Least seconds from every node to `target` over the segments with a positive `speed`
  /// (a plain Dijkstra backwards, with a sorted frontier: the reference).
  static func leastSeconds(to target: Int, network: RoadNetwork, speed: [Double]) -> [Double] {
    var arriving = [[Int]](repeating: [], count: network.nodes.count)
    for (id, segment) in network.segments.enumerated() where speed[id] > 0 {
      arriving[segment.toNode].append(id)
    }
    var best = [Double](repeating: .infinity, count: network.nodes.count)
    var done = [Bool](repeating: false, count: network.nodes.count)
    best[target] = 0
    var frontier: Set<Int> = [target]
    while let node = frontier.min(by: { best[$0] < best[$1] }) {
      frontier.remove(node)
      done[node] = true
      for id in arriving[node] {
        let segment = network.segments[id]
        let total = best[node] + segment.lengthInMeters / speed[id]
        if !done[segment.fromNode], total < best[segment.fromNode] {
          best[segment.fromNode] = total
          frontier.insert(segment.fromNode)
        }
      }
    }
    return best
  }

  @Test("a hierarchy potential is the least time to the nearest target, ∞ where none is reached")
  func potentialsAreExact() throws {
    let network = try #require(RoutingBoundsTests.network)
    let engine = try RoutingEngineTests.engine(network: network)
    let view = try #require(engine.routingView())
    let bounds = RoutingBounds(view: view)
    let hierarchy = bounds.hierarchy
    #expect(hierarchy.nodeCount == network.nodes.count)
    let scratch = BoundHierarchy.Scratch(nodeCount: network.nodes.count)
    var generator = SeededGenerator(seed: 3)
    var unreachable = 0
    var compared = 0
    for round in 0..<10 {
      let targets = (0..<(round % 3 + 1)).map { _ in
        network.segments[Int.random(in: 0..<network.segments.count, using: &generator)].fromNode
      }
      let toTargets = targets.map {
        Self.leastSeconds(to: $0, network: network, speed: bounds.boundSpeed)
      }
      let query = BoundHierarchy.Query(hierarchy: hierarchy, targets: targets, scratch: scratch)
      for _ in 0..<200 {
        let node = Int.random(in: 0..<network.nodes.count, using: &generator)
        let exact = toTargets.map { $0[node] }.min()!
        let potential = query.seconds(from: node)
        compared += 1
        if exact == .infinity {
          unreachable += 1
          #expect(potential == .infinity, "node \(node): \(potential) s, unreachable")
        } else {
          #expect(
            abs(potential - exact) <= 1e-9 * max(1, exact),
            "node \(node) to \(targets): \(potential) s, exact \(exact) s")
        }
      }
    }
    #expect(compared == 2_000)
    #expect(unreachable > 0)
  }

  @Test(
    "on random graphs (one-way arcs, repeated arcs, loops, nodes on one spot) the potentials are Floyd-Warshall's",
    arguments: [1, 2, 7, 40, 130])
  func potentialsMatchFloydWarshall(nodeCount n: Int) throws {
    var generator = SeededGenerator(seed: UInt64(n))
    var coordinates: [GeoCoordinates] = []
    for k in 0..<n {
      if k % 4 == 3 {
        // A quarter of the nodes share a spot with the one before.
        coordinates.append(coordinates[k - 1])
        continue
      }
      let latitude = 47 + Double.random(in: 0..<0.2, using: &generator)
      let longitude = 9.4 + Double.random(in: 0..<0.2, using: &generator)
      coordinates.append(try GeoCoordinates(latitude: latitude, longitude: longitude))
    }
    var tails: [Int32] = []
    var heads: [Int32] = []
    var seconds: [Double] = []
    var exact = [[Double]](repeating: [Double](repeating: .infinity, count: n), count: n)
    for v in 0..<n { exact[v][v] = 0 }
    for _ in 0..<(n * 2) {
      let a = Int.random(in: 0..<n, using: &generator)
      let b = Int.random(in: 0..<n, using: &generator)
      let s = Double.random(in: 1..<100, using: &generator)
      tails.append(Int32(a))
      heads.append(Int32(b))
      seconds.append(s)
      exact[a][b] = min(exact[a][b], a == b ? 0 : s)
    }
    for k in 0..<n {
      for i in 0..<n where exact[i][k].isFinite {
        for j in 0..<n { exact[i][j] = min(exact[i][j], exact[i][k] + exact[k][j]) }
      }
    }
    let hierarchy = BoundHierarchy(
      coordinates: coordinates, tails: tails, heads: heads, seconds: seconds)
    let scratch = BoundHierarchy.Scratch(nodeCount: n)
    for round in 0..<min(n, 12) {
      let targets = [round, (round * 7 + 3) % n]
      let query = BoundHierarchy.Query(hierarchy: hierarchy, targets: targets, scratch: scratch)
      for v in 0..<n {
        let want = targets.map { exact[v][$0] }.min()!
        let got = query.seconds(from: v)
        #expect(
          want.isFinite ? abs(got - want) <= 1e-9 * max(1, want) : got == .infinity,
          "\(n) nodes: from \(v) to \(targets): \(got), exact \(want)")
      }
    }
  }
}
