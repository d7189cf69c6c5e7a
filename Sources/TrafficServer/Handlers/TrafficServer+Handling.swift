import Foundation
import Traffic
import TrafficFeeds
import Zlib

extension TrafficServer {
  /// Answers one request in-process: the whole server except the socket.
  ///
  /// Never fails: bad input is a 4xx with a JSON error body `{"status", "title", "code",
  /// "detail", "correlationId"}` whose `code` is a `TrafficQueryError` case name and whose
  /// detail names the parameter. Adds CORS, caching (`ETag`, `If-None-Match` -> 304) and
  /// gzip as the request allows, records metrics and writes one access log line.
  /// - Parameter request: The request.
  /// - Returns: The response.
  /// - Complexity: That of the route; queries are O(log n + k) on the engine's snapshot.
  public func handle(_ request: HTTPRequest) -> HTTPResponse {
    var response = serve(request)
    if let stream = response.bodyStream {
      response.body = stream.collect()
      response.bodyStream = nil
    }
    return response
  }

  /// Answers one request as the socket layer sends it: as `handle(_:)`, except that a
  /// large document comes as a `bodyStream`, written as it is sent.
  package func serve(_ request: HTTPRequest) -> HTTPResponse {
    // From the head's arrival on the socket, so that a wait for a worker counts.
    let received = request.arrival?.date ?? Date()
    let started = request.arrival?.instant ?? ContinuousClock.now
    let correlationId = nextCorrelationId()
    let route = Endpoint(rawPath: request.rawPath)
    var cacheSlot: CacheSlot?
    var response: HTTPResponse
    do {
      response = try respond(to: request, route: route, cacheSlot: &cacheSlot)
    } catch {
      response = errorResponse(error, for: route)
    }
    if !response.isPrepared {
      response = prepare(response, for: request)
      if let cacheSlot, response.status == 200, response.eventStream == nil,
        let etag = response.headers["ETag"], responseCache.admits(cacheSlot.key)
      {
        // What the cache keeps is also what this response sends (without another copy).
        let body = response.sharedBody ?? SharedBytes(copying: response.body)
        response.sharedBody = body
        responseCache.store(
          ResponseCache.Entry(
            body: body, etag: etag,
            contentType: response.headers["Content-Type"] ?? "application/json",
            isCompressed: response.headers["Content-Encoding"] != nil,
            version: cacheSlot.version, createdAt: cacheSlot.time),
          for: cacheSlot.key)
      }
    }
    response = finish(response, for: request, correlationId: correlationId)
    if request.admissionRefusal != nil {
      response.headers.set("Retry-After", "1")
    }
    if request.headViolation != nil {
      // What follows on this connection cannot be framed safely (it may be a request
      // smuggled in the body): libmicrohttpd closes it after this answer.
      response.headers.set("Connection", "close")
    }
    let elapsed = started.duration(to: .now).components
    let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
    metrics.record(route: route?.label ?? "unmatched", status: response.status, seconds: seconds)
    if configuration.accessLog.isEnabled {
      var line: [UInt8] = []
      line.reserveCapacity(160 + request.target.utf8.count)
      line.append(contentsOf: "time=".utf8)
      AccessLogSink.appendTimestamp(received, to: &line)
      line.append(contentsOf: " client=".utf8)
      AccessLogSink.appendClient(request.remoteAddress, to: &line)
      line.append(contentsOf: " method=".utf8)
      line.append(contentsOf: request.method.utf8)
      line.append(contentsOf: " path=".utf8)
      AccessLogSink.appendQuoted(AccessLogSink.redacted(request.target), to: &line)
      line.append(contentsOf: " status=".utf8)
      line.append(contentsOf: String(response.status).utf8)
      line.append(contentsOf: " bytes=".utf8)
      // A document written as it is sent has no size yet; a HEAD, a 204 or a 304 sends none.
      let sendsNoBody =
        request.method == "HEAD" || response.status == 204 || response.status == 304
      line.append(
        contentsOf: (sendsNoBody
          ? "0" : response.bodyStream == nil ? String(response.body.count) : "-").utf8)
      line.append(contentsOf: " us=".utf8)
      line.append(contentsOf: String(Int(seconds * 1_000_000)).utf8)
      line.append(contentsOf: " route=".utf8)
      line.append(contentsOf: (route?.label ?? "unmatched").utf8)
      line.append(contentsOf: " correlation=".utf8)
      line.append(contentsOf: correlationId.utf8)
      configuration.accessLog.write(line)
    }
    return response
  }

