import Foundation
import Traffic
import TrafficTestSupport

/// Random incidents and boxes for the stores' area-index tests (SQLite's R*Tree, PostGIS's
/// GiST), checked there against a brute-force oracle.
public enum AreaFixtures {
  /// Random incidents `i0`, `i1`, ... of one to three polylines of two to four vertices each,
  /// some crossing the antimeridian.
  public static func incidents(
    count: Int, generator: inout SeededGenerator
  ) throws -> [TrafficIncident] {
    try (0..<count).map { number in
      let lines = try (0..<Int.random(in: 1...3, using: &generator)).map { _ in
        let latitude = Double.random(in: -60...60, using: &generator)
        let longitude = Double.random(in: -180...180, using: &generator)
        let vertices = try (0..<Int.random(in: 2...4, using: &generator)).map { _ in
          var lng = longitude + Double.random(in: -2...2, using: &generator)
          if lng > 180 { lng -= 360 }
          if lng < -180 { lng += 360 }
          return try GeoCoordinates(
            latitude: latitude + Double.random(in: -1...1, using: &generator), longitude: lng)
        }
        return try GeoPolyline(vertices: vertices)
      }
      return try TrafficIncident(
        id: "i\(number)", type: .congestion, impact: .minor,
        description: LocalizedText(text: "i\(number)", language: .enUS),
        location: TrafficLocation(polyline: lines[0], additionalPolylines: Array(lines.dropFirst()))
      )
    }
  }

  /// A random box of up to 40 by 20 degrees, crossing the antimeridian at times.
  public static func randomBox(_ generator: inout SeededGenerator) throws -> GeoBox {
    let south = Double.random(in: -70...60, using: &generator)
    let west = Double.random(in: -180...180, using: &generator)
    var east = west + Double.random(in: 0...40, using: &generator)
    if east > 180 { east -= 360 }
    return try GeoBox(
      west: west, south: south, east: east,
      north: south + Double.random(in: 0...20, using: &generator))
  }
}
