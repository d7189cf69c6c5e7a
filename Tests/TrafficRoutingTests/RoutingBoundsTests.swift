import Foundation
import Geo
import Roads
import Testing
import TrafficTestSupport

@testable import Traffic
@testable import TrafficRouting

/// Routing bounds: searches guided by their hierarchy against the same search with the
/// straight-line bound, also once live speeds exceed everything the bounds took in, and
/// the engine's one set per network.
@Suite struct RoutingBoundsTests {
  static let network = RoutingEngineTests.liechtenstein

  @Test(
    "guided by the hierarchy a search finds what it finds without, also over live speeds past the bounds"
  )
  func searchesAgreeWithAndWithoutBounds() throws {
    let network = try #require(Self.network)
    let engine = try RoutingEngineTests.engine(network: network)
    let base = try #require(engine.routingView())
    let bounds = RoutingBounds(view: base)
    // Live speeds on a third of the segments after the build: some twice their bound (the
    // search caps them), some crawling.
    var generator = SeededGenerator(seed: 9)
    var flow = base.flow
    for id in network.segments.indices where Int.random(in: 0..<3, using: &generator) == 0 {
      let bound = bounds.boundSpeed[id]
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
        view: view, departure: view.now, usesTraffic: true, closures: .all,
        segments: bounds.segments)
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
          from: [source], to: [target], times: times, fastestSpeed: bounds.fastest,
          scratch: scratch)
        plainWork += scratch.lastReachedCount
        let guided = RouteSearch.fastest(
          from: [source], to: [target], times: times, fastestSpeed: bounds.fastest,
          bounds: bounds, scratch: scratch)
        guidedWork += scratch.lastReachedCount
        #expect((plain == nil) == (guided == nil), "\(name)")
        if let plain, let guided {
          routed += 1
          #expect(
            abs(plain.seconds - guided.seconds) <= 1e-9 * max(1, plain.seconds),
            "\(name): \(guided.seconds) s guided, \(plain.seconds) s without")
        }
      }
      #expect(routed > 75, "\(name)")
      // The point of them: where the speeds are those the bounds took in, far fewer
      // segments are reached (a sixth, measured).
      if name == "free flow" {
        #expect(guidedWork * 4 < plainWork, "reached \(guidedWork) with, \(plainWork) without")
      }
    }
  }

  @Test("a network's bounds are built once and kept while its speeds stay known")
  func boundsAreBuiltOncePerNetwork() async throws {
    let network = try #require(Self.network)
    let engine = try RoutingEngineTests.engine(network: network)
    let router = RoutingEngine(trafficEngine: engine)
    #expect(!router.hasBounds)
    let from = network.nodes[network.segments[10].fromNode].coordinates
    let to = network.nodes[network.segments[4_000].toNode].coordinates
    _ = try? await router.calculateRoute(from: from, to: to)
    // A network of this size gets them on its first query.
    #expect(router.hasBounds)
    let first = router.boundsStatistics
    #expect(first.nodes == network.nodes.count)
    #expect(first.edges >= network.segments.count / 2)
    // The next queries use the same set (a rebuild would have its own build time).
    for _ in 0..<3 { _ = try? await router.calculateRoute(from: to, to: from) }
    #expect(router.boundsStatistics.buildSeconds == first.buildSeconds)
  }
}