  /// Where a cacheable answer goes once made: the key, and the data version and time read
  /// before the answer was computed (so that a change during the computation makes the
  /// entry stale at once).
  struct CacheSlot {
    var key: ResponseCache.Key
    var version: ResponseCache.Version
    var time: Double
  }

  /// The cached answer to a `GET` of a cacheable route, or `nil` with `slot` set to where
  /// the fresh answer is to be stored.
  private func cachedAnswer(
    _ request: HTTPRequest, route: Endpoint, slot: inout CacheSlot?
  ) -> HTTPResponse? {
    guard let (key, version) = cacheKey(request, route: route) else { return nil }
    let now = monotonicSeconds()
    guard let entry = responseCache.lookup(key, version: version, now: now) else {
      slot = CacheSlot(key: key, version: version, time: now)
      return nil
    }
    var response = HTTPResponse(
      status: 200, headers: ["Content-Type": entry.contentType], body: entry.body.data)
    response.sharedBody = entry.body
    response.headers.reserveCapacity(10)
    response.headers.add("Cache-Control", "no-cache")
    response.headers.add("ETag", entry.etag)
    response.headers.add("Vary", "Accept-Encoding")
    if entry.isCompressed { response.headers.add("Content-Encoding", "gzip") }
    response.isPrepared = true
    return response
  }

