import Codec
import Foundation
import Geo
import Traffic
import TrafficBuildInfo
import TrafficFeeds

extension TrafficServer {
  /// `GET`/`POST /v7/incidents`.
  func incidents(
    _ request: HTTPRequest, query: QueryParameters
  ) throws(TrafficQueryError)
    -> HTTPResponse
  {
    let parameters = try V7IncidentQuery(query, limits: engine.limits)
    let sourceUpdated = engine.lastUpdate
    let answer = try Self.encodedIncidents(
      in: engine, inside: parameters.area, options: parameters.options,
      locationReferencing: parameters.locationReferencing, sourceUpdated: sourceUpdated)
    var response = HTTPResponse.json(answer.data)
    response.sharedBody = answer
    response.headers.add("Cache-Control", "no-cache")
    return response
  }

  /// The engine's v7 answer on an area of any of the three kinds (the generic method does
  /// not take the existential directly).
  private static func encodedIncidents(
    in engine: TrafficEngine, inside area: any GeoArea, options: TrafficIncidentsQueryOptions,
    locationReferencing: V7IncidentWire.LocationReferencing, sourceUpdated: Date?
  ) throws(TrafficQueryError) -> SharedBytes {
    if let circle = area as? GeoCircle {
      return try engine.encodedIncidents(
        inside: circle, options: options, locationReferencing: locationReferencing,
        sourceUpdated: sourceUpdated)
    }
    if let box = area as? GeoBox {
      return try engine.encodedIncidents(
        inside: box, options: options, locationReferencing: locationReferencing,
        sourceUpdated: sourceUpdated)
    }
    if let corridor = area as? GeoCorridor {
      return try engine.encodedIncidents(
        inside: corridor, options: options, locationReferencing: locationReferencing,
        sourceUpdated: sourceUpdated)
    }
    throw .invalidIn("unsupported area; use a circle, a box or a corridor")
  }

  /// `GET /v7/incidents/{originalId}`.
  func lookup(
    rawId: Substring, query: QueryParameters
  ) throws(TrafficQueryError)
    -> HTTPResponse
  {
    guard let id = QueryParameters.percentDecoded(rawId) else {
      throw .invalidIncident("the incident id is not valid percent-encoded UTF-8")
    }
    let parameters = try V7IncidentLookupQuery(query)
    let incident = try engine.incident(originalId: id, options: parameters.options)
    var response = HTTPResponse.json(
      V7IncidentWire.encodeLookup(
        incident, locationReferencing: parameters.locationReferencing))
    response.headers.add("Cache-Control", "no-cache")
    return response
  }

  /// `GET /v7/incidents/stream`: Server-Sent Events of the changes in `in`.
  func stream(query: QueryParameters, client: String) throws(TrafficQueryError) -> HTTPResponse {
    // Watching is not limited in size; only the syntax and coordinates are checked.
    let parameters = try V7IncidentStreamQuery(query)
    var response = HTTPResponse(
      status: 200,
      headers: [
        "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store",
        "X-Accel-Buffering": "no",
      ])
    // A share of streams per client (API key, else address): one client cannot hold every
    // stream the server can feed.
    let limit = configuration.maxEventStreamsPerClient
    let admitted = streamsByClient.withLock { counts in
      guard (counts[client] ?? 0) < limit else { return false }
      counts[client, default: 0] += 1
      return true
    }
    guard admitted else {
      refusedStreams.add(1, ordering: .relaxed)
      throw .httpError(
        status: 429,
        "this client has \(limit) event streams open already, the most one client may hold; "
          + "close one first")
    }
    let stream = EventStream(
      engine: engine, area: parameters.area,
      heartbeatSeconds: configuration.heartbeatIntervalSeconds, language: parameters.language,
      maximumPendingBytes: configuration.maxEventStreamBacklogBytes)
    stream.whenFinished { [weak self] in
      self?.streamsByClient.withLock { counts in
        let left = (counts[client] ?? 1) - 1
        counts[client] = left > 0 ? left : nil
      }
    }
    response.eventStream = stream
    return response
  }

