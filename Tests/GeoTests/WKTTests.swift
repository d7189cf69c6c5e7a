import Testing
import TrafficTestSupport

@testable import Geo

/// Coordinates from known-valid literals.
private func at(
  _ latitude: Double, _ longitude: Double, _ altitude: Double? = nil
)
  -> GeoCoordinates
{
  GeoCoordinates(uncheckedLatitude: latitude, longitude: longitude, altitude: altitude)
}

private func malformed(_ position: Int?, _ reason: String) -> GeoError {
  .malformed(format: "WKT", position: position, reason: reason)
}

/// Well-Known Text and the geometry it must parse to. The first ones are the examples of the
/// Wikipedia article "Well-known text representation of geometry" (axis order x y = lng lat).
private let parseCases: [(String, GeoGeometry)] = [
  ("POINT (30 10)", .point(at(10, 30))),
  ("LINESTRING (30 10, 10 30, 40 40)", .lineString([at(10, 30), at(30, 10), at(40, 40)])),
  (
    "POLYGON ((30 10, 40 40, 20 40, 10 20, 30 10))",
    .polygon([[at(10, 30), at(40, 40), at(40, 20), at(20, 10), at(10, 30)]])
  ),
  (
    "POLYGON ((35 10, 45 45, 15 40, 10 20, 35 10),\n(20 30, 35 35, 30 20, 20 30))",
    .polygon([
      [at(10, 35), at(45, 45), at(40, 15), at(20, 10), at(10, 35)],
      [at(30, 20), at(35, 35), at(20, 30), at(30, 20)],
    ])
  ),
  (
    "MULTIPOINT ((10 40), (40 30), (20 20), (30 10))",
    .multiPoint([at(40, 10), at(30, 40), at(20, 20), at(10, 30)])
  ),
  (
    "MULTIPOINT (10 40, 40 30, 20 20, 30 10)",
    .multiPoint([at(40, 10), at(30, 40), at(20, 20), at(10, 30)])
  ),
  (
    "MULTILINESTRING ((10 10, 20 20, 10 40),\n(40 40, 30 30, 40 20, 30 10))",
    .multiLineString([
      [at(10, 10), at(20, 20), at(40, 10)], [at(40, 40), at(30, 30), at(20, 40), at(10, 30)],
    ])
  ),
  (
    "MULTIPOLYGON (((30 20, 45 40, 10 40, 30 20)),\n((15 5, 40 10, 10 20, 5 10, 15 5)))",
    .multiPolygon([
      [[at(20, 30), at(40, 45), at(40, 10), at(20, 30)]],
      [[at(5, 15), at(10, 40), at(20, 10), at(10, 5), at(5, 15)]],
    ])
  ),
  // Case, whitespace, SRID and dimension tags.
  ("point(30 10)", .point(at(10, 30))),
  ("  Point\t( -0.5\n\r 51.25 )  ", .point(at(51.25, -0.5))),
  ("SRID=4326;POINT(8.69821 50.10228)", .point(at(50.10228, 8.69821))),
  ("srid = 4326 ; LineString(1 2, 3 4)", .lineString([at(2, 1), at(4, 3)])),
  ("POINT Z (1 2 3)", .point(at(2, 1, 3))),
  ("POINTZ(1 2 3)", .point(at(2, 1, 3))),
  ("POINT M (1 2 3)", .point(at(2, 1))),
  ("POINT ZM (1 2 3 4)", .point(at(2, 1, 3))),
  ("pointzm(1 2 3 4)", .point(at(2, 1, 3))),
  ("POINT (1 2 3)", .point(at(2, 1, 3))),
  ("POINT (1 2 3 4)", .point(at(2, 1, 3))),
  ("LINESTRING M (1 2 7, 3 4 8)", .lineString([at(2, 1), at(4, 3)])),
  ("LINESTRING (1 2 3, 3 4 5)", .lineString([at(2, 1, 3), at(4, 3, 5)])),
  ("POINT (1.5e2 -2.5E-1)", .point(at(-0.25, 150))),
  ("POINT (180 -90)", .point(at(-90, 180))),
]

