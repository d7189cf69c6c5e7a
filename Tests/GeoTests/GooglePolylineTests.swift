import Testing
import TrafficTestSupport

@testable import Geo

private func malformed(_ position: Int?, _ reason: String) -> GeoError {
  .malformed(format: "Google polyline", position: position, reason: reason)
}

/// The three points of Google's documentation example.
private let documentationPoints: [GeoCoordinates] = [
  GeoCoordinates(uncheckedLatitude: 38.5, longitude: -120.2),
  GeoCoordinates(uncheckedLatitude: 40.7, longitude: -120.95),
  GeoCoordinates(uncheckedLatitude: 43.252, longitude: -126.453),
]

/// Bad encoded strings (precision 5) and the exact error each must produce.
private let malformedCases: [(String, GeoError)] = [
  ("_p~iF~ps|U_ulL", malformed(10, "a latitude without its longitude")),
  ("_p~iF~ps|U_", malformed(10, "value cut off: the input ends inside it")),
  ("_p~iF ~ps|U", malformed(5, "invalid character byte 0x20")),
  ("_p~iF>ps|U", malformed(5, "invalid character '>'")),
  ("_p~iF~ps|\u{7F}", malformed(9, "invalid character byte 0x7F")),
  ("_p~iF~ps|Ué", malformed(10, "invalid character byte 0xC3")),
  (String(repeating: "_", count: 13) + "??", malformed(0, "value does not fit in 64 bits")),
  (String(repeating: "_", count: 12) + "O?", malformed(0, "value does not fit in 64 bits")),
]

@Suite struct GooglePolylineTests {
  @Test func encodesDocumentationExample() throws {
    #expect(try GooglePolyline.encode(documentationPoints) == "_p~iF~ps|U_ulLnnqC_mqNvxq`@")
  }

  @Test func decodesDocumentationExample() throws {
    #expect(try GooglePolyline.decode("_p~iF~ps|U_ulLnnqC_mqNvxq`@") == documentationPoints)
  }

  /// The single-value walk-through of Google's documentation: -179.9832104 -> "`~oia@".
  @Test func encodesDocumentationSingleValue() throws {
    let point = try GeoCoordinates(latitude: 0, longitude: -179.9832104)
    #expect(try GooglePolyline.encode([point]) == "?`~oia@")
  }

  /// Precision 6 (OSRM, Valhalla); the expected string was computed with an independent
  /// Python implementation and matches the polyline6 example of mapbox/polyline.
  @Test func encodesAndDecodesAtPrecisionSix() throws {
    let encoded = "_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI"
    #expect(try GooglePolyline.encode(documentationPoints, precision: 6) == encoded)
    #expect(try GooglePolyline.decode(encoded, precision: 6) == documentationPoints)
  }

  @Test func emptyTextIsAnEmptyPath() throws {
    #expect(try GooglePolyline.decode("").isEmpty)
    #expect(try GooglePolyline.encode([]) == "")
  }

  @Test func roundsHalfAwayFromZeroAndDropsAltitude() throws {
    // Ties at precision 0 are exact in binary; 2.5 tells this from round-half-even.
    let points = [
      try GeoCoordinates(latitude: 0.5, longitude: -0.5, altitude: 10),
      try GeoCoordinates(latitude: 2.5, longitude: -2.5),
    ]
    let decoded = try GooglePolyline.decode(
      try GooglePolyline.encode(points, precision: 0), precision: 0)
    #expect(
      decoded == [
        try GeoCoordinates(latitude: 1, longitude: -1),
        try GeoCoordinates(latitude: 3, longitude: -3),
      ])
  }

  @Test(arguments: [5, 6])
  func roundTripsRandomCoordinates(precision: Int) throws {
    var generator = SeededGenerator(seed: 0x600613 &+ UInt64(precision))
    let factor = precision == 5 ? 1e5 : 1e6
    for _ in 0..<50 {
      let coordinates = try (0..<Int.random(in: 0...40, using: &generator)).map { _ in
        try GeoCoordinates(
          latitude: Double.random(in: -90...90, using: &generator),
          longitude: Double.random(in: -180...180, using: &generator))
      }
      let decoded = try GooglePolyline.decode(
        try GooglePolyline.encode(coordinates, precision: precision), precision: precision)
      let expected = try coordinates.map {
        try GeoCoordinates(
          latitude: ($0.latitude * factor).rounded(.toNearestOrAwayFromZero) / factor,
          longitude: ($0.longitude * factor).rounded(.toNearestOrAwayFromZero) / factor)
      }
      #expect(decoded == expected)
    }
  }

  @Test(arguments: malformedCases)
  func rejectsMalformedInput(encoded: String, error: GeoError) {
    #expect(throws: error) { try GooglePolyline.decode(encoded) }
  }

  @Test func rejectsOutOfRangeCoordinatesWithTheirPosition() throws {
    // Encoded at precision 6 and read at 5, every value is ten times too large.
    let text = try GooglePolyline.encode(
      [try GeoCoordinates(latitude: 50, longitude: 1)], precision: 6)
    #expect(throws: malformed(0, "latitude 500.0 is outside -90...90 degrees")) {
      try GooglePolyline.decode(text)
    }
    let longitude = try GooglePolyline.encode(
      [try GeoCoordinates(latitude: 1, longitude: 20)], precision: 6)
    #expect(throws: malformed(5, "longitude 200.0 is outside -180...180 degrees")) {
      try GooglePolyline.decode(longitude)
    }
  }

  @Test func rejectsAccumulatedOverflow() throws {
    // After latitude 50, a latitude delta of Int64.max (zig-zag 2^64 - 2) overflows the sum.
    let prefix = try GooglePolyline.encode([try GeoCoordinates(latitude: 50, longitude: 0)])
    let text = prefix + "}" + String(repeating: "~", count: 11) + "N?"
    #expect(throws: malformed(prefix.utf8.count, "accumulated value overflows 64 bits")) {
      try GooglePolyline.decode(text)
    }
  }

  @Test func rejectsUnsupportedPrecision() {
    #expect(throws: malformed(nil, "precision 11 is outside 0...10")) {
      try GooglePolyline.decode("??", precision: 11)
    }
    #expect(throws: malformed(nil, "precision -1 is outside 0...10")) {
      try GooglePolyline.encode([], precision: -1)
    }
  }

  /// Random strings must decode or throw a `.malformed` error inside the input.
  @Test func randomInputDecodesOrThrowsWithoutTrapping() throws {
    var generator = SeededGenerator(seed: 0x6006_1E)
    var decodedCount = 0
    var rejectedCount = 0
    for _ in 0..<5000 {
      let length = Int.random(in: 0...40, using: &generator)
      var bytes: [UInt8] = []
      for _ in 0..<length {
        bytes.append(
          Int.random(in: 0..<40, using: &generator) == 0
            ? UInt8.random(in: 0...127, using: &generator)
            : UInt8.random(in: 63...126, using: &generator))
      }
      let text = String(decoding: bytes, as: UTF8.self)
      do {
        let decoded = try GooglePolyline.decode(text)
        decodedCount += 1
        #expect(decoded.count * 2 <= text.utf8.count)
      } catch {
        rejectedCount += 1
        guard case .malformed(let format, let position, _) = error else {
          Issue.record("unexpected error \(error) for \(text)")
          continue
        }
        #expect(format == "Google polyline")
        #expect(position.map { (0...text.utf8.count).contains($0) } ?? false, "\(text)")
      }
    }
    #expect(decodedCount > 100)
    #expect(rejectedCount > 100)
  }
}
