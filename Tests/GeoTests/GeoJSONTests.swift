import Foundation
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

private func malformed(_ reason: String) -> GeoError {
  .malformed(format: "GeoJSON", position: nil, reason: reason)
}

private func decode(_ json: String) throws(GeoError) -> GeoGeometry {
  try GeoJSON.decodeGeometry(from: Data(json.utf8))
}

/// The geometry examples of RFC 7946 Appendix A, with the geometry each must decode to.
private let rfcExamples: [(String, GeoGeometry)] = [
  (#"{"type": "Point", "coordinates": [100.0, 0.0]}"#, .point(at(0, 100))),
  (
    #"{"type": "LineString", "coordinates": [[100.0, 0.0], [101.0, 1.0]]}"#,
    .lineString([at(0, 100), at(1, 101)])
  ),
  (
    #"{"type": "Polygon", "coordinates": [[[100.0, 0.0], [101.0, 0.0], [101.0, 1.0], "#
      + #"[100.0, 1.0], [100.0, 0.0]], [[100.8, 0.8], [100.8, 0.2], [100.2, 0.2], [100.2, 0.8], "#
      + #"[100.8, 0.8]]]}"#,
    .polygon([
      [at(0, 100), at(0, 101), at(1, 101), at(1, 100), at(0, 100)],
      [at(0.8, 100.8), at(0.2, 100.8), at(0.2, 100.2), at(0.8, 100.2), at(0.8, 100.8)],
    ])
  ),
  (
    #"{"type": "MultiPoint", "coordinates": [[100.0, 0.0], [101.0, 1.0]]}"#,
    .multiPoint([at(0, 100), at(1, 101)])
  ),
  (
    #"{"type": "MultiLineString", "coordinates": [[[100.0, 0.0], [101.0, 1.0]], "#
      + #"[[102.0, 2.0], [103.0, 3.0]]]}"#,
    .multiLineString([[at(0, 100), at(1, 101)], [at(2, 102), at(3, 103)]])
  ),
  (
    #"{"type": "MultiPolygon", "coordinates": [[[[102.0, 2.0], [103.0, 2.0], [103.0, 3.0], "#
      + #"[102.0, 3.0], [102.0, 2.0]]], [[[100.0, 0.0], [101.0, 0.0], [101.0, 1.0], "#
      + #"[100.0, 1.0], [100.0, 0.0]], [[100.2, 0.2], [100.2, 0.8], [100.8, 0.8], "#
      + #"[100.8, 0.2], [100.2, 0.2]]]]}"#,
    .multiPolygon([
      [[at(2, 102), at(2, 103), at(3, 103), at(3, 102), at(2, 102)]],
      [
        [at(0, 100), at(0, 101), at(1, 101), at(1, 100), at(0, 100)],
        [at(0.2, 100.2), at(0.8, 100.2), at(0.8, 100.8), at(0.2, 100.8), at(0.2, 100.2)],
      ],
    ])
  ),
  // RFC 7946 section 1.5: a Feature; its geometry is taken.
  (
    #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [102.0, 0.5]}, "#
      + #""properties": {"prop0": "value0"}}"#,
    .point(at(0.5, 102))
  ),
  // Altitude as the third element; a fourth is ignored (RFC 7946 section 3.1.1).
  (
    #"{"type": "LineString", "coordinates": [[8.5, 50.1, 112.5], [8.6, 50.2, -3, 7]]}"#,
    .lineString([at(50.1, 8.5, 112.5), at(50.2, 8.6, -3)])
  ),
]

/// Bad GeoJSON and the exact error each must produce.
private let malformedCases: [(String, GeoError)] = [
  (
    #"{"type":"LineString","coordinates":[[0,0],[1,1],[2,2],[3,95]]}"#,
    malformed("coordinates[3][1]: latitude 95.0 is outside -90...90 degrees")
  ),
  (
    #"{"type":"Point","coordinates":[181,0]}"#,
    malformed("coordinates[0]: longitude 181.0 is outside -180...180 degrees")
  ),
  (#"{"coordinates":[0,0]}"#, malformed("type: missing")),
  (#"{"type":5,"coordinates":[0,0]}"#, malformed("type: expected a string, got a number")),
  (#"[1,2]"#, malformed("expected an object, got an array")),
  (#""Point""#, malformed("expected an object, got a string")),
  (
    #"{"type":"Point","coordinates":"0,0"}"#,
    malformed("coordinates: expected an array, got a string")
  ),
  (
    #"{"type":"Point","coordinates":[0]}"#,
    malformed("coordinates: a position needs [longitude, latitude(, altitude)], got an array of 1")
  ),
  (
    #"{"type":"Point","coordinates":[true,0]}"#,
    malformed("coordinates[0]: expected a number, got a boolean")
  ),
  (
    #"{"type":"Point","coordinates":[0,null]}"#,
    malformed("coordinates[1]: expected a number, got null")
  ),
  (
    #"{"type":"Point","coordinates":[0,0,"high"]}"#,
    malformed("coordinates[2]: expected a number, got a string")
  ),
  (#"{"type":"Point"}"#, malformed("coordinates: missing; a Point needs coordinates")),
  (
    #"{"type":"LineString","coordinates":[[0,0]]}"#,
    malformed("coordinates: a line string needs at least 2 positions, got 1")
  ),
  (
    #"{"type":"LineString","coordinates":[[0,0],{"lat":1}]}"#,
    malformed("coordinates[1]: expected an array, got an object")
  ),
  (
    #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}"#,
    malformed("coordinates[0]: a linear ring must end at its first position")
  ),
  (
    #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0]]]}"#,
    malformed("coordinates[0]: a linear ring needs at least 4 positions, got 3")
  ),
  (
    #"{"type":"Polygon","coordinates":[]}"#,
    malformed("coordinates: a polygon needs at least 1 ring, got 0")
  ),
  (
    #"{"type":"MultiLineString","coordinates":[[[0,0],[1,1]],[[2,2]]]}"#,
    malformed("coordinates[1]: a line string needs at least 2 positions, got 1")
  ),
  (
    #"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],"#
      + #"[[[0,0],[1,0],[1,1],[0,1]]]]}"#,
    malformed("coordinates[1][0]: a linear ring must end at its first position")
  ),
  (
    #"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[0,0],[1,0],[1,1],[0,"#
      + #""x"]]]]}"#,
    malformed("coordinates[1][0][3][1]: expected a number, got a string")
  ),
  (
    #"{"type":"MultiPoint","coordinates":[]}"#,
    malformed("coordinates: a multipoint needs at least 1 position, got 0")
  ),
  (
    #"{"type":"Feature","geometry":null,"properties":{}}"#,
    malformed("geometry: is null; the feature has no geometry")
  ),
  (#"{"type":"Feature"}"#, malformed("geometry: missing; a Feature needs a geometry member")),
  (
    #"{"type":"Feature","geometry":{"type":"Point","coordinates":[0,91]}}"#,
    malformed("geometry.coordinates[1]: latitude 91.0 is outside -90...90 degrees")
  ),
  (
    #"{"type":"Feature","geometry":{"coordinates":[0,1]}}"#,
    malformed("geometry.type: missing")
  ),
  (
    #"{"type":"GeometryCollection","geometries":[]}"#,
    malformed("type: GeometryCollection is not supported; expected one geometry")
  ),
  (#"{"type":"Circle","coordinates":[0,0]}"#, malformed(#"type: unknown geometry type "Circle""#)),
]

@Suite struct GeoJSONTests {
  // MARK: Decoding

  @Test(arguments: rfcExamples)
  func decodesReferenceExamples(json: String, expected: GeoGeometry) throws {
    #expect(try decode(json) == expected)
  }

  @Test func refusesBooleansForNumbers() throws {
    #expect(throws: malformed("coordinates[0]: expected a number, got a boolean")) {
      try decode(#"{"type":"Point","coordinates":[true,1]}"#)
    }
  }

  @Test(arguments: malformedCases)
  func rejectsMalformedInput(json: String, error: GeoError) {
    #expect(throws: error) { try decode(json) }
  }

  @Test(arguments: [
    (#"{"type":"#, 8, "expected a value, found the end of the text (truncated document?)"),
    ("", 0, "expected a value, found the end of the text (truncated document?)"),
    ("nope", 0, "invalid literal, expected null"),
    (#"{"type":"Point","coordinates":[1e400,0]}"#, 31, "number 1e400 is out of range"),
    (#"{"type":"Point","coordinates":[01,0]}"#, 32, "expected ',' or ']', found '1'"),
    (#"{"type":"Point","coordinates":[1.,0]}"#, 31, "digits must follow '.'"),
    (#"{"type":"Point","coordinates":[0,0]} x"#, 37, "unexpected 'x' after the value"),
    (#"{"type":"Point" "coordinates":[0,0]}"#, 16, "expected ',' or '}', found '\"'"),
    (#"{type:"Point"}"#, 1, "expected a member name in quotes, found 't'"),
    ("{\"type\":\"Po\nint\"}", 11, "control character byte 0xA inside a string"),
    (#"{"type":"Po\qint"}"#, 11, "invalid escape \\'q'"),
    (String(repeating: "[", count: 600), 256, "nesting deeper than 256 levels"),
  ])
  func rejectsInvalidJSONTextWithItsOffset(text: String, offset: Int, reason: String) {
    #expect(
      throws: GeoError.malformed(
        format: "GeoJSON", position: offset, reason: "not valid JSON: " + reason)
    ) {
      try decode(text)
    }
  }

  // MARK: Encoding

  @Test func encodesCompactText() throws {
    let line = GeoGeometry.lineString([at(50.10228, 8.69821, 112.5), at(50.10201, 8.69567)])
    #expect(
      String(decoding: try GeoJSON.encode(line), as: UTF8.self)
        == #"{"type":"LineString","coordinates":[[8.69821,50.10228,112.5],[8.69567,50.10201]]}"#)
    let point = GeoGeometry.point(at(-33.5, 1e-7))
    #expect(
      String(decoding: try GeoJSON.encode(point), as: UTF8.self)
        == #"{"type":"Point","coordinates":[1e-07,-33.5]}"#)
  }

  @Test(arguments: rfcExamples)
  func reEncodesReferenceExamples(json: String, expected: GeoGeometry) throws {
    let encoded = try GeoJSON.encode(expected)
    #expect(try GeoJSON.decodeGeometry(from: encoded) == expected)
    // Foundation's reader agrees that the text is JSON.
    #expect(try JSONSerialization.jsonObject(with: encoded) is [String: Any])
  }

  @Test func refusesToEncodeInvalidGeometry() {
    #expect(throws: malformed("coordinates: a line string needs at least 2 positions, got 1")) {
      try GeoJSON.encode(.lineString([at(1, 2)]))
    }
    #expect(throws: malformed("coordinates[0]: a linear ring must end at its first position")) {
      try GeoJSON.encode(.polygon([[at(0, 0), at(0, 1), at(1, 1), at(1, 0)]]))
    }
    #expect(throws: malformed("coordinates: a multipolygon needs at least 1 polygon, got 0")) {
      try GeoJSON.encode(.multiPolygon([]))
    }
  }

  /// Random geometries of every kind survive encode -> decode exactly.
  @Test func roundTripsRandomGeometries() throws {
    var generator = SeededGenerator(seed: 0x6E0_150)
    for trial in 0..<300 {
      let geometry = randomGeoGeometry(kind: trial % 6, using: &generator)
      #expect(try GeoJSON.decodeGeometry(from: try GeoJSON.encode(geometry)) == geometry)
    }
  }

  /// Valid GeoJSON with random edits must decode or throw a `.malformed` GeoJSON error whose
  /// offset, when given, lies inside the text.
  @Test func mutatedTextDecodesOrThrowsWithoutTrapping() throws {
    var generator = SeededGenerator(seed: 0x6E0_F022)
    let pieces: [String] = [
      "[", "]", "{", "}", ",", ":", "\"", "\\", "\\u12", "-", "1e999", "0.", "true", "null",
      "é", "\n", "\u{0}", #""type""#, #""Feature""#, "95",
    ]
    var decodedCount = 0
    var rejectedCount = 0
    for trial in 0..<3000 {
      let original = try GeoJSON.encode(randomGeoGeometry(kind: trial % 6, using: &generator))
      var characters = Array(String(decoding: original, as: UTF8.self))
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
        let geometry = try decode(text)
        decodedCount += 1
        #expect(try GeoJSON.decodeGeometry(from: try GeoJSON.encode(geometry)) == geometry)
      } catch {
        rejectedCount += 1
        guard case .malformed(let format, let position, _) = error else {
          Issue.record("unexpected error \(error) for \(text)")
          continue
        }
        #expect(format == "GeoJSON")
        #expect(position.map { (0...text.utf8.count).contains($0) } ?? true, "\(text)")
      }
    }
    #expect(decodedCount > 500)
    #expect(rejectedCount > 1000)
  }

  // MARK: Polylines

  @Test func givesEveryPathAsAPolyline() throws {
    let point = at(1, 2)
    #expect(GeoGeometry.point(point).polylines == [GeoPolyline(point: point)])
    #expect(
      GeoGeometry.multiPoint([point, at(3, 4)]).polylines
        == [GeoPolyline(point: point), GeoPolyline(point: at(3, 4))])
    let line = [at(0, 0), at(1, 1), at(2, 0)]
    #expect(GeoGeometry.lineString(line).polylines == [try GeoPolyline(vertices: line)])
    let outer = [at(0, 100), at(0, 101), at(1, 101), at(1, 100), at(0, 100)]
    let hole = [at(0.2, 100.2), at(0.8, 100.2), at(0.8, 100.8), at(0.2, 100.2)]
    #expect(
      GeoGeometry.polygon([outer, hole]).polylines
        == [try GeoPolyline(vertices: outer), try GeoPolyline(vertices: hole)])
    #expect(
      GeoGeometry.multiPolygon([[outer], [hole]]).polylines
        == [try GeoPolyline(vertices: outer), try GeoPolyline(vertices: hole)])
    #expect(
      GeoGeometry.multiLineString([line, [point]]).polylines
        == [try GeoPolyline(vertices: line), GeoPolyline(point: point)])
    #expect(GeoGeometry.lineString([]).polylines.isEmpty)
  }
}

/// A random valid geometry of kind 0...5 (point ... multipolygon); about half the positions
/// carry an altitude.
func randomGeoGeometry(kind: Int, using generator: inout SeededGenerator) -> GeoGeometry {
  func position() -> GeoCoordinates {
    let altitude: Double? =
      Bool.random(using: &generator) ? Double.random(in: -500...9000, using: &generator) : nil
    return GeoCoordinates(
      uncheckedLatitude: Double.random(in: -90...90, using: &generator),
      longitude: Double.random(in: -180...180, using: &generator), altitude: altitude)
  }
  func line() -> [GeoCoordinates] {
    (0..<Int.random(in: 2...8, using: &generator)).map { _ in position() }
  }
  func ring() -> [GeoCoordinates] {
    let open = (0..<Int.random(in: 3...8, using: &generator)).map { _ in position() }
    return open + [open[0]]
  }
  func polygon() -> [[GeoCoordinates]] {
    (0..<Int.random(in: 1...3, using: &generator)).map { _ in ring() }
  }
  switch kind {
  case 0: return .point(position())
  case 1: return .multiPoint(line())
  case 2: return .lineString(line())
  case 3:
    return .multiLineString((0..<Int.random(in: 1...3, using: &generator)).map { _ in line() })
  case 4: return .polygon(polygon())
  default:
    return .multiPolygon((0..<Int.random(in: 1...3, using: &generator)).map { _ in polygon() })
  }
}
