import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficRouting
import TrafficTestSupport

/// Lane closures: an incident that names its closed lanes shuts the turns that leave only
/// from them (on a network that knows each turn's lanes, SUMO's `connection`s), and nothing
/// else; the road stays open.
@Suite struct LaneClosureTests {
  /// Braunschweig's turns that leave from a single lane, on segments of two or more lanes:
  /// the turn, its lane, and a lane of the segment it does not use.
  static func dedicatedTurns(
    _ network: RoadNetwork
  ) throws -> [(
    from: Int, to: Int, lane: Int, other: Int
  )] {
    let turns = try #require(network.turns)
    var found: [(from: Int, to: Int, lane: Int, other: Int)] = []
    for segment in network.segments where segment.lengthInMeters >= 60 && segment.isOpenToCars {
      guard let masks = turns.laneMasks(of: segment.id), masks.count >= 2 else { continue }
      let all = masks.reduce(0, |)
      for (next, mask) in zip(turns[segment.id], masks) where mask.nonzeroBitCount == 1 {
        guard network.segments[Int(next)].lengthInMeters >= 40,
          network.segments[Int(next)].isOpenToCars
        else { continue }
        let lane = mask.trailingZeroBitCount + 1
        guard let other = (0..<32).first(where: { all & ~mask & (1 << $0) != 0 }) else {
          continue
        }
        found.append((segment.id, Int(next), lane, other + 1))
      }
    }
    return found
  }

  static func waypoint(_ segment: RoadSegment, at fraction: Double) -> Waypoint {
    let offset = segment.lengthInMeters * fraction
    let geometry = segment.geometry
    return Waypoint(
      geometry.coordinates(atDistance: offset),
      headingInDegrees: geometry.coordinates(atDistance: max(0, offset - 5)).bearing(
        to: geometry.coordinates(atDistance: min(segment.lengthInMeters, offset + 5))))
  }

  static func turns(of route: Route) -> [(Int, Int)] {
    let driven = route.sections.flatMap { $0.traffic.spans.map(\.segmentID) }
    return zip(driven, driven.dropFirst()).filter { $0 != $1 }
  }

  @Test("closing the only lane a turn leaves from shuts that turn, another lane does not")
  func closedLaneShutsItsTurn() async throws {
    try DebianFile.braunschweigNetwork.require()
    let network = try SUMONetworkImporter.importNetwork(from: DebianFile.braunschweigNetwork.url)
    let now = RoutingEngineTests.now
    var checked = 0
    var detours = 0
    for turn in try Self.dedicatedTurns(network) where checked < 4 {
      let from = network.segments[turn.from]
      let to = network.segments[turn.to]
      let origin = Self.waypoint(from, at: 0.3)
      let destination = Self.waypoint(to, at: 0.7)
      let open = try RoutingEngineTests.engine(network: network)
      guard
        let direct = try? await RoutingEngine(trafficEngine: open).calculateRoute(
          from: origin, to: destination
        ).first,
        Self.turns(of: direct).contains(where: { $0 == (turn.from, turn.to) })
      else { continue }
      func closure(_ lane: Int) throws -> TrafficIncident {
        try TrafficIncident(
          id: "works \(lane)", type: .laneRestriction, impact: .major,
          startTime: now - 600, endTime: now + 3_600,
          location: TrafficLocation(polyline: from.geometry),
          details: TrafficIncidentDetails(closedLanes: [lane]))
      }
      // The turn's own lane closed: a route, if there is one, goes round.
      let shut = try RoutingEngineTests.engine(network: network, incidents: [closure(turn.lane)])
      if let detour = try? await RoutingEngine(trafficEngine: shut).calculateRoute(
        from: origin, to: destination
      ).first {
        #expect(!Self.turns(of: detour).contains(where: { $0 == (turn.from, turn.to) }))
        #expect(detour.durationInSeconds > direct.durationInSeconds)
        detours += 1
      }
      // Another lane closed: the turn stays.
      let other = try RoutingEngineTests.engine(network: network, incidents: [closure(turn.other)])
      let same = try await RoutingEngine(trafficEngine: other).calculateRoute(
        from: origin, to: destination)
      #expect(
        Self.turns(of: try #require(same.first)).contains(where: { $0 == (turn.from, turn.to) }))
      // The same closure once it has ended: the turn is open again.
      let ended = try TrafficIncident(
        id: "ended", type: .laneRestriction, impact: .major, startTime: now - 7_200,
        endTime: now - 3_600, location: TrafficLocation(polyline: from.geometry),
        details: TrafficIncidentDetails(closedLanes: [turn.lane]))
      let later = try RoutingEngineTests.engine(network: network, incidents: [ended])
      let again = try await RoutingEngine(trafficEngine: later).calculateRoute(
        from: origin, to: destination)
      #expect(
        Self.turns(of: try #require(again.first)).contains(where: { $0 == (turn.from, turn.to) }))
      checked += 1
    }
    #expect(checked == 4)
    #expect(detours >= 2)
  }
}
