import Codec
import Foundation

extension V7IncidentWire {
  /// Decodes an incidents response.
  ///
  /// A result that cannot be read (no shape, a bad coordinate, end before start...) is
  /// skipped and listed in `problems` with its JSON path; the others are returned.
  ///
  /// - Parameters:
  ///   - data: UTF-8 JSON text.
  ///   - defaultLanguage: The language of texts that do not name one.
  /// - Returns: The incidents, the source time and the skipped results.
  /// - Throws: `V7WireError` when the text is not JSON or not an incidents response.
  /// - Complexity: O(n) in the size of `data`.
  public static func decode(
    _ data: Data, defaultLanguage: LanguageCode = .enUS
  ) throws(V7WireError) -> V7IncidentResponse {
    let root = try parse(data)
    if root["incidentDetails"] != nil {
      // A lookup answer: one result.
      do {
        let incident = try decodeIncident(root, at: "$", defaultLanguage: defaultLanguage)
        return V7IncidentResponse(sourceUpdated: nil, incidents: [incident])
      } catch {
        throw V7WireError(location: error.path, reason: error.reason)
      }
    }
    let envelope = try V7Envelope.read(root)
    let decoded = V7Envelope.decodeEach(envelope.items) { (item, path) throws(JSONFieldError) in
      try decodeIncident(item, at: path, defaultLanguage: defaultLanguage)
    }
    return V7IncidentResponse(
      sourceUpdated: envelope.sourceUpdated, incidents: decoded.results,
      problems: decoded.problems)
  }

  /// Decodes the answer to a lookup by id (one result object).
  ///
  /// - Parameters:
  ///   - data: UTF-8 JSON text `{"location": ..., "incidentDetails": ...}`.
  ///   - defaultLanguage: The language of texts that do not name one.
  /// - Returns: The incident.
  /// - Throws: `V7WireError` naming the place and the reason.
  /// - Complexity: O(n) in the size of `data`.
  public static func decodeLookup(
    _ data: Data, defaultLanguage: LanguageCode = .enUS
  ) throws(V7WireError) -> TrafficIncident {
    let root = try parse(data)
    do {
      return try decodeIncident(root, at: "$", defaultLanguage: defaultLanguage)
    } catch {
      throw V7WireError(location: error.path, reason: error.reason)
    }
  }

  private static func parse(_ data: Data) throws(V7WireError) -> JSONValue {
    do {
      return try JSONParser.parse(data)
    } catch {
      throw V7WireError(location: error.place, reason: "not valid JSON: \(error.reason)")
    }
  }

