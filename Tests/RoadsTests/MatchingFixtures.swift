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

  static func network() throws -> RoadNetwork { try CrossingNetwork.network() }

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
