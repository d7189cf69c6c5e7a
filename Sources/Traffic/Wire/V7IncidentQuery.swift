import Codec
import Foundation

/// The query of `GET`/`POST /v7/incidents`, written as parameters by the remote engine and
/// read from them by the server.
///
/// Parameters, in the order written: `in` (``V7AreaQuery``), `locationReferencing` (a
/// comma list of `shape`, `olr` and `tmc`, or `none`), `lang`, `type` and `criticality`
/// (comma lists of v7 names), `earliestStartTime` and `latestEndTime` (RFC 3339 with an
/// offset), `sort=distance` with `from=LAT,LNG`, and `limit`. Reading, `units` may be given
/// as `metric` (the only units answered) and unknown parameters are ignored, as v7 clients
/// send extras; `locationReferencing` absent is the shape.
///
/// Every value reads back equal, except that the filters' `unknown` type and impact have no
/// v7 name and are not written, and that times are written to the millisecond.
package struct V7IncidentQuery: Equatable, Sendable {
  /// The area (`in`).
  package var area: any GeoArea
  /// Filters, language, order and limit.
  package var options: TrafficIncidentsQueryOptions
  /// The location references results carry (`locationReferencing`).
  package var locationReferencing: V7IncidentWire.LocationReferencing

  /// A query of these parts.
  package init(
    area: any GeoArea, options: TrafficIncidentsQueryOptions = TrafficIncidentsQueryOptions(),
    locationReferencing: V7IncidentWire.LocationReferencing = .shape
  ) {
    self.area = area
    self.options = options
    self.locationReferencing = locationReferencing
  }

  package static func == (lhs: V7IncidentQuery, rhs: V7IncidentQuery) -> Bool {
    V7AreaQuery.same(lhs.area, rhs.area) && lhs.options == rhs.options
      && lhs.locationReferencing == rhs.locationReferencing
  }

  // MARK: Writing

  /// The query's parameters, in the order above; `locationReferencing` is always written,
  /// as HERE requires it.
  ///
  /// - Throws: As ``V7AreaQuery/encode(_:)``.
  package func encode() throws(TrafficQueryError) -> [(String, String)] {
    var parameters = [
      ("in", try V7AreaQuery.encode(area)),
      ("locationReferencing", Self.encode(locationReferencing)),
    ]
    if let language = options.languageCode { parameters.append(("lang", language.identifier)) }
    let types = options.typeFilter.compactMap(\.wireName)
    if !types.isEmpty { parameters.append(("type", types.joined(separator: ","))) }
    let impacts = options.impactFilter.compactMap(\.wireName)
    if !impacts.isEmpty { parameters.append(("criticality", impacts.joined(separator: ","))) }
    if let start = options.earliestStartTime {
      parameters.append(("earliestStartTime", RFC3339.format(start)))
    }
    if let end = options.latestEndTime {
      parameters.append(("latestEndTime", RFC3339.format(end)))
    }
    if let origin = options.sortOrigin {
      parameters.append(("sort", "distance"))
      parameters.append(("from", "\(origin.latitude),\(origin.longitude)"))
    }
    if let limit = options.limit { parameters.append(("limit", String(limit))) }
    return parameters
  }

  /// The `locationReferencing` value of a set: its names in the order shape, olr, tmc, or
  /// `none` for no reference.
  package static func encode(_ references: V7IncidentWire.LocationReferencing) -> String {
    let names = [
      (V7IncidentWire.LocationReferencing.shape, "shape"), (.openLR, "olr"), (.tmc, "tmc"),
    ]
    .filter { references.contains($0.0) }.map(\.1)
    return names.isEmpty ? "none" : names.joined(separator: ",")
  }

  // MARK: Reading

  /// Reads and checks the parameters of `GET`/`POST /v7/incidents`.
  ///
  /// - Throws: `TrafficQueryError` whose detail names the parameter: `.invalidIn` for a
  ///   missing, repeated or malformed `in`; `.invalidGeometry` beyond the limits;
  ///   `.invalidIncident` for `type` and the times; `.invalidFilterOptions` for an empty time
  ///   window; `.invalidParameter` for the others.
  package init(_ parameters: QueryParameters, limits: TrafficQueryLimits) throws(TrafficQueryError)
  {
    area = try Self.area(parameters, limits: limits)
    locationReferencing = try Self.locationReferencing(parameters, allowsCodes: true) ?? .shape
    var options = TrafficIncidentsQueryOptions()
    options.languageCode = try parameters.language()
    if let names = try parameters.list("criticality", error: TrafficQueryError.invalidParameter) {
      options.impactFilter = try names.map { name throws(TrafficQueryError) in
        guard let impact = TrafficIncidentImpact(wireName: name) else {
          throw .invalidParameter(
            "criticality \"\(QueryParameters.excerpt(name))\" is unknown; use critical, major, "
              + "minor or lowImpact")
        }
        return impact
      }
    }
    if let names = try parameters.list("type", error: TrafficQueryError.invalidIncident) {
      options.typeFilter = try names.map { name throws(TrafficQueryError) in
        guard let type = TrafficIncidentType(wireName: name) else {
          throw .invalidIncident(
            "type \"\(QueryParameters.excerpt(name))\" is unknown; use "
              + TrafficIncidentType.allCases.compactMap(\.wireName).joined(separator: ", "))
        }
        return type
      }
    }
    options.earliestStartTime = try Self.time("earliestStartTime", parameters)
    options.latestEndTime = try Self.time("latestEndTime", parameters)
    if let start = options.earliestStartTime, let end = options.latestEndTime, end < start {
      throw .invalidFilterOptions("latestEndTime lies before earliestStartTime")
    }
    let sort = try parameters.single("sort", error: TrafficQueryError.invalidParameter)
    let from = try parameters.single("from", error: TrafficQueryError.invalidParameter)
    switch (sort, from) {
    case (nil, nil):
      break
    case ("distance"?, let from?):
      options.sortOrigin = try Self.coordinates(from, name: "from")
    case ("distance"?, nil):
      throw .invalidParameter("sort=distance needs from=LAT,LNG")
    case (let sort?, _) where sort != "distance":
      throw .invalidParameter(
        "sort \"\(QueryParameters.excerpt(sort))\" is unknown; the only order is distance")
    default:
      throw .invalidParameter("from is used only with sort=distance")
    }
    if let text = try parameters.single("limit", error: TrafficQueryError.invalidParameter) {
      guard let limit = Int(text), limit >= 1 else {
        // Digits beyond Int's range are a whole number still: say what is wrong with it.
        let digits = !text.isEmpty && text.allSatisfy { ("0"..."9").contains($0) }
        throw .invalidParameter(
          "limit \"\(QueryParameters.excerpt(text))\" must be a whole number >= 1"
            + (digits && Int(text) == nil ? " and at most \(Int.max)" : ""))
      }
      options.limit = limit
    }
    self.options = options
  }

  /// The `in` parameter, which must be given once.
  ///
  /// - Throws: `TrafficQueryError.invalidIn` when it is missing or repeated, and as
  ///   ``V7AreaQuery/decode(_:limits:)``.
  package static func area(
    _ parameters: QueryParameters, limits: TrafficQueryLimits
  ) throws(TrafficQueryError) -> any GeoArea {
    guard let text = try parameters.single("in", error: TrafficQueryError.invalidIn) else {
      throw .invalidIn(
        "parameter in is missing; give circle:LAT,LNG;r=M, bbox:W,S,E,N or corridor:POLYLINE;r=M")
    }
    return try V7AreaQuery.decode(text, limits: limits)
  }

  /// Reads `locationReferencing` and checks `units`, which every v7 route takes.
  ///
  /// - Parameters:
  ///   - parameters: The query.
  ///   - allowsCodes: Whether `olr` and `tmc` are answered (incidents) or refused (flow).
  /// - Returns: The references named (none for `none` alone), or `nil` when the parameter
  ///   is absent.
  /// - Throws: `TrafficQueryError.invalidParameter` for a repeated parameter, an unknown or
  ///   refused location reference and for units other than metric.
  package static func locationReferencing(
    _ parameters: QueryParameters, allowsCodes: Bool
  ) throws(TrafficQueryError) -> V7IncidentWire.LocationReferencing? {
    let known = allowsCodes ? "shape, olr, tmc or none" : "shape or none"
    var result: V7IncidentWire.LocationReferencing?
    if let references = try parameters.list(
      "locationReferencing", error: TrafficQueryError.invalidParameter)
    {
      var named: V7IncidentWire.LocationReferencing = []
      for reference in references {
        switch reference {
        case "shape": named.insert(.shape)
        case "none": continue
        case "olr", "tmc":
          guard allowsCodes else {
            throw .invalidParameter(
              "locationReferencing \(reference) is not supported for flow; use shape or none")
          }
          named.insert(reference == "olr" ? .openLR : .tmc)
        default:
          throw .invalidParameter(
            "locationReferencing \"\(QueryParameters.excerpt(reference))\" is unknown; use "
              + known)
        }
      }
      result = named
    }
    if let units = try parameters.single("units", error: TrafficQueryError.invalidParameter) {
      switch units {
      case "metric": break
      case "imperial":
        throw .invalidParameter("units imperial is not supported; lengths are in meters (metric)")
      default:
        throw .invalidParameter(
          "units \"\(QueryParameters.excerpt(units))\" is unknown; use metric")
      }
    }
    return result
  }

  private static func time(
    _ name: String, _ parameters: QueryParameters
  ) throws(TrafficQueryError) -> Date? {
    guard let text = try parameters.single(name, error: TrafficQueryError.invalidIncident) else {
      return nil
    }
    guard let date = RFC3339.parseWithOffset(text) else {
      throw .invalidIncident(
        "\(name) \"\(QueryParameters.excerpt(text))\" is not an RFC 3339 date-time with an "
          + "offset, such as 2025-06-01T08:00:00Z or 2025-06-01T10:00:00+02:00")
    }
    return date
  }

  private static func coordinates(
    _ text: String, name: String
  ) throws(TrafficQueryError) -> GeoCoordinates {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count == 2, let latitude = QueryParameters.decimal(parts[0]),
      let longitude = QueryParameters.decimal(parts[1])
    else {
      throw .invalidParameter("\(name) \"\(QueryParameters.excerpt(text))\" must be LAT,LNG")
    }
    do {
      return try GeoCoordinates(latitude: latitude, longitude: longitude)
    } catch {
      throw .invalidParameter("\(name): \(error)")
    }
  }
}

