import Foundation
import Testing
import Traffic

@Suite struct TrafficLocationTests {
  @Test func pointLocationHasZeroLength() throws {
    let here = try TrafficFixtures.place(52.5, 13.4)
    let location = TrafficLocation(point: here, description: "Alexanderplatz")
    #expect(location.polyline.vertices == [here, here])
    #expect(location.lengthInMeters == 0)
    #expect(location.allPolylines.count == 1)
  }

  @Test func lengthDefaultsToTheSumOfAllPolylines() throws {
    let a = try GeoPolyline(vertices: [
      try TrafficFixtures.place(0, 0), try TrafficFixtures.place(0, 0.01),
    ])
    let b = try GeoPolyline(vertices: [
      try TrafficFixtures.place(1, 0), try TrafficFixtures.place(1.01, 0),
    ])
    let location = try TrafficLocation(polyline: a, additionalPolylines: [b])
    #expect(abs(location.lengthInMeters - (a.lengthInMeters + b.lengthInMeters)) < 1e-9)
    #expect(try TrafficLocation(polyline: a, lengthInMeters: 42).lengthInMeters == 42)
    #expect(throws: TrafficModelError.self) { try TrafficLocation(polyline: a, lengthInMeters: -1) }
    #expect(throws: TrafficModelError.self) {
      try TrafficLocation(polyline: a, lengthInMeters: .nan)
    }
  }

  @Test func codableRoundTrip() throws {
    let a = try GeoPolyline(vertices: [
      try TrafficFixtures.place(0, 0), try TrafficFixtures.place(0, 0.01),
    ])
    let location = try TrafficLocation(
      polyline: a, additionalPolylines: [GeoPolyline(point: try TrafficFixtures.place(2, 2))],
      lengthInMeters: 1_200, description: "B96")
    let data = try JSONEncoder().encode(location)
    #expect(try JSONDecoder().decode(TrafficLocation.self, from: data) == location)
  }
}
