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
    let parameters = try IncidentQueryParameters(query, limits: engine.limits)
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
    try IncidentQueryParameters.checkCommon(query, allowsCodes: true)
    let language = try IncidentQueryParameters.language(query)
    let incident = try engine.incident(
      originalId: id, options: TrafficIncidentLookupOptions(languageCode: language))
    let references = try IncidentQueryParameters.locationReferencing(query)
    var response = HTTPResponse.json(
      V7IncidentWire.encodeLookup(incident, locationReferencing: references))
    response.headers.add("Cache-Control", "no-cache")
    return response
  }

  /// `GET /v7/incidents/stream`: Server-Sent Events of the changes in `in`.
  func stream(query: QueryParameters, client: String) throws(TrafficQueryError) -> HTTPResponse {
    guard let text = try query.single("in", error: TrafficQueryError.invalidIn) else {
      throw .invalidIn("parameter in is missing; give the area to watch")
    }
    // Watching is not limited in size; only the syntax and coordinates are checked.
    let area = try AreaParameter.parse(text, limits: .unlimited)
    let language = try IncidentQueryParameters.language(query)
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
      engine: engine, area: area, heartbeatSeconds: configuration.heartbeatIntervalSeconds,
      language: language, maximumPendingBytes: configuration.maxEventStreamBacklogBytes)
    stream.whenFinished { [weak self] in
      self?.streamsByClient.withLock { counts in
        let left = (counts[client] ?? 1) - 1
        counts[client] = left > 0 ? left : nil
      }
    }
    response.eventStream = stream
    return response
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

  /// `GET /metrics` in the Prometheus text format.
  func metricsPage() -> HTTPResponse {
    var text = "# HELP traffic_build_info The build that serves: version and git revision.\n"
    text += "# TYPE traffic_build_info gauge\n"
    text +=
      "traffic_build_info{version=\(ServerMetrics.label(BuildInfo.version)),"
      + "revision=\(ServerMetrics.label(BuildInfo.revision))} 1\n"
    text += metrics.exposition()
    text += connections.exposition()
    text +=
      "# HELP traffic_event_streams_refused_total Event streams refused: the client held its "
      + "share.\n"
    text += "# TYPE traffic_event_streams_refused_total counter\n"
    text += "traffic_event_streams_refused_total \(refusedStreams.load(ordering: .relaxed))\n"
    text +=
      "# HELP traffic_event_streams_dropped_total Event streams ended because their reader "
      + "fell 1 MiB behind.\n"
    text += "# TYPE traffic_event_streams_dropped_total counter\n"
    text +=
      "traffic_event_streams_dropped_total "
      + "\(EventStream.droppedSlowReaders.load(ordering: .relaxed))\n"
    let now = Date()
    text += "# HELP traffic_incidents Incidents held by the engine.\n"
    text += "# TYPE traffic_incidents gauge\ntraffic_incidents \(engine.incidentCount)\n"
    if let updated = engine.lastUpdate {
      text += "# HELP traffic_incidents_updated_timestamp_seconds When incidents last changed.\n"
      text += "# TYPE traffic_incidents_updated_timestamp_seconds gauge\n"
      text += "traffic_incidents_updated_timestamp_seconds \(updated.timeIntervalSince1970)\n"
    }
    let cache = responseCache.statistics
    text += "# HELP traffic_response_cache_hits_total Queries answered from the response cache.\n"
    text += "# TYPE traffic_response_cache_hits_total counter\n"
    text += "traffic_response_cache_hits_total \(cache.hits)\n"
    text += "# HELP traffic_response_cache_misses_total Cacheable queries computed afresh.\n"
    text += "# TYPE traffic_response_cache_misses_total counter\n"
    text += "traffic_response_cache_misses_total \(cache.misses)\n"
    text +=
      "# HELP traffic_response_cache_declined_total Answers not kept: their query was new.\n"
    text += "# TYPE traffic_response_cache_declined_total counter\n"
    text += "traffic_response_cache_declined_total \(cache.declined)\n"
    text += "# HELP traffic_response_cache_bytes Body bytes held by the response cache.\n"
    text +=
      "# TYPE traffic_response_cache_bytes gauge\ntraffic_response_cache_bytes \(cache.bytes)\n"
    if let tileCache = tiles.statistics {
      text += "# HELP traffic_tile_cache_hits_total Tiles answered from the tile cache.\n"
      text += "# TYPE traffic_tile_cache_hits_total counter\n"
      text += "traffic_tile_cache_hits_total \(tileCache.hits)\n"
      text += "# HELP traffic_tile_renders_total Tiles drawn or encoded afresh.\n"
      text += "# TYPE traffic_tile_renders_total counter\n"
      text += "traffic_tile_renders_total \(tileCache.renders)\n"
    }
    let bounds = router.boundsStatistics
    text +=
      "# HELP traffic_routing_hierarchy_edges Edges of the contraction hierarchy routing "
      + "searches are guided by (0: none ready yet).\n"
    text += "# TYPE traffic_routing_hierarchy_edges gauge\n"
    text += "traffic_routing_hierarchy_edges \(bounds.edges)\n"
    text +=
      "# HELP traffic_routing_hierarchy_build_seconds How long the routing bounds in use "
      + "took to build.\n"
    text += "# TYPE traffic_routing_hierarchy_build_seconds gauge\n"
    text += "traffic_routing_hierarchy_build_seconds \(bounds.buildSeconds)\n"
    text += "# HELP traffic_event_streams Open incident event streams.\n"
    text += "# TYPE traffic_event_streams gauge\ntraffic_event_streams \(openEventStreams)\n"
    text += "# HELP traffic_http_requests_in_flight Requests being handled.\n"
    text += "# TYPE traffic_http_requests_in_flight gauge\n"
    text += "traffic_http_requests_in_flight \(requestsInFlight)\n"
    let admitted = admission.counts
    text +=
      "# HELP traffic_admission_waiting Expensive requests waiting for a worker.\n"
      + "# TYPE traffic_admission_waiting gauge\ntraffic_admission_waiting \(admitted.waiting)\n"
      + "# HELP traffic_admission_running Expensive requests running on the workers.\n"
      + "# TYPE traffic_admission_running gauge\ntraffic_admission_running \(admitted.running)\n"
      + "# HELP traffic_admission_refused_total Expensive requests answered 503: the client"
      + " had too many waiting.\n# TYPE traffic_admission_refused_total counter\n"
      + "traffic_admission_refused_total \(admitted.refused)\n"
      + "# HELP traffic_admission_expired_total Expensive requests answered 503: no worker"
      + " within the deadline.\n# TYPE traffic_admission_expired_total counter\n"
      + "traffic_admission_expired_total \(admitted.expired)\n"
    let statuses = Self.metricSeries(feeds.statusList(), most: configuration.maxMetricSources)
    text += "# HELP traffic_feed_pushes_total Feed documents pushed, by format and source.\n"
    text += "# TYPE traffic_feed_pushes_total counter\n"
    for status in statuses {
      text += "traffic_feed_pushes_total\(Self.feedLabels(status)) \(status.pushes)\n"
    }
    text += "# HELP traffic_feed_incidents Incidents in the last document of a source.\n"
    text += "# TYPE traffic_feed_incidents gauge\n"
    for status in statuses {
      text += "traffic_feed_incidents\(Self.feedLabels(status)) \(status.lastIncidentCount)\n"
    }
    text += "# HELP traffic_feed_last_push_age_seconds Seconds since a source's last good push.\n"
    text += "# TYPE traffic_feed_last_push_age_seconds gauge\n"
    for status in statuses {
      if let time = status.lastPushTime {
        text +=
          "traffic_feed_last_push_age_seconds\(Self.feedLabels(status)) "
          + "\(now.timeIntervalSince(time))\n"
      }
    }
    text +=
      "# HELP traffic_feed_ingest_lag_seconds Push time minus the document's publication time.\n"
    text += "# TYPE traffic_feed_ingest_lag_seconds gauge\n"
    for status in statuses {
      if let pushed = status.lastPushTime, let published = status.lastPublicationTime {
        text +=
          "traffic_feed_ingest_lag_seconds\(Self.feedLabels(status)) "
          + "\(pushed.timeIntervalSince(published))\n"
      }
    }
    text +=
      "# HELP traffic_feed_failing Whether a source's last push had an error (1) or not (0).\n"
    text += "# TYPE traffic_feed_failing gauge\n"
    for status in statuses {
      let failing = (status.lastErrorTime ?? .distantPast) > (status.lastPushTime ?? .distantPast)
      text += "traffic_feed_failing\(Self.feedLabels(status)) \(failing ? 1 : 0)\n"
    }
    var response = HTTPResponse(
      status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
      body: Data(text.utf8))
    response.headers.add("Cache-Control", "no-store")
    return response
  }

  /// The sources `/metrics` names: the first `most` to push keep their own series; the
  /// later ones (and a source called `other`) are summed per format as source `other`:
  /// pushes and incidents added up, the times those of the latest push and error among them.
  static func metricSeries(_ statuses: [FeedIngest.Status], most: Int) -> [FeedIngest.Status] {
    let kept = Set(
      statuses.filter { $0.source != "other" }.sorted { $0.arrival < $1.arrival }.prefix(most)
        .map(\.arrival))
    var series: [FeedIngest.Status] = []
    var others: [FeedFormat: FeedIngest.Status] = [:]
    for status in statuses {
      guard !kept.contains(status.arrival) else {
        series.append(status)
        continue
      }
      var other =
        others[status.format]
        ?? FeedIngest.Status(format: status.format, source: "other", arrival: status.arrival)
      other.pushes += status.pushes
      other.lastIncidentCount += status.lastIncidentCount
      if let time = status.lastPushTime, time > (other.lastPushTime ?? .distantPast) {
        other.lastPushTime = time
        other.lastPublicationTime = status.lastPublicationTime
      }
      if let time = status.lastErrorTime, time > (other.lastErrorTime ?? .distantPast) {
        other.lastErrorTime = time
      }
      others[status.format] = other
    }
    return (series + others.values).sorted {
      ($0.format.rawValue, $0.source) < ($1.format.rawValue, $1.source)
    }
  }

  private static func feedLabels(_ status: FeedIngest.Status) -> String {
    "{format=\(ServerMetrics.label(status.format.rawValue)),"
      + "source=\(ServerMetrics.label(status.source))}"
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
