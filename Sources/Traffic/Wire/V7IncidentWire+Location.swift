import Codec
import Foundation

/// A result's `location`, written and read: its length and description, the shape's links,
/// the binary OpenLR reference and the TMC references (see ``V7IncidentWire``).
extension V7IncidentWire {
  // MARK: Location

  /// Writes a result's `location` object: length, description and the references asked
  /// for (see the type's documentation).
  static func writeLocation(
    _ location: TrafficLocation, references: LocationReferencing, to w: inout JSONWriter
  ) {
    w.beginObject()
    w.member("length", location.lengthInMeters)
    if let description = location.description {
      w.member("description", description)
    }
    if references.contains(.shape) {
      w.key("shape")
      w.beginObject()
      w.key("links")
      w.beginArray()
      writeLink(location.polyline, to: &w)
      for polyline in location.additionalPolylines {
        writeLink(polyline, to: &w)
      }
      w.endArray()
      w.endObject()
    }
    if references.contains(.openLR), let openLR = location.openLR {
      w.member("olr", openLR)
    }
    if references.contains(.tmc), let first = location.tmc.first {
      w.key("tmc")
      writeTMC(first, to: &w)
      if location.tmc.count > 1 {
        w.key("additionalTmc")
        w.beginArray()
        for reference in location.tmc.dropFirst() {
          writeTMC(reference, to: &w)
        }
        w.endArray()
      }
    }
    w.endObject()
  }

  /// Reads a result's `location`: the shape's links as polylines (a link that continues the
  /// previous one joins it), or, without a shape, the OpenLR reference's points.
  ///
  /// - Throws: `JSONFieldError` naming the member that is missing or wrong.
  static func decodeLocation(
    _ value: JSONValue, at path: String
  ) throws(JSONFieldError) -> TrafficLocation {
    var openLR: String?
    var openLRLocation: OpenLR.Location?
    if let member = value["olr"], !member.isNull {
      let text = try member.requiredString(at: path + ".olr")
      do {
        openLRLocation = try OpenLR.decode(base64: text)
      } catch {
        throw JSONFieldError(path: path + ".olr", reason: error.description)
      }
      openLR = text
    }
    var tmc: [TMCLocationReference] = []
    if let member = value["tmc"], !member.isNull {
      tmc.append(try decodeTMC(member, at: path + ".tmc"))
    }
    if let list = value["additionalTmc"], !list.isNull {
      let listPath = path + ".additionalTmc"
      for (index, item) in try list.requiredArray(at: listPath).enumerated() {
        tmc.append(try decodeTMC(item, at: "\(listPath)[\(index)]"))
      }
    }
    var length: Double?
    if let member = value["length"], !member.isNull {
      length = try member.requiredDouble(at: path + ".length")
    }
    var description: String?
    if let member = value["description"], !member.isNull {
      description = try member.requiredString(at: path + ".description")
    }
    if value["shape"] == nil || value["shape"]?.isNull == true, let openLRLocation {
      do {
        return try TrafficLocation(
          polyline: openLRLocation.approximatePolyline, lengthInMeters: length,
          description: description, tmc: tmc, openLR: openLR)
      } catch {
        throw JSONFieldError(path: path + ".length", reason: error.description)
      }
    }
    let linksPath = path + ".shape.links"
    var polylines: [[GeoCoordinates]] = []
    for (index, vertices) in try shapeLinks(of: value, at: path).enumerated() {
      let pointsPath = "\(linksPath)[\(index)].points"
      guard let firstVertex = vertices.first else {
        throw JSONFieldError(path: pointsPath, reason: "a link needs points, found none")
      }
      if let previous = polylines.last, previous.last == firstVertex,
        !(previous.count == 2 && previous[0] == previous[1]),
        vertices.contains(where: { $0 != firstVertex })
      {
        // HERE splits one path into consecutive links: continue the previous polyline.
        polylines[polylines.count - 1] += vertices.dropFirst()
      } else {
        polylines.append(vertices.count == 1 ? [firstVertex, firstVertex] : vertices)
      }
    }
    guard let main = polylines.first else {
      throw JSONFieldError(path: linksPath, reason: "the shape has no links")
    }
    do {
      return try TrafficLocation(
        polyline: GeoPolyline(uncheckedVertices: main),
        additionalPolylines: polylines.dropFirst().map { GeoPolyline(uncheckedVertices: $0) },
        lengthInMeters: length, description: description, tmc: tmc, openLR: openLR)
    } catch {
      throw JSONFieldError(path: path + ".length", reason: error.description)
    }
  }

  // MARK: Shape

  /// Writes one v7 shape link, `{"points":[{"lat":..,"lng":..},...],"length":..}` (the
  /// length in meters, one decimal); flow results write their shape with it too.
  static func writeLink(_ polyline: GeoPolyline, to w: inout JSONWriter) {
    w.beginObject()
    w.key("points")
    w.beginArray()
    var length = 0.0
    var previous: GeoCoordinates?
    for vertex in polyline.vertices {
      w.beginObject()
      w.member("lat", vertex.latitude)
      w.member("lng", vertex.longitude)
      w.endObject()
      if let previous { length += previous.fastDistance(to: vertex) }
      previous = vertex
    }
    w.endArray()
    w.member("length", length, decimals: 1)
    w.endObject()
  }

