import Codec
import Foundation
import Geo
import Traffic

/// What a flow query asks for, read from its parameters.
struct FlowQueryParameters {
  /// The area (`in`).
  var area: any GeoArea
  /// The smallest jam factor to return, 0...10.
  var minJamFactor: Double?
  /// The largest jam factor to return, 0...10.
  var maxJamFactor: Double?
  /// The road classes to return, 1 (motorways) ... 5; empty for all.
  var functionalClasses: Set<Int>
  /// Whether results carry their shape (`locationReferencing=shape`, the default) or not
  /// (`none`).
  var includeShape: Bool
  /// The time of the picture (`at`, RFC 3339; this project's extension): `nil` for now.
  var at: Date?

  /// The engine's options for these parameters.
  var options: TrafficFlowQueryOptions {
    TrafficFlowQueryOptions(
      minJamFactor: minJamFactor, maxJamFactor: maxJamFactor,
      functionalClasses: functionalClasses, at: at)
  }

  /// Reads and checks the parameters of `GET`/`POST /v7/flow`.
  ///
  /// - Throws: `TrafficQueryError` naming the parameter: `.invalidIn`/`.invalidGeometry` for
  ///   the area, `.invalidParameter` for a jam factor outside 0...10 or a class outside
  ///   1...5 or an `at` that is not RFC 3339, `.invalidFilterOptions` when
  ///   `minJamFactor > maxJamFactor`.
  init(_ parameters: QueryParameters, limits: TrafficQueryLimits) throws(TrafficQueryError) {
    area = try IncidentQueryParameters.area(parameters, limits: limits)
    try IncidentQueryParameters.checkCommon(parameters, allowsCodes: false)
    includeShape = try IncidentQueryParameters.includesShape(parameters)
    _ = try IncidentQueryParameters.language(parameters)
    minJamFactor = try Self.jamFactor("minJamFactor", parameters)
    maxJamFactor = try Self.jamFactor("maxJamFactor", parameters)
    if let low = minJamFactor, let high = maxJamFactor, low > high {
      throw .invalidFilterOptions("minJamFactor \(low) is greater than maxJamFactor \(high)")
    }
    if let text = try parameters.single("at", error: TrafficQueryError.invalidParameter) {
      guard let date = RFC3339.parse(text) else {
        throw .invalidParameter(
          "at \"\(AreaParameter.excerpt(text))\" is not an RFC 3339 date-time")
      }
      at = date
    }
    functionalClasses = []
    if let items = try parameters.list(
      "functionalClasses", error: TrafficQueryError.invalidParameter)
    {
      for item in items {
        guard let value = Int(item), (1...5).contains(value) else {
          throw .invalidParameter(
            "functionalClasses item \"\(AreaParameter.excerpt(item))\" must be 1, 2, 3, 4 or 5")
        }
        functionalClasses.insert(value)
      }
    }
  }

  private static func jamFactor(
    _ name: String, _ parameters: QueryParameters
  ) throws(TrafficQueryError) -> Double? {
    guard let text = try parameters.single(name, error: TrafficQueryError.invalidParameter) else {
      return nil
    }
    guard let value = AreaParameter.decimal(text[...]), (0...10).contains(value) else {
      throw .invalidParameter(
        "\(name) \"\(AreaParameter.excerpt(text))\" must be a number from 0 to 10")
    }
    return value
  }
}
