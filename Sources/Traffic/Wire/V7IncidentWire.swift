import Foundation
import Toolbox

/// The HERE Traffic API v7 incidents response, written and read.
///
/// The shape (HERE Traffic API v7 developer guide, "Request incident data" and "Request
/// incident by ID"; see `API.md` of this project):
///
/// ```
/// {"sourceUpdated": "2021-07-06T10:22:01Z", "results": [
///   {"location": {"length": 376, "description"?: "A1",
///                 "shape": {"links": [{"points": [{"lat": 53.9, "lng": 13.04}, ...],
///                                      "length": 13}]}},
///    "incidentDetails": {"id", "originalId", "parentId"?, "startTime"?, "endTime"?,
///      "entryTime"?, "roadClosed", "criticality"?, "type"?, "codes"?,
///      "description": {"value", "language"}, "summary": {"value", "language"},
///      "junctionTraversability", "vehicleRestrictions"?}}]}
/// ```
///
/// Location references (v7 `locationReferencing`, ``LocationReferencing``): `shape` writes
/// `location.shape`; `olr` writes `location.olr`, the incident's binary OpenLR reference in
/// base64, when it has one; `tmc` writes `location.tmc` in HERE's shape when it has a TMC
/// reference:
///
/// ```
/// "tmc": {"extendedCountryCode"?: "E0", "ebuCountryCode": "D", "tableId": "1",
///         "tableVersion"?: "11.0", "locationId": "10429", "secondaryLocationId"?: "10430",
///         "queuingDirection"?: "+" | "-" | "both", "extent"?: 1, "primaryOffset"?: 0.0,
///         "secondaryOffset"?: 0.0, "affectedLength"?: 634.0}
/// ```
///
/// `tableVersion`, `secondaryLocationId`, `secondaryOffset`, the value `both` and
/// `additionalTmc` (an array of further such objects when an incident has more than one TMC
/// reference) are this project's additions; HERE's documented members keep HERE's meaning.
/// Reading, a result without `shape` is placed by its `olr` when that decodes (the reference
/// points joined, see `OpenLR.Location.approximatePolyline`).
///
/// A lookup by id (`GET /v7/incidents/{originalId}`) answers one result object alone
/// (`{"location", "incidentDetails"}`), as HERE's does.
///
/// Choices where v7 has no word for a value of the model, made so that every field
/// round-trips:
/// - `type` `unknown` and `criticality` `unknown` (no v7 names) are left out; a result
///   without them reads back as `unknown`. Unknown type names read as `unknown`.
/// - Open start or end times, and an unknown entry time, are left out.
/// - Each polyline of the location (main, then additional) is one link; reading, a link
///   that begins where the previous one ended continues it (HERE splits one path into many
///   links), otherwise it starts an additional polyline. A point incident is a link of two
///   identical points. Link lengths are written to 0.1 m for clients (ellipsoidal local-plane
///   approximation, `fastDistance`); `location.length` is the model's length, written exactly.
/// - `vehicleRestrictions` is an array, one object per restricted vehicle category:
///   `{"vehicleType": "truck", "restrictedIfGrossWeightMoreThanInKilograms": 7500, ...}`
///   with the HERE SDK's field names (`VehicleRestriction`), in category order, writing only
///   the rules that are set. HERE's public v7 documentation does not show this member's
///   layout; this is this project's.
/// - Times are RFC 3339 in UTC, with milliseconds when not a whole second.
///
/// Output is deterministic: members are always written in the order above.
public enum V7IncidentWire {
  /// The namespace prefix v7 allows before an incident id (`here:traffic:incident:123`).
  public static let idNamespace = "here:traffic:incident:"

  /// Which location references a response carries (v7 `locationReferencing`).
  public struct LocationReferencing: OptionSet, Hashable, Sendable {
    public let rawValue: Int

    /// Creates a set from its raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `location.shape`: the polylines (`locationReferencing=shape`).
    public static let shape = LocationReferencing(rawValue: 1)
    /// `location.olr`: binary OpenLR in base64, for incidents that have it
    /// (`locationReferencing=olr`).
    public static let openLR = LocationReferencing(rawValue: 2)
    /// `location.tmc`: the TMC reference, for incidents that have one
    /// (`locationReferencing=tmc`).
    public static let tmc = LocationReferencing(rawValue: 4)
    /// Every reference.
    public static let all: LocationReferencing = [.shape, .openLR, .tmc]
  }

  // MARK: Encoding

