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

  @Test func codableKeepsLocationReferences() throws {
    let tmc = try TMCLocationReference(
      countryCode: "D", extendedCountryCode: "E0", tableNumber: "1", tableVersion: "19.1",
      primaryLocationCode: 10429, secondaryLocationCode: 10430, extent: 2, direction: .positive,
      primaryOffsetInMeters: 100, secondaryOffsetInMeters: 50, affectedLengthInMeters: 700)
    let location = TrafficLocation(
      point: try TrafficFixtures.place(52, 13), tmc: [tmc], openLR: "IyVUdwmSoA==")
    let data = try JSONEncoder().encode(location)
    #expect(try JSONDecoder().decode(TrafficLocation.self, from: data) == location)
  }

  /// Bodies stored before references existed still decode, with none.
  @Test func olderStoredBodiesDecodeWithoutReferences() throws {
    let body = #"{"polyline":[{"lat":52,"lng":13},{"lat":52.1,"lng":13}],"lengthInMeters":5}"#
    let location = try JSONDecoder().decode(TrafficLocation.self, from: Data(body.utf8))
    #expect(location.tmc.isEmpty && location.openLR == nil)
    #expect(location.lengthInMeters == 5)
  }

  @Test func tmcReferencesAreValidated() throws {
    #expect(throws: TrafficModelError.emptyField("tmc.countryCode")) {
      try TMCLocationReference(countryCode: "", tableNumber: "1", primaryLocationCode: 1)
    }
    #expect(
      throws: TrafficModelError.invalidValue(
        field: "tmc.primaryLocationCode", value: 70_000, reason: "must be 0...65535")
    ) {
      try TMCLocationReference(countryCode: "D", tableNumber: "1", primaryLocationCode: 70_000)
    }
    #expect(
      throws: TrafficModelError.invalidValue(
        field: "tmc.primaryOffsetInMeters", value: -1, reason: "must be >= 0")
    ) {
      try TMCLocationReference(
        countryCode: "D", tableNumber: "1", primaryLocationCode: 1, primaryOffsetInMeters: -1)
    }
    let stored = #"{"countryCode":"D","tableNumber":"1","primaryLocationCode":-5}"#
    #expect(throws: TrafficModelError.self) {
      try JSONDecoder().decode(TMCLocationReference.self, from: Data(stored.utf8))
    }
  }
}