/// Bad text and the exact error (with character offset) it must produce.
private let malformedCases: [(String, GeoError)] = [
  ("POINT EMPTY", malformed(6, "EMPTY geometries are not supported")),
  ("LINESTRING Z EMPTY", malformed(13, "EMPTY geometries are not supported")),
  ("MULTILINESTRING (EMPTY, (1 2, 3 4))", malformed(17, "EMPTY geometries are not supported")),
  ("", malformed(0, "expected a geometry type, found the end of the text")),
  ("(1 2)", malformed(0, "expected a geometry type, found '('")),
  ("CIRCLE (1 2)", malformed(0, "unknown geometry type \"CIRCLE\"")),
  (
    "GEOMETRYCOLLECTION (POINT (1 2))", malformed(0, "unknown geometry type \"GEOMETRYCOLLECTION\"")
  ),
  (
    "SRID=3857;POINT (1 2)",
    malformed(5, "SRID 3857 is not supported; only 4326 (WGS84 longitude/latitude)")
  ),
  ("SRID=;POINT (1 2)", malformed(5, "expected an SRID number")),
  ("SRID=4326 POINT (1 2)", malformed(10, "expected ';', found 'P'")),
  ("SRID 4326;POINT (1 2)", malformed(5, "expected '=', found '4'")),
  ("POINT 1 2", malformed(6, "expected '(', found '1'")),
  ("POINT (1 2", malformed(10, "expected ')', found the end of the text")),
  ("LINESTRING (1 2, 3 4", malformed(20, "expected ',' or ')', found the end of the text")),
  ("POINT (1 2) x", malformed(12, "unexpected 'x' after the geometry")),
  ("POINT (1 2))", malformed(11, "unexpected ')' after the geometry")),
  ("POINT (1, 2)", malformed(7, "a position here needs 2 to 4 numbers, got 1")),
  ("POINT ()", malformed(7, "expected a number, found ')'")),
  ("POINT (1 2 3 4 5)", malformed(15, "a position has at most 4 numbers")),
  ("LINESTRING (1 2 3, 3 4)", malformed(19, "a position here needs 3 numbers, got 2")),
  ("POINT Z (1 2)", malformed(9, "a position here needs 3 numbers, got 2")),
  ("POINT ZM (1 2 3)", malformed(10, "a position here needs 4 numbers, got 3")),
  ("POINT (1e 2)", malformed(7, "invalid number \"1e\"")),
  ("POINT (1-2 3)", malformed(7, "invalid number \"1-2\"")),
  ("POINT (nan 3)", malformed(7, "expected a number, found 'n'")),
  ("POINT (1 2)é", malformed(11, "unexpected byte 0xC3 after the geometry")),
  ("POINT (30 95)", malformed(10, "latitude 95.0 is outside -90...90 degrees")),
  ("POINT (-180.5 0)", malformed(7, "longitude -180.5 is outside -180...180 degrees")),
  ("POINT (1 2 1e400)", malformed(11, "invalid number \"1e400\"")),
  ("LINESTRING (30 10)", malformed(11, "a line string needs at least 2 positions, got 1")),
  // Four numbers without a tag are x y z m: one position.
  ("LINESTRING (30 10 20 40)", malformed(11, "a line string needs at least 2 positions, got 1")),
  ("LINESTRING (30 10; 20 40)", malformed(17, "expected ',' or ')', found ';'")),
  (
    "POLYGON ((0 0, 1 0, 1 1, 0 0.5))",
    malformed(9, "a linear ring must end at its first position")
  ),
  ("POLYGON ((0 0, 1 0, 0 0))", malformed(9, "a linear ring needs at least 4 positions, got 3")),
  ("POLYGON (0 0, 1 0, 1 1, 0 0)", malformed(9, "expected '(', found '0'")),
  (
    "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((0 0, 1 0, 1 1, 0 0))",
    malformed(60, "expected ',' or ')', found the end of the text")
  ),
]

@Suite struct WKTTests {
  @Test(arguments: parseCases)
  func parsesReferenceText(text: String, expected: GeoGeometry) throws {
    #expect(try WKT.parse(text) == expected)
  }

  @Test(arguments: malformedCases)
  func rejectsMalformedText(text: String, error: GeoError) {
    #expect(throws: error) { try WKT.parse(text) }
  }