  /// Encodes an incidents response.
  ///
  /// Descriptions are written as the incidents carry them: localise them first
  /// (`TrafficIncident.localized(to:)`) to answer a `lang` parameter.
  ///
  /// - Parameters:
  ///   - incidents: The results, in the order to write them.
  ///   - sourceUpdated: When the underlying data was last updated; `nil` writes `null`.
  ///   - locationReferencing: The location references to write; the shape by default, none
  ///     for `locationReferencing=none`.
  /// - Returns: UTF-8 JSON text.
  /// - Complexity: O(n) in the total number of vertices and characters.
  public static func encode(
    _ incidents: some Collection<TrafficIncident>, sourceUpdated: Date?,
    locationReferencing: LocationReferencing = .shape
  ) -> Data {
    V7Envelope.write(
      incidents, sourceUpdated: sourceUpdated, capacity: 128 + incidents.count * 768
    ) { incident, writer in
      writeResult(incident, references: locationReferencing, to: &writer)
    }
  }

  /// Encodes the answer to a lookup by id: the single result object.
  ///
  /// - Parameters:
  ///   - incident: The incident found.
  ///   - locationReferencing: The location references to write; the shape by default.
  /// - Returns: UTF-8 JSON text `{"location": ..., "incidentDetails": ...}`.
  /// - Complexity: O(n) in the number of vertices and characters.
  public static func encodeLookup(
    _ incident: TrafficIncident, locationReferencing: LocationReferencing = .shape
  ) -> Data {
    var writer = JSONWriter(capacity: 1024)
    writeResult(incident, references: locationReferencing, to: &writer)
    return Data(writer.bytes)
  }

  static func writeResult(
    _ incident: TrafficIncident, references: LocationReferencing, to w: inout JSONWriter
  ) {
    let location = incident.location
    w.raw("{\"location\":{")
    w.key("length")
    w.number(location.lengthInMeters)
    if let description = location.description {
      w.raw(",\"description\":")
      w.string(description)
    }
    if references.contains(.shape) {
      w.raw(",\"shape\":{\"links\":[")
      writeLink(location.polyline, to: &w)
      for polyline in location.additionalPolylines {
        w.byte(UInt8(ascii: ","))
        writeLink(polyline, to: &w)
      }
      w.raw("]}")
    }
    if references.contains(.openLR), let openLR = location.openLR {
      w.raw(",\"olr\":")
      w.string(openLR)
    }
    if references.contains(.tmc), let first = location.tmc.first {
      w.raw(",\"tmc\":")
      writeTMC(first, to: &w)
      if location.tmc.count > 1 {
        w.raw(",\"additionalTmc\":[")
        for (index, reference) in location.tmc.dropFirst().enumerated() {
          if index > 0 { w.byte(UInt8(ascii: ",")) }
          writeTMC(reference, to: &w)
        }
        w.byte(UInt8(ascii: "]"))
      }
    }
    w.raw("},\"incidentDetails\":{")
    w.key("id")
    w.string(incident.id)
    w.raw(",\"originalId\":")
    w.string(incident.originalId)
    if let parentId = incident.parentId {
      w.raw(",\"parentId\":")
      w.string(parentId)
    }
    if let time = incident.startTime {
      w.raw(",\"startTime\":")
      w.date(time)
    }
    if let time = incident.endTime {
      w.raw(",\"endTime\":")
      w.date(time)
    }
    if let time = incident.entryTime {
      w.raw(",\"entryTime\":")
      w.date(time)
    }
    w.raw(",\"roadClosed\":")
    w.bool(incident.isRoadClosed)
    if let criticality = incident.impact.wireName {
      w.raw(",\"criticality\":")
      w.string(criticality)
    }
    if let type = incident.type.wireName {
      w.raw(",\"type\":")
      w.string(type)
    }
    if !incident.codes.isEmpty {
      w.raw(",\"codes\":[")
      for (index, code) in incident.codes.enumerated() {
        if index > 0 { w.byte(UInt8(ascii: ",")) }
        w.integer(code)
      }
      w.byte(UInt8(ascii: "]"))
    }
    w.raw(",\"description\":")
    writeText(incident.description, to: &w)
    w.raw(",\"summary\":")
    writeText(incident.summary, to: &w)
    w.raw(",\"junctionTraversability\":")
    w.string(incident.junctionsTraversability.rawValue)
    if !incident.vehicleRestrictions.isEmpty {
      w.raw(",\"vehicleRestrictions\":[")
      var first = true
      for category in RestrictedVehicleCategory.allCases {
        guard let restriction = incident.vehicleRestrictions[category] else { continue }
        if !first { w.byte(UInt8(ascii: ",")) }
        first = false
        writeRestriction(restriction, category: category, to: &w)
      }
      w.byte(UInt8(ascii: "]"))
    }
    w.raw("}}")
  }

