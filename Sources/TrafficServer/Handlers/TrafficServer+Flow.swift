import Codec
import Foundation
import Geo
import Traffic
import TrafficFeeds

extension TrafficServer {
  /// `GET`/`POST /v7/flow`: the flow on the road segments meeting `in`, as v7's
  /// `currentFlow` results; an engine without a road network answers no results.
  func flow(_ query: QueryParameters) throws(TrafficQueryError) -> HTTPResponse {
    let parameters = try V7FlowQuery(query, limits: engine.limits)
    let sourceUpdated = engine.flowLastUpdate
    let flows = try Self.flows(in: engine, inside: parameters.area, options: parameters.options)
    var response = HTTPResponse.json(
      V7FlowWire.encode(
        flows, sourceUpdated: sourceUpdated, includeShape: parameters.includeShape))
    response.headers.add("Cache-Control", "no-cache")
    return response
  }

  /// The engine's flow query on an area of any of the three kinds.
  private static func flows(
    in engine: TrafficEngine, inside area: any GeoArea, options: TrafficFlowQueryOptions
  ) throws(TrafficQueryError) -> [TrafficFlow] {
    if let circle = area as? GeoCircle { return try engine.flow(inside: circle, options: options) }
    if let box = area as? GeoBox { return try engine.flow(inside: box, options: options) }
    if let corridor = area as? GeoCorridor {
      return try engine.flow(inside: corridor, options: options)
    }
    throw .invalidIn("unsupported area; use a circle, a box or a corridor")
  }