  /// The route's answer before the finishing touches; throws the errors that become 4xx.
  private func respond(
    to request: HTTPRequest, route: Endpoint?, cacheSlot: inout CacheSlot?
  ) throws(TrafficQueryError)
    -> HTTPResponse
  {
    if let violation = request.headViolation { throw violation }
    if let refusal = request.admissionRefusal {
      switch refusal {
      case .clientQueueFull:
        throw .httpError(
          status: 503,
          "this client has \(admission.perClientWaiting) expensive requests waiting already;"
            + " retry after one is answered")
      case .deadlinePassed:
        throw .httpError(
          status: 503,
          "no worker was free within \(Int(admission.deadlineSeconds)) s; retry later")
      case .stopping:
        throw .httpError(
          status: 503,
          "the server stopped before this request's work was done (it may still be stored); "
            + "send it again when the server is back")
      }
    }
    guard request.target.utf8.count <= configuration.maxRequestTargetBytes else {
      throw .httpError(
        status: 414,
        "the request target has \(request.target.utf8.count) bytes, more than the limit of "
          + "\(configuration.maxRequestTargetBytes); send long corridors by POST")
    }
    guard let route else {
      // A path of OSRM's form for a service or version not served: OSRM's answer.
      if let failure = Self.osrmServiceFailure(request.rawPath) { return Self.osrmError(failure) }
      throw .httpError(
        status: 404,
        "no route \(QueryParameters.excerpt(String(request.rawPath))); see /api for the API")
    }
    if request.method == "OPTIONS" {
      var response = HTTPResponse(status: 204)
      response.headers.add("Allow", (route.allowedMethods + ["OPTIONS"]).joined(separator: ", "))
      response.headers.add(
        "Access-Control-Allow-Methods", (route.allowedMethods + ["OPTIONS"]).joined(separator: ", ")
      )
      response.headers.add(
        "Access-Control-Allow-Headers", "Authorization, Content-Type, Content-Encoding")
      response.headers.add("Access-Control-Max-Age", "86400")
      return response
    }
    guard route.allowedMethods.contains(request.method) else {
      var response = errorResponse(
        .httpError(
          status: 405,
          "method \(QueryParameters.excerpt(request.method)) is not allowed on \(route.label)"),
        for: route)
      response.headers.add("Allow", (route.allowedMethods + ["OPTIONS"]).joined(separator: ", "))
      return response
    }
    // An address that sent too many wrong keys waits, whatever key it sends now (no
    // oracle to guess against): 429 until its budget refills.
    if route.needsKey, !configuration.apiKeys.isEmpty,
      let retryAfter = failedKeys?.wait(
        for: request.remoteAddress ?? "anonymous", now: monotonicSeconds())
    {
      return tooManyRequests(
        route, retryAfter: retryAfter,
        "too many requests with a missing or unknown API key came from this address")
    }
    let client: String
    let scope: APIKeyScope
    do throws(TrafficQueryError) {
      (client, scope) = try authenticate(request, route: route)
    } catch .authenticationFailed {
      let sent = (try? Self.apiKeyParameter(request.rawQuery)) ?? Self.bearerKey(request)
      return errorResponse(
        .authenticationFailed, for: route,
        explaining: sent == nil
          // Not written `apiKey=KEY`: details are scrubbed of whatever follows `apiKey=`.
          ? "this server needs an API key: send it as the apiKey query parameter or as "
            + "Authorization: Bearer KEY"
          : "the API key is not one this server knows")
    }
    if let rateLimiter, let retryAfter = rateLimiter.take(for: client, now: monotonicSeconds()) {
      return tooManyRequests(
        route, retryAfter: retryAfter, "this client's rate limit (\(rateLimiter.limit)) is spent")
    }
    guard request.body.count <= configuration.maxBodyBytes, !request.bodyExceedsLimit else {
      throw .httpError(
        status: 413, "the body is larger than the limit of \(configuration.maxBodyBytes) bytes")
    }
    if let cached = cachedAnswer(request, route: route, slot: &cacheSlot) { return cached }
    let query = try QueryParameters.parse(request.rawQuery)
    switch route {
    case .index: return webMapPage()
    case .apiSummary: return apiSummaryPage()
    case .info: return info()
    case .webAsset(let rawName): return try webAsset(rawName: rawName)
    case .leaflet(let rawName): return try leafletFile(rawName: rawName)
    case .tile(let layer, let rawAddress):
      return try tile(layer, rawAddress: rawAddress, query: query, request: request)
    case .health: return health()
    case .readiness: return readiness()
    case .metrics: return metricsPage()
    case .incidents:
      return try incidents(request, query: try RequestParameters.of(decoded(request), query: query))
    case .incidentLookup(let rawId): return try lookup(rawId: rawId, query: query)
    case .incidentStream: return try stream(query: query, client: client)
    case .flow:
      return try flow(try RequestParameters.of(decoded(request), query: query))
    case .feeds: return feedList()
    case .feedPush(let rawFormat):
      return try feedPush(
        rawFormat: rawFormat, query: query, request: try decoded(request), scope: scope)
    case .probes:
      return try probes(query: query, request: try decoded(request))
    case .routeTraffic:
      return try routeTraffic(try decoded(request))
    case .datex2Situations: return try publication(.datex2, request: request, query: query)
    case .wzdxFeed: return try publication(.wzdx, request: request, query: query)
    case .routes:
      return routes(query: query)
    case .matrix:
      return matrix(query: query, request: try decoded(request))
    case .openAPI: return openAPIDocument()
    case .tileJSON(let rawLayer):
      return try tileJSON(rawLayer: rawLayer, query: query, request: request)
    case .osrm(let service, let rawPath):
      return osrm(service, rawPath: rawPath, query: query)
    }
  }

  /// A 429 saying which limit refused the request and when to try again (`Retry-After`, in
  /// whole seconds, at least one).
  private func tooManyRequests(
    _ route: Endpoint, retryAfter: Double, _ reason: String
  ) -> HTTPResponse {
    let seconds = max(1, Int(retryAfter.rounded(.up)))
    var response = errorResponse(
      .tooManyRequests, for: route, explaining: "\(reason); try again in \(seconds) s")
    response.headers.add("Retry-After", String(seconds))
    return response
  }

  /// The client's identity for rate limiting and what its key may do, after checking the
  /// key: a route that needs one refuses a key the server does not know (401) and a key
  /// whose scope does not cover the route (403: queries need `read`, probes `probes`; a
  /// feed push's source is checked once its document names it).
  private func authenticate(
    _ request: HTTPRequest, route: Endpoint
  ) throws(TrafficQueryError) -> (client: String, scope: APIKeyScope) {
    let key = try Self.apiKeyParameter(request.rawQuery) ?? Self.bearerKey(request)
    guard !configuration.apiKeys.isEmpty else {
      return (request.remoteAddress ?? "anonymous", .full)
    }
    guard route.needsKey else {
      return (key ?? request.remoteAddress ?? "anonymous", APIKeyScope())
    }
    guard let scope = configuration.scope(ofKey: key), let key else {
      // Counted against the address: past the budget it waits (`failedKeys`).
      _ = failedKeys?.take(for: request.remoteAddress ?? "anonymous", now: monotonicSeconds())
      throw .authenticationFailed
    }
    switch route {
    case .feedPush where scope.sources.isEmpty:
      throw .httpError(status: 403, "this key may not push feeds (its scopes: \(scope))")
    case .feedPush:
      break
    case .probes where !scope.canPushProbes:
      throw .httpError(status: 403, "this key may not push probes (its scopes: \(scope))")
    case .probes:
      break
    default:
      guard scope.canRead else {
        throw .httpError(status: 403, "this key may not query (its scopes: \(scope))")
      }
    }
    return ("key:" + key, scope)
  }

