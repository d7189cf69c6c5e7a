import Codec
import Foundation

/// Reads and writes GeoJSON geometries (RFC 7946, "The GeoJSON Format").
///
/// Positions are `[longitude, latitude]` or `[longitude, latitude, altitude]` in WGS84
/// degrees and meters (RFC 7946 section 3.1.1); further elements are ignored, as the RFC allows.
/// Decoding accepts a Geometry object or a Feature (whose geometry is taken). Every error names
/// the JSON path of the offending value, e.g. `coordinates[3][1]: latitude 95.0 is outside
/// -90...90 degrees`.
public enum GeoJSON {
  /// The format name used in errors.
  static let format = "GeoJSON"

  // MARK: - Decoding

  /// Decodes a geometry from GeoJSON text.
  ///
  /// - Parameter data: UTF-8 JSON holding a Geometry object or a Feature.
  /// - Returns: The geometry.
  /// - Throws: `GeoError.malformed(format: "GeoJSON", position:, reason:)`: invalid JSON (with
  ///   the byte offset of the error; nesting deeper than 256 levels and text that is not
  ///   UTF-8 are invalid), or any problem listed for `decodeGeometry(fromJSONValue:)`
  ///   (position `nil`, the JSON path in the reason).
  /// - Complexity: O(n) in the size of `data`.
  public static func decodeGeometry(from data: Data) throws(GeoError) -> GeoGeometry {
    try decodeGeometry(fromJSONValue: try parse(data))
  }

  /// Parses a GeoJSON document (a geometry, Feature or FeatureCollection) as JSON.
  ///
  /// - Parameter data: UTF-8 JSON text.
  /// - Returns: The JSON value.
  /// - Throws: `GeoError.malformed(format: "GeoJSON", position: <byte offset>, reason:
  ///   "not valid JSON: ...")`.
  /// - Complexity: O(n) in the size of `data`.
  package static func parse(_ data: Data) throws(GeoError) -> JSONValue {
    do {
      return try JSONParser.parse(data)
    } catch {
      throw .malformed(
        format: format, position: error.offset, reason: "not valid JSON: \(error.reason)")
    }
  }

  /// Decodes a geometry from a parsed JSON value (`JSONParser`'s output).
  ///
  /// - Parameter value: A Geometry object, or a Feature with a non-null geometry.
  /// - Returns: The geometry.
  /// - Throws: `GeoError.malformed(format: "GeoJSON", position: nil, reason:)` whose reason
  ///   starts with the JSON path: a value of the wrong JSON type, a missing `type`,
  ///   `geometry` or `coordinates`, an unsupported type (such as GeometryCollection), a
  ///   position with fewer than 2 numbers, a latitude/longitude out of range, a line string
  ///   of fewer than 2 positions, an open ring or one of fewer than 4 positions, or an empty
  ///   multi-geometry.
  /// - Complexity: O(n) in the number of positions.
  package static func decodeGeometry(fromJSONValue value: JSONValue) throws(GeoError) -> GeoGeometry
  {
    let reader = GeoJSONGeometryReader.rfc7946
    do throws(JSONFieldError) {
      var object = value
      var path = ""
      var type = try reader.type(of: value, at: path)
      if type == "Feature" {
        path = "geometry"
        guard let member = value["geometry"] else {
          throw JSONFieldError(path: path, reason: "missing; a Feature needs a geometry member")
        }
        if member.isNull {
          throw JSONFieldError(path: path, reason: "is null; the feature has no geometry")
        }
        object = member
        type = try reader.type(of: member, at: path)
      }
      let geometry = try reader.geometry(object, type: type, at: path)
      if let (subpath, reason) = geometry.structuralProblem() {
        throw JSONFieldError(
          path: GeoJSONGeometryReader.path(path, "coordinates") + subpath, reason: reason)
      }
      return geometry
    } catch {
      throw failure(error)
    }
  }

  private static func failure(_ error: JSONFieldError) -> GeoError {
    let reason = error.path.isEmpty ? error.reason : error.description
    return .malformed(format: format, position: nil, reason: reason)
  }

  // MARK: - Encoding

  /// Encodes a geometry as compact GeoJSON text.
  ///
  /// Numbers are written in their shortest form that reads back to the same `Double`, so
  /// decoding the result gives back an equal geometry. Altitudes are written per position.
  ///
  /// - Parameter geometry: A valid geometry.
  /// - Returns: UTF-8 JSON, e.g. `{"type":"Point","coordinates":[8.69821,50.10228]}`.
  /// - Throws: `GeoError.malformed(format: "GeoJSON", ...)` when the geometry breaks a rule
  ///   of RFC 7946 (see `GeoGeometry`).
  /// - Complexity: O(n) in the number of positions.
  public static func encode(_ geometry: GeoGeometry) throws(GeoError) -> Data {
    try validate(geometry)
    var writer = JSONWriter(capacity: 64)
    writer.beginObject()
    writer.member("type", typeName(geometry))
    writer.key("coordinates")
    switch geometry {
    case .point(let point):
      write(point, to: &writer)
    case .multiPoint(let line), .lineString(let line):
      write(line, to: &writer)
    case .multiLineString(let lines), .polygon(let lines):
      write(lines, to: &writer)
    case .multiPolygon(let polygons):
      writer.beginArray()
      for polygon in polygons { write(polygon, to: &writer) }
      writer.endArray()
    }
    writer.endObject()
    return Data(writer.bytes)
  }

  private static func validate(_ geometry: GeoGeometry) throws(GeoError) {
    if let (path, reason) = geometry.structuralProblem() {
      throw failure(JSONFieldError(path: "coordinates" + path, reason: reason))
    }
  }

  private static func typeName(_ geometry: GeoGeometry) -> String {
    switch geometry {
    case .point: return "Point"
    case .multiPoint: return "MultiPoint"
    case .lineString: return "LineString"
    case .multiLineString: return "MultiLineString"
    case .polygon: return "Polygon"
    case .multiPolygon: return "MultiPolygon"
    }
  }

  private static func write(_ point: GeoCoordinates, to writer: inout JSONWriter) {
    writer.beginArray()
    writer.number(point.longitude)
    writer.number(point.latitude)
    if let altitude = point.altitude { writer.number(altitude) }
    writer.endArray()
  }

  private static func write(_ line: [GeoCoordinates], to writer: inout JSONWriter) {
    writer.beginArray()
    for point in line { write(point, to: &writer) }
    writer.endArray()
  }

  private static func write(_ lines: [[GeoCoordinates]], to writer: inout JSONWriter) {
    writer.beginArray()
    for line in lines { write(line, to: &writer) }
    writer.endArray()
  }
}
