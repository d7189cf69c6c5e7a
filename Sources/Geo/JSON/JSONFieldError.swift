/// A value in a parsed JSON document that is missing or wrong, with its JSON path
/// (`results[3].incidentDetails.startTime`).
package struct JSONFieldError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The JSON path of the value.
  package var path: String
  /// What is wrong with it.
  package var reason: String

  /// Creates an error.
  package init(path: String, reason: String) {
    self.path = path
    self.reason = reason
  }

  /// `"path: reason"`.
  package var description: String { "\(path): \(reason)" }
}

extension JSONValue {
  /// The member `key`, which must be present and not `null`.
  ///
  /// - Parameters:
  ///   - key: The member name.
  ///   - path: The path of this value, for the error.
  /// - Throws: `JSONFieldError` when the value is not an object or lacks the member.
  package func required(_ key: String, at path: String) throws(JSONFieldError) -> JSONValue {
    guard case .object(let members) = self else {
      throw JSONFieldError(path: path, reason: "expected an object, found \(kindName)")
    }
    guard let value = members[key], !value.isNull else {
      throw JSONFieldError(path: path, reason: "missing member \"\(key)\"")
    }
    return value
  }

  /// The string value, or an error naming `path`.
  package func requiredString(at path: String) throws(JSONFieldError) -> String {
    guard let text = string else {
      throw JSONFieldError(path: path, reason: "expected a string, found \(kindName)")
    }
    return text
  }

  /// The finite number value, or an error naming `path`.
  package func requiredDouble(at path: String) throws(JSONFieldError) -> Double {
    guard let value = double else {
      throw JSONFieldError(path: path, reason: "expected a finite number, found \(kindName)")
    }
    return value
  }

  /// The array value, or an error naming `path`.
  package func requiredArray(at path: String) throws(JSONFieldError) -> [JSONValue] {
    guard let elements = array else {
      throw JSONFieldError(path: path, reason: "expected an array, found \(kindName)")
    }
    return elements
  }

  /// The polylines of a GeoJSON geometry object (RFC 7946 §3.1), positions `[lng, lat]`.
  ///
  /// `Point` gives a zero-length polyline; `MultiPoint` a polyline through its points (a
  /// single point gives a zero-length polyline: WZDx writes start and end as a MultiPoint);
  /// `LineString` one polyline; `MultiLineString` one per line; `Polygon` its outer ring;
  /// `MultiPolygon` each outer ring; `GeometryCollection` all of its members' polylines.
  /// Altitudes are ignored.
  ///
  /// - Parameter path: The path of this value, for errors.
  /// - Returns: At least one polyline.
  /// - Throws: `JSONFieldError` naming the bad member or position.
  /// - Complexity: O(n) in the number of positions.
  package func geoJSONPolylines(at path: String) throws(JSONFieldError) -> [GeoPolyline] {
    let type = try required("type", at: path).requiredString(at: path + ".type")
    if type == "GeometryCollection" {
      let members = try required("geometries", at: path).requiredArray(at: path + ".geometries")
      var polylines: [GeoPolyline] = []
      for (index, member) in members.enumerated() {
        polylines += try member.geoJSONPolylines(at: "\(path).geometries[\(index)]")
      }
      guard !polylines.isEmpty else {
        throw JSONFieldError(path: path, reason: "empty GeometryCollection")
      }
      return polylines
    }
    let coordinatesPath = path + ".coordinates"
    let coordinates = try required("coordinates", at: path)
    func line(_ value: JSONValue, _ path: String) throws(JSONFieldError) -> GeoPolyline {
      let positions = try value.requiredArray(at: path)
      var vertices: [GeoCoordinates] = []
      vertices.reserveCapacity(positions.count)
      for (index, position) in positions.enumerated() {
        vertices.append(try position.geoJSONPosition(at: "\(path)[\(index)]"))
      }
      switch vertices.count {
      case 0: throw JSONFieldError(path: path, reason: "a line needs positions, found none")
      case 1: return GeoPolyline(point: vertices[0])
      default: return GeoPolyline(uncheckedVertices: vertices)
      }
    }
    switch type {
    case "Point":
      return [GeoPolyline(point: try coordinates.geoJSONPosition(at: coordinatesPath))]
    case "MultiPoint", "LineString":
      return [try line(coordinates, coordinatesPath)]
    case "MultiLineString", "Polygon":
      let lines = try coordinates.requiredArray(at: coordinatesPath)
      guard !lines.isEmpty else {
        throw JSONFieldError(path: coordinatesPath, reason: "no lines in \(type)")
      }
      if type == "Polygon" { return [try line(lines[0], coordinatesPath + "[0]")] }
      var polylines: [GeoPolyline] = []
      for (index, value) in lines.enumerated() {
        polylines.append(try line(value, "\(coordinatesPath)[\(index)]"))
      }
      return polylines
    case "MultiPolygon":
      let polygons = try coordinates.requiredArray(at: coordinatesPath)
      var polylines: [GeoPolyline] = []
      for (index, polygon) in polygons.enumerated() {
        let ringsPath = "\(coordinatesPath)[\(index)]"
        guard let outer = try polygon.requiredArray(at: ringsPath).first else { continue }
        polylines.append(try line(outer, ringsPath + "[0]"))
      }
      guard !polylines.isEmpty else {
        throw JSONFieldError(path: coordinatesPath, reason: "no polygons in MultiPolygon")
      }
      return polylines
    default:
      throw JSONFieldError(path: path + ".type", reason: "unknown geometry type \"\(type)\"")
    }
  }

  /// A GeoJSON position `[lng, lat, (alt)]` as coordinates (the altitude is ignored).
  package func geoJSONPosition(at path: String) throws(JSONFieldError) -> GeoCoordinates {
    let numbers = try requiredArray(at: path)
    guard numbers.count >= 2 else {
      throw JSONFieldError(path: path, reason: "a position needs longitude and latitude")
    }
    let longitude = try numbers[0].requiredDouble(at: path + "[0]")
    let latitude = try numbers[1].requiredDouble(at: path + "[1]")
    return try Self.coordinates(latitude: latitude, longitude: longitude, at: path)
  }

  /// Validated coordinates, or an error naming `path` and the bad value.
  package static func coordinates(
    latitude: Double, longitude: Double, at path: String
  ) throws(JSONFieldError) -> GeoCoordinates {
    do {
      return try GeoCoordinates(latitude: latitude, longitude: longitude)
    } catch {
      throw JSONFieldError(path: path, reason: error.description)
    }
  }
}
