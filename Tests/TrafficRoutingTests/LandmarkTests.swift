import Foundation
import Geo
import Roads
import Testing
import TrafficTestSupport

@testable import Traffic
@testable import TrafficRouting

/// ALT landmarks: their bounds against exact least times (a Dijkstra written here), and
/// searches with them against the same search without them, also once live speeds exceed
/// everything the landmarks' bounds took in.
@Suite struct LandmarkTests {
  static let network = RoutingEngineTests.liechtenstein

  /// Least seconds from `source` to every node over the segments open to cars at `speed`
  /// per segment (a plain Dijkstra with a sorted frontier: the reference).
  static func leastSeconds(from source: Int, network: RoadNetwork, speed: [Double]) -> [Double] {
    var leaving = [[Int]](repeating: [], count: network.nodes.count)
    for (id, segment) in network.segments.enumerated() where speed[id] > 0 {
      leaving[segment.fromNode].append(id)
    }
    var best = [Double](repeating: .infinity, count: network.nodes.count)
    var done = [Bool](repeating: false, count: network.nodes.count)
    best[source] = 0
    var frontier: Set<Int> = [source]
    while let node = frontier.min(by: { best[$0] < best[$1] }) {
      frontier.remove(node)
      done[node] = true
      for id in leaving[node] {
        let segment = network.segments[id]
        let total = best[node] + segment.lengthInMeters / speed[id]
        if !done[segment.toNode], total < best[segment.toNode] {
          best[segment.toNode] = total
          frontier.insert(segment.toNode)
        }
      }
    }
    return best
  }

  @Test("a landmark bound never exceeds the least time, proves unreachable nodes, and is close")
  func boundsAreLowerBounds() throws {
    let network = try #require(Self.network)
    let engine = try RoutingEngineTests.engine(network: network)
    let view = try #require(engine.routingView())
    let landmarks = Landmarks(view: view)
    #expect(landmarks.count == Landmarks.defaultCount)
    var generator = SeededGenerator(seed: 5)
    var ratios: [Double] = []
    var unreachable = 0
    for _ in 0..<12 {
      let source = network.segments[Int.random(in: 0..<network.segments.count, using: &generator)]
        .fromNode
      let exact = Self.leastSeconds(from: source, network: network, speed: landmarks.boundSpeed)
      for _ in 0..<60 {
        let target = Int.random(in: 0..<network.nodes.count, using: &generator)
        let bound = landmarks.bound(from: source, toward: [target]).seconds(from: source)
        #expect(bound <= exact[target] + 1e-9, "bound \(bound) s over \(exact[target]) s")
        if bound == .infinity { unreachable += 1 }
        if exact[target].isFinite, exact[target] > 60 { ratios.append(bound / exact[target]) }
      }
    }
    // The network has parts cars cannot reach from each other (the bound proves some), and
    // on the reachable pairs the bound is most of the time.
    #expect(unreachable > 0)
    ratios.sort()
    let median = ratios[ratios.count / 2]
    #expect(median > 0.7, "median bound / least time \(median)")
  }

  @Test(
    "with landmarks a search finds what it finds without, also over live speeds past the bounds")
  func searchesAgreeWithAndWithoutLandmarks() throws {
    let network = try #require(Self.network)
    let engine = try RoutingEngineTests.engine(network: network)
    let base = try #require(engine.routingView())
    let landmarks = Landmarks(view: base)
    // Live speeds on a third of the segments after the build: some twice their bound (the
    // search caps them), some crawling.
    var generator = SeededGenerator(seed: 9)
    var flow = base.flow
    for id in network.segments.indices where Int.random(in: 0..<3, using: &generator) == 0 {
      let bound = landmarks.boundSpeed[id]
      let speed = Bool.random(using: &generator) ? bound * 2 : max(1, bound / 6)
      flow.live[id] = FlowSnapshot.Live(
        speedUncapped: speed, confidence: 1, tendency: nil, blocked: false)
    }
    let live = RoutingView(
      now: base.now, network: base.network, graph: base.graph, flow: flow,
      incidents: base.incidents)
    let scratch = SearchScratch(segmentCount: network.segments.count)
    for (view, name) in [(base, "free flow"), (live, "live")] {
      let times = TravelTimes(
        view: view, departure: view.now, usesTraffic: true, avoidsClosures: true,
        segments: landmarks.segments)
      var routed = 0
      var plainWork = 0
      var guidedWork = 0
      for _ in 0..<150 {
        func snap() -> Snap {
          let id = Int.random(in: 0..<network.segments.count, using: &generator)
          let segment = network.segments[id]
          let offset = segment.lengthInMeters * Double.random(in: 0...1, using: &generator)
          return Snap(
            segmentID: id, offsetInMeters: offset,
            point: segment.geometry.coordinates(atDistance: offset), distanceInMeters: 0)
        }
        let source = snap(), target = snap()
        let plain = RouteSearch.fastest(
          from: [source], to: [target], times: times, fastestSpeed: landmarks.fastest,
          scratch: scratch)
        plainWork += scratch.lastReachedCount
        let guided = RouteSearch.fastest(
          from: [source], to: [target], times: times, fastestSpeed: landmarks.fastest,
          landmarks: landmarks, scratch: scratch)
        guidedWork += scratch.lastReachedCount
        #expect((plain == nil) == (guided == nil), "\(name)")
        if let plain, let guided {
          routed += 1
          #expect(
            abs(plain.seconds - guided.seconds) <= 1e-9 * max(1, plain.seconds),
            "\(name): \(guided.seconds) s with landmarks, \(plain.seconds) s without")
        }
      }
      #expect(routed > 75, "\(name)")
      // The point of them: where the speeds are those the bounds took in, far fewer
      // segments are reached.
      if name == "free flow" {
        #expect(guidedWork * 2 < plainWork, "reached \(guidedWork) with, \(plainWork) without")
      }
    }
  }

  @Test("a network's landmarks are built once and kept while its speeds stay known")
  func landmarksAreBuiltOncePerNetwork() async throws {
    let network = try #require(Self.network)
    let engine = try RoutingEngineTests.engine(network: network)
    let router = RoutingEngine(trafficEngine: engine)
    #expect(!router.hasLandmarks)
    let from = network.nodes[network.segments[10].fromNode].coordinates
    let to = network.nodes[network.segments[4_000].toNode].coordinates
    _ = try? await router.calculateRoute(from: from, to: to)
    // A network of this size gets them on its first query.
    #expect(router.hasLandmarks)
    let first = router.landmarkStatistics
    #expect(first.count == Landmarks.defaultCount)
    // The next queries use the same set (a rebuild would have its own build time).
    for _ in 0..<3 { _ = try? await router.calculateRoute(from: to, to: from) }
    #expect(router.landmarkStatistics.buildSeconds == first.buildSeconds)
  }
}
