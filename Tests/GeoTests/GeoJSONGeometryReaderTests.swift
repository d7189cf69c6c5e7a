import Codec
import Foundation
import Testing

@testable import Geo

private func at(_ latitude: Double, _ longitude: Double) -> GeoCoordinates {
  GeoCoordinates(uncheckedLatitude: latitude, longitude: longitude)
}

private func polylines(_ json: String) throws -> [GeoPolyline] {
  try JSONParser.parse(Data(json.utf8)).geoJSONPolylines(at: "features[3].geometry")
}

/// The feed decoders' lenient reading of GeoJSON geometries as polylines
/// (`JSONValue.geoJSONPolylines(at:)`), which shares its reader with the `GeoJSON` codec.
@Suite struct GeoJSONGeometryReaderTests {
  @Test func readsEveryGeometryTypeAsFeedPolylines() throws {
    #expect(
      try polylines(#"{"type":"Point","coordinates":[8,50,"altitude ignored"]}"#)
        == [GeoPolyline(point: at(50, 8))])
    // WZDx writes start and end as a MultiPoint: one line through them.
    #expect(
      try polylines(#"{"type":"MultiPoint","coordinates":[[8,50],[9,51]]}"#)
        == [GeoPolyline(uncheckedVertices: [at(50, 8), at(51, 9)])])
    #expect(
      try polylines(#"{"type":"LineString","coordinates":[[8,50]]}"#)
        == [GeoPolyline(point: at(50, 8))])
    // A polygon gives its outer ring, closed or not; holes are dropped.
    #expect(
      try polylines(
        #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1]],[[0.2,0.2],[0.3,0.2]]]}"#)
        == [GeoPolyline(uncheckedVertices: [at(0, 0), at(0, 1), at(1, 1)])])
    #expect(
      try polylines(
        #"{"type":"MultiPolygon","coordinates":[[],[[[0,0],[1,0]]],[[[5,5],[6,6]]]]}"#)
        == [
          GeoPolyline(uncheckedVertices: [at(0, 0), at(0, 1)]),
          GeoPolyline(uncheckedVertices: [at(5, 5), at(6, 6)]),
        ])
    #expect(
      try polylines(
        #"{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[1,2]},"#
          + #"{"type":"MultiLineString","coordinates":[[[3,4],[5,6]],[[7,8]]]}]}"#)
        == [
          GeoPolyline(point: at(2, 1)), GeoPolyline(uncheckedVertices: [at(4, 3), at(6, 5)]),
          GeoPolyline(point: at(8, 7)),
        ])
  }

  @Test(arguments: [
    (
      #"{"type":"LineString","coordinates":[[0,0],[1,1],[2,"2"]]}"#,
      "features[3].geometry.coordinates[2][1]: expected a number, got a string"
    ),
    // A coordinate out of range is named by its position (docs/feeds.md).
    (
      #"{"type":"LineString","coordinates":[[0,0],[1,95]]}"#,
      "features[3].geometry.coordinates[1]: latitude 95.0 is outside -90...90 degrees"
    ),
    (
      #"{"type":"Circle","coordinates":[]}"#,
      #"features[3].geometry.type: unknown geometry type "Circle""#
    ),
    (#"{"coordinates":[0,0]}"#, "features[3].geometry.type: missing"),
    (#"[0,0]"#, "features[3].geometry: expected an object, got an array"),
    (
      #"{"type":"Point"}"#,
      "features[3].geometry.coordinates: missing; a Point needs coordinates"
    ),
    (
      #"{"type":"MultiLineString","coordinates":[[[0,0]],[]]}"#,
      "features[3].geometry.coordinates[1]: a line needs positions, found none"
    ),
    (
      #"{"type":"MultiPolygon","coordinates":[[]]}"#,
      "features[3].geometry.coordinates: no polygons in MultiPolygon"
    ),
    (
      #"{"type":"GeometryCollection","geometries":[]}"#,
      "features[3].geometry: empty GeometryCollection"
    ),
    (
      #"{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[true,0]}]}"#,
      "features[3].geometry.geometries[0].coordinates[0]: expected a number, got a boolean"
    ),
  ])
  func namesTheBadValueByItsPath(json: String, message: String) {
    #expect {
      try polylines(json)
    } throws: { error in
      (error as? JSONFieldError)?.description == message
    }
  }

  @Test func positionsIgnoreTheAltitude() throws {
    let value = try JSONParser.parse(Data("[8.5,50.1,112.5]".utf8))
    #expect(try value.geoJSONPosition(at: "p") == at(50.1, 8.5))
    #expect(throws: JSONFieldError(path: "p[0]", reason: "expected a number, got null")) {
      try JSONValue.array([.null, .number("1")]).geoJSONPosition(at: "p")
    }
  }
}
