import Codec

/// Reads the geometry objects of GeoJSON (RFC 7946 §3.1) from a parsed `JSONValue`: the one
/// reader behind both the `GeoJSON` codec and the feed decoders' `geoJSONPolylines(at:)`.
///
/// It checks the JSON shape (an object with a string `type`, `coordinates` nested as the type
/// requires, positions of two or more numbers, coordinates in range) and names the JSON path of
/// the first bad value. It does not check the structural rules (a line string of two or more
/// positions, closed rings): the codec applies them with `GeoGeometry.structuralProblem()`,
/// the feed decoders read leniently.
struct GeoJSONGeometryReader {
  /// Whether a position's third number is read as its altitude (and must be a number), or
  /// ignored with anything after it.
  var readsAltitude: Bool
  /// Whether a latitude or longitude out of range is reported at the number
  /// (`coordinates[3][1]`) or at the position holding it (`coordinates[3]`).
  var namesTheBadNumber: Bool

  /// The codec's reading: altitudes kept, range errors at the number.
  static let rfc7946 = GeoJSONGeometryReader(readsAltitude: true, namesTheBadNumber: true)
  /// The feed decoders' reading: altitudes ignored, range errors at the position (the paths
  /// `docs/feeds.md` shows).
  static let feeds = GeoJSONGeometryReader(readsAltitude: false, namesTheBadNumber: false)

  /// `path.member`, or `member` at the root (empty path).
  static func path(_ path: String, _ member: String) -> String {
    path.isEmpty ? member : path + "." + member
  }

  /// The error for a value of the wrong JSON type.
  static func mismatch(
    expected: String, found value: JSONValue, at path: String
  ) -> JSONFieldError {
    JSONFieldError(path: path, reason: "expected \(expected), got \(value.kindName)")
  }

  /// The `type` member of a GeoJSON object.
  ///
  /// - Throws: `JSONFieldError` when `object` is not an object or its `type` is missing or not
  ///   a string.
  func type(of object: JSONValue, at path: String) throws(JSONFieldError) -> String {
    guard case .object(let members) = object else {
      throw Self.mismatch(expected: "an object", found: object, at: path)
    }
    let typePath = Self.path(path, "type")
    guard let type = members["type"] else {
      throw JSONFieldError(path: typePath, reason: "missing")
    }
    guard case .string(let name) = type else {
      throw Self.mismatch(expected: "a string", found: type, at: typePath)
    }
    return name
  }

  /// The geometry object `object` (of type `type`, as `type(of:at:)` read it), its structure
  /// unchecked.
  ///
  /// - Throws: `JSONFieldError` naming the bad member or position; GeometryCollection and
  ///   FeatureCollection are refused as not one geometry.
  /// - Complexity: O(n) in the number of positions.
  func geometry(
    _ object: JSONValue, type: String, at path: String
  ) throws(JSONFieldError) -> GeoGeometry {
    let typePath = Self.path(path, "type")
    switch type {
    case "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon": break
    case "GeometryCollection", "FeatureCollection":
      throw JSONFieldError(
        path: typePath, reason: "\(type) is not supported; expected one geometry")
    default:
      throw JSONFieldError(path: typePath, reason: "unknown geometry type \"\(type)\"")
    }
    let coordinatesPath = Self.path(path, "coordinates")
    guard let coordinates = object["coordinates"] else {
      throw JSONFieldError(path: coordinatesPath, reason: "missing; a \(type) needs coordinates")
    }
    switch type {
    case "Point": return .point(try position(coordinates, at: coordinatesPath))
    case "MultiPoint": return .multiPoint(try positions(coordinates, at: coordinatesPath))
    case "LineString": return .lineString(try positions(coordinates, at: coordinatesPath))
    case "MultiLineString": return .multiLineString(try lines(coordinates, at: coordinatesPath))
    case "Polygon": return .polygon(try lines(coordinates, at: coordinatesPath))
    default:
      let parts = try array(coordinates, at: coordinatesPath)
      var polygons: [[[GeoCoordinates]]] = []
      polygons.reserveCapacity(parts.count)
      for (index, part) in parts.enumerated() {
        polygons.append(try lines(part, at: "\(coordinatesPath)[\(index)]"))
      }
      return .multiPolygon(polygons)
    }
  }

  private func lines(
    _ value: JSONValue, at path: String
  ) throws(JSONFieldError) -> [[GeoCoordinates]] {
    let items = try array(value, at: path)
    var lines: [[GeoCoordinates]] = []
    lines.reserveCapacity(items.count)
    for (index, item) in items.enumerated() {
      lines.append(try positions(item, at: "\(path)[\(index)]"))
    }
    return lines
  }

  private func positions(
    _ value: JSONValue, at path: String
  ) throws(JSONFieldError) -> [GeoCoordinates] {
    let items = try array(value, at: path)
    var positions: [GeoCoordinates] = []
    positions.reserveCapacity(items.count)
    for (index, item) in items.enumerated() {
      positions.append(try position(item, at: "\(path)[\(index)]"))
    }
    return positions
  }

