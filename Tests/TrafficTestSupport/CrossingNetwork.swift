import Foundation
import Geo
import Roads

/// The small crossing near Berlin that the matching, flow and server tests drive on.
///
/// Nodes W (0) — B (1) — E (2) on an east–west two-way road at 52° N, 13° E, 500 m per side;
/// B — N (3) two-way; B → S (4) one-way. Segments: 0 W→B, 1 B→W, 2 B→E, 3 E→B, 4 B→N,
/// 5 N→B, 6 B→S; all primary roads (functional class 2) limited to 13.89 m/s (50 km/h).
public enum CrossingNetwork {
  /// The speed limit of every segment, m/s.
  public static let speedLimitInMetersPerSecond = 13.89
  /// Local scale at 52° N.
  public static let metersPerDegreeLatitude = 111_267.0
  /// Meters per degree of longitude at 52° N.
  public static let metersPerDegreeLongitude = 68_677.0

  /// The point `east` and `north` meters from W (52° N, 13° E).
  public static func coordinates(east: Double, north: Double = 0) -> GeoCoordinates {
    GeoCoordinates(
      uncheckedLatitude: 52 + north / metersPerDegreeLatitude,
      longitude: 13 + east / metersPerDegreeLongitude)
  }

  /// The network.
  public static func network() throws -> RoadNetwork {
    let points = [(0.0, 0.0), (500, 0), (1000, 0), (500, 500), (500, -500)]
    let nodes = points.enumerated().map { i, point in
      RoadNode(id: i, sourceID: "n\(i)", coordinates: coordinates(east: point.0, north: point.1))
    }
    let limit = SpeedLimit(metersPerSecond: speedLimitInMetersPerSecond, source: .posted)
    var segments: [RoadSegment] = []
    func road(_ a: Int, _ b: Int, _ name: String, twoWay: Bool) throws {
      let id = segments.count
      let line = try GeoPolyline(vertices: [nodes[a].coordinates, nodes[b].coordinates])
      segments.append(
        RoadSegment(
          id: id, sourceID: name, fromNode: a, toNode: b, geometry: line, name: name,
          roadClass: .primary, speedLimit: limit, oppositeID: twoWay ? id + 1 : nil))
      if twoWay {
        segments.append(
          RoadSegment(
            id: id + 1, sourceID: name, fromNode: b, toNode: a,
            geometry: try GeoPolyline(vertices: line.vertices.reversed()), name: name,
            roadClass: .primary, speedLimit: limit, isReversed: true, oppositeID: id))
      }
    }
    try road(0, 1, "West", twoWay: true)
    try road(1, 2, "East", twoWay: true)
    try road(1, 3, "North", twoWay: true)
    try road(1, 4, "South", twoWay: false)
    return try RoadNetwork(nodes: nodes, segments: segments)
  }
}

/// A straight road at 52° N, 13° E cut by a junction a network leaves out of its segments,
/// as SUMO's do: segment A (0) from 0 to 450 m east, then `gap` meters of junction, then
/// segment B (1) to 1000 m; both primary roads limited to 13.89 m/s.
public enum GappedNetwork {
  /// The network.
  public static func network(gap: Double) throws -> RoadNetwork {
    let point = { (east: Double) in CrossingNetwork.coordinates(east: east) }
    let nodes = [0.0, 450 + gap / 2, 1000].enumerated().map { i, east in
      RoadNode(id: i, sourceID: "n\(i)", coordinates: point(east))
    }
    let limit = SpeedLimit(
      metersPerSecond: CrossingNetwork.speedLimitInMetersPerSecond, source: .posted)
    return try RoadNetwork(
      nodes: nodes,
      segments: [
        RoadSegment(
          id: 0, sourceID: "A", fromNode: 0, toNode: 1,
          geometry: try GeoPolyline(vertices: [point(0), point(450)]), roadClass: .primary,
          speedLimit: limit),
        RoadSegment(
          id: 1, sourceID: "B", fromNode: 1, toNode: 2,
          geometry: try GeoPolyline(vertices: [point(450 + gap), point(1000)]),
          roadClass: .primary, speedLimit: limit),
      ])
  }
}
