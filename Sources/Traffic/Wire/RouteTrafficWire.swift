import Codec
import Foundation

/// The JSON of a traffic-on-route answer (`POST /v1/route/traffic`, `traffic route --json`),
/// written by the server and read by the remote engine.
public enum RouteTrafficWire {
  /// The JSON of a ``TrafficOnRoute``: speeds in m/s, lengths and offsets in meters,
  /// durations and delays in seconds (`delay` `null` on a closed span).
  public static func encode(_ result: TrafficOnRoute, sourceUpdated: Date?) -> Data {
    var w = JSONWriter(capacity: 256 + result.spans.count * 200 + result.incidents.count * 800)
    w.beginObject()
    w.member("sourceUpdated", sourceUpdated)
    w.member("length", result.lengthInMeters, decimals: 1)
    w.member("baseDuration", result.baseDurationInSeconds, decimals: 1)
    w.member("trafficDuration", result.trafficDurationInSeconds, decimals: 1)
    w.member("totalDelay", result.totalDelayInSeconds, decimals: 1)
    w.member("blocked", result.isBlocked)
    w.key("spans")
    w.beginArray()
    for span in result.spans {
      w.beginObject()
      w.member("offset", span.offsetInMeters, decimals: 1)
      w.member("length", span.lengthInMeters, decimals: 1)
      w.member("baseSpeed", span.baseSpeedInMetersPerSecond, decimals: 2)
      w.member("trafficSpeed", span.trafficSpeedInMetersPerSecond, decimals: 2)
      w.member("jamFactor", span.jamFactor, decimals: 1)
      w.key("delay")
      if let delay = span.delayInSeconds { w.number(delay, decimals: 1) } else { w.null() }
      w.member("confidence", span.confidence, decimals: 2)
      w.member("traversability", span.traversability.rawValue)
      w.member("segmentId", span.segmentID)
      if let name = span.roadName {
        w.member("description", name)
      }
      w.endObject()
    }
    w.endArray()
    w.key("incidents")
    w.beginArray()
    for item in result.incidents {
      w.beginObject()
      w.member("offset", item.offsetInMeters, decimals: 1)
      w.key("incident")
      V7IncidentWire.writeResult(item.incident, references: .shape, to: &w)
      w.endObject()
    }
    w.endArray()
    w.endObject()
    return Data(w.bytes)
  }
}

extension RouteTrafficWire {
  /// The JSON body of a traffic-on-route query (`POST /v1/route/traffic`), as the remote
  /// engine sends it: `{"route": {"coordinates": [{"lat", "lng"}, ...]},
  /// "corridorHalfWidth"}`, the coordinates written exactly (the server reads them in
  /// `RouteTrafficParameters`).
  ///
  /// - Complexity: O(n) for n vertices.
  package static func encodeQuery(
    _ route: GeoPolyline, corridorHalfWidthInMeters: Double
  ) -> Data {
    var w = JSONWriter(capacity: 64 + route.vertices.count * 48)
    w.beginObject()
    w.key("route")
    w.beginObject()
    w.key("coordinates")
    w.beginArray()
    for vertex in route.vertices {
      w.beginObject()
      w.member("lat", vertex.latitude)
      w.member("lng", vertex.longitude)
      w.endObject()
    }
    w.endArray()
    w.endObject()
    w.member("corridorHalfWidth", corridorHalfWidthInMeters)
    w.endObject()
    return Data(w.bytes)
  }

  /// Decodes a traffic-on-route answer, as ``encode(_:sourceUpdated:)`` writes it: encoding
  /// the result again gives the same bytes.
  ///
  /// The answer carries no speed limits nor functional classes: the spans read back
  /// without them. The incidents are read as the v7 incidents answer's results
  /// (`V7IncidentWire`); an incident that cannot be read is skipped and listed in
  /// `problems` with its JSON path, as there. A span that cannot be read fails the whole
  /// answer, since the totals count it.
  ///
  /// - Parameters:
  ///   - data: UTF-8 JSON text.
  ///   - defaultLanguage: The language of incident texts that do not name one.
  /// - Returns: The traffic on the route, the source time and the skipped incidents.
  /// - Throws: `V7WireError` naming the place and the reason when the text is not JSON or
  ///   not a traffic-on-route answer.
  /// - Complexity: O(n) in the size of `data`.
  public static func decode(
    _ data: Data, defaultLanguage: LanguageCode = .enUS
  ) throws(V7WireError) -> RouteTrafficResponse {
    let root: JSONValue
    do {
      root = try JSONParser.parse(data)
    } catch {
      throw V7WireError(location: error.place, reason: "not valid JSON: \(error.reason)")
    }
    let sourceUpdated = try V7Envelope.sourceUpdated(of: root)
    do {
      return try decodeAnswer(root, sourceUpdated: sourceUpdated, defaultLanguage: defaultLanguage)
    } catch {
      throw V7WireError(location: error.path, reason: error.reason)
    }
  }

