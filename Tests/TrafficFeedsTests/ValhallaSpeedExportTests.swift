import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficFeeds

/// Valhalla's week of a way is the whole way's: a segment without a typical week drives at
/// free flow in it. The week of the few jammed segments was given to every edge of the way.
@Suite struct ValhallaSpeedExportTests {
  /// Way 7: two segments along it, 500 m each, W→M→E at 52° N; no opposite direction.
  static func network() throws -> RoadNetwork {
    let nodes = [0.0, 500, 1000].enumerated().map { i, east in
      RoadNode(id: i, sourceID: "\(i + 100)", coordinates: CrossingNetwork.coordinates(east: east))
    }
    let limit = SpeedLimit(
      metersPerSecond: CrossingNetwork.speedLimitInMetersPerSecond, source: .posted)
    let segments = try [(0, 1), (1, 2)].enumerated().map { id, ends in
      RoadSegment(
        id: id, sourceID: "7", fromNode: ends.0, toNode: ends.1,
        geometry: try GeoPolyline(vertices: [nodes[ends.0].coordinates, nodes[ends.1].coordinates]),
        roadClass: .primary, speedLimit: limit)
    }
    return try RoadNetwork(nodes: nodes, segments: segments)
  }

  @Test func aWaysWeekKeepsItsWholeLengthsTime() throws {
    let network = try Self.network()
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { now }, network: network)
    // Segment 0 jammed at 5 m/s all week, learned a week ago; segment 1 never observed.
    let day = Int(now.timeIntervalSince1970 / 86_400) - 7
    let week = try TypicalWeek(
      entries: (0..<TypicalWeek.binCount).map {
        TypicalWeek.pack(bin: $0, samples: 15, day: day, speed: 5)
      })
    #expect(try engine.setTypicalWeeks([(0, week)]) == 1)
    let picture = try #require(try engine.speedPicture(inside: nil, at: nil))
    let free = picture.flow(1).freeFlowSpeedInMetersPerSecond
    #expect(free > 10)
    var edges = ValhallaSpeedExport.WayEdges()
    edges.edges[.init(way: 7, forward: true)] = [8, 16]
    let csv = ValhallaSpeedExport.csv(picture, edges: edges)
    #expect(csv.edges == 2)
    let rows = csv.text.split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
    #expect(rows.count == 2)
    // 1 km in 500 m / 5 m/s + 500 m / free flow, in km/h (the weekday hours' mean).
    let expected = 1000 / (500 / 5 + 500 / free) * 3.6
    for row in rows {
      #expect(Int(row[2]) == Int(expected.rounded()), "\(row) for \(expected)")
    }
  }
}