/// The query of `GET /v7/incidents/{originalId}`: `lang`, and `locationReferencing`
/// written only when it is not the shape (the default).
package struct V7IncidentLookupQuery: Equatable, Sendable {
  /// The language of the texts.
  package var options: TrafficIncidentLookupOptions
  /// The location references the answer carries.
  package var locationReferencing: V7IncidentWire.LocationReferencing

  /// A query of these parts.
  package init(
    options: TrafficIncidentLookupOptions = TrafficIncidentLookupOptions(),
    locationReferencing: V7IncidentWire.LocationReferencing = .shape
  ) {
    self.options = options
    self.locationReferencing = locationReferencing
  }

  /// The query's parameters: `lang`, then `locationReferencing` unless it is the shape.
  package func encode() -> [(String, String)] {
    var parameters: [(String, String)] = []
    if let language = options.languageCode { parameters.append(("lang", language.identifier)) }
    if locationReferencing != .shape {
      parameters.append(("locationReferencing", V7IncidentQuery.encode(locationReferencing)))
    }
    return parameters
  }

  /// Reads and checks the parameters of a lookup.
  ///
  /// - Throws: `TrafficQueryError.invalidParameter` for a bad `locationReferencing`, `units`
  ///   or `lang`.
  package init(_ parameters: QueryParameters) throws(TrafficQueryError) {
    let references = try V7IncidentQuery.locationReferencing(parameters, allowsCodes: true)
    options = TrafficIncidentLookupOptions(languageCode: try parameters.language())
    locationReferencing = references ?? .shape
  }
}

