import Codec
import Foundation
import Geo
import Synchronization
import Traffic
import TrafficFeeds
import Zlib

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
    // The document is a function of the incidents' versions, its time and the publisher:
    // its tag is known before it is written (or the incidents sorted), so a current copy
    // costs no document.
    let tag = publicationTag(format, published, language: parameters.language)
    let modified = HTTPDate.format(published.lastModified)
    let kind =
      published.isDelta ? (published.isComplete ? "delta" : "delta; complete=false") : "snapshot"
    var response = HTTPResponse(status: 200)
    response.headers.add("ETag", tag)
    response.headers.add("Last-Modified", modified)
    // A copy of either encoding (the gzip one's tag ends in -gz) is current.
    var gzipped = response
    gzipped.headers.set("ETag", String(tag.dropLast()) + "-gz\"")
    if Self.isNotModified(response, for: request, now: engine.now)
      || Self.isNotModified(gzipped, for: request, now: engine.now)
    {
      var notModified = HTTPResponse(status: 304)
      for name in ["ETag", "Last-Modified"] {
        notModified.headers.add(name, response.headers[name] ?? "")
      }
      notModified.headers.add("Cache-Control", "no-cache")
      notModified.headers.add("X-Publication", kind)
      notModified.headers.add("Vary", "Accept-Encoding")
      notModified.isPrepared = true
      return notModified
    }
    // The compressed document of this version, when a request asked for it before.
    let acceptsGzip = Self.acceptsGzip(request)
    let cacheKey = "\(format)?" + ResponseCache.normalisedQuery(request.rawQuery)
    if acceptsGzip,
      let cached = compressedPublications.withLock({ $0[cacheKey] }), cached.tag == tag
    {
      response.headers.add("Content-Type", Self.contentType(format))
      return compressed(cached.body, into: response, kind: kind)
    }
    let publication = Publication(
      published, publisher: configuration.publisher,
      countryCode: configuration.publisherCountry, language: parameters.language)
    // One large document written at a time: a region's document takes seconds and a
    // request thread, and the others must stay free for queries.
    let isLarge = publication.incidents.count >= Self.largePublication
    let admitted =
      !isLarge
      || publicationsInProgress.compareExchange(expected: 0, desired: 1, ordering: .acquiring)
        .exchanged
    guard admitted else {
      var busy = errorResponse(
        .httpError(
          status: 503,
          "another publication is being written; retry in a few seconds (a current copy is "
            + "answered at once with If-None-Match or If-Modified-Since)"))
      busy.headers.add("Retry-After", "2")
      return busy
    }
    defer { if isLarge { publicationsInProgress.store(0, ordering: .releasing) } }
    response.headers.add("Content-Type", Self.contentType(format))
    let document: Data
    switch format {
    case .datex2: document = DATEXIIPublisher.document(publication)
    case .wzdx: document = WZDxPublisher.document(publication)
    }
    if acceptsGzip, document.count >= configuration.minimumGzipBytes {
      let body = SharedBytes(copying: Gzip.compress(document, level: 5))
      compressedPublications.withLock { cache in
        // A few queries' latest versions; a small document is not worth keeping.
        if cache.count >= Self.compressedPublicationEntries { cache.removeAll() }
        if body.data.count >= 16_384 { cache[cacheKey] = (tag, body) }
      }
      return compressed(body, into: response, kind: kind)
    }
    response.body = document
    response.headers.add("Cache-Control", "no-cache")
    response.headers.add("X-Publication", kind)
    return response
  }

  /// How many publication queries keep their compressed document.
  static let compressedPublicationEntries = 16

  /// The media type of a format's documents.
  static func contentType(_ format: PublishedFormat) -> String {
    switch format {
    case .datex2: return "application/xml; charset=utf-8"
    case .wzdx: return "application/geo+json"
    }
  }

  /// The answer with a compressed document: ready to send (the tag marked `-gz`).
  private func compressed(
    _ body: SharedBytes, into response: HTTPResponse, kind: String
  ) -> HTTPResponse {
    var response = response
    response.body = body.data
    response.sharedBody = body
    response.headers.set("ETag", String((response.headers["ETag"] ?? "\"\"").dropLast()) + "-gz\"")
    response.headers.add("Content-Encoding", "gzip")
    response.headers.add("Vary", "Accept-Encoding")
    response.headers.add("Cache-Control", "no-cache")
    response.headers.add("X-Publication", kind)
    response.isPrepared = true
    return response
  }

  /// Publications of at least this many incidents (tens of megabytes) are written one at a
  /// time; a request for another meanwhile is answered 503 with `Retry-After`.
  static let largePublication = 10_000

  /// The entity tag of a publication, from what its document is made of: the format, the
  /// publisher, the country and language asked (else those the incidents decide), whether
  /// it is a delta, its time, and the set of the incidents' version ids and ends (hashed
  /// in any order, so that no sort is needed to know it).
  func publicationTag(
    _ format: PublishedFormat, _ published: PublishedIncidents, language: LanguageCode?
  ) -> String {
    let header =
      "\(format)|\(configuration.publisher)|\(configuration.publisherCountry ?? "-")|"
      + "\(language?.identifier ?? "-")|\(published.isDelta)|\(published.isComplete)|"
      + "\(published.lastModified.timeIntervalSince1970)|\(published.incidents.count)"
    var sum: UInt64 = 0
    var mixed: UInt64 = 0
    for incident in published.incidents {
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in incident.id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
      let end = incident.endTime.map { $0.timeIntervalSince1970.bitPattern } ?? 0
      hash = (hash ^ end) &* 0xbf58_476d_1ce4_e5b9
      hash ^= hash >> 31
      sum &+= hash
      mixed ^= hash &* 0x94d0_49bb_1331_11eb
    }
    var identity = Array(header.utf8)
    withUnsafeBytes(of: sum.littleEndian) { identity.append(contentsOf: $0) }
    withUnsafeBytes(of: mixed.littleEndian) { identity.append(contentsOf: $0) }
    return "\"p" + Self.fingerprint(Data(identity)) + "\""
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
