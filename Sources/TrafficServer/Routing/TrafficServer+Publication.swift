import Codec
import Foundation
import Geo
import Traffic
import TrafficFeeds

/// The standard formats the merged incidents are published in.
enum PublishedFormat {
  /// `/datex2/v3/situations`: a DATEX II v3 SituationPublication.
  case datex2
  /// `/wzdx/v4.2/feed`: a WZDx 4.2 WorkZoneFeed.
  case wzdx
}

extension TrafficServer {
  /// `GET /datex2/v3/situations` and `GET /wzdx/v4.2/feed`: the merged incidents published
  /// again in a standard format.
  ///
  /// Query parameters (all optional): `in` (an area of any size, as in v7), `type` (incident
  /// types, as in v7), `since` (RFC 3339: a delta of what changed after it, ended records
  /// included), `lang` (the texts' language). The answer has `Last-Modified` (the time the
  /// data last changed, also the document's publication time) and an `ETag`, and a
  /// conditional `GET` (`If-None-Match`, else `If-Modified-Since`) is answered 304 when
  /// nothing changed. `X-Publication: delta` or `snapshot` says what the document is.
  func publication(
    _ format: PublishedFormat, request: HTTPRequest, query: QueryParameters
  ) throws(TrafficQueryError) -> HTTPResponse {
    let parameters = try PublicationParameters(query)
    if format == .wzdx, parameters.since != nil {
      throw .invalidParameter(
        "since is not supported by WZDx, which publishes whole feeds; fetch the feed with "
          + "If-None-Match or If-Modified-Since instead")
    }
    let published = engine.publishedIncidents(
      inside: parameters.area, types: parameters.types, since: parameters.since)
    let publication = Publication(
      published, now: engine.now, publisher: configuration.publisher,
      countryCode: configuration.publisherCountry, language: parameters.language)
    var response: HTTPResponse
    switch format {
    case .datex2:
      response = HTTPResponse(
        status: 200, headers: ["Content-Type": "application/xml; charset=utf-8"],
        body: DATEXIIPublisher.document(publication))
    case .wzdx:
      response = HTTPResponse(
        status: 200, headers: ["Content-Type": "application/geo+json"],
        body: WZDxPublisher.document(publication))
    }
    response.headers.add("Cache-Control", "no-cache")
    response.headers.add("Last-Modified", HTTPDate.format(published.lastModified))
    response.headers.add(
      "X-Publication",
      published.isDelta ? (published.isComplete ? "delta" : "delta; complete=false") : "snapshot")
    return response
  }
}

/// The query of a publication route.
struct PublicationParameters {
  var area: (any GeoArea)?
  var types: Set<TrafficIncidentType>?
  var since: Date?
  var language: LanguageCode?

  init(_ parameters: QueryParameters) throws(TrafficQueryError) {
    if let text = try parameters.single("in", error: TrafficQueryError.invalidIn) {
      // A publication covers what the publisher wants to publish: no size limit.
      area = try AreaParameter.parse(text, limits: .unlimited)
    }
    if let names = try parameters.list("type", error: TrafficQueryError.invalidIncident) {
      var types = Set<TrafficIncidentType>()
      for name in names {
        guard let type = TrafficIncidentType(wireName: name) else {
          throw .invalidIncident(
            "type \"\(AreaParameter.excerpt(name))\" is unknown; use "
              + TrafficIncidentType.allCases.compactMap(\.wireName).joined(separator: ", "))
        }
        types.insert(type)
      }
      self.types = types
    }
    if let text = try parameters.single("since", error: TrafficQueryError.invalidParameter) {
      guard let time = RFC3339.parse(text) else {
        throw .invalidParameter(
          "since \"\(AreaParameter.excerpt(text))\" is not an RFC 3339 time such as "
            + "2026-12-01T08:00:00Z")
      }
      since = time
    }
    language = try IncidentQueryParameters.language(parameters)
  }
}