  /// The key of an `Authorization: Bearer KEY` header.
  static func bearerKey(_ request: HTTPRequest) -> String? {
    guard let authorization = request.headers["Authorization"] else { return nil }
    let parts = authorization.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, String(parts[0]).caseInsensitiveEquals("Bearer") else { return nil }
    return parts[1].trimmingCharacters(in: .whitespaces)
  }

  /// Whether a fresh cached answer to the request is there (the socket layer answers it
  /// inline then, never queued behind expensive work).
  func hasCachedAnswer(_ request: HTTPRequest, route: Endpoint) -> Bool {
    guard let key = cacheKey(request, route: route) else { return false }
    return responseCache.contains(key.key, version: key.version, now: monotonicSeconds())
  }

  /// The cache key and data version of a `GET` of a cacheable route, `nil` when its answer
  /// is not cached.
  private func cacheKey(
    _ request: HTTPRequest, route: Endpoint
  ) -> (key: ResponseCache.Key, version: ResponseCache.Version)? {
    // While the snapshot loads, answers come from the store, which other writers (other
    // nodes on PostgreSQL) change without changing the stamp: they are not cached then.
    guard route.isCacheable, request.method == "GET" || request.method == "HEAD",
      responseCache.isEnabled, engine.isLoaded
    else { return nil }
    let key = ResponseCache.Key(
      route: route.label, query: ResponseCache.normalisedQuery(request.rawQuery),
      acceptsGzip: Self.acceptsGzip(request))
    let version = ResponseCache.Version(
      stamp: engine.snapshotStamp, flowUpdated: route == .flow ? engine.flowLastUpdate : nil)
    return (key, version)
  }

  /// The `apiKey` query parameter, parsing the query only when it may hold one (a cached
  /// answer needs nothing else of it).
  ///
  /// - Throws: `TrafficQueryError.badRequest` for a malformed query or a repeated key.
  static func apiKeyParameter(_ rawQuery: Substring) throws(TrafficQueryError) -> String? {
    // A name spelling `apiKey` needs a `k` in some letter case, or a percent escape.
    let mayNameKey =
      rawQuery.utf8.withContiguousStorageIfAvailable { bytes in
        bytes.contains { $0 == UInt8(ascii: "%") || $0 | 0x20 == UInt8(ascii: "k") }
      } ?? true
    guard mayNameKey else { return nil }
    return try QueryParameters.parse(rawQuery).single(
      "apiKey", error: TrafficQueryError.badRequest)
  }

  /// The request with its body decompressed as `Content-Encoding` says.
  private func decoded(_ request: HTTPRequest) throws(TrafficQueryError) -> HTTPRequest {
    guard let encoding = request.headers["Content-Encoding"]?.trimmingCharacters(in: .whitespaces),
      !encoding.isEmpty, !encoding.caseInsensitiveEquals("identity")
    else { return request }
    guard
      encoding.caseInsensitiveEquals("gzip") || encoding.caseInsensitiveEquals("x-gzip")
        || encoding.caseInsensitiveEquals("deflate")
    else {
      throw .httpError(
        status: 415,
        "Content-Encoding \(QueryParameters.excerpt(encoding)) is not supported; use gzip")
    }
    var copy = request
    do {
      copy.body = try Gzip.decompress(
        request.body, maxOutputBytes: configuration.maxDecompressedBodyBytes)
    } catch .tooLarge(let limit) {
      throw .httpError(status: 413, "the decompressed body exceeds \(limit) bytes")
    } catch {
      throw .badRequest("the \(encoding) body cannot be decompressed: \(error)")
    }
    copy.headers.remove("Content-Encoding")
    return copy
  }
}