  private static func decodeAnswer(
    _ root: JSONValue, sourceUpdated: Date?, defaultLanguage: LanguageCode
  ) throws(JSONFieldError) -> RouteTrafficResponse {
    func number(_ key: String) throws(JSONFieldError) -> Double {
      try root.required(key, at: "$").requiredDouble(at: key)
    }
    guard let blocked = try root.required("blocked", at: "$").bool else {
      throw JSONFieldError(path: "blocked", reason: "expected a Boolean")
    }
    var spans: [TrafficOnRoute.Span] = []
    for (index, item) in try root.required("spans", at: "$").requiredArray(at: "spans")
      .enumerated()
    {
      spans.append(try decodeSpan(item, at: "spans[\(index)]"))
    }
    var incidents: [TrafficOnRoute.IncidentOnRoute] = []
    var problems: [V7WireError] = []
    for (index, item) in try root.required("incidents", at: "$").requiredArray(at: "incidents")
      .enumerated()
    {
      let path = "incidents[\(index)]"
      do {
        let offset = try item.required("offset", at: path).requiredDouble(at: path + ".offset")
        let incident = try V7IncidentWire.decodeIncident(
          item.required("incident", at: path), at: path + ".incident",
          defaultLanguage: defaultLanguage)
        incidents.append(TrafficOnRoute.IncidentOnRoute(incident: incident, offsetInMeters: offset))
      } catch {
        problems.append(V7WireError(location: error.path, reason: error.reason))
      }
    }
    let traffic = TrafficOnRoute(
      spans: spans, incidents: incidents, lengthInMeters: try number("length"),
      baseDurationInSeconds: try number("baseDuration"),
      trafficDurationInSeconds: try number("trafficDuration"),
      totalDelayInSeconds: try number("totalDelay"), isBlocked: blocked)
    return RouteTrafficResponse(sourceUpdated: sourceUpdated, traffic: traffic, problems: problems)
  }

  /// One span `{"offset", "length", "baseSpeed", "trafficSpeed", "jamFactor", "delay",
  /// "confidence", "traversability", "segmentId", "description"?}`.
  private static func decodeSpan(
    _ item: JSONValue, at path: String
  ) throws(JSONFieldError) -> TrafficOnRoute.Span {
    func number(_ key: String) throws(JSONFieldError) -> Double {
      try item.required(key, at: path).requiredDouble(at: "\(path).\(key)")
    }
    let jamFactor = try number("jamFactor")
    guard (0...10).contains(jamFactor) else {
      throw JSONFieldError(path: path + ".jamFactor", reason: "must be within 0...10")
    }
    var delay: Double?
    if let member = item["delay"], !member.isNull {
      delay = try member.requiredDouble(at: path + ".delay")
    }
    let name = try item.required("traversability", at: path).requiredString(
      at: path + ".traversability")
    guard let traversability = Traversability(rawValue: name) else {
      throw JSONFieldError(
        path: path + ".traversability",
        reason: "unknown traversability \"\(name)\" (open, closed, reversibleNotRoutable)")
    }
    guard let segmentID = try item.required("segmentId", at: path).int else {
      throw JSONFieldError(path: path + ".segmentId", reason: "expected an integer")
    }
    var roadName: String?
    if let member = item["description"], !member.isNull {
      roadName = try member.requiredString(at: path + ".description")
    }
    return TrafficOnRoute.Span(
      offsetInMeters: try number("offset"), lengthInMeters: try number("length"),
      segmentID: segmentID, roadName: roadName,
      baseSpeedInMetersPerSecond: try number("baseSpeed"),
      trafficSpeedInMetersPerSecond: try number("trafficSpeed"), jamFactor: jamFactor,
      confidence: try number("confidence"), traversability: traversability,
      delayInSeconds: delay)
  }
}

/// A decoded traffic-on-route answer (``RouteTrafficWire/decode(_:defaultLanguage:)``).
public struct RouteTrafficResponse: Sendable {
  /// When the data was last updated (`sourceUpdated`), if the answer says.
  public var sourceUpdated: Date?
  /// The traffic along the route.
  public var traffic: TrafficOnRoute
  /// Incidents that were skipped, each with its JSON path and the reason.
  public var problems: [V7WireError]

  /// Creates an answer.
  public init(sourceUpdated: Date?, traffic: TrafficOnRoute, problems: [V7WireError] = []) {
    self.sourceUpdated = sourceUpdated
    self.traffic = traffic
    self.problems = problems
  }
}