  /// `POST /v1/probes`: vehicle probes (CSV, NDJSON or SUMO FCD XML) into the flow pipeline.
  ///
  /// The format comes from `Content-Type` (`text/csv`, `application/x-ndjson`,
  /// `application/xml`), else from the content. Query parameters: `flush=true` decides every
  /// pending matched position at once (the end of a recorded trace); `simulationStart`
  /// (RFC 3339) dates second 0 of SUMO FCD times.
  /// - Throws: `.httpError(409)` when the engine has no road network; `.badRequest` for an
  ///   empty body or a document of which nothing can be read; `.invalidParameter` for bad
  ///   query parameters; `.httpError(503)` when the shared database is out of reach (the
  ///   batch is not counted: send it again).
  func probes(
    query: QueryParameters, request: HTTPRequest
  ) throws(TrafficQueryError)
    -> HTTPResponse
  {
    guard engine.roadNetwork != nil else {
      throw .httpError(
        status: 409,
        "this server has no road network, so probes cannot be matched; start it with "
          + "--network FILE (OpenStreetMap or SUMO)")
    }
    let flush = try query.boolean("flush")
    var decoder = ProbeDecoder(now: Date())
    decoder.maximumInflatedBytes = configuration.maxDecompressedBodyBytes
    if let text = try query.single("simulationStart", error: TrafficQueryError.invalidParameter) {
      guard let date = RFC3339.parse(text) else {
        throw .invalidParameter(
          "simulationStart \"\(QueryParameters.excerpt(text))\" is not an RFC 3339 date-time")
      }
      decoder.simulationStart = date
    }
    guard !request.body.isEmpty else {
      throw .badRequest("the body is empty; send probes as CSV, NDJSON or SUMO FCD XML")
    }
    let format = try Self.probeFormat(request.headers["Content-Type"])
    let batch: ProbeBatch
    do {
      batch = try decoder.decode(request.body, format: format)
    } catch {
      // As a body that inflates beyond the limit with `Content-Encoding: gzip`.
      if case .inflatesBeyond = error { throw .httpError(status: 413, "\(error)") }
      throw .badRequest("the probes cannot be read: \(error)")
    }
    let rejected = batch.rejectedCount
    // Not one row (as the command line refuses such a file): another format than the
    // Content-Type says, or nothing but a header.
    guard batch.acceptedCount + rejected > 0 else {
      throw .badRequest(
        "the body holds no probe rows read as \((format ?? ProbeFormat.detect(request.body))?.name ?? "probes"); send CSV "
          + "(id,time,lat,lng,...), NDJSON or SUMO FCD XML, with its Content-Type")
    }
    if batch.acceptedCount == 0, rejected > 0,
      batch.rejectedCounts[.unparseable] == rejected
    {
      let first = batch.rejections.first.map { " (line \($0.line): \($0.detail))" } ?? ""
      throw .badRequest("none of the \(rejected) probe rows can be read\(first)")
    }
    let report: ProbeIngestReport
    do {
      // Refused rather than counted here alone: the other nodes would never see the batch.
      report = try engine.ingestSharing(probes: batch.probes, flush: flush)
    } catch {
      throw TrafficQueryError.storeUnavailable(error, engine: engine)
        ?? .internalError("the probes could not be passed on to the other nodes: \(error)")
    }

    // A probe its vehicle already reported in an earlier batch is a duplicate too, and one
    // inside a span of time its vehicle already reported is out of order: rejected like the
    // rows the decoder refused, not accepted.
    var writer = JSONWriter(capacity: 512)
    writer.beginObject()
    writer.member("accepted", batch.acceptedCount - report.rejected)
    writer.member("rejected", rejected + report.rejected)
    writer.key("reasons")
    writer.beginObject()
    for reason in ProbeRejectionReason.allCases {
      writer.key(reason.wireName)
      writer.integer((batch.rejectedCounts[reason] ?? 0) + report.rejected(reason))
    }
    writer.endObject()
    writer.member("matched", report.accepted)
    writer.member("unmatched", report.unmatched)
    writer.member("stationary", report.skippedStationary)
    writer.member("outOfOrder", report.outOfOrder)
    writer.member("decided", report.decided)
    writer.member("vehicles", report.vehicles)
    writer.key("rejections")
    writer.beginArray()
    for rejection in batch.rejections.prefix(20) {
      writer.beginObject()
      writer.member("line", rejection.line)
      writer.member("reason", rejection.reason.wireName)
      writer.member("detail", rejection.detail)
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    return .uncachedJSON(writer.bytes)
  }

  /// The probe format a `Content-Type` names; `nil` (detect from the content) for none,
  /// `text/plain`, `application/octet-stream` or `application/x-www-form-urlencoded` (what
  /// `curl --data-binary` and URLSession send unless told otherwise).
  static func probeFormat(_ contentType: String?) throws(TrafficQueryError) -> ProbeFormat? {
    guard let contentType else { return nil }
    let media =
      contentType.split(separator: ";").first.map {
        $0.trimmingCharacters(in: .whitespaces).lowercased()
      } ?? ""
    switch media {
    case "", "text/plain", "application/octet-stream", "application/x-www-form-urlencoded":
      return nil
    case "text/csv": return .csv
    case "application/x-ndjson", "application/ndjson", "application/jsonl",
      "application/x-jsonlines", "application/json":
      return .ndjson
    case "application/xml", "text/xml": return .sumoFCD
    default:
      throw .httpError(
        status: 415,
        "Content-Type \(QueryParameters.excerpt(media)) is not a probe format; use text/csv, "
          + "application/x-ndjson or application/xml (SUMO FCD)")
    }
  }

  /// `POST /v1/route/traffic`: the traffic along a route — spans with speeds, jam factors
  /// and delays, the incidents on it with their offsets, and the total delay.
  func routeTraffic(_ request: HTTPRequest) throws(TrafficQueryError) -> HTTPResponse {
    let parameters = try RouteTrafficParameters(request.body, limits: engine.limits)
    let result = try engine.trafficOnRoute(
      parameters.route, corridorHalfWidthInMeters: parameters.corridorHalfWidthInMeters)
    var response = HTTPResponse.json(
      RouteTrafficWire.encode(result, sourceUpdated: engine.flowLastUpdate ?? engine.lastUpdate))
    response.headers.add("Cache-Control", "no-store")
    return response
  }

}
