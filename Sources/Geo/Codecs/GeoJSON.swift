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
  ///   the byte offset of the error), or any problem listed for
  ///   `decodeGeometry(fromJSONObject:)` (position `nil`, the JSON path in the reason).
  /// - Complexity: O(n) in the size of `data`.
  public static func decodeGeometry(from data: Data) throws(GeoError) -> GeoGeometry {
    try decodeGeometry(fromJSONObject: try JSONReader.read(data, format: format))
  }

  /// Decodes a geometry from an already-parsed JSON value (as `JSONSerialization` returns, or
  /// built from Swift dictionaries, arrays, strings and numbers).
  ///
  /// Prefer `decodeGeometry(from:)` for text: `JSONSerialization` in swift-corelibs-foundation
  /// may read a decimal number one unit in the last place off.
  ///
  /// - Parameter object: A Geometry object, or a Feature with a non-null geometry.
  /// - Returns: The geometry.
  /// - Throws: `GeoError.malformed(format: "GeoJSON", position: nil, reason:)` whose reason
  ///   starts with the JSON path: a value of the wrong JSON type, a missing `type`,
  ///   `geometry` or `coordinates`, an unsupported type (such as GeometryCollection), a
  ///   position with fewer than 2 numbers, a latitude/longitude out of range, a line string of
  ///   fewer than 2 positions, an open ring or one of fewer than 4 positions, or an empty
  ///   multi-geometry.
  /// - Complexity: O(n) in the number of JSON values.
  public static func decodeGeometry(fromJSONObject object: Any) throws(GeoError) -> GeoGeometry {
    let root = try dictionary(object, path: "")
    let type = try string(root["type"], path: "type")
    guard type == "Feature" else { return try geometry(root, type: type, path: "") }
    let geometryPath = "geometry"
    guard let member = root["geometry"] else {
      throw failure(geometryPath, "missing; a Feature needs a geometry member")
    }
    if member is NSNull { throw failure(geometryPath, "is null; the feature has no geometry") }
    let object = try dictionary(member, path: geometryPath)
    let geometryType = try string(object["type"], path: geometryPath + ".type")
    return try geometry(object, type: geometryType, path: geometryPath)
  }

  private static func geometry(
    _ object: [String: Any], type: String, path: String
  )
    throws(GeoError) -> GeoGeometry
  {
    let coordinatesPath = path.isEmpty ? "coordinates" : path + ".coordinates"
    let decoded: GeoGeometry
    switch type {
    case "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon":
      guard let coordinates = object["coordinates"] else {
        throw failure(coordinatesPath, "missing; a \(type) needs coordinates")
      }
      switch type {
      case "Point":
        decoded = .point(try position(coordinates, path: coordinatesPath))
      case "MultiPoint":
        decoded = .multiPoint(try positions(coordinates, path: coordinatesPath))
      case "LineString":
        decoded = .lineString(try positions(coordinates, path: coordinatesPath))
      case "MultiLineString":
        decoded = .multiLineString(try lines(coordinates, path: coordinatesPath))
      case "Polygon":
        decoded = .polygon(try lines(coordinates, path: coordinatesPath))
      default:
        let parts = try array(coordinates, path: coordinatesPath)
        var polygons: [[[GeoCoordinates]]] = []
        polygons.reserveCapacity(parts.count)
        for (index, part) in parts.enumerated() {
          polygons.append(try lines(part, path: "\(coordinatesPath)[\(index)]"))
        }
        decoded = .multiPolygon(polygons)
      }
    case "GeometryCollection", "FeatureCollection":
      throw failure(
        path.isEmpty ? "type" : path + ".type", "\(type) is not supported; expected one geometry")
    default:
      throw failure(path.isEmpty ? "type" : path + ".type", "unknown geometry type \"\(type)\"")
    }
    if let (subpath, reason) = decoded.structuralProblem() {
      throw failure(coordinatesPath + subpath, reason)
    }
    return decoded
  }

  private static func lines(_ value: Any, path: String) throws(GeoError) -> [[GeoCoordinates]] {
    let items = try array(value, path: path)
    var lines: [[GeoCoordinates]] = []
    lines.reserveCapacity(items.count)
    for (index, item) in items.enumerated() {
      lines.append(try positions(item, path: "\(path)[\(index)]"))
    }
    return lines
  }

  private static func positions(_ value: Any, path: String) throws(GeoError) -> [GeoCoordinates] {
    let items = try array(value, path: path)
    var positions: [GeoCoordinates] = []
    positions.reserveCapacity(items.count)
    for (index, item) in items.enumerated() {
      positions.append(try position(item, path: "\(path)[\(index)]"))
    }
    return positions
  }

  private static func position(_ value: Any, path: String) throws(GeoError) -> GeoCoordinates {
    let items = try array(value, path: path)
    guard items.count >= 2 else {
      throw failure(
        path, "a position needs [longitude, latitude(, altitude)], got an array of \(items.count)")
    }
    let longitude = try number(items[0], path: "\(path)[0]")
    let latitude = try number(items[1], path: "\(path)[1]")
    let altitude = items.count > 2 ? try number(items[2], path: "\(path)[2]") : nil
    do {
      return try GeoCoordinates(latitude: latitude, longitude: longitude, altitude: altitude)
    } catch {
      let index: Int
      switch error {
      case .invalidLatitude: index = 1
      case .invalidLongitude: index = 0
      default: index = 2
      }
      throw failure("\(path)[\(index)]", error.description)
    }
  }

  // MARK: - JSON values

  private static func failure(_ path: String, _ reason: String) -> GeoError {
    .malformed(format: format, position: nil, reason: path.isEmpty ? reason : "\(path): \(reason)")
  }

  private static func dictionary(_ value: Any, path: String) throws(GeoError) -> [String: Any] {
    guard let dictionary = value as? [String: Any] else {
      throw failure(path, "expected an object, got \(kind(of: value))")
    }
    return dictionary
  }

  private static func array(_ value: Any, path: String) throws(GeoError) -> [Any] {
    guard let array = value as? [Any] else {
      throw failure(path, "expected an array, got \(kind(of: value))")
    }
    return array
  }

  private static func string(_ value: Any?, path: String) throws(GeoError) -> String {
    guard let value else { throw failure(path, "missing") }
    guard let string = value as? String else {
      throw failure(path, "expected a string, got \(kind(of: value))")
    }
    return string
  }

  private static func number(_ value: Any, path: String) throws(GeoError) -> Double {
    guard let number = numberValue(value) else {
      throw failure(path, "expected a number, got \(kind(of: value))")
    }
    return number
  }

  /// The value as a `Double` when it is a JSON number (not a boolean, which `NSNumber` also
  /// represents).
  private static func numberValue(_ value: Any) -> Double? {
    if value is String || type(of: value) == Bool.self { return nil }
    guard let number = value as? NSNumber, !isBoolean(number) else { return nil }
    return number.doubleValue
  }

  /// `JSONSerialization` and Swift bridging store booleans as `NSNumber` of Objective-C type
  /// `char`.
  private static func isBoolean(_ number: NSNumber) -> Bool {
    String(cString: number.objCType) == "c"
  }

  private static func kind(of value: Any) -> String {
    switch value {
    case is NSNull: return "null"
    case is String: return "a string"
    case is [String: Any]: return "an object"
    case is [Any]: return "an array"
    default:
      if type(of: value) == Bool.self { return "a boolean" }
      if let number = value as? NSNumber { return isBoolean(number) ? "a boolean" : "a number" }
      return "\(type(of: value))"
    }
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
      throw failure("coordinates" + path, reason)
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
