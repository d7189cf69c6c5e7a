import Foundation
import Geo
import Traffic

/// Made-up incidents for demonstrations and load tests: short polylines scattered uniformly
/// over a square around a center, with varied types, impacts and times; reproducible from a
/// seed.
package enum DemoIncidents {
  /// Generates incidents.
  ///
  /// - Parameters:
  ///   - count: How many.
  ///   - center: The middle of the square.
  ///   - halfSideInDegrees: Half the side of the square, degrees of latitude and longitude.
  ///   - now: The time around which incidents are active (all are active at `now`).
  ///   - seed: The seed of the random sequence.
  /// - Returns: The incidents, original ids `demo-0` ... `demo-(count-1)`.
  /// - Complexity: O(count).
  package static func generate(
    count: Int, center: GeoCoordinates, halfSideInDegrees: Double = 1, now: Date = Date(),
    seed: UInt64 = 42
  ) -> [TrafficIncident] {
    var random = SplitMix64(state: seed)
    let types = TrafficIncidentType.allCases.filter { $0 != .unknown }
    let impacts: [TrafficIncidentImpact] = [.critical, .major, .minor, .low]
    var incidents: [TrafficIncident] = []
    incidents.reserveCapacity(count)
    for index in 0..<max(0, count) {
      let latitude = min(
        89, max(-89, center.latitude + (random.unit() * 2 - 1) * halfSideInDegrees))
      var longitude = center.longitude + (random.unit() * 2 - 1) * halfSideInDegrees
      if longitude > 180 { longitude -= 360 }
      if longitude < -180 { longitude += 360 }
      let vertexCount = 2 + Int(random.next() % 4)
      var vertices = [GeoCoordinates(uncheckedLatitude: latitude, longitude: longitude)]
      for _ in 1..<vertexCount {
        // Steps of up to ~100 m.
        guard let last = vertices.last else { break }
        vertices.append(
          GeoCoordinates(
            uncheckedLatitude: min(
              89.9, max(-89.9, last.latitude + (random.unit() - 0.5) * 0.0018)),
            longitude: min(180, max(-180, last.longitude + (random.unit() - 0.5) * 0.0018))))
      }
      let start = now.addingTimeInterval(-3600 * (1 + random.unit() * 24))
      let end = now.addingTimeInterval(3600 * (1 + random.unit() * 48))
      guard let polyline = try? GeoPolyline(vertices: vertices),
        let location = try? TrafficLocation(
          polyline: polyline, description: "Demo road \(index % 500)"),
        let incident = try? TrafficIncident(
          id: "demo-\(index)-v1", originalId: "demo-\(index)",
          type: types[Int(random.next() % UInt64(types.count))],
          impact: impacts[Int(random.next() % UInt64(impacts.count))],
          startTime: start, endTime: end, entryTime: start, location: location)
      else { continue }
      incidents.append(incident)
    }
    return incidents
  }
}

/// SplitMix64 (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number generators").
private struct SplitMix64 {
  var state: UInt64

  mutating func next() -> UInt64 {
    state &+= 0x9e37_79b9_7f4a_7c15
    var z = state
    z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
    z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
    return z ^ (z >> 31)
  }

  /// A uniform value in [0, 1).
  mutating func unit() -> Double {
    Double(next() >> 11) * 0x1.0p-53
  }
}
