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
    var published = engine.publishedIncidents(
      inside: parameters.area, types: parameters.types, since: parameters.since)
    if format == .wzdx { published = WZDxPublisher.dated(published, at: engine.now) }
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
    // A large document is written as it is sent, from the snapshot it was selected from:
    // a few of them at a time, one per client, so that slow readers cannot hold them all.
    let client = request.remoteAddress ?? ""
    let isLarge = publication.incidents.count >= Self.largePublication
    guard !isLarge || largePublications.withLock({ $0.claim(client) }) else {
      var busy = errorResponse(
        .httpError(
          status: 503,
          "\(LargePublicationSlots.total) large publications are being sent (at most "
            + "\(LargePublicationSlots.perClient) per client); retry in a few seconds (a current "
            + "copy is answered at once with If-None-Match or If-Modified-Since)"))
      busy.headers.set("Retry-After", "2")
      return busy
    }
    let release: @Sendable () -> Void = { [weak self] in
      if isLarge { self?.largePublications.withLock { $0.release(client) } }
    }
    response.headers.add("Content-Type", Self.contentType(format))
    let document: DocumentStream
    switch format {
    case .datex2: document = DATEXIIPublisher.stream(publication)
    case .wzdx: document = WZDxPublisher.stream(publication)
    }
    let start = document.next() ?? []
    guard let more = document.next() else {
      // A document of one piece is answered whole, compressed (and kept) as any answer.
      release()
      if acceptsGzip, start.count >= configuration.minimumGzipBytes {
        let body = SharedBytes(copying: Gzip.compress(Data(start), level: 5))
        keepCompressed(body, tag: tag, for: cacheKey)
        return compressed(body, into: response, kind: kind)
      }
      response.body = Data(start)
      response.headers.add("Cache-Control", "no-cache")
      response.headers.add("X-Publication", kind)
      return response
    }
    response.bodyStream = ResponseBodyStream(
      document, first: start + more, gzipLevel: acceptsGzip ? 5 : nil,
      keepLimit: acceptsGzip ? Self.keptPublicationBytes : 0
    ) { [weak self] whole in
      release()
      if let whole, acceptsGzip {
        self?.keepCompressed(SharedBytes(copying: whole), tag: tag, for: cacheKey)
      }
    }
    if acceptsGzip {
      response.headers.set("ETag", String(tag.dropLast()) + "-gz\"")
      response.headers.add("Content-Encoding", "gzip")
    }
    response.headers.add("Vary", "Accept-Encoding")
    response.headers.add("Cache-Control", "no-cache")
    response.headers.add("X-Publication", kind)
    response.isPrepared = true
    return response
  }

  /// Keeps a compressed document of a query's version for the next request of it.
  private func keepCompressed(_ body: SharedBytes, tag: String, for key: String) {
    // A small document is not worth keeping.
    guard body.data.count >= 16_384 else { return }
    compressedPublications.withLock { cache in
      // A few queries' latest versions, of bounded size together.
      cache[key] = nil
      let kept = cache.values.reduce(0) { $0 + $1.body.data.count }
      if cache.count >= Self.compressedPublicationEntries
        || kept + body.data.count > Self.keptPublicationBytes
      {
        cache.removeAll()
      }
      cache[key] = (tag, body)
    }
  }

  /// The most bytes of compressed documents kept for the next request of the same version
  /// (a region of a million incidents compresses to some 65 MB in DATEX II); a larger one
  /// is compressed again as it is sent.
  static let keptPublicationBytes = 192 << 20

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

  /// Publications of at least this many incidents (tens of megabytes) take a slot of
  /// `LargePublicationSlots` while they are sent; a request beyond is answered 503 with
  /// `Retry-After`.
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
      area = try V7AreaQuery.decode(text, limits: .unlimited)
    }
    if let names = try parameters.list("type", error: TrafficQueryError.invalidIncident) {
      var types = Set<TrafficIncidentType>()
      for name in names {
        guard let type = TrafficIncidentType(wireName: name) else {
          throw .invalidIncident(
            "type \"\(QueryParameters.excerpt(name))\" is unknown; use "
              + TrafficIncidentType.allCases.compactMap(\.wireName).joined(separator: ", "))
        }
        types.insert(type)
      }
      self.types = types
    }
    if let text = try parameters.single("since", error: TrafficQueryError.invalidParameter) {
      guard let time = RFC3339.parseWithOffset(text) else {
        throw .invalidParameter(
          "since \"\(QueryParameters.excerpt(text))\" is not an RFC 3339 time with an offset such as "
            + "2026-12-01T08:00:00Z")
      }
      since = time
    }
    language = try parameters.language()
  }
}

/// The large publications being sent: at most `total` at once and `perClient` per client
/// address, each holding its slot until its last byte is sent or its connection closes.
struct LargePublicationSlots {
  static let total = 2
  static let perClient = 1
  private(set) var byClient: [String: Int] = [:]
  private(set) var count = 0

  /// Takes a slot for `client` when one is free.
  mutating func claim(_ client: String) -> Bool {
    guard count < Self.total, byClient[client, default: 0] < Self.perClient else { return false }
    count += 1
    byClient[client, default: 0] += 1
    return true
  }

  /// Frees a slot `client` held.
  mutating func release(_ client: String) {
    guard let held = byClient[client], held > 0 else { return }
    count -= 1
    byClient[client] = held > 1 ? held - 1 : nil
  }
}
