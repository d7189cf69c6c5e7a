import Codec
import Foundation

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
///
/// Each part is written and read side by side: the answers and the result objects here,
/// the `location` (shape, OpenLR, TMC) in `V7IncidentWire+Location.swift`, the vehicle
/// restrictions in `V7IncidentWire+Restrictions.swift`. The server writes its answers and
/// the remote engine reads them with these functions.
public enum V7IncidentWire {
  /// The namespace prefix v7 allows before an incident id (`here:traffic:incident:123`).
  public static let idNamespace = "here:traffic:incident:"

  /// Which location references a response carries (v7 `locationReferencing`).
  public struct LocationReferencing: OptionSet, Hashable, Sendable {
    /// The bits of the set.
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
}

extension V7IncidentWire {
  // MARK: Answers

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

  // MARK: Results

  /// Writes one result object `{"location", "incidentDetails"}`; the server's answer
  /// cache (`V7ResultCache`) and the route traffic answer write their results with it.
  static func writeResult(
    _ incident: TrafficIncident, references: LocationReferencing, to w: inout JSONWriter
  ) {
    w.beginObject()
    w.key("location")
    writeLocation(incident.location, references: references, to: &w)
    w.key("incidentDetails")
    w.beginObject()
    w.member("id", incident.id)
    w.member("originalId", incident.originalId)
    if let parentId = incident.parentId {
      w.member("parentId", parentId)
    }
    if let time = incident.startTime {
      w.member("startTime", time)
    }
    if let time = incident.endTime {
      w.member("endTime", time)
    }
    if let time = incident.entryTime {
      w.member("entryTime", time)
    }
    w.member("roadClosed", incident.isRoadClosed)
    if let criticality = incident.impact.wireName {
      w.member("criticality", criticality)
    }
    if let type = incident.type.wireName {
      w.member("type", type)
    }
    if !incident.codes.isEmpty {
      w.key("codes")
      w.beginArray()
      for code in incident.codes {
        w.integer(code)
      }
      w.endArray()
    }
    w.key("description")
    writeText(incident.description, to: &w)
    w.key("summary")
    writeText(incident.summary, to: &w)
    w.member("junctionTraversability", incident.junctionsTraversability.rawValue)
    if !incident.vehicleRestrictions.isEmpty {
      w.key("vehicleRestrictions")
      w.beginArray()
      for category in RestrictedVehicleCategory.allCases {
        guard let restriction = incident.vehicleRestrictions[category] else { continue }
        writeRestriction(restriction, category: category, to: &w)
      }
      w.endArray()
    }
    w.endObject()
    w.endObject()
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

  /// Writes a text as `{"value", "language"}`; `decodeIncident` reads it back.
  private static func writeText(_ text: LocalizedText, to w: inout JSONWriter) {
    w.beginObject()
    w.member("value", text.text)
    w.member("language", text.language.identifier)
    w.endObject()
  }
}