  /// A position `[longitude, latitude(, altitude)]` as validated coordinates.
  ///
  /// - Throws: `JSONFieldError` for fewer than two numbers, a value that is not a number, or
  ///   a coordinate out of range.
  func position(_ value: JSONValue, at path: String) throws(JSONFieldError) -> GeoCoordinates {
    let items = try array(value, at: path)
    guard items.count >= 2 else {
      throw JSONFieldError(
        path: path,
        reason: "a position needs [longitude, latitude(, altitude)], got an array of \(items.count)"
      )
    }
    let longitude = try number(items[0], at: "\(path)[0]")
    let latitude = try number(items[1], at: "\(path)[1]")
    let altitude = readsAltitude && items.count > 2 ? try number(items[2], at: "\(path)[2]") : nil
    do {
      return try GeoCoordinates(latitude: latitude, longitude: longitude, altitude: altitude)
    } catch {
      guard namesTheBadNumber else { throw JSONFieldError(path: path, reason: error.description) }
      let index: Int
      switch error {
      case .invalidLatitude: index = 1
      case .invalidLongitude: index = 0
      default: index = 2
      }
      throw JSONFieldError(path: "\(path)[\(index)]", reason: error.description)
    }
  }

  private func array(_ value: JSONValue, at path: String) throws(JSONFieldError) -> [JSONValue] {
    guard case .array(let items) = value else {
      throw Self.mismatch(expected: "an array", found: value, at: path)
    }
    return items
  }

  /// A number's value (its text is what `JSONParser` validated).
  private func number(_ value: JSONValue, at path: String) throws(JSONFieldError) -> Double {
    guard case .number(let text) = value, let number = Double(text) else {
      throw Self.mismatch(expected: "a number", found: value, at: path)
    }
    return number
  }
}

extension JSONValue {
  /// The polylines of a GeoJSON geometry object (RFC 7946 §3.1), positions `[lng, lat]`, read
  /// leniently for feeds.
  ///
  /// `Point` gives a zero-length polyline; `MultiPoint` a polyline through its points (a
  /// single point gives a zero-length polyline: WZDx writes start and end as a MultiPoint);
  /// `LineString` one polyline (of one position: zero-length); `MultiLineString` one per line;
  /// `Polygon` its outer ring; `MultiPolygon` each outer ring; `GeometryCollection` all of its
  /// members' polylines. Altitudes are ignored; rings need not be closed.
  ///
  /// - Parameter path: The path of this value, for errors.
  /// - Returns: At least one polyline.
  /// - Throws: `JSONFieldError` naming the bad member or position
  ///   (`features[3].geometry.coordinates[2][1]: expected a number, got a string`; a coordinate
  ///   out of range is named by its position, `...coordinates[2]: latitude 95.0 is outside ...`).
  /// - Complexity: O(n) in the number of positions.
  package func geoJSONPolylines(at path: String) throws(JSONFieldError) -> [GeoPolyline] {
    let reader = GeoJSONGeometryReader.feeds
    let type = try reader.type(of: self, at: path)
    if type == "GeometryCollection" {
      let membersPath = path + ".geometries"
      guard let value = self["geometries"] else {
        throw JSONFieldError(
          path: membersPath, reason: "missing; a GeometryCollection needs geometries")
      }
      guard case .array(let members) = value else {
        throw GeoJSONGeometryReader.mismatch(expected: "an array", found: value, at: membersPath)
      }
      var polylines: [GeoPolyline] = []
      for (index, member) in members.enumerated() {
        polylines += try member.geoJSONPolylines(at: "\(membersPath)[\(index)]")
      }
      guard !polylines.isEmpty else {
        throw JSONFieldError(path: path, reason: "empty GeometryCollection")
      }
      return polylines
    }
    let geometry = try reader.geometry(self, type: type, at: path)
    return try Self.feedPolylines(of: geometry, at: path + ".coordinates")
  }

  /// A GeoJSON position `[lng, lat, (alt)]` as coordinates (the altitude is ignored).
  ///
  /// - Parameter path: The path of this value, for errors.
  /// - Returns: The coordinates.
  /// - Throws: `JSONFieldError` naming the position or its bad number.
  package func geoJSONPosition(at path: String) throws(JSONFieldError) -> GeoCoordinates {
    try GeoJSONGeometryReader.feeds.position(self, at: path)
  }

  /// The feed reading of a geometry as polylines (see `geoJSONPolylines(at:)`).
  private static func feedPolylines(
    of geometry: GeoGeometry, at coordinatesPath: String
  ) throws(JSONFieldError) -> [GeoPolyline] {
    func line(_ vertices: [GeoCoordinates], _ path: String) throws(JSONFieldError) -> GeoPolyline {
      switch vertices.count {
      case 0: throw JSONFieldError(path: path, reason: "a line needs positions, found none")
      case 1: return GeoPolyline(point: vertices[0])
      default: return GeoPolyline(uncheckedVertices: vertices)
      }
    }
    switch geometry {
    case .point(let point):
      return [GeoPolyline(point: point)]
    case .multiPoint(let vertices), .lineString(let vertices):
      return [try line(vertices, coordinatesPath)]
    case .multiLineString(let lines):
      guard !lines.isEmpty else {
        throw JSONFieldError(path: coordinatesPath, reason: "no lines in MultiLineString")
      }
      var polylines: [GeoPolyline] = []
      for (index, vertices) in lines.enumerated() {
        polylines.append(try line(vertices, "\(coordinatesPath)[\(index)]"))
      }
      return polylines
    case .polygon(let rings):
      guard let outer = rings.first else {
        throw JSONFieldError(path: coordinatesPath, reason: "no lines in Polygon")
      }
      return [try line(outer, coordinatesPath + "[0]")]
    case .multiPolygon(let polygons):
      var polylines: [GeoPolyline] = []
      for (index, rings) in polygons.enumerated() {
        guard let outer = rings.first else { continue }
        polylines.append(try line(outer, "\(coordinatesPath)[\(index)][0]"))
      }
      guard !polylines.isEmpty else {
        throw JSONFieldError(path: coordinatesPath, reason: "no polygons in MultiPolygon")
      }
      return polylines
    }
  }
}