  @Test func writesCanonicalText() throws {
    #expect(try WKT.write(.point(at(10, 30))) == "POINT (30 10)")
    #expect(
      try WKT.write(.lineString([at(50.10228, 8.69821, 112.5), at(50.10201, 8.69567, -3)]))
        == "LINESTRING Z (8.69821 50.10228 112.5, 8.69567 50.10201 -3)")
    // One position without altitude: every altitude is dropped.
    #expect(
      try WKT.write(.lineString([at(1, 2, 5), at(3, 4)])) == "LINESTRING (2 1, 4 3)")
    #expect(
      try WKT.write(.multiPoint([at(40, 10), at(30, 40)])) == "MULTIPOINT ((10 40), (40 30))")
    #expect(
      try WKT.write(
        .polygon([
          [at(10, 35), at(45, 45), at(40, 15), at(20, 10), at(10, 35)],
          [at(30, 20), at(35, 35), at(20, 30), at(30, 20)],
        ]))
        == "POLYGON ((35 10, 45 45, 15 40, 10 20, 35 10), (20 30, 35 35, 30 20, 20 30))")
    #expect(
      try WKT.write(
        .multiPolygon([
          [[at(20, 30), at(40, 45), at(40, 10), at(20, 30)]],
          [[at(5, 15), at(10, 40), at(20, 10), at(5, 15)]],
        ]))
        == "MULTIPOLYGON (((30 20, 45 40, 10 40, 30 20)), ((15 5, 40 10, 10 20, 15 5)))")
    #expect(
      try WKT.write(.multiLineString([[at(1, 2), at(3, 4)], [at(-0.5, 1e-7), at(0, 0)]]))
        == "MULTILINESTRING ((2 1, 4 3), (1e-07 -0.5, 0 0))")
  }

  @Test func refusesToWriteInvalidGeometry() {
    #expect(throws: malformed(nil, "a line string needs at least 2 positions, got 0")) {
      try WKT.write(.lineString([]))
    }
    #expect(throws: malformed(nil, "part [1]: a linear ring needs at least 4 positions, got 2")) {
      try WKT.write(
        .polygon([[at(0, 0), at(0, 1), at(1, 1), at(0, 0)], [at(0, 0), at(0, 0)]]))
    }
  }

  /// Random geometries of every kind survive write -> parse exactly (altitudes kept when
  /// every position has one).
  @Test func roundTripsRandomGeometries() throws {
    var generator = SeededGenerator(seed: 0x3C7)
    for trial in 0..<300 {
      let geometry = randomGeoGeometry(kind: trial % 6, using: &generator)
      let text = try WKT.write(geometry)
      let parsed = try WKT.parse(text)
      let keepsAltitude = geometry.polylines.allSatisfy { line in
        line.vertices.allSatisfy { $0.altitude != nil }
      }
      #expect(text.contains(" Z (") == keepsAltitude)
      let expected = keepsAltitude ? geometry : withoutAltitudes(geometry)
      #expect(parsed == expected, "\(text)")
      // And the same through EWKT with odd spacing and case.
      #expect(try WKT.parse("srid=4326;\n" + text.lowercased()) == expected)
    }
  }

  /// Valid text with random edits (deletions, insertions of WKT vocabulary and stray bytes,
  /// truncation) must parse or throw a `.malformed` WKT error inside the text.
  @Test func mutatedTextParsesOrThrowsWithoutTrapping() throws {
    var generator = SeededGenerator(seed: 0x3C7_F022)
    let pieces: [String] = [
      "POINT", "Z", "M", "ZM", "EMPTY", "SRID=4326;", "(", ")", ",", " ", "1", "-2.5", "1e3",
      "95", "e", ".", "é", "\n", "\u{0}",
    ]
    var parsedCount = 0
    var rejectedCount = 0
    for trial in 0..<3000 {
      let original = try WKT.write(randomGeoGeometry(kind: trial % 6, using: &generator))
      var characters = Array(original)
      for _ in 0..<Int.random(in: 0...3, using: &generator) where !characters.isEmpty {
        let index = Int.random(in: 0..<characters.count, using: &generator)
        let piece = Array(pieces[Int.random(in: 0..<pieces.count, using: &generator)])
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: characters.remove(at: index)
        case 1: characters.insert(contentsOf: piece, at: index)
        case 2: characters.replaceSubrange(index...index, with: piece)
        default: characters.removeSubrange(index...)
        }
      }
      let text = String(characters)
      do {
        let geometry = try WKT.parse(text)
        parsedCount += 1
        // Whatever parses is valid and writes back to text that parses to the same value.
        #expect(try WKT.parse(try WKT.write(geometry)) == geometry, "\(text)")
      } catch {
        rejectedCount += 1
        guard case .malformed(let format, let position, _) = error else {
          Issue.record("unexpected error \(error) for \(text)")
          continue
        }
        #expect(format == "WKT")
        #expect(position.map { (0...text.utf8.count).contains($0) } ?? false, "\(text)")
      }
    }
    #expect(parsedCount > 500)
    #expect(rejectedCount > 1000)
  }
}

/// The geometry with every altitude removed.
private func withoutAltitudes(_ geometry: GeoGeometry) -> GeoGeometry {
  func flat(_ point: GeoCoordinates) -> GeoCoordinates {
    GeoCoordinates(uncheckedLatitude: point.latitude, longitude: point.longitude)
  }
  switch geometry {
  case .point(let point): return .point(flat(point))
  case .multiPoint(let points): return .multiPoint(points.map(flat))
  case .lineString(let line): return .lineString(line.map(flat))
  case .multiLineString(let lines): return .multiLineString(lines.map { $0.map(flat) })
  case .polygon(let rings): return .polygon(rings.map { $0.map(flat) })
  case .multiPolygon(let polygons):
    return .multiPolygon(polygons.map { $0.map { $0.map(flat) } })
  }
}
