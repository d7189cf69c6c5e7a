import Foundation
import Toolbox

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
  ///   UTF-8 are invalid), or any problem listed for `decodeGeometry(fromJSONObject:)`
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

  /// Decodes a geometry from an already-parsed JSON value (as `JSONSerialization` returns, or
  /// built from Swift dictionaries, arrays, strings and numbers).
  ///
  /// Prefer `decodeGeometry(from:)` for text: `JSONSerialization` in swift-corelibs-foundation
  /// may read a decimal number one unit in the last place off.
  ///
  /// - Parameter object: A Geometry object, or a Feature with a non-null geometry. Of a
  ///   Feature only `type` and `geometry` are read.
  /// - Returns: The geometry.
  /// - Throws: `GeoError.malformed(format: "GeoJSON", position: nil, reason:)` whose reason
  ///   starts with the JSON path: a value of the wrong JSON type (or of no JSON type), a
  ///   missing `type`, `geometry` or `coordinates`, an unsupported type (such as
  ///   GeometryCollection), a position with fewer than 2 numbers, a latitude/longitude out of
  ///   range, a line string of fewer than 2 positions, an open ring or one of fewer than 4
  ///   positions, or an empty multi-geometry.
  /// - Complexity: O(n) in the number of JSON values.
  public static func decodeGeometry(fromJSONObject object: Any) throws(GeoError) -> GeoGeometry {
    var root = object
    if let members = object as? [String: Any] {
      root = members.filter { ["type", "geometry", "coordinates"].contains($0.key) }
    }
    let value: JSONValue
    do {
      value = try JSONValue(foundationObject: root, at: "")
    } catch {
      throw failure(error)
    }
    return try decodeGeometry(fromJSONValue: value)
  }

  /// Decodes a geometry from a parsed JSON value (`JSONParser`'s output).
  ///
  /// - Parameter value: A Geometry object, or a Feature with a non-null geometry.
  /// - Returns: The geometry.
  /// - Throws: `GeoError.malformed(format: "GeoJSON", position: nil, reason:)` as
  ///   `decodeGeometry(fromJSONObject:)` does.
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
    var text = "{\"type\":\"\(typeName(geometry))\",\"coordinates\":"
    switch geometry {
    case .point(let point):
      write(point, to: &text)
    case .multiPoint(let line), .lineString(let line):
      write(line, to: &text)
    case .multiLineString(let lines), .polygon(let lines):
      write(lines, to: &text)
    case .multiPolygon(let polygons):
      text.append("[")
      for (index, polygon) in polygons.enumerated() {
        if index > 0 { text.append(",") }
        write(polygon, to: &text)
      }
      text.append("]")
    }
    text.append("}")
    return Data(text.utf8)
  }

  /// Encodes a geometry as a JSON object (`[String: Any]` of strings, arrays and `Double`s)
  /// ready for `JSONSerialization` or for embedding in a larger document.
  ///
  /// - Parameter geometry: A valid geometry.
  /// - Returns: `["type": ..., "coordinates": ...]`.
  /// - Throws: `GeoError.malformed(format: "GeoJSON", ...)` when the geometry breaks a rule
  ///   of RFC 7946.
  /// - Complexity: O(n) in the number of positions.
  public static func jsonObject(for geometry: GeoGeometry) throws(GeoError) -> [String: Any] {
    try validate(geometry)
    func position(_ point: GeoCoordinates) -> [Double] {
      if let altitude = point.altitude { return [point.longitude, point.latitude, altitude] }
      return [point.longitude, point.latitude]
    }
    let coordinates: Any
    switch geometry {
    case .point(let point):
      coordinates = position(point)
    case .multiPoint(let line), .lineString(let line):
      coordinates = line.map(position)
    case .multiLineString(let lines), .polygon(let lines):
      coordinates = lines.map { $0.map(position) }
    case .multiPolygon(let polygons):
      coordinates = polygons.map { $0.map { $0.map(position) } }
    }
    return ["type": typeName(geometry), "coordinates": coordinates]
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

  private static func write(_ point: GeoCoordinates, to text: inout String) {
    text.append("[\(point.longitude),\(point.latitude)")
    if let altitude = point.altitude { text.append(",\(altitude)") }
    text.append("]")
  }

  private static func write(_ line: [GeoCoordinates], to text: inout String) {
    text.append("[")
    for (index, point) in line.enumerated() {
      if index > 0 { text.append(",") }
      write(point, to: &text)
    }
    text.append("]")
  }

  private static func write(_ lines: [[GeoCoordinates]], to text: inout String) {
    text.append("[")
    for (index, line) in lines.enumerated() {
      if index > 0 { text.append(",") }
      write(line, to: &text)
    }
    text.append("]")
  }
}

extension JSONValue {
  /// The JSON value of a Foundation object tree (`JSONSerialization`'s vocabulary, or Swift
  /// dictionaries, arrays, strings, Booleans and numbers).
  ///
  /// A number is kept as its `Double`'s description: a non-finite one becomes `nan` or `inf`,
  /// text `JSONParser` never produces and `double` refuses, so that the GeoJSON coordinate
  /// check names it.
  ///
  /// - Throws: `JSONFieldError` naming the first value of no JSON type.
  fileprivate init(foundationObject object: Any, at path: String) throws(JSONFieldError) {
    switch object {
    case is NSNull: self = .null
    case let text as String: self = .string(text)
    case let members as [String: Any]:
      var values: [String: JSONValue] = [:]
      for (key, member) in members {
        values[key] = try JSONValue(
          foundationObject: member, at: GeoJSONGeometryReader.path(path, key))
      }
      self = .object(values)
    case let elements as [Any]:
      var values: [JSONValue] = []
      values.reserveCapacity(elements.count)
      for (index, element) in elements.enumerated() {
        values.append(try JSONValue(foundationObject: element, at: "\(path)[\(index)]"))
      }
      self = .array(values)
    default:
      if let flag = object as? Bool, type(of: object) == Bool.self {
        self = .bool(flag)
      } else if let number = object as? NSNumber {
        // JSONSerialization and Swift bridging store Booleans as NSNumbers of type `char`.
        self =
          String(cString: number.objCType) == "c"
          ? .bool(number.boolValue) : .number("\(number.doubleValue)")
      } else {
        throw JSONFieldError(path: path, reason: "expected a JSON value, got \(type(of: object))")
      }
    }
  }
}