  /// The points of each link of `location.shape` (v7 `shape.links[].points[]`, `{lat, lng}`
  /// each), the incidents' and the flow's shape alike.
  ///
  /// - Throws: `JSONFieldError` naming the path of a missing member or a bad coordinate.
  static func shapeLinks(
    of location: JSONValue, at path: String
  ) throws(JSONFieldError) -> [[GeoCoordinates]] {
    let shape = try location.required("shape", at: path)
    let linksPath = path + ".shape.links"
    let links = try shape.required("links", at: path + ".shape").requiredArray(at: linksPath)
    var result: [[GeoCoordinates]] = []
    result.reserveCapacity(links.count)
    for (index, link) in links.enumerated() {
      let pointsPath = "\(linksPath)[\(index)].points"
      let points = try link.required("points", at: "\(linksPath)[\(index)]").requiredArray(
        at: pointsPath)
      var vertices: [GeoCoordinates] = []
      vertices.reserveCapacity(points.count)
      for (pointIndex, point) in points.enumerated() {
        let pointPath = "\(pointsPath)[\(pointIndex)]"
        let latitude = try point.required("lat", at: pointPath).requiredDouble(
          at: pointPath + ".lat")
        let longitude = try point.required("lng", at: pointPath).requiredDouble(
          at: pointPath + ".lng")
        vertices.append(
          try JSONValue.coordinates(latitude: latitude, longitude: longitude, at: pointPath))
      }
      result.append(vertices)
    }
    return result
  }

  // MARK: TMC

  /// Writes one `tmc` object (see the type's documentation).
  private static func writeTMC(_ reference: TMCLocationReference, to w: inout JSONWriter) {
    w.beginObject()
    if let code = reference.extendedCountryCode {
      w.member("extendedCountryCode", code)
    }
    w.member("ebuCountryCode", reference.countryCode)
    w.member("tableId", reference.tableNumber)
    if let version = reference.tableVersion {
      w.member("tableVersion", version)
    }
    w.member("locationId", String(reference.primaryLocationCode))
    if let code = reference.secondaryLocationCode {
      w.member("secondaryLocationId", String(code))
    }
    if let direction = tmcDirectionNames[reference.direction] {
      w.member("queuingDirection", direction)
    }
    if let extent = reference.extent {
      w.member("extent", extent)
    }
    for (name, value) in [
      ("primaryOffset", reference.primaryOffsetInMeters),
      ("secondaryOffset", reference.secondaryOffsetInMeters),
      ("affectedLength", reference.affectedLengthInMeters),
    ] {
      guard let value else { continue }
      w.key(name)
      w.number(value)
    }
    w.endObject()
  }

  /// Reads one `tmc` object (see the type's documentation).
  private static func decodeTMC(
    _ value: JSONValue, at path: String
  ) throws(JSONFieldError) -> TMCLocationReference {
    func string(_ key: String) throws(JSONFieldError) -> String? {
      guard let member = value[key], !member.isNull else { return nil }
      if let number = member.int { return String(number) }
      return try member.requiredString(at: "\(path).\(key)")
    }
    func code(_ key: String) throws(JSONFieldError) -> Int? {
      guard let text = try string(key) else { return nil }
      guard let number = Int(text) else {
        throw JSONFieldError(path: "\(path).\(key)", reason: "\"\(text)\" is not a location code")
      }
      return number
    }
    func number(_ key: String) throws(JSONFieldError) -> Double? {
      guard let member = value[key], !member.isNull else { return nil }
      return try member.requiredDouble(at: "\(path).\(key)")
    }
    guard let country = try string("ebuCountryCode") else {
      throw JSONFieldError(path: path, reason: "missing member \"ebuCountryCode\"")
    }
    guard let table = try string("tableId") else {
      throw JSONFieldError(path: path, reason: "missing member \"tableId\"")
    }
    guard let primary = try code("locationId") else {
      throw JSONFieldError(path: path, reason: "missing member \"locationId\"")
    }
    var direction = TMCLocationReference.Direction.unknown
    if let name = try string("queuingDirection") {
      guard let known = tmcDirectionNames.first(where: { $0.value == name })?.key else {
        throw JSONFieldError(
          path: path + ".queuingDirection", reason: "unknown direction \"\(name)\" (+, - or both)")
      }
      direction = known
    }
    var extent: Int?
    if let member = value["extent"], !member.isNull {
      guard let number = member.int else {
        throw JSONFieldError(path: path + ".extent", reason: "expected an integer")
      }
      extent = number
    }
    do {
      return try TMCLocationReference(
        countryCode: country, extendedCountryCode: try string("extendedCountryCode"),
        tableNumber: table, tableVersion: try string("tableVersion"),
        primaryLocationCode: primary, secondaryLocationCode: try code("secondaryLocationId"),
        extent: extent, direction: direction, primaryOffsetInMeters: try number("primaryOffset"),
        secondaryOffsetInMeters: try number("secondaryOffset"),
        affectedLengthInMeters: try number("affectedLength"))
    } catch let error as TrafficModelError {
      throw JSONFieldError(path: path, reason: error.description)
    } catch let error as JSONFieldError {
      throw error
    } catch {
      throw JSONFieldError(path: path, reason: "\(error)")
    }
  }

  /// v7 `queuingDirection` values; an unknown direction is left out.
  static let tmcDirectionNames: [TMCLocationReference.Direction: String] = [
    .positive: "+", .negative: "-", .both: "both",
  ]
}