  /// Writes one v7 shape link, `{"points":[{"lat":..,"lng":..},...],"length":..}` (the
  /// length in meters, one decimal); flow results write their shape with it too.
  static func writeLink(_ polyline: GeoPolyline, to w: inout JSONWriter) {
    w.raw("{\"points\":[")
    var length = 0.0
    var previous: GeoCoordinates?
    for (index, vertex) in polyline.vertices.enumerated() {
      if index > 0 { w.byte(UInt8(ascii: ",")) }
      w.raw("{\"lat\":")
      w.number(vertex.latitude)
      w.raw(",\"lng\":")
      w.number(vertex.longitude)
      w.byte(UInt8(ascii: "}"))
      if let previous { length += previous.fastDistance(to: vertex) }
      previous = vertex
    }
    w.raw("],\"length\":")
    w.number(length, decimals: 1)
    w.byte(UInt8(ascii: "}"))
  }

  private static func writeTMC(_ reference: TMCLocationReference, to w: inout JSONWriter) {
    w.byte(UInt8(ascii: "{"))
    if let code = reference.extendedCountryCode {
      w.key("extendedCountryCode")
      w.string(code)
      w.byte(UInt8(ascii: ","))
    }
    w.key("ebuCountryCode")
    w.string(reference.countryCode)
    w.raw(",\"tableId\":")
    w.string(reference.tableNumber)
    if let version = reference.tableVersion {
      w.raw(",\"tableVersion\":")
      w.string(version)
    }
    w.raw(",\"locationId\":")
    w.string(String(reference.primaryLocationCode))
    if let code = reference.secondaryLocationCode {
      w.raw(",\"secondaryLocationId\":")
      w.string(String(code))
    }
    if let direction = tmcDirectionNames[reference.direction] {
      w.raw(",\"queuingDirection\":")
      w.string(direction)
    }
    if let extent = reference.extent {
      w.raw(",\"extent\":")
      w.integer(extent)
    }
    for (name, value) in [
      ("primaryOffset", reference.primaryOffsetInMeters),
      ("secondaryOffset", reference.secondaryOffsetInMeters),
      ("affectedLength", reference.affectedLengthInMeters),
    ] {
      guard let value else { continue }
      w.byte(UInt8(ascii: ","))
      w.string(name)
      w.byte(UInt8(ascii: ":"))
      w.number(value)
    }
    w.byte(UInt8(ascii: "}"))
  }

  /// v7 `queuingDirection` values; an unknown direction is left out.
  private static let tmcDirectionNames: [TMCLocationReference.Direction: String] = [
    .positive: "+", .negative: "-", .both: "both",
  ]

  private static func writeText(_ text: LocalizedText, to w: inout JSONWriter) {
    w.raw("{\"value\":")
    w.string(text.text)
    w.raw(",\"language\":")
    w.string(text.language.identifier)
    w.byte(UInt8(ascii: "}"))
  }

  private static func writeRestriction(
    _ restriction: VehicleRestriction, category: RestrictedVehicleCategory,
    to w: inout JSONWriter
  ) {
    w.raw("{\"vehicleType\":")
    w.string(category.rawValue)
    for (name, keyPath) in restrictionFlags where restriction[keyPath: keyPath] {
      w.byte(UInt8(ascii: ","))
      w.string(name)
      w.raw(":true")
    }
    for (name, keyPath) in restrictionBounds {
      guard let value = restriction[keyPath: keyPath] else { continue }
      w.byte(UInt8(ascii: ","))
      w.string(name)
      w.byte(UInt8(ascii: ":"))
      w.integer(value)
    }
    if !restriction.restrictedHazardousGoods.isEmpty {
      w.raw(",\"restrictedHazardousGoods\":[")
      var first = true
      for goods in VehicleRestriction.HazardousGoods.allCases
      where restriction.restrictedHazardousGoods.contains(goods) {
        if !first { w.byte(UInt8(ascii: ",")) }
        first = false
        w.string(goods.rawValue)
      }
      w.byte(UInt8(ascii: "]"))
    }
    if let category = restriction.restrictedTunnelCategory {
      w.raw(",\"restrictedTunnelCategory\":")
      w.string(category.rawValue)
    }
    w.byte(UInt8(ascii: "}"))
  }

