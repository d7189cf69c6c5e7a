import Foundation
import Testing
import TrafficTestSupport

@testable import Geo

/// One line of HERE's conformance files: header and the numbers as printed.
private struct ConformanceLine {
  let precision: Int
  let thirdDimensionPrecision: Int
  let thirdDimension: Int
  let numbers: [String]

  /// Parses `{(p); [(a, b), ]}` or `{(p, p3, t); [(a, b, c), ]}`.
  init(_ line: Substring) throws {
    let open = try #require(line.firstIndex(of: "("))
    let close = try #require(line.firstIndex(of: ")"))
    let header = line[line.index(after: open)..<close].split(separator: ",").map {
      Int($0.trimmingCharacters(in: .whitespaces))
    }
    precision = try #require(header[0])
    thirdDimensionPrecision = header.count == 3 ? try #require(header[1]) : 0
    thirdDimension = header.count == 3 ? try #require(header[2]) : 0
    let bracket = try #require(line.firstIndex(of: "["))
    numbers = line[bracket...].split(whereSeparator: { "[](), }".contains($0) })
      .map(String.init)
  }
}

private func lines(_ name: String) throws -> [Substring] {
  let text = try String(contentsOf: Fixtures.vectors("GeoTests", name), encoding: .utf8)
  return text.split(separator: "\n")
}

private func malformed(_ position: Int?, _ reason: String) -> GeoError {
  .malformed(format: "flexible polyline", position: position, reason: reason)
}

/// Bad encoded strings and the exact error each must produce.
private let malformedCases: [(String, GeoError)] = [
  ("", malformed(0, "empty input: missing header version")),
  ("CF", malformed(0, "unsupported version 2; only version 1 is defined")),
  ("B", malformed(1, "missing header")),
  ("BggC", malformed(1, "header 2048 sets bits beyond bit 10")),
  ("BFoz5x!67i1B", malformed(6, "invalid character '!'")),
  ("BFoz 5x", malformed(4, "invalid character byte 0x20")),
  ("BFoz5xJ67i1Bé", malformed(12, "invalid character byte 0xC3")),
  ("BFoz5xJ67i1BB", malformed(12, "the last tuple has 1 of 2 values (latitude, longitude)")),
  ("BFoz5xJ67i1Bg", malformed(12, "value cut off: the input ends inside it")),
  (
    "BlBoz5xJ67i1B",
    malformed(3, "the last tuple has 2 of 3 values (latitude, longitude, third dimension)")
  ),
  ("BF" + String(repeating: "g", count: 13) + "A", malformed(2, "value does not fit in 64 bits")),
  ("BF" + String(repeating: "g", count: 12) + "Q", malformed(2, "value does not fit in 64 bits")),
  (
    "BF" + String(repeating: "g", count: 12) + "IA" + String(repeating: "g", count: 12) + "IA",
    malformed(16, "accumulated value overflows 64 bits")
  ),
]

@Suite struct FlexiblePolylineTests {
  // MARK: Reference vectors