  /// `POST /v1/feeds/{format}`: one feed document applied as one batch.
  ///
  /// Query parameters: `source` (the source's name, the format's name by default),
  /// `lang` and `country` (defaults for documents that do not say), `axisOrder`
  /// (`latLon` or `lonLat`, for DATEX II position lists), `fullRefresh`, `records` (list
  /// each record's outcome).
  func feedPush(
    rawFormat: Substring, query: QueryParameters, request: HTTPRequest, scope: APIKeyScope
  ) throws(TrafficQueryError) -> HTTPResponse {
    let parameters = try FeedPushParameters(rawFormat: rawFormat, query: query)
    let format = parameters.format
    guard !request.body.isEmpty else {
      throw .badRequest("the body is empty; send one \(format) document")
    }
    // A key writes only the sources granted to it; a polled feed's only by name.
    let polled = poller?.sourceNames ?? []
    let outcome = try feeds.push(
      request.body, format: format, options: parameters.options,
      givenSource: parameters.givenSource, isFullRefresh: parameters.isFullRefresh,
      recordingEach: parameters.recordsEach, now: Date()
    ) { source throws(TrafficQueryError) in
      guard scope.mayWrite(source: source, polled: polled.contains(source)) else {
        let name = QueryParameters.excerpt(source)
        let reason =
          polled.contains(source)
          ? "source \"\(name)\" is a feed this server polls; only a key granted it by name"
            + " (write:\(name)) may push it"
          : "this key may not write source \"\(name)\""
        throw .httpError(status: 403, "\(reason) (its scopes: \(scope))")
      }
    }
    var writer = JSONWriter(capacity: 512)
    writer.beginObject()
    writer.member("format", format.rawValue)
    writer.member("source", outcome.source)
    writer.member("incidents", outcome.document.incidents.count)
    for (name, count) in [
      ("added", outcome.report.added), ("updated", outcome.report.updated),
      ("unchanged", outcome.report.unchanged), ("stale", outcome.report.stale),
      ("merged", outcome.report.merged), ("ended", outcome.report.ended),
    ] {
      writer.key(name)
      writer.integer(count)
    }
    writer.member("fullRefresh", outcome.document.isFullRefresh)
    writer.member("publicationTime", outcome.document.publicationTime)
    writer.member("problemCount", outcome.document.problems.count)
    writer.key("problems")
    writer.beginArray()
    for problem in outcome.document.problems.prefix(100) {
      writer.beginObject()
      writer.member("location", problem.location)
      writer.member("reason", problem.reason)
      writer.endObject()
    }
    writer.endArray()
    if parameters.recordsEach {
      writer.key("records")
      writer.beginArray()
      for record in outcome.report.records {
        writer.beginObject()
        writer.member("id", record.id)
        writer.member("outcome", record.outcome.rawValue)
        writer.member("incident", record.incident)
        writer.endObject()
      }
      writer.endArray()
    }
    writer.endObject()
    return .uncachedJSON(writer.bytes)
  }

