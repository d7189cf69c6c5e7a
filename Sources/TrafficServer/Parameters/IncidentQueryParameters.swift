import Codec
import Foundation
import Geo
import Traffic
import TrafficFeeds

/// What an incident query asks for, read from its parameters.
struct IncidentQueryParameters {
  /// The area (`in`).
  var area: any GeoArea
  /// Filters, language, order and limit.
  var options: TrafficIncidentsQueryOptions
  /// The location references results carry (`locationReferencing`, a comma list of `shape`,
  /// `olr`, `tmc` and `none`): the shape when absent.
  var locationReferencing: V7IncidentWire.LocationReferencing

  /// Reads and checks the parameters of `GET`/`POST /v7/incidents`.
  ///
  /// Unknown parameters are ignored, as v7 clients send extras.
  /// - Throws: `TrafficQueryError` whose detail names the parameter: `.invalidIn` for a
  ///   missing, repeated or malformed `in`; `.invalidGeometry` beyond the limits;
  ///   `.invalidIncident` for `type` and the times; `.invalidFilterOptions` for an empty time
  ///   window; `.invalidParameter` for the others.
  init(_ parameters: QueryParameters, limits: TrafficQueryLimits) throws(TrafficQueryError) {
    area = try Self.area(parameters, limits: limits)
    var options = TrafficIncidentsQueryOptions()
    try Self.checkCommon(parameters, allowsCodes: true)
    locationReferencing = try Self.locationReferencing(parameters)
    options.languageCode = try Self.language(parameters)
    if let names = try parameters.list("criticality", error: TrafficQueryError.invalidParameter) {
      options.impactFilter = try names.map { name throws(TrafficQueryError) in
        guard let impact = TrafficIncidentImpact(wireName: name) else {
          throw .invalidParameter(
            "criticality \"\(AreaParameter.excerpt(name))\" is unknown; use critical, major, "
              + "minor or lowImpact")
        }
        return impact
      }
    }
    if let names = try parameters.list("type", error: TrafficQueryError.invalidIncident) {
      options.typeFilter = try names.map { name throws(TrafficQueryError) in
        guard let type = TrafficIncidentType(wireName: name) else {
          throw .invalidIncident(
            "type \"\(AreaParameter.excerpt(name))\" is unknown; use "
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
        "sort \"\(AreaParameter.excerpt(sort))\" is unknown; the only order is distance")
    default:
      throw .invalidParameter("from is used only with sort=distance")
    }
    if let text = try parameters.single("limit", error: TrafficQueryError.invalidParameter) {
      guard let limit = Int(text), limit >= 1 else {
        throw .invalidParameter(
          "limit \"\(AreaParameter.excerpt(text))\" must be a whole number >= 1")
      }
      options.limit = limit
    }
    self.options = options
  }

  /// The `in` parameter, which must be given once.
  static func area(
    _ parameters: QueryParameters, limits: TrafficQueryLimits
  ) throws(TrafficQueryError) -> any GeoArea {
    guard let text = try parameters.single("in", error: TrafficQueryError.invalidIn) else {
      throw .invalidIn(
        "parameter in is missing; give circle:LAT,LNG;r=M, bbox:W,S,E,N or corridor:POLYLINE;r=M")
    }
    return try AreaParameter.parse(text, limits: limits)
  }

  /// Checks `locationReferencing` and `units`, which every v7 route takes.
  ///
  /// - Parameters:
  ///   - parameters: The query.
  ///   - allowsCodes: Whether `olr` and `tmc` are answered (incidents) or refused (flow).
  /// - Throws: `TrafficQueryError.invalidParameter` for an unknown or refused location
  ///   reference and for units other than metric.
  static func checkCommon(
    _ parameters: QueryParameters, allowsCodes: Bool
  ) throws(TrafficQueryError) {
    let known = allowsCodes ? "shape, olr, tmc or none" : "shape or none"
    if let references = try parameters.list(
      "locationReferencing", error: TrafficQueryError.invalidParameter)
    {
      for reference in references {
        switch reference {
        case "shape", "none": continue
        case "olr", "tmc":
          if allowsCodes { continue }
          throw .invalidParameter(
            "locationReferencing \(reference) is not supported for flow; use shape or none")
        default:
          throw .invalidParameter(
            "locationReferencing \"\(AreaParameter.excerpt(reference))\" is unknown; use "
              + known)
        }
      }
    }
    if let units = try parameters.single("units", error: TrafficQueryError.invalidParameter) {
      switch units {
      case "metric": break
      case "imperial":
        throw .invalidParameter("units imperial is not supported; lengths are in meters (metric)")
      default:
        throw .invalidParameter("units \"\(AreaParameter.excerpt(units))\" is unknown; use metric")
      }
    }
  }

  /// Whether answers carry shapes: `locationReferencing` absent or naming `shape`; `false`
  /// when it names only `none` (v7 then leaves `location.shape` out).
  ///
  /// - Throws: `TrafficQueryError.invalidParameter` as ``checkCommon(_:allowsCodes:)``.
  static func includesShape(_ parameters: QueryParameters) throws(TrafficQueryError) -> Bool {
    try locationReferencing(parameters).contains(.shape)
  }

  /// The location references named by `locationReferencing`: the shape when the parameter is
  /// absent, nothing for `none` alone.
  ///
  /// - Throws: `TrafficQueryError.invalidParameter` for a repeated parameter.
  static func locationReferencing(
    _ parameters: QueryParameters
  ) throws(TrafficQueryError) -> V7IncidentWire.LocationReferencing {
    guard
      let references = try parameters.list(
        "locationReferencing", error: TrafficQueryError.invalidParameter)
    else { return .shape }
    var result: V7IncidentWire.LocationReferencing = []
    for reference in references {
      switch reference {
      case "shape": result.insert(.shape)
      case "olr": result.insert(.openLR)
      case "tmc": result.insert(.tmc)
      default: break
      }
    }
    return result
  }

  /// The `lang` parameter.
  static func language(_ parameters: QueryParameters) throws(TrafficQueryError) -> LanguageCode? {
    guard let tag = try parameters.single("lang", error: TrafficQueryError.invalidParameter)
    else { return nil }
    do {
      return try LanguageCode(tag)
    } catch {
      throw .invalidParameter("lang: \(error)")
    }
  }

  private static func time(
    _ name: String, _ parameters: QueryParameters
  ) throws(TrafficQueryError) -> Date? {
    guard let text = try parameters.single(name, error: TrafficQueryError.invalidIncident) else {
      return nil
    }
    guard let date = RFC3339.parseWithOffset(text) else {
      throw .invalidIncident(
        "\(name) \"\(AreaParameter.excerpt(text))\" is not an RFC 3339 date-time with an "
          + "offset, such as 2025-06-01T08:00:00Z or 2025-06-01T10:00:00+02:00")
    }
    return date
  }

  private static func coordinates(
    _ text: String, name: String
  ) throws(TrafficQueryError)
    -> GeoCoordinates
  {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count == 2, let latitude = AreaParameter.decimal(parts[0]),
      let longitude = AreaParameter.decimal(parts[1])
    else {
      throw .invalidParameter("\(name) \"\(AreaParameter.excerpt(text))\" must be LAT,LNG")
    }
    do {
      return try GeoCoordinates(latitude: latitude, longitude: longitude)
    } catch {
      throw .invalidParameter("\(name): \(error)")
    }
  }
}