  private static let restrictionFlags:
    [(String, WritableKeyPath<VehicleRestriction, Bool> & Sendable)] = [
      ("isRestrictedAlways", \.isRestrictedAlways),
      ("isDieselFuelRestricted", \.isDieselFuelRestricted),
      ("isPetrolFuelRestricted", \.isPetrolFuelRestricted),
      ("isLpgFuelRestricted", \.isLpgFuelRestricted),
      ("isCaravanRestricted", \.isCaravanRestricted),
      ("isTrailerRestricted", \.isTrailerRestricted),
      ("isDrivingWithoutSnowChainsRestricted", \.isDrivingWithoutSnowChainsRestricted),
      ("isDrivingWithoutWinterTyresRestricted", \.isDrivingWithoutWinterTyresRestricted),
      ("isEvenNumberPlateRestricted", \.isEvenNumberPlateRestricted),
      ("isOddNumberPlateRestricted", \.isOddNumberPlateRestricted),
      ("isThroughTrafficRestricted", \.isThroughTrafficRestricted),
      ("isResidentsTrafficRestricted", \.isResidentsTrafficRestricted),
      ("isDestinationInIncidentAreaRestricted", \.isDestinationInIncidentAreaRestricted),
      ("isEuro3EmissionStandardRestricted", \.isEuro3EmissionStandardRestricted),
      ("isEuro4EmissionStandardRestricted", \.isEuro4EmissionStandardRestricted),
      ("isEuro5EmissionStandardRestricted", \.isEuro5EmissionStandardRestricted),
    ]

  private static let restrictionBounds:
    [(String, WritableKeyPath<VehicleRestriction, Int?> & Sendable)] = [
      ("restrictedIfGrossWeightMoreThanInKilograms", \.restrictedIfGrossWeightMoreThanInKilograms),
      ("restrictedIfGrossWeightLessThanInKilograms", \.restrictedIfGrossWeightLessThanInKilograms),
      ("restrictedIfAxleWeightMoreThanInKilograms", \.restrictedIfAxleWeightMoreThanInKilograms),
      ("restrictedIfAxleWeightLessThanInKilograms", \.restrictedIfAxleWeightLessThanInKilograms),
      ("restrictedIfLongerThanInCentimeters", \.restrictedIfLongerThanInCentimeters),
      ("restrictedIfShorterThanInCentimeters", \.restrictedIfShorterThanInCentimeters),
      ("restrictedIfHigherThanInCentimeters", \.restrictedIfHigherThanInCentimeters),
      ("restrictedIfLowerThanInCentimeters", \.restrictedIfLowerThanInCentimeters),
      ("restrictedIfWiderThanInCentimeters", \.restrictedIfWiderThanInCentimeters),
      ("restrictedIfNarrowerThanInCentimeters", \.restrictedIfNarrowerThanInCentimeters),
      ("restrictedIfOccupantsMoreThan", \.restrictedIfOccupantsMoreThan),
      ("restrictedIfOccupantsFewerThan", \.restrictedIfOccupantsFewerThan),
      ("restrictedIfAxleCountMoreThan", \.restrictedIfAxleCountMoreThan),
    ]

  // MARK: Decoding

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
    let shape = try value.required("shape", at: path)
    let linksPath = path + ".shape.links"
    let links = try shape.required("links", at: path + ".shape").requiredArray(at: linksPath)
    var polylines: [[GeoCoordinates]] = []
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
}

/// A decoded v7 incidents response.
public struct V7IncidentResponse: Sendable {
  /// When the data was last updated (`sourceUpdated`), if the response says.
  public var sourceUpdated: Date?
  /// The incidents that could be read, in response order.
  public var incidents: [TrafficIncident]
  /// Results that were skipped, each with its JSON path and the reason.
  public var problems: [V7WireError]

  /// Creates a response.
  public init(
    sourceUpdated: Date?, incidents: [TrafficIncident], problems: [V7WireError] = []
  ) {
    self.sourceUpdated = sourceUpdated
    self.incidents = incidents
    self.problems = problems
  }
}

/// Why a v7 response, or one result of it, could not be read.
public struct V7WireError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Where: a JSON path (`results[2].incidentDetails.startTime`) or a text position
  /// (`line 3, column 5 (byte 40)`).
  public var location: String
  /// What was wrong.
  public var reason: String

  /// Creates an error.
  public init(location: String, reason: String) {
    self.location = location
    self.reason = reason
  }

  /// `"location: reason"`.
  public var description: String { "\(location): \(reason)" }
}