  /// `GET /v1/feeds`: the status of every source that pushed (`feeds`) and of every feed
  /// the server polls (`polled`).
  func feedList() -> HTTPResponse {
    var writer = JSONWriter(capacity: 512)
    writer.beginObject()
    writer.key("feeds")
    writer.beginArray()
    for status in feeds.statusList() {
      writer.beginObject()
      writer.member("format", status.format.rawValue)
      writer.member("source", status.source)
      writer.member("pushes", status.pushes)
      writer.member("lastPushTime", status.lastPushTime)
      writer.member("lastPublicationTime", status.lastPublicationTime)
      writer.member("incidents", status.lastIncidentCount)
      writer.member("problems", status.lastProblemCount)
      writer.member("lastError", status.lastError)
      writer.member("lastErrorTime", status.lastErrorTime)
      writer.endObject()
    }
    writer.endArray()
    writer.key("polled")
    writer.beginArray()
    for status in (poller?.status ?? []) {
      writer.beginObject()
      writer.member("name", status.feed.name)
      writer.member("format", status.feed.format?.rawValue)
      writer.member("url", status.feed.displayURL)
      writer.member("intervalSeconds", status.feed.intervalInSeconds, decimals: 0)
      writer.member("fetches", status.fetches)
      for (name, time) in [
        ("lastFetch", status.lastFetch), ("lastSuccess", status.lastSuccess),
        ("nextFetch", status.nextFetch),
      ] {
        writer.key(name)
        writer.date(time)
      }
      writer.member("consecutiveFailures", status.consecutiveFailures)
      writer.member("incidents", status.incidentCount)
      writer.member("problems", status.problemCount)
      writer.member("lastError", status.lastError)
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    return .uncachedJSON(writer.bytes)
  }

  /// `GET /healthz`: liveness, whatever the data's state.
  func health() -> HTTPResponse {
    var writer = JSONWriter(capacity: 160)
    writer.beginObject()
    writer.member("status", "ok")
    writer.member("version", BuildInfo.version)
    writer.member("revision", BuildInfo.revision)
    writer.member("incidents", engine.incidentCount)
    writer.member("sourceUpdated", engine.lastUpdate)
    // False while the incidents load in the background: queries are answered meanwhile,
    // writes wait until they are loaded.
    writer.member("loaded", engine.isLoaded)
    writer.endObject()
    return .uncachedJSON(writer.bytes)
  }

  /// `GET /readyz`: readiness for a load balancer. The server listens only once its store
  /// is open; it is ready once the incidents have loaded into the snapshot that answers
  /// (200 `ready`); until then 503 `loading`, while `/healthz` already answers 200.
  func readiness() -> HTTPResponse {
    let ready = engine.isLoaded
    var writer = JSONWriter(capacity: 96)
    writer.beginObject()
    writer.member("status", ready ? "ready" : "loading")
    writer.member("incidents", engine.incidentCount)
    writer.endObject()
    var response = HTTPResponse.uncachedJSON(writer.bytes)
    if !ready {
      response.status = 503
      response.headers.add("Retry-After", "1")
    }
    return response
  }

  /// `GET /api`: a short page stating the API.
  func apiSummaryPage() -> HTTPResponse {
    let page = """
      <!doctype html>
      <html lang="en"><head><meta charset="utf-8"><title>swift-traffic</title></head>
      <body>
      <h1>swift-traffic</h1>
      <p>A HERE Traffic API v7 compatible service. Incidents now: \(engine.incidentCount).</p>
      <ul>
      <li><code>GET|POST /v7/incidents?in=circle:LAT,LNG;r=M</code> (or <code>bbox:W,S,E,N</code>,
        <code>corridor:POLYLINE;r=M</code>); <code>lang</code>, <code>criticality</code>,
        <code>type</code>, <code>earliestStartTime</code>, <code>latestEndTime</code>,
        <code>locationReferencing=shape,olr,tmc|none</code>, <code>sort=distance&amp;from=LAT,LNG</code>,
        <code>limit</code></li>
      <li><code>GET /v7/incidents/{originalId}</code></li>
      <li><code>GET /v7/incidents/stream?in=...</code> (Server-Sent Events)</li>
      <li><code>GET|POST /v7/flow?in=...</code>; <code>minJamFactor</code>,
        <code>maxJamFactor</code>, <code>functionalClasses</code>,
        <code>locationReferencing=shape|none</code></li>
      <li><code>POST /v1/probes</code> (CSV, NDJSON or SUMO FCD XML)</li>
      <li><code>POST /v1/route/traffic</code> <code>{"route": {"polyline": ...}}</code></li>
      <li><code>POST /v1/feeds/{datex2|wzdx|open511|waze|here-v7|tomtom}</code>,
        <code>GET /v1/feeds</code></li>
      <li><code>GET /datex2/v3/situations</code> (DATEX II v3; <code>since=</code> for a delta),
        <code>GET /wzdx/v4.2/feed</code> (WZDx 4.2); optional <code>in</code>,
        <code>type</code></li>
      <li><code>GET /tiles/flow/{z}/{x}/{y}.png</code> (<code>scale=2</code>,
        <code>mode=withFreeFlow|withoutFreeFlow</code>),
        <code>GET /tiles/incidents/{z}/{x}/{y}.png</code>,
        <code>GET /tiles/base/{z}/{x}/{y}.png</code>,
        <code>GET /tiles/traffic/{z}/{x}/{y}.mvt</code> (Mapbox Vector Tile);
        <code>GET /tiles/{layer}.json</code> (TileJSON)</li>
      <li><code>GET /v1/info</code> (counts and data bounds)</li>
      <li><code>GET /</code> (the web map), <code>GET /healthz</code>,
        <code>GET /readyz</code>, <code>GET /metrics</code></li>
      </ul>
      <p>Authentication: <code>apiKey=</code> or <code>Authorization: Bearer</code> when keys
      are configured.</p>
      <p>The whole API, machine-readable: <a href="/openapi.json">/openapi.json</a>
      (OpenAPI 3.1).</p>
      </body></html>

      """
    var response = HTTPResponse(
      status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data(page.utf8))
    response.headers.add("Cache-Control", "no-cache")
    return response
  }
}