  /// Decodes one result object `{"location", "incidentDetails"}`.
  ///
  /// - Parameters:
  ///   - value: The parsed result.
  ///   - path: Its JSON path, for errors.
  ///   - defaultLanguage: The language of texts that do not name one.
  /// - Throws: `JSONFieldError` naming the member that is missing or wrong.
  package static func decodeIncident(
    _ value: JSONValue, at path: String, defaultLanguage: LanguageCode
  ) throws(JSONFieldError) -> TrafficIncident {
    let location = try decodeLocation(
      value.required("location", at: path), at: path + ".location")
    let detailsPath = path + ".incidentDetails"
    let details = try value.required("incidentDetails", at: path)
    func string(_ key: String) throws(JSONFieldError) -> String? {
      guard let member = details[key], !member.isNull else { return nil }
      guard let text = member.identifier else {
        throw JSONFieldError(
          path: "\(detailsPath).\(key)", reason: "expected a string, found \(member.kindName)")
      }
      return text
    }
    func date(_ key: String) throws(JSONFieldError) -> Date? {
      guard let text = try string(key) else { return nil }
      guard let date = RFC3339.parse(text) else {
        throw JSONFieldError(
          path: "\(detailsPath).\(key)", reason: "\"\(text)\" is not an RFC 3339 date-time")
      }
      return date
    }
    func text(_ key: String) throws(JSONFieldError) -> LocalizedText? {
      guard let member = details[key], !member.isNull else { return nil }
      let textPath = "\(detailsPath).\(key)"
      let value = try member.required("value", at: textPath).requiredString(
        at: textPath + ".value")
      var language = defaultLanguage
      if let tag = member["language"]?.string {
        do {
          language = try LanguageCode(tag)
        } catch {
          throw JSONFieldError(path: textPath + ".language", reason: error.description)
        }
      }
      return LocalizedText(text: value, language: language)
    }
    guard let id = try string("id") else {
      throw JSONFieldError(path: detailsPath, reason: "missing member \"id\"")
    }
    var impact = TrafficIncidentImpact.unknown
    if let name = try string("criticality") {
      guard let known = TrafficIncidentImpact(wireName: name) else {
        throw JSONFieldError(
          path: detailsPath + ".criticality",
          reason: "unknown criticality \"\(name)\" (critical, major, minor, lowImpact)")
      }
      impact = known
    }
    let type = try string("type").flatMap(TrafficIncidentType.init(wireName:)) ?? .unknown
    var isRoadClosed = false
    if let closed = details["roadClosed"], !closed.isNull {
      guard let flag = closed.bool else {
        throw JSONFieldError(
          path: detailsPath + ".roadClosed", reason: "expected a Boolean, found \(closed.kindName)")
      }
      isRoadClosed = flag
    }
    var codes: [Int] = []
    if let list = details["codes"], !list.isNull {
      for (index, code) in try list.requiredArray(at: detailsPath + ".codes").enumerated() {
        guard let number = code.int else {
          throw JSONFieldError(
            path: "\(detailsPath).codes[\(index)]", reason: "expected an integer code")
        }
        codes.append(number)
      }
    }
    var traversability = JunctionsTraversability.allOpen
    if let name = try string("junctionTraversability") {
      guard let known = JunctionsTraversability(rawValue: name) else {
        throw JSONFieldError(
          path: detailsPath + ".junctionTraversability",
          reason: "unknown junction traversability \"\(name)\"")
      }
      traversability = known
    }
    var restrictions: [RestrictedVehicleCategory: VehicleRestriction] = [:]
    if let list = details["vehicleRestrictions"], !list.isNull {
      let listPath = detailsPath + ".vehicleRestrictions"
      for (index, item) in try list.requiredArray(at: listPath).enumerated() {
        let (category, restriction) = try decodeRestriction(item, at: "\(listPath)[\(index)]")
        restrictions[category] = restriction
      }
    }
    let description = try text("description")
    do {
      return try TrafficIncident(
        id: id, originalId: try string("originalId"), parentId: try string("parentId"),
        type: type, impact: impact, description: description, summary: try text("summary"),
        startTime: try date("startTime"), endTime: try date("endTime"),
        entryTime: try date("entryTime"), isRoadClosed: isRoadClosed,
        junctionsTraversability: traversability, codes: codes, location: location,
        vehicleRestrictions: restrictions, sourceTexts: description.map { [$0] } ?? [])
    } catch let error as TrafficModelError {
      throw JSONFieldError(path: detailsPath, reason: error.description)
    } catch let error as JSONFieldError {
      throw error
    } catch {
      throw JSONFieldError(path: detailsPath, reason: "\(error)")
    }
  }

  private static func decodeLocation(
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

  private static func decodeRestriction(
    _ value: JSONValue, at path: String
  ) throws(JSONFieldError) -> (RestrictedVehicleCategory, VehicleRestriction) {
    let name = try value.required("vehicleType", at: path).requiredString(
      at: path + ".vehicleType")
    guard let category = RestrictedVehicleCategory(rawValue: name) else {
      throw JSONFieldError(path: path + ".vehicleType", reason: "unknown vehicle type \"\(name)\"")
    }
    var restriction = VehicleRestriction()
    for (key, keyPath) in restrictionFlags {
      guard let member = value[key], !member.isNull else { continue }
      guard let flag = member.bool else {
        throw JSONFieldError(path: "\(path).\(key)", reason: "expected a Boolean")
      }
      restriction[keyPath: keyPath] = flag
    }
    for (key, keyPath) in restrictionBounds {
      guard let member = value[key], !member.isNull else { continue }
      guard let number = member.int else {
        throw JSONFieldError(path: "\(path).\(key)", reason: "expected an integer")
      }
      restriction[keyPath: keyPath] = number
    }
    if let list = value["restrictedHazardousGoods"], !list.isNull {
      let listPath = path + ".restrictedHazardousGoods"
      for (index, item) in try list.requiredArray(at: listPath).enumerated() {
        guard let goods = item.string.flatMap(VehicleRestriction.HazardousGoods.init(rawValue:))
        else {
          throw JSONFieldError(path: "\(listPath)[\(index)]", reason: "unknown hazardous goods")
        }
        restriction.restrictedHazardousGoods.insert(goods)
      }
    }
    if let member = value["restrictedTunnelCategory"], !member.isNull {
      guard let tunnel = member.string.flatMap(VehicleRestriction.TunnelCategory.init(rawValue:))
      else {
        throw JSONFieldError(
          path: path + ".restrictedTunnelCategory", reason: "expected b, c, d or e")
      }
      restriction.restrictedTunnelCategory = tunnel
    }
    return (category, restriction)
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
}
