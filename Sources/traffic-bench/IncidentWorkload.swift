import Foundation
import Geo
import Traffic

/// The incidents of the engine and store benchmarks: spread over Germany's extent
/// (47.3...55.0° N, 5.9...15.0° E), 70 % at a point and 30 % along a line of 2 to 6
/// vertices (legs of 100 to 500 m), all active around `now`, with German road names.
///
/// - Parameters:
///   - count: How many.
///   - random: The generator, advanced by the draws (so later draws continue the stream).
///   - now: The time the incidents are active at: each started an hour before and ends a
///     day after.
/// - Returns: The incidents, original ids `bench-0`, `bench-1`, ...
/// - Throws: A model error, which the generated values never cause.
func makeBenchIncidents(
  count: Int, random: inout SplitMix64, now: Date
) throws -> [TrafficIncident] {
  let types = TrafficIncidentType.allCases.filter { $0 != .unknown }
  let impacts: [TrafficIncidentImpact] = [.critical, .major, .minor, .low]
  var incidents: [TrafficIncident] = []
  incidents.reserveCapacity(count)
  for i in 0..<count {
    let start = randomGermanPlace(&random)
    let location: TrafficLocation
    if i % 10 < 7 {
      location = TrafficLocation(point: start)
    } else {
      var vertices = [start]
      var bearing = random.nextUnit() * 360
      for _ in 0..<(1 + Int(random.next() % 5)) {
        bearing += random.nextUnit() * 60 - 30
        vertices.append(
          vertices[vertices.count - 1].destination(
            bearing: bearing, distanceInMeters: 100 + random.nextUnit() * 400))
      }
      location = try TrafficLocation(polyline: GeoPolyline(vertices: vertices))
    }
    let details = try TrafficIncidentDetails(countryCode: "DE", roadName: "Straße \(i % 997)")
    incidents.append(
      try TrafficIncident(
        id: "bench-\(i)-v1", originalId: "bench-\(i)", type: types[i % types.count],
        impact: impacts[i % impacts.count],
        description: LocalizedText(text: "Incident \(i)", language: .deDE),
        startTime: now - 3600, endTime: now + 86_400, location: location, details: details))
  }
  return incidents
}

/// A uniformly drawn place within Germany's extent (47.3...55.0° N, 5.9...15.0° E).
func randomGermanPlace(_ random: inout SplitMix64) -> GeoCoordinates {
  let latitude = 47.3 + random.nextUnit() * 7.7
  return GeoCoordinates(uncheckedLatitude: latitude, longitude: 5.9 + random.nextUnit() * 9.1)
}
