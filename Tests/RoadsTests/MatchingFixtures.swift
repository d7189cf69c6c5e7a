import Foundation
import Geo
import Roads
import TrafficTestSupport

/// A small crossing near Berlin for map matching tests: a two-way east–west road
/// W (0) — B (1) — E (2), 500 m per side; a two-way road B — N (3); a one-way road B → S (4).
///
/// Segments: 0 W→B, 1 B→W, 2 B→E, 3 E→B, 4 B→N, 5 N→B, 6 B→S (one-way).
enum MatchingFixtures {
  static let latitude = 52.0
  static let longitude = 13.0
  /// Degrees of longitude and latitude for 500 m at 52° N.
  static let eastStep = 500 / LocalMeters.perDegreeLongitude
  static let northStep = 500 / LocalMeters.perDegreeLatitude

  enum LocalMeters {
    static let perDegreeLatitude = 111_267.0
    static let perDegreeLongitude = 68_677.0
  }

  static func network() throws -> RoadNetwork {
    let points = [
      (latitude, longitude), (latitude, longitude + eastStep), (latitude, longitude + 2 * eastStep),
      (latitude + northStep, longitude + eastStep), (latitude - northStep, longitude + eastStep),
    ]
    let nodes = try points.enumerated().map { i, point in
      RoadNode(
        id: i, sourceID: "n\(i)",
        coordinates: try GeoCoordinates(latitude: point.0, longitude: point.1))
    }
    let limit = SpeedLimit(metersPerSecond: 13.89, source: .posted)
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

  /// Probes of a vehicle driving along `segmentIDs` at `speed` m/s, one every `interval`
  /// seconds from `start`, with seeded Gaussian noise of `noise` meters per axis and the
  /// true heading; each with the segment it truly is on.
  static func drive(
    _ network: RoadNetwork, along segmentIDs: [Int], speed: Double, interval: Double,
    noise: Double = 0, seed: UInt64 = 1, start: Date = Date(timeIntervalSince1970: 1_800_000_000)
  ) throws -> [(probe: ProbePoint, segmentID: Int)] {
    var generator = SeededGenerator(seed: seed)
    func gaussian() -> Double {
      let u = Double.random(in: Double.ulpOfOne..<1, using: &generator)
      let v = Double.random(in: 0..<1, using: &generator)
      return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
    let total = segmentIDs.reduce(0) { $0 + network.segments[$1].lengthInMeters }
    var result: [(ProbePoint, Int)] = []
    var traveled = 0.0
    var time = start
    while traveled < total - 1 {
      var remaining = traveled
      var index = 0
      while remaining > network.segments[segmentIDs[index]].lengthInMeters {
        remaining -= network.segments[segmentIDs[index]].lengthInMeters
        index += 1
      }
      let segment = network.segments[segmentIDs[index]]
      let exact = segment.geometry.coordinates(atDistance: remaining)
      let heading = segment.geometry.vertices[0].bearing(to: segment.geometry.vertices[1])
      let point = try GeoCoordinates(
        latitude: exact.latitude + noise * gaussian() / LocalMeters.perDegreeLatitude,
        longitude: exact.longitude + noise * gaussian() / LocalMeters.perDegreeLongitude)
      result.append(
        (
          ProbePoint(
            coordinates: point, time: time, speedInMetersPerSecond: speed,
            headingInDegrees: heading),
          segment.id
        ))
      traveled += speed * interval
      time += interval
    }
    return result
  }
}
