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
      // A stream its client left is noticed at its next heartbeat, when its slot frees:
      // the client may try again after one heartbeat interval.
      let seconds = max(1, Int(configuration.heartbeatIntervalSeconds.rounded(.up)))
      var refusal = errorResponse(
        .tooManyRequests,
        explaining: "this client already holds \(limit) event streams, the most one may "
          + "hold; close one, or try again in \(seconds) s")
      refusal.headers.add("Retry-After", String(seconds))
      return refusal
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
    writeDatabase(into: &writer)
    writer.endObject()
    return .uncachedJSON(writer.bytes)
  }

  /// `"database": "reachable"` or `"unreachable"` with since when and why, for a store on
  /// a database server (PostgreSQL); nothing for a store in this process.
  private func writeDatabase(into writer: inout JSONWriter) {
    guard engine.store is any StoreReachability else { return }
    let outage = engine.storeOutage
    writer.member("database", outage == nil ? "reachable" : "unreachable")
    if let outage {
      writer.member("databaseUnreachableSince", outage.since)
      writer.member("databaseError", outage.reason)
    }
  }

  /// `GET /readyz`: readiness for a load balancer. The server listens only once its store
  /// is open; it is ready once the incidents have loaded into the snapshot that answers
  /// (200 `ready`); until then 503 `loading`, while `/healthz` already answers 200.
  ///
  /// A database that goes out of reach later leaves the node ready (its body says
  /// `"database": "unreachable"`): the node still answers every read from memory, and the
  /// nodes share the database, so taking them out of the balancer would turn a write outage
  /// into a total one.
  func readiness() -> HTTPResponse {
    let ready = engine.isLoaded
    var writer = JSONWriter(capacity: 96)
    writer.beginObject()
    writer.member("status", ready ? "ready" : "loading")
    writer.member("incidents", engine.incidentCount)
    writeDatabase(into: &writer)
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
      <li><code>GET /v8/routes?transportMode=car&amp;origin=LAT,LNG&amp;destination=LAT,LNG</code>
        (HERE Routing v8), <code>POST /v8/matrix?async=false</code>
        <code>{"origins": [{"lat", "lng"}], "regionDefinition": {"type": "world"}}</code>
        (HERE Matrix Routing v8)</li>
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
