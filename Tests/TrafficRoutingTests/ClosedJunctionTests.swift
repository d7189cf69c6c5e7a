import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficRouting
import TrafficTestSupport

/// Closed junctions: an incident whose `junctionsTraversability` closes junctions of its
/// stretch forbids entering or leaving the stretch there, while through traffic along it
/// and every other road stay open.
@Suite struct ClosedJunctionTests {
  @Test("a route turning into a stretch at a closed junction finds another way in")
  func turnsAtClosedJunctionsAreAvoided() async throws {
    let network = try #require(RoutingEngineTests.liechtenstein)
    var generator = SeededGenerator(seed: 23)
    var checked = 0
    for _ in 0..<200 where checked < 5 {
      let nodes = network.nodes
      let origin = nodes[Int.random(in: 0..<nodes.count, using: &generator)].coordinates
      let destination = nodes[Int.random(in: 0..<nodes.count, using: &generator)].coordinates
      let free = try RoutingEngineTests.engine(network: network)
      guard
        let route = try? await RoutingEngine(trafficEngine: free).calculateRoute(
          from: origin, to: destination
        ).first,
        route.lengthInMeters > 3_000
      else { continue }
      let segments = route.sections.flatMap { $0.traffic.spans.map(\.segmentID) }
      // A turn of the route from one way into another, in its middle.
      guard
        let k = segments.indices.dropFirst(2).dropLast(2).first(where: {
          network.segments[segments[$0]].sourceID != network.segments[segments[$0 - 1]].sourceID
            && segments[$0] != network.segments[segments[$0 - 1]].oppositeID
        })
      else { continue }
      let entered = network.segments[segments[k]]
      let junction = entered.fromNode
      // Roadworks along the way entered, with every junction closed; the road stays open.
      let works = try TrafficIncident(
        id: "works", type: .construction, impact: .major, junctionsTraversability: .allClosed,
        location: TrafficLocation(polyline: entered.geometry))
      let engine = try RoutingEngineTests.engine(network: network, incidents: [works])
      let stretch = Set([entered.id] + [entered.oppositeID].compactMap { $0 })
      // No other way at all is refused (noRoute), as it must be; such a pair is skipped.
      let answer = try? await RoutingEngine(trafficEngine: engine).calculateRoute(
        from: origin, to: destination)
      guard let detour = answer?.first else { continue }
      // A departure two hours ahead (the typical picture of its time, with the closures
      // active then) avoids the junction too.
      let later = try await RoutingEngine(trafficEngine: engine).calculateRoute(
        from: origin, to: destination,
        options: RouteOptions(departureTime: RoutingEngineTests.now.addingTimeInterval(7_200)))
      for route in [detour] + later.prefix(1) {
        let driven = route.sections.flatMap { $0.traffic.spans.map(\.segmentID) }
        for (a, b) in zip(driven, driven.dropFirst()) where a != b {
          let node = network.segments[a].toNode
          if node == junction {
            #expect(stretch.contains(a) == stretch.contains(b), "turned at the closed junction")
          }
        }
      }
      #expect(detour.durationInSeconds >= route.durationInSeconds - 0.5)
      // Without avoiding closures, the first route is taken again.
      let ignoring = try await RoutingEngine(trafficEngine: engine).calculateRoute(
        from: origin, to: destination,
        options: RouteOptions(trafficOptimization: .disabled, avoidsClosures: false))
      #expect(abs((ignoring.first?.lengthInMeters ?? 0) - route.lengthInMeters) < 1)
      // Planning mode keeps long-term closures only: works of unknown duration are not, so
      // the first route is taken again; the same works in place for two days are avoided.
      let planning = RouteOptions(trafficOptimization: .longTermClosuresOnly)
      let planned = try await RoutingEngine(trafficEngine: engine).calculateRoute(
        from: origin, to: destination, options: planning)
      #expect(abs((planned.first?.lengthInMeters ?? 0) - route.lengthInMeters) < 1)
      let lasting = try TrafficIncident(
        id: "works", type: .construction, impact: .major,
        startTime: RoutingEngineTests.now.addingTimeInterval(-2 * 86_400),
        junctionsTraversability: .allClosed, location: TrafficLocation(polyline: entered.geometry))
      let avoided = try await RoutingEngine(
        trafficEngine: RoutingEngineTests.engine(network: network, incidents: [lasting])
      ).calculateRoute(from: origin, to: destination, options: planning)
      let driven = try #require(avoided.first).sections.flatMap {
        $0.traffic.spans.map(\.segmentID)
      }
      for (a, b) in zip(driven, driven.dropFirst())
      where a != b && network.segments[a].toNode == junction {
        #expect(stretch.contains(a) == stretch.contains(b), "turned at the long-term closure")
      }
      checked += 1
    }
    #expect(checked >= 3)
  }
}
