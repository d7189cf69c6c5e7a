import Codec
import Foundation

/// The query of `GET`/`POST /v7/flow`, written as parameters by the remote engine and read
/// from them by the server.
///
/// Parameters, in the order written: `in` (``V7AreaQuery``), `locationReferencing` (`shape`
/// or `none`; `olr` and `tmc` are refused for flow), `minJamFactor` and `maxJamFactor`
/// (0...10), `at` (RFC 3339; this project's extension) and `functionalClasses` (a comma
/// list of 1...5, ascending). Reading, `lang` and `units` are checked but change nothing,
/// and unknown parameters are ignored. Every value reads back equal, `at` to the
/// millisecond.
package struct V7FlowQuery: Equatable, Sendable {
  /// The area (`in`).
  package var area: any GeoArea
  /// The jam factor and road class filters and the time of the picture.
  package var options: TrafficFlowQueryOptions
  /// Whether results carry their shape (`locationReferencing=shape`, the default) or not
  /// (`none`).
  package var includeShape: Bool

  /// A query of these parts.
  package init(
    area: any GeoArea, options: TrafficFlowQueryOptions = TrafficFlowQueryOptions(),
    includeShape: Bool = true
  ) {
    self.area = area
    self.options = options
    self.includeShape = includeShape
  }

  package static func == (lhs: V7FlowQuery, rhs: V7FlowQuery) -> Bool {
    V7AreaQuery.same(lhs.area, rhs.area) && lhs.options == rhs.options
      && lhs.includeShape == rhs.includeShape
  }

  // MARK: Writing

  /// The query's parameters, in the order above; `locationReferencing` is always written,
  /// as HERE requires it.
  ///
  /// - Throws: As ``V7AreaQuery/encode(_:)``.
  package func encode() throws(TrafficQueryError) -> [(String, String)] {
    var parameters = [
      ("in", try V7AreaQuery.encode(area)),
      ("locationReferencing", includeShape ? "shape" : "none"),
    ]
    if let minimum = options.minJamFactor { parameters.append(("minJamFactor", "\(minimum)")) }
    if let maximum = options.maxJamFactor { parameters.append(("maxJamFactor", "\(maximum)")) }
    if let at = options.at { parameters.append(("at", RFC3339.format(at))) }
    if !options.functionalClasses.isEmpty {
      parameters.append(
        (
          "functionalClasses",
          options.functionalClasses.sorted().map(String.init).joined(separator: ",")
        ))
    }
    return parameters
  }

  // MARK: Reading

  /// Reads and checks the parameters of `GET`/`POST /v7/flow`.
  ///
  /// - Throws: `TrafficQueryError` naming the parameter: `.invalidIn`/`.invalidGeometry` for
  ///   the area, `.invalidParameter` for a jam factor outside 0...10 or a class outside
  ///   1...5 or an `at` that is not RFC 3339, `.invalidFilterOptions` when
  ///   `minJamFactor > maxJamFactor`.
  package init(_ parameters: QueryParameters, limits: TrafficQueryLimits) throws(TrafficQueryError)
  {
    area = try V7IncidentQuery.area(parameters, limits: limits)
    includeShape =
      try V7IncidentQuery.locationReferencing(parameters, allowsCodes: false)?.contains(.shape)
      ?? true
    _ = try parameters.language()
    var options = TrafficFlowQueryOptions()
    options.minJamFactor = try Self.jamFactor("minJamFactor", parameters)
    options.maxJamFactor = try Self.jamFactor("maxJamFactor", parameters)
    if let low = options.minJamFactor, let high = options.maxJamFactor, low > high {
      throw .invalidFilterOptions("minJamFactor \(low) is greater than maxJamFactor \(high)")
    }
    if let text = try parameters.single("at", error: TrafficQueryError.invalidParameter) {
      guard let date = RFC3339.parseWithOffset(text) else {
        throw .invalidParameter(
          "at \"\(QueryParameters.excerpt(text))\" is not an RFC 3339 date-time with an "
            + "offset, such as 2026-12-01T08:00:00Z")
      }
      options.at = date
    }
    if let items = try parameters.list(
      "functionalClasses", error: TrafficQueryError.invalidParameter)
    {
      for item in items {
        guard let value = Int(item), (1...5).contains(value) else {
          throw .invalidParameter(
            "functionalClasses item \"\(QueryParameters.excerpt(item))\" must be 1, 2, 3, 4 or 5"
          )
        }
        options.functionalClasses.insert(value)
      }
    }
    self.options = options
  }

  private static func jamFactor(
    _ name: String, _ parameters: QueryParameters
  ) throws(TrafficQueryError) -> Double? {
    guard let text = try parameters.single(name, error: TrafficQueryError.invalidParameter) else {
      return nil
    }
    guard let value = QueryParameters.decimal(text[...]), (0...10).contains(value) else {
      throw .invalidParameter(
        "\(name) \"\(QueryParameters.excerpt(text))\" must be a number from 0 to 10")
    }
    return value
  }
}
