import Foundation
import Geo
import Roads
import Testing
import TrafficTestSupport

@testable import Traffic
@testable import TrafficRouting

/// The contraction hierarchy at bound speeds: its potentials against exact least times (the
/// Dijkstra of ``LandmarkTests``), toward one target and toward several.
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
    let network = try #require(LandmarkTests.network)
    let engine = try RoutingEngineTests.engine(network: network)
    let view = try #require(engine.routingView())
    let landmarks = Landmarks(view: view)
    let hierarchy = BoundHierarchy(network: network, bound: landmarks.boundSpeed)
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
        Self.leastSeconds(to: $0, network: network, speed: landmarks.boundSpeed)
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
}
