import Foundation
import Traffic
import TrafficFeeds

/// The path and query of `POST /v1/feeds/{format}`: the format, the source the client
/// names, the defaults for what the document does not say, and how to apply it.
struct FeedPushParameters {
  /// The document's format, from the path.
  var format: FeedFormat
  /// The source the client names (`source`), if any.
  var givenSource: String?
  /// The decoding options: the format's name as the fallback source, `lang`, `country`,
  /// `axisOrder`.
  var options: FeedOptions
  /// Whether the document is the source's whole picture (`fullRefresh`).
  var isFullRefresh = false
  /// Whether the answer lists each record's outcome (`records`).
  var recordsEach = false

  /// Reads the format from the path and the query parameters.
  ///
  /// - Throws: 404 for an unknown format; `invalidParameter` naming a bad parameter.
  init(rawFormat: Substring, query: QueryParameters) throws(TrafficQueryError) {
    guard let name = QueryParameters.percentDecoded(rawFormat),
      let format = FeedFormat(rawValue: name)
    else {
      throw .httpError(
        status: 404,
        "feed format \(QueryParameters.excerpt(String(rawFormat))) is unknown; use "
          + FeedFormat.allCases.map(\.rawValue).joined(separator: ", "))
    }
    self.format = format
    let givenSource = try query.single("source", error: TrafficQueryError.invalidParameter)
    if let givenSource, !FeedDocument.isValidSourceName(givenSource) {
      throw .invalidParameter("source must have \(FeedDocument.sourceNameRule)")
    }
    // Without ?source=, the document's own publisher names the source, else the format.
    self.givenSource = givenSource
    var options = FeedOptions(sourceName: name, now: Date())
    options.defaultLanguage = try query.language()
    if let country = try query.single("country", error: TrafficQueryError.invalidParameter) {
      guard country.count == 2, country.allSatisfy({ $0.isASCII && $0.isLetter }) else {
        throw .invalidParameter(
          "country \"\(QueryParameters.excerpt(country))\" must be an ISO 3166-1 alpha-2 code")
      }
      options.defaultCountryCode = country.uppercased()
    }
    if let order = try query.single("axisOrder", error: TrafficQueryError.invalidParameter) {
      guard let axisOrder = FeedOptions.AxisOrder(rawValue: order) else {
        throw .invalidParameter(
          "axisOrder \"\(QueryParameters.excerpt(order))\" is unknown; use latLon or lonLat")
      }
      options.axisOrder = axisOrder
    }
    self.options = options
    isFullRefresh = try query.boolean("fullRefresh")
    recordsEach = try query.boolean("records")
  }
}
