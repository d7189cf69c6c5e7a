import Foundation
import Geo
import Roads

/// Seeded random grids of motorways, main roads and streets with toll directions, on which
/// routes that avoid motorways or tolls differ from the fastest (the avoidance tests of the
/// routing engine and the server).
public enum FeatureGrid {
  /// Roads per side, plus one: the nodes of a row or column.
  public static let side = 5

  /// The grid's corners: each has two roads, so a waypoint there snaps to all of them.
  public static let corners = [0, side - 1, side * (side - 1), side * side - 1]

  /// A 5 × 5 grid of two-way roads about 340-560 m long at 52.5° N: each road a motorway
  /// (33 m/s), a primary road (20 m/s) or a street (8 m/s), each direction a toll road one
  /// time in four.
  public static func network(seed: UInt64) throws -> RoadNetwork {
    var random = SeededGenerator(seed: seed)
    var nodes: [RoadNode] = []
    for row in 0..<side {
      for column in 0..<side {
        nodes.append(
          RoadNode(
            id: nodes.count, sourceID: "\(nodes.count)",
            coordinates: try GeoCoordinates(
              latitude: 52.5 + Double(row) * 0.005, longitude: 13.4 + Double(column) * 0.005)))
      }
    }
    var segments: [RoadSegment] = []
    func road(_ a: Int, _ b: Int) throws {
      let kind = [(RoadClass.motorway, 33.0), (.primary, 20.0), (.residential, 8.0)][
        Int.random(in: 0..<3, using: &random)]
      for (from, to) in [(a, b), (b, a)] {
        let id = segments.count
        segments.append(
          RoadSegment(
            id: id, sourceID: "\(id / 2)", fromNode: from, toNode: to,
            geometry: try GeoPolyline(vertices: [nodes[from].coordinates, nodes[to].coordinates]),
            roadClass: kind.0, speedLimit: SpeedLimit(metersPerSecond: kind.1, source: .posted),
            isReversed: from != a, oppositeID: id ^ 1,
            isToll: Int.random(in: 0..<4, using: &random) == 0))
      }
    }
    for row in 0..<side {
      for column in 0..<side {
        let node = row * side + column
        if column + 1 < side { try road(node, node + 1) }
        if row + 1 < side { try road(node, node + side) }
      }
    }
    return try RoadNetwork(nodes: nodes, segments: segments)
  }

  /// The least seconds from node `from` to node `to` at the speed limits, over the segments
  /// that are motorways only if `motorways` and toll roads only if `tolls` (∞: none):
  /// Dijkstra by scanning every node, independent of the routing engine.
  public static func reference(
    _ network: RoadNetwork, from: Int, to: Int, motorways: Bool = true, tolls: Bool = true
  ) -> Double {
    var best = [Double](repeating: .infinity, count: network.nodes.count)
    var done = [Bool](repeating: false, count: network.nodes.count)
    best[from] = 0
    while let node = best.indices.filter({ !done[$0] && best[$0].isFinite })
      .min(by: { best[$0] < best[$1] })
    {
      done[node] = true
      for segment in network.segments where segment.fromNode == node {
        if !tolls && segment.isToll { continue }
        if !motorways && (segment.roadClass == .motorway || segment.roadClass == .motorwayLink) {
          continue
        }
        let seconds = segment.lengthInMeters / segment.speedLimitInMetersPerSecond
        best[segment.toNode] = min(best[segment.toNode], best[node] + seconds)
      }
    }
    return best[to]
  }
}