  /// The example of HERE's specification README.
  @Test func decodesSpecificationExample() throws {
    let decoded = try FlexiblePolyline.decode("BFoz5xJ67i1B1B7PzIhaxL7Y")
    #expect(decoded.precision == 5)
    #expect(decoded.thirdDimension == .absent)
    #expect(decoded.thirdDimensionValues.isEmpty)
    #expect(
      decoded.coordinates == [
        try GeoCoordinates(latitude: 50.10228, longitude: 8.69821),
        try GeoCoordinates(latitude: 50.10201, longitude: 8.69567),
        try GeoCoordinates(latitude: 50.10063, longitude: 8.69150),
        try GeoCoordinates(latitude: 50.09878, longitude: 8.68752),
      ])
  }

  @Test func encodesSpecificationExample() throws {
    let coordinates = [
      try GeoCoordinates(latitude: 50.10228, longitude: 8.69821),
      try GeoCoordinates(latitude: 50.10201, longitude: 8.69567),
      try GeoCoordinates(latitude: 50.10063, longitude: 8.69150),
      try GeoCoordinates(latitude: 50.09878, longitude: 8.68752),
    ]
    #expect(try FlexiblePolyline.encode(coordinates) == "BFoz5xJ67i1B1B7PzIhaxL7Y")
  }

  /// HERE's conformance data (round half away from zero): every precision 0...15 and every
  /// third-dimension type 0...7. Encoding the original gives the encoded line; decoding that
  /// gives the decoded line, compared as printed with 15 decimals.
  @Test func matchesHEREConformanceVectors() throws {
    let originals = try lines("flexible-polyline-original.txt")
    let encodeds = try lines("flexible-polyline-encoded.txt")
    let decodeds = try lines("flexible-polyline-decoded.txt")
    #expect(originals.count == 168)
    #expect(encodeds.count == originals.count && decodeds.count == originals.count)
    var typesSeen = Set<Int>()
    for (index, ((original, encoded), decodedLine)) in zip(zip(originals, encodeds), decodeds)
      .enumerated()
    {
      let source = try ConformanceLine(original)
      let expected = try ConformanceLine(decodedLine)
      let type = try #require(FlexiblePolyline.ThirdDimension(rawValue: source.thirdDimension))
      typesSeen.insert(source.thirdDimension)
      let header = try FlexiblePolyline.Header(
        precision: source.precision, thirdDimension: type,
        thirdDimensionPrecision: source.thirdDimensionPrecision)
      let stride = header.valuesPerTuple
      var scaled: [Int64] = []
      for (position, text) in source.numbers.enumerated() {
        let value = try #require(Double(text))
        let precision = position % stride == 2 ? header.thirdDimensionPrecision : header.precision
        scaled.append(try FlexiblePolyline.scaled(value, precision: precision))
      }
      #expect(
        try FlexiblePolyline.encode(scaled: scaled, header: header) == String(encoded),
        "line \(index + 1)")

      let (decodedHeader, values) = try FlexiblePolyline.decodeScaled(String(encoded))
      #expect(decodedHeader == header, "line \(index + 1)")
      let printed = values.enumerated().map { position, value in
        let precision = position % stride == 2 ? header.thirdDimensionPrecision : header.precision
        return String(format: "%.15f", Double(value) / FlexiblePolyline.powersOfTen[precision])
      }
      #expect(printed == expected.numbers, "line \(index + 1)")
    }
    #expect(typesSeen == Set(0...7))
  }

  // MARK: Round trips

  @Test(arguments: 0...15)
  func roundTripsRandomCoordinatesAtEveryPrecision(precision: Int) throws {
    var generator = SeededGenerator(seed: 0xF1E7 &+ UInt64(precision))
    let factor = FlexiblePolyline.powersOfTen[precision]
    for trial in 0..<20 {
      let count = Int.random(in: 0...30, using: &generator)
      let coordinates = try (0..<count).map { _ in
        try GeoCoordinates(
          latitude: Double.random(in: -90...90, using: &generator),
          longitude: Double.random(in: -180...180, using: &generator))
      }
      let encoded = try FlexiblePolyline.encode(coordinates, precision: precision)
      let decoded = try FlexiblePolyline.decode(encoded)
      #expect(decoded.precision == precision)
      #expect(decoded.coordinates.count == count)
      for (original, result) in zip(coordinates, decoded.coordinates) {
        // Independent of the codec: the value rounded to `precision` decimals.
        let latitude = (original.latitude * factor).rounded(.toNearestOrAwayFromZero) / factor
        let longitude = (original.longitude * factor).rounded(.toNearestOrAwayFromZero) / factor
        #expect(result.latitude == latitude, "trial \(trial)")
        #expect(result.longitude == longitude, "trial \(trial)")
        #expect(
          abs(result.latitude - original.latitude) <= 0.5 / factor + 2 * original.latitude.ulp)
        #expect(result.altitude == nil)
      }
    }
  }

  @Test(arguments: FlexiblePolyline.ThirdDimension.allCases.filter { $0 != .absent })
  func roundTripsEveryThirdDimensionType(type: FlexiblePolyline.ThirdDimension) throws {
    var generator = SeededGenerator(seed: 0x3D00 &+ UInt64(type.rawValue))
    for thirdPrecision in 0...15 {
      let precision = Int.random(in: 0...15, using: &generator)
      let factor = FlexiblePolyline.powersOfTen[thirdPrecision]
      let coordinates = try (0..<5).map { _ in
        try GeoCoordinates(
          latitude: Double.random(in: -90...90, using: &generator),
          longitude: Double.random(in: -180...180, using: &generator))
      }
      let thirdValues = (0..<5).map { _ in Double.random(in: -1000...1000, using: &generator) }
      let encoded = try FlexiblePolyline.encode(
        coordinates, precision: precision, thirdDimension: type,
        thirdDimensionPrecision: thirdPrecision, thirdDimensionValues: thirdValues)
      let decoded = try FlexiblePolyline.decode(encoded)
      #expect(decoded.thirdDimension == type)
      #expect(decoded.precision == precision)
      #expect(decoded.thirdDimensionPrecision == thirdPrecision)
      let expected = thirdValues.map { ($0 * factor).rounded(.toNearestOrAwayFromZero) / factor }
      #expect(decoded.thirdDimensionValues == expected)
      let carriesAltitude = type == .altitude || type == .elevation
      #expect(decoded.coordinates.map(\.altitude) == expected.map { carriesAltitude ? $0 : nil })
    }
  }

  @Test func encodesAltitudesWhenNoThirdValuesAreGiven() throws {
    let coordinates = [
      try GeoCoordinates(latitude: 50.1, longitude: 8.6, altitude: 112.5),
      try GeoCoordinates(latitude: 50.2, longitude: 8.7, altitude: -3.25),
    ]
    let encoded = try FlexiblePolyline.encode(
      coordinates, precision: 6, thirdDimension: .elevation, thirdDimensionPrecision: 2)
    let decoded = try FlexiblePolyline.decode(encoded)
    #expect(decoded.coordinates == coordinates)
    #expect(decoded.thirdDimensionValues == [112.5, -3.25])
  }

  @Test func roundsHalfAwayFromZero() throws {
    // 0.5 and -0.5 at precision 0 are exact ties; 2.5 tells it from round-half-even.
    let header = try FlexiblePolyline.Header(precision: 0)
    #expect(try FlexiblePolyline.scaled(0.5, precision: 0) == 1)
    #expect(try FlexiblePolyline.scaled(-0.5, precision: 0) == -1)
    #expect(try FlexiblePolyline.scaled(2.5, precision: 0) == 3)
    #expect(try FlexiblePolyline.scaled(-2.5, precision: 0) == -3)
    #expect(try FlexiblePolyline.encode(scaled: [3, -3], header: header) == "BAGF")
  }

  @Test func decodesEmptyDataForEveryHeader() throws {
    for precision in 0...15 {
      for type in FlexiblePolyline.ThirdDimension.allCases {
        let thirdPrecision = type == .absent ? 0 : 15 - precision
        let encoded = try FlexiblePolyline.encode(
          [], precision: precision, thirdDimension: type,
          thirdDimensionPrecision: thirdPrecision, thirdDimensionValues: type == .absent ? nil : [])
        let decoded = try FlexiblePolyline.decode(encoded)
        #expect(decoded.coordinates.isEmpty)
        #expect(decoded.precision == precision)
        #expect(decoded.thirdDimension == type)
        #expect(decoded.thirdDimensionPrecision == thirdPrecision)
      }
    }
  }

  // MARK: Bad input

  @Test(arguments: malformedCases)
  func rejectsMalformedInput(encoded: String, error: GeoError) {
    #expect(throws: error) { try FlexiblePolyline.decode(encoded) }
  }

  @Test func rejectsOutOfRangeCoordinatesWithTheirPosition() throws {
    let header = try FlexiblePolyline.Header(precision: 5)
    let latitude = try FlexiblePolyline.encode(scaled: [9_500_000, 0], header: header)
    #expect(throws: malformed(2, "latitude 95.0 is outside -90...90 degrees")) {
      try FlexiblePolyline.decode(latitude)
    }
    // The first tuple is valid; the second's longitude (delta after "AA") is 180.00001.
    let longitude = try FlexiblePolyline.encode(scaled: [0, 0, 0, 18_000_001], header: header)
    #expect(longitude.hasPrefix("BFAAA"))
    #expect(throws: malformed(5, "longitude 180.00001 is outside -180...180 degrees")) {
      try FlexiblePolyline.decode(longitude)
    }
    // The largest 64-bit value still within the 13-chunk limit, read as a latitude.
    let huge = "BF" + String(repeating: "g", count: 12) + "PA"
    #expect(throws: malformed(2, "latitude 86469112845513.52 is outside -90...90 degrees")) {
      try FlexiblePolyline.decode(huge)
    }
  }

  @Test func rejectsBadEncodingArguments() throws {
    let point = try GeoCoordinates(latitude: 1, longitude: 2)
    #expect(throws: malformed(nil, "precision 16 is outside 0...15")) {
      try FlexiblePolyline.encode([point], precision: 16)
    }
    #expect(throws: malformed(nil, "third-dimension precision -1 is outside 0...15")) {
      try FlexiblePolyline.encode([point], thirdDimension: .level, thirdDimensionPrecision: -1)
    }
    #expect(throws: malformed(nil, "third-dimension values given for a 2D polyline")) {
      try FlexiblePolyline.encode([point], thirdDimensionValues: [1])
    }
    #expect(throws: malformed(nil, "2 third-dimension values for 1 coordinates")) {
      try FlexiblePolyline.encode([point], thirdDimension: .level, thirdDimensionValues: [1, 2])
    }
    #expect(throws: malformed(nil, "coordinate 0 has no altitude for the third dimension")) {
      try FlexiblePolyline.encode([point], thirdDimension: .altitude)
    }
    #expect(
      throws: malformed(nil, "third-dimension value 0: 1e+300 cannot be scaled by 10^2 into ±2^61")
    ) {
      try FlexiblePolyline.encode(
        [point], thirdDimension: .custom1, thirdDimensionPrecision: 2,
        thirdDimensionValues: [1e300])
    }
    #expect(
      throws: malformed(nil, "third-dimension value 0: nan cannot be scaled by 10^0 into ±2^61")
    ) {
      try FlexiblePolyline.encode([point], thirdDimension: .level, thirdDimensionValues: [.nan])
    }
  }

  /// Random strings must decode or throw a `.malformed` flexible-polyline error inside the
  /// input; whatever decodes must survive re-encoding unchanged.
  @Test func randomInputDecodesOrThrowsWithoutTrapping() throws {
    var generator = SeededGenerator(seed: 0xBAD_F00D)
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    let junk = Array(" !=+/.é\u{0}~")
    var decodedCount = 0
    var rejectedCount = 0
    for _ in 0..<5000 {
      var text = Bool.random(using: &generator) ? "B" : ""
      let length = Int.random(in: 0...40, using: &generator)
      for _ in 0..<length {
        let useJunk = Int.random(in: 0..<50, using: &generator) == 0
        let pool = useJunk ? junk : alphabet
        text.append(pool[Int.random(in: 0..<pool.count, using: &generator)])
      }
      do {
        let decoded = try FlexiblePolyline.decode(text)
        decodedCount += 1
        let (_, scaled) = try FlexiblePolyline.decodeScaled(text)
        // Values beyond 2^50 lose digits through Double and cannot come back exactly.
        guard scaled.allSatisfy({ $0.magnitude < 1 << 50 }) else { continue }
        let reencoded = try FlexiblePolyline.encode(
          decoded.coordinates, precision: decoded.precision,
          thirdDimension: decoded.thirdDimension,
          thirdDimensionPrecision: decoded.thirdDimensionPrecision,
          thirdDimensionValues: decoded.thirdDimension == .absent
            ? nil : decoded.thirdDimensionValues)
        #expect(try FlexiblePolyline.decodeScaled(reencoded).values == scaled, "\(text)")
      } catch {
        rejectedCount += 1
        guard case .malformed(let format, let position, _) = error else {
          Issue.record("unexpected error \(error) for \(text)")
          continue
        }
        #expect(format == "flexible polyline")
        #expect(position.map { (0...text.utf8.count).contains($0) } ?? false, "\(text)")
      }
    }
    // Both outcomes must be exercised for the loop to mean anything.
    #expect(decodedCount > 100)
    #expect(rejectedCount > 100)
  }
}
