import Foundation
import Testing

@testable import Geo

@Suite struct GeoCoordinatesTests {
  @Test func keepsValidValues() throws {
    let place = try GeoCoordinates(latitude: 52.52, longitude: 13.405, altitude: 34.5)
    #expect(place.latitude == 52.52)
    #expect(place.longitude == 13.405)
    #expect(place.altitude == 34.5)
    #expect(try GeoCoordinates(latitude: 1, longitude: 2).altitude == nil)
    // The ends of the ranges are places too.
    for (latitude, longitude) in [(90.0, 180.0), (-90.0, -180.0), (0.0, -0.0)] {
      let corner = try GeoCoordinates(latitude: latitude, longitude: longitude)
      #expect(corner.latitude == latitude && corner.longitude == longitude)
    }
    #expect(try GeoCoordinates(latitude: 0, longitude: 0, altitude: -430).altitude == -430)
  }

  @Test(arguments: [90.000001, -90.5, 180, .infinity, -.infinity])
  func rejectsLatitude(_ latitude: Double) {
    #expect(throws: GeoError.invalidLatitude(latitude)) {
      try GeoCoordinates(latitude: latitude, longitude: 0)
    }
  }

  @Test(arguments: [180.000001, -181, 360, .infinity])
  func rejectsLongitude(_ longitude: Double) {
    #expect(throws: GeoError.invalidLongitude(longitude)) {
      try GeoCoordinates(latitude: 0, longitude: longitude)
    }
  }

  @Test func rejectsNotANumber() {
    // NaN never equals itself, so the cases are matched rather than compared.
    let latitude = #expect(throws: GeoError.self) {
      try GeoCoordinates(latitude: .nan, longitude: 0)
    }
    if case .invalidLatitude(let value) = latitude {
      #expect(value.isNaN)
    } else {
      Issue.record("expected invalidLatitude, got \(String(describing: latitude))")
    }
    let longitude = #expect(throws: GeoError.self) {
      try GeoCoordinates(latitude: 0, longitude: .nan)
    }
    if case .invalidLongitude(let value) = longitude {
      #expect(value.isNaN)
    } else {
      Issue.record("expected invalidLongitude, got \(String(describing: longitude))")
    }
    let altitude = #expect(throws: GeoError.self) {
      try GeoCoordinates(latitude: 0, longitude: 0, altitude: .nan)
    }
    if case .invalidAltitude(let value) = altitude {
      #expect(value.isNaN)
    } else {
      Issue.record("expected invalidAltitude, got \(String(describing: altitude))")
    }
    #expect(throws: GeoError.invalidAltitude(.infinity)) {
      try GeoCoordinates(latitude: 0, longitude: 0, altitude: .infinity)
    }
  }

  @Test func errorsDescribeTheValue() {
    #expect(GeoError.invalidLatitude(91).description == "latitude 91.0 is outside -90...90 degrees")
    #expect(GeoError.tooFewVertices(1).description.contains("got 1"))
  }

  @Test(arguments: [
    (190.0, -170.0), (-190.0, 170.0), (540.0, -180.0), (180.0, 180.0), (-180.0, -180.0),
    (359.5, -0.5), (-720.25, -0.25), (45.0, 45.0),
  ])
  func wrapsLongitudes(longitude: Double, wrapped: Double) {
    #expect(GeoCoordinates.wrappedLongitude(longitude) == wrapped)
    #expect(GeoCoordinates(uncheckedLatitude: 1, longitude: longitude).longitude == wrapped)
  }

  @Test func codableUsesShortKeysAndValidates() throws {
    let decoded = try JSONDecoder().decode(
      GeoCoordinates.self, from: Data(#"{"lat": 52.5, "lng": 13.25, "alt": 40}"#.utf8))
    #expect(decoded == (try GeoCoordinates(latitude: 52.5, longitude: 13.25, altitude: 40)))

    let encoded = try JSONEncoder().encode(try GeoCoordinates(latitude: 1.5, longitude: -2.25))
    let object = try JSONSerialization.jsonObject(with: encoded) as? [String: Double]
    #expect(object == ["lat": 1.5, "lng": -2.25])
    #expect(try JSONDecoder().decode(GeoCoordinates.self, from: encoded).altitude == nil)

    #expect(throws: GeoError.invalidLatitude(95)) {
      try JSONDecoder().decode(GeoCoordinates.self, from: Data(#"{"lat": 95, "lng": 0}"#.utf8))
    }
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(GeoCoordinates.self, from: Data(#"{"lat": 5}"#.utf8))
    }
  }

  @Test func describesAsLatitudeCommaLongitude() throws {
    #expect(try GeoCoordinates(latitude: 52.5, longitude: 13.25).description == "52.5,13.25")
    #expect(
      try GeoCoordinates(latitude: 52.5, longitude: 13.25, altitude: 3).description
        == "52.5,13.25,3.0")
  }

  /// Equal values are equal and hash alike whether or not they have an altitude; an
  /// altitude of 0 is not an unknown one; a vertex takes 24 bytes.
  @Test func equalityAndHashingFollowTheValues() throws {
    let plain = try GeoCoordinates(latitude: 52.5, longitude: 13.4)
    let again = try GeoCoordinates(latitude: 52.5, longitude: 13.4, altitude: nil)
    let zero = try GeoCoordinates(latitude: 52.5, longitude: 13.4, altitude: 0)
    let negativeZero = try GeoCoordinates(latitude: 52.5, longitude: 13.4, altitude: -0.0)
    #expect(plain == again)
    #expect(plain.hashValue == again.hashValue)
    #expect(plain.altitude == nil && zero.altitude == 0)
    #expect(plain != zero)
    #expect(zero == negativeZero && zero.hashValue == negativeZero.hashValue)
    #expect(Set([plain, again, zero, negativeZero]).count == 2)
    #expect(MemoryLayout<GeoCoordinates>.stride == 24)
  }
}