/// The query of `GET /v7/incidents/stream` (Server-Sent Events): `in`, which is not limited
/// in size (only its syntax and coordinates are checked), and `lang`.
package struct V7IncidentStreamQuery: Equatable, Sendable {
  /// The area watched.
  package var area: any GeoArea
  /// The language of the texts, when the client asks for one.
  package var language: LanguageCode?

  /// A query of these parts.
  package init(area: any GeoArea, language: LanguageCode? = nil) {
    self.area = area
    self.language = language
  }

  package static func == (lhs: V7IncidentStreamQuery, rhs: V7IncidentStreamQuery) -> Bool {
    V7AreaQuery.same(lhs.area, rhs.area) && lhs.language == rhs.language
  }

  /// The query's parameters: `in`, then `lang` when set.
  ///
  /// - Throws: As ``V7AreaQuery/encode(_:)``.
  package func encode() throws(TrafficQueryError) -> [(String, String)] {
    var parameters = [("in", try V7AreaQuery.encode(area))]
    if let language { parameters.append(("lang", language.identifier)) }
    return parameters
  }

  /// Reads and checks the parameters of a stream.
  ///
  /// - Throws: `TrafficQueryError.invalidIn` for a missing, repeated or malformed `in`;
  ///   `.invalidParameter` for a bad `lang`.
  package init(_ parameters: QueryParameters) throws(TrafficQueryError) {
    guard let text = try parameters.single("in", error: TrafficQueryError.invalidIn) else {
      throw .invalidIn("parameter in is missing; give the area to watch")
    }
    area = try V7AreaQuery.decode(text, limits: .unlimited)
    language = try parameters.language()
  }
}
