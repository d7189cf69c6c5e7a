import Codec
import Foundation
import Traffic

/// Reads Waze for Cities (Connected Citizens Program) traffic-view feeds: `alerts` and
/// `jams` (Waze CCP feed specification, "Traffic data specifications").
///
/// Accepted shapes: the CCP object `{"alerts": [...], "jams": [...], "startTimeMillis",
/// "endTimeMillis", ...}`, an array of such objects (archived windows), and processors'
/// variants that carry only some of the lists (Louisville Metro's archive has `jams` and
/// extra members such as `data_file_id`). Identifiers may be strings or numbers.
///
/// Alerts (`type` / `subtype`) become incidents:
///
/// | Waze | type | impact | kind |
/// |---|---|---|---|
/// | `ACCIDENT` (`ACCIDENT_MINOR`) / `ACCIDENT_MAJOR` | `.accident` | `.minor` / `.major` | accident |
/// | `JAM_LIGHT_TRAFFIC` / `_MODERATE_` / `_HEAVY_` / `_STAND_STILL_` (`JAM`: minor) | `.congestion` | `.low` / `.minor` / `.major` / `.critical` | slow / slow / queuing / stationary |
/// | `ROAD_CLOSED` (`_HAZARD`, `_CONSTRUCTION`, `_EVENT`) | `.roadClosure`, road closed | `.critical` | — / roadworks / major event |
/// | `CONSTRUCTION`, `HAZARD_ON_ROAD_CONSTRUCTION` | `.construction` | `.minor` | roadworks |
/// | `HAZARD_ON_ROAD_CAR_STOPPED` / `HAZARD_ON_SHOULDER_CAR_STOPPED` | `.disabledVehicle` | `.minor` / `.low` | broken-down vehicle |
/// | `HAZARD_ON_ROAD_LANE_CLOSED` | `.laneRestriction` | `.minor` | — |
/// | `HAZARD_ON_ROAD_OBJECT` | `.roadHazard` | `.minor` | object on road |
/// | `HAZARD_ON_ROAD_ROAD_KILL`, `HAZARD_ON_SHOULDER_ANIMALS` | `.roadHazard` | `.minor` / `.low` | animals |
/// | `HAZARD_ON_ROAD_ICE` | `.weather` | `.minor` | ice |
/// | other `HAZARD_ON_ROAD*` (pot hole, oil, traffic light fault, emergency vehicle) / `HAZARD_ON_SHOULDER*` | `.roadHazard` | `.minor` / `.low` | — |
/// | `HAZARD_WEATHER_FOG` / `_HAIL` / `_HEAVY_RAIN` / `_HEAT_WAVE` | `.weather` | `.minor` / `.minor` / `.minor` / `.low` | fog / — / — / — |
/// | `HAZARD_WEATHER_HEAVY_SNOW` / `_FLOOD` / `_FREEZING_RAIN` / `_MONSOON` / `_TORNADO` / `_HURRICANE` | `.weather` | `.major` | snow / flooding / ice / — / strong winds / strong winds |
/// | `HAZARD` or `WEATHERHAZARD` without a known subtype | `.roadHazard` | `.minor` | — |
/// | `MISC` and unknown types | `.other` | `.unknown` | — |
/// | `POLICE`, `CHIT_CHAT` | not traffic incidents: skipped (not a problem) | | |
///
/// Irregularities (`irregularities`: jams much slower than usual) become congestion incidents:
/// `id` the id, `detectionDateMillis` the start, `updateDateMillis` the entry time, `jamLevel`
/// (else `severity`) the impact and kind as a jam's `level` below, `length` and
/// `delaySeconds` the queue and delay; they give no flow observations.
///
/// Jams become congestion incidents, `parentId` the `blockingAlertUuid`, and also flow
/// observations:
///
/// | jam `level` | impact | kind | road closed | jam factor |
/// |---|---|---|---|---|
/// | 0 (free flow), 1 (light) | `.low` | slow traffic | no | 0, 2 |
/// | 2 (moderate) | `.minor` | slow traffic | no | 4 |
/// | 3 (heavy) | `.major` | queuing traffic | no | 6 |
/// | 4 (bumper to bumper) | `.critical` | stationary traffic | no | 8 |
/// | 5 (blocked) | `.critical` | stationary traffic | yes | 10 |
///
/// The jam factor is `2 × level`: Waze's six levels spread evenly over HERE's 0...10 scale,
/// whose 10 means blocked as Waze's 5 does. Observation speed is `speed` (m/s), else
/// `speedKMH / 3.6`; the delay is `delay` (Waze writes -1 for blocked jams: no delay then);
/// the free-flow speed is derived as `length / (length / speed − delay)` when all three are
/// known and positive. The observation time is the window's `endTimeMillis` (else
/// `startTimeMillis`, else the jam's `pubMillis`).
///
/// Common fields: `uuid` (else `id`) is `originalId` and `id` (Waze does not version its
/// items); `pubMillis` is the start and entry time, with no end; `street` the road name and
/// location description, `city` the area, `country` the country (`UK` read as `GB`; else
/// `options.defaultCountryCode`); a jam's `startNode` / `endNode` its junctions, `length`
/// the queue length, `delay` its delay; an alert's `reportDescription` the source text
/// (language `options.defaultLanguage`, else en-US). Positions are `{"x": lng, "y": lat}`.
public enum WazeDecoder: FeedDecoder {
  /// `.waze`.
  public static let format = FeedFormat.waze

  /// Whether the text looks like a Waze feed: JSON with `jams` or `alerts` and `pubMillis`.
  ///
  /// - Complexity: O(n) byte search, no parsing.
  public static func recognizes(_ data: Data) -> Bool {
    guard let first = JSONFeed.firstSignificantByte(data),
      first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    else { return false }
    if JSONFeed.contains(data, "\"irregularities\"")
      && JSONFeed.contains(data, "\"detectionDateMillis\"")
    {
      return true
    }
    guard JSONFeed.contains(data, "\"jams\"") || JSONFeed.contains(data, "\"alerts\"") else {
      return false
    }
    // An alert or jam has its pubMillis; a quiet feed, with empty lists, still has the
    // window's times that every Waze for Cities document carries.
    return JSONFeed.contains(data, "\"pubMillis\"")
      || JSONFeed.contains(data, "\"startTimeMillis\"")
      || JSONFeed.contains(data, "\"endTimeMillis\"")
  }

  /// Decodes a Waze feed.
  ///
  /// - Parameters:
  ///   - data: UTF-8 JSON text.
  ///   - options: Default language and country.
  /// - Returns: Incidents from alerts and jams, flow observations from jams; items that
  ///   cannot be read are in `problems` with their path (`jams[4].line[2].y`).
  /// - Throws: `FeedError` when the text is not JSON or has none of the `alerts`, `jams` and
  ///   `irregularities` arrays (present but empty arrays are an empty document).
  /// - Complexity: O(n) in the size of `data`.
  public static func decode(
    _ input: FeedInput, options: FeedOptions
  ) throws(FeedError) -> FeedDocument {
    var document = FeedDocument(isFullRefresh: true)
    var sawList = false
    let base = Context(
      language: options.defaultLanguage ?? .enUS, defaultCountry: options.defaultCountryCode,
      observationTime: nil)
    // A root object's jams stream past before its window times (which may follow them) are
    // known; they are decoded with the window time left open and settled at the end.
    var openJams = Window()
    let root = try JSONFeed.read(
      input, format: format, streaming: ["alerts", "jams", "irregularities", ""]
    ) {
      member, index, value in
      switch member {
      case "alerts":
        sawList = true
        decodeAlert(value, at: "alerts[\(index)]", base, into: &document)
      case "jams":
        sawList = true
        var context = base
        context.windowTimePending = true
        openJams.decodeJam(value, at: "jams[\(index)]", context, into: &document)
      case "irregularities":
        sawList = true
        decodeIrregularity(value, at: "irregularities[\(index)]", base, into: &document)
      default:
        // A root array of windows (several CCP responses): each window is read whole.
        guard value.object != nil else {
          document.problems.append(
            FeedError(format: format, location: "[\(index)]", reason: "expected an object"))
          return
        }
        var context = base
        context.observationTime = windowTime(of: value, publication: &document.publicationTime)
        if let alerts = value["alerts"]?.array {
          sawList = true
          for (item, alert) in alerts.enumerated() {
            decodeAlert(alert, at: "[\(index)]alerts[\(item)]", context, into: &document)
          }
        }
        if let jams = value["jams"]?.array {
          sawList = true
          var window = Window()
          for (item, jam) in jams.enumerated() {
            window.decodeJam(jam, at: "[\(index)]jams[\(item)]", context, into: &document)
          }
        }
        if let irregularities = value["irregularities"]?.array {
          sawList = true
          for (item, irregularity) in irregularities.enumerated() {
            decodeIrregularity(
              irregularity, at: "[\(index)]irregularities[\(item)]", context, into: &document)
          }
        }
      }
    }
    switch root {
    case .object:
      // A streamed list stays in the root as an empty array: a quiet feed's present but
      // empty lists make an empty document (a full refresh ending what the source had).
      sawList =
        sawList || ["alerts", "jams", "irregularities"].contains { root[$0]?.array != nil }
      let time = windowTime(of: root, publication: &document.publicationTime)
      openJams.settle(windowTime: time, in: &document)
    case .array: break
    default:
      throw FeedError(format: format, location: "$", reason: "expected a JSON object or array")
    }
    guard sawList else {
      throw FeedError(
        format: format, location: "$",
        reason: "neither an \"alerts\", a \"jams\" nor an \"irregularities\" array")
    }
    return document
  }

  /// The time a window of the feed describes (its end, else its start), which also advances
  /// the document's publication time.
  private static func windowTime(of window: JSONValue, publication: inout Date?) -> Date? {
    let end = window["endTimeMillis"]?.double.flatMap(FeedDates.fromUnixTime)
    let start = window["startTimeMillis"]?.double.flatMap(FeedDates.fromUnixTime)
    guard let time = end ?? start else { return nil }
    publication = max(publication ?? time, time)
    return time
  }

  private static func decodeIrregularity(
    _ irregularity: JSONValue, at path: String, _ context: Context,
    into document: inout FeedDocument
  ) {
    do {
      document.incidents.append(try decodeIrregularity(irregularity, at: path, context))
    } catch {
      document.problems.append(JSONFeed.error(error, format: format).skipping(id(of: irregularity)))
    }
  }

  private static func decodeAlert(
    _ alert: JSONValue, at path: String, _ context: Context, into document: inout FeedDocument
  ) {
    do {
      if let incident = try decodeAlert(alert, at: path, context) {
        document.incidents.append(incident)
      }
    } catch {
      document.problems.append(JSONFeed.error(error, format: format).skipping(id(of: alert)))
    }
  }

  /// The id of an alert, jam or irregularity (`uuid`, else `id`), when it can be read.
  private static func id(of item: JSONValue) -> String? {
    item["uuid"]?.identifier ?? item["id"]?.identifier
  }

  /// Jams of one window whose observation time waits for the window's time.
  private struct Window {
    /// Jams decoded before the window time was known: where their incident and observation
    /// are in the document, and whether they carry their own time.
    var pending: [(incident: Int, observation: Int, path: String, hasOwnTime: Bool)] = []

    mutating func decodeJam(
      _ jam: JSONValue, at path: String, _ context: Context, into document: inout FeedDocument
    ) {
      do {
        let (incident, observation, hasOwnTime) = try WazeDecoder.decodeJam(jam, at: path, context)
        if context.windowTimePending {
          pending.append(
            (document.incidents.count, document.flowObservations.count, path, hasOwnTime))
        }
        document.incidents.append(incident)
        document.flowObservations.append(observation)
      } catch {
        document.problems.append(
          JSONFeed.error(error, format: WazeDecoder.format).skipping(WazeDecoder.id(of: jam)))
      }
    }

    /// Gives the pending jams the window's time; jams with no time at all are dropped.
    func settle(windowTime: Date?, in document: inout FeedDocument) {
      var dropIncidents = IndexSet()
      var dropObservations = IndexSet()
      for jam in pending {
        if let windowTime {
          document.flowObservations[jam.observation].time = windowTime
        } else if !jam.hasOwnTime {
          dropIncidents.insert(jam.incident)
          dropObservations.insert(jam.observation)
          document.problems.append(
            FeedError(
              format: WazeDecoder.format, location: jam.path,
              reason: "no time for the jam (no pubMillis, no window times)",
              recordId: document.incidents[jam.incident].originalId))
        }
      }
      guard !dropIncidents.isEmpty else { return }
      document.incidents = document.incidents.enumerated().filter {
        !dropIncidents.contains($0.offset)
      }.map(\.element)
      document.flowObservations = document.flowObservations.enumerated().filter {
        !dropObservations.contains($0.offset)
      }.map(\.element)
    }
  }

  private struct Context {
    var language: LanguageCode
    var defaultCountry: String?
    var observationTime: Date?
    /// Whether the window's time is not known yet (a jam without its own time then gets a
    /// placeholder, settled by `Window.settle`).
    var windowTimePending = false
  }

  private struct Common {
    var originalId: String
    var recordPath: String
    var time: Date?
    var details: TrafficIncidentDetails
    var street: String?
  }

  private static func common(
    _ item: JSONValue, at path: String, _ context: Context, kind: TrafficEventKind?,
    queueLength: Double? = nil, delay: Double? = nil
  ) throws(JSONFieldError) -> Common {
    guard item.object != nil else {
      throw JSONFieldError(path: path, reason: "expected an object, found \(item.kindName)")
    }
    guard let originalId = item["uuid"]?.identifier ?? item["id"]?.identifier else {
      throw JSONFieldError(path: path, reason: "no \"uuid\"")
    }
    var time: Date?
    if let millis = item["pubMillis"], !millis.isNull {
      guard let date = millis.double.flatMap(FeedDates.fromUnixTime) else {
        throw JSONFieldError(path: path + ".pubMillis", reason: "not a Unix time in milliseconds")
      }
      time = date
    }
    var country = JSONFeed.text(item["country"])?.uppercased()
    if country == "UK" { country = "GB" }
    let street = JSONFeed.text(item["street"])
    do {
      let details = try TrafficIncidentDetails(
        countryCode: JSONFeed.countryCode(country, fallback: context.defaultCountry),
        area: JSONFeed.text(item["city"]), roadName: street,
        fromJunction: JSONFeed.text(item["startNode"]), toJunction: JSONFeed.text(item["endNode"]),
        queueLengthInMeters: queueLength, delayInSeconds: delay, eventKind: kind)
      return Common(
        originalId: originalId, recordPath: "\(path) (uuid \(originalId))", time: time,
        details: details, street: street)
    } catch {
      throw JSONFieldError(path: path, reason: error.description)
    }
  }

  private static func decodeAlert(
    _ alert: JSONValue, at path: String, _ context: Context
  ) throws(JSONFieldError) -> TrafficIncident? {
    let wazeType = JSONFeed.text(alert["type"]) ?? ""
    let subtype = JSONFeed.text(alert["subtype"]) ?? ""
    if wazeType == "POLICE" || wazeType == "CHIT_CHAT" { return nil }
    let (type, impact, kind) = classify(type: wazeType, subtype: subtype)
    let info = try common(alert, at: path, context, kind: kind)
    let locationPath = path + ".location"
    let position = try alert.required("location", at: info.recordPath)
    let coordinates = try point(position, at: locationPath)
    let texts = [JSONFeed.text(alert["reportDescription"])].compactMap { $0 }.map {
      LocalizedText(text: $0, language: context.language)
    }
    return try JSONFeed.incident(at: info.recordPath) { () throws(TrafficModelError) in
      try TrafficIncident(
        id: info.originalId, type: type, impact: impact, startTime: info.time,
        entryTime: info.time, isRoadClosed: wazeType == "ROAD_CLOSED",
        location: TrafficLocation(point: coordinates, description: info.street),
        details: info.details, sourceTexts: texts)
    }
  }

  private static func decodeJam(
    _ jam: JSONValue, at path: String, _ context: Context
  ) throws(JSONFieldError) -> (TrafficIncident, FlowObservation, hasOwnTime: Bool) {
    let level = min(max(jam["level"]?.int ?? 0, 0), 5)
    let length = jam["length"]?.double.flatMap { $0 >= 0 ? $0 : nil }
    let delay = jam["delay"]?.double.flatMap { $0 >= 0 ? $0 : nil }
    let kind: TrafficEventKind =
      level >= 4 ? .stationaryTraffic : level == 3 ? .queuingTraffic : .slowTraffic
    let info = try common(jam, at: path, context, kind: kind, queueLength: length, delay: delay)
    let linePath = path + ".line"
    let points = try jam.required("line", at: info.recordPath).requiredArray(at: linePath)
    var vertices: [GeoCoordinates] = []
    vertices.reserveCapacity(points.count)
    for (index, value) in points.enumerated() {
      vertices.append(try point(value, at: "\(linePath)[\(index)]"))
    }
    guard let first = vertices.first else {
      throw JSONFieldError(path: linePath, reason: "the jam's line has no points")
    }
    let polyline =
      vertices.count == 1 ? GeoPolyline(point: first) : GeoPolyline(uncheckedVertices: vertices)
    let impacts: [TrafficIncidentImpact] = [.low, .low, .minor, .major, .critical, .critical]
    let parentId = JSONFeed.text(jam["blockingAlertUuid"])
    let incident = try JSONFeed.incident(at: info.recordPath) { () throws(TrafficModelError) in
      try TrafficIncident(
        id: info.originalId, parentId: parentId, type: .congestion, impact: impacts[level],
        startTime: info.time, entryTime: info.time, isRoadClosed: level == 5,
        location: TrafficLocation(polyline: polyline, description: info.street),
        details: info.details)
    }
    var speed = jam["speed"]?.double
    if speed == nil, let kmh = jam["speedKMH"]?.double { speed = kmh / 3.6 }
    if let value = speed, !(value >= 0) { speed = nil }
    var freeFlow: Double?
    if let speed, speed > 0, let length, length > 0, let delay {
      let freeFlowTime = length / speed - delay
      if freeFlowTime > 0 { freeFlow = length / freeFlowTime }
    }
    guard
      let time = context.observationTime ?? info.time
        ?? (context.windowTimePending ? .distantPast : nil)
    else {
      throw JSONFieldError(
        path: info.recordPath, reason: "no time for the jam (no pubMillis, no window times)")
    }
    let observation = FlowObservation(
      polyline: polyline, speedInMetersPerSecond: speed, freeFlowSpeedInMetersPerSecond: freeFlow,
      jamFactor: Double(2 * level), delayInSeconds: delay, time: time,
      sourceId: info.originalId)
    return (incident, observation, info.time != nil)
  }

  /// An irregularity (a jam much slower than usual for its place and time): a congestion
  /// incident starting at `detectionDateMillis`, entered at `updateDateMillis`.
  private static func decodeIrregularity(
    _ item: JSONValue, at path: String, _ context: Context
  ) throws(JSONFieldError) -> TrafficIncident {
    let level = min(max(item["jamLevel"]?.int ?? item["severity"]?.int ?? 0, 0), 5)
    let length = item["length"]?.double.flatMap { $0 >= 0 ? $0 : nil }
    let delay = item["delaySeconds"]?.double.flatMap { $0 >= 0 ? $0 : nil }
    let kind: TrafficEventKind =
      level >= 4 ? .stationaryTraffic : level == 3 ? .queuingTraffic : .slowTraffic
    let info = try common(item, at: path, context, kind: kind, queueLength: length, delay: delay)
    func time(_ name: String) throws(JSONFieldError) -> Date? {
      guard let value = item[name], !value.isNull else { return nil }
      guard let date = value.double.flatMap(FeedDates.fromUnixTime) else {
        throw JSONFieldError(path: "\(path).\(name)", reason: "not a Unix time in milliseconds")
      }
      return date
    }
    let detected = try time("detectionDateMillis")
    let updated = try time("updateDateMillis")
    let linePath = path + ".line"
    let points = try item.required("line", at: info.recordPath).requiredArray(at: linePath)
    var vertices: [GeoCoordinates] = []
    vertices.reserveCapacity(points.count)
    for (index, value) in points.enumerated() {
      vertices.append(try point(value, at: "\(linePath)[\(index)]"))
    }
    guard let first = vertices.first else {
      throw JSONFieldError(path: linePath, reason: "the irregularity's line has no points")
    }
    let polyline =
      vertices.count == 1 ? GeoPolyline(point: first) : GeoPolyline(uncheckedVertices: vertices)
    let impacts: [TrafficIncidentImpact] = [.low, .low, .minor, .major, .critical, .critical]
    return try JSONFeed.incident(at: info.recordPath) { () throws(TrafficModelError) in
      try TrafficIncident(
        id: info.originalId, type: .congestion, impact: impacts[level],
        startTime: detected ?? updated, entryTime: updated ?? detected, isRoadClosed: level == 5,
        location: TrafficLocation(polyline: polyline, description: info.street),
        details: info.details)
    }
  }

  /// `{"x": longitude, "y": latitude}`.
  private static func point(
    _ value: JSONValue, at path: String
  ) throws(JSONFieldError)
    -> GeoCoordinates
  {
    let longitude = try value.required("x", at: path).requiredDouble(at: path + ".x")
    let latitude = try value.required("y", at: path).requiredDouble(at: path + ".y")
    return try JSONValue.coordinates(latitude: latitude, longitude: longitude, at: path)
  }

  private static func classify(
    type: String, subtype: String
  ) -> (TrafficIncidentType, TrafficIncidentImpact, TrafficEventKind?) {
    switch type {
    case "ACCIDENT":
      return (.accident, subtype == "ACCIDENT_MAJOR" ? .major : .minor, .accident)
    case "JAM":
      switch subtype {
      case "JAM_LIGHT_TRAFFIC": return (.congestion, .low, .slowTraffic)
      case "JAM_HEAVY_TRAFFIC": return (.congestion, .major, .queuingTraffic)
      case "JAM_STAND_STILL_TRAFFIC": return (.congestion, .critical, .stationaryTraffic)
      default: return (.congestion, .minor, .slowTraffic)
      }
    case "ROAD_CLOSED":
      switch subtype {
      case "ROAD_CLOSED_CONSTRUCTION": return (.roadClosure, .critical, .roadworks)
      case "ROAD_CLOSED_EVENT": return (.roadClosure, .critical, .majorEvent)
      default: return (.roadClosure, .critical, nil)
      }
    case "CONSTRUCTION":
      return (.construction, .minor, .roadworks)
    case "HAZARD", "WEATHERHAZARD":
      return classifyHazard(subtype)
    default:
      return (.other, .unknown, nil)
    }
  }

  private static func classifyHazard(
    _ subtype: String
  ) -> (TrafficIncidentType, TrafficIncidentImpact, TrafficEventKind?) {
    switch subtype {
    case "HAZARD_ON_ROAD_CONSTRUCTION": return (.construction, .minor, .roadworks)
    case "HAZARD_ON_ROAD_CAR_STOPPED": return (.disabledVehicle, .minor, .brokenDownVehicle)
    case "HAZARD_ON_SHOULDER_CAR_STOPPED": return (.disabledVehicle, .low, .brokenDownVehicle)
    case "HAZARD_ON_ROAD_LANE_CLOSED": return (.laneRestriction, .minor, nil)
    case "HAZARD_ON_ROAD_OBJECT": return (.roadHazard, .minor, .objectOnRoad)
    case "HAZARD_ON_ROAD_ROAD_KILL": return (.roadHazard, .minor, .animalsOnRoad)
    case "HAZARD_ON_SHOULDER_ANIMALS": return (.roadHazard, .low, .animalsOnRoad)
    case "HAZARD_ON_ROAD_ICE": return (.weather, .minor, .ice)
    case "HAZARD_WEATHER_FOG": return (.weather, .minor, .fog)
    case "HAZARD_WEATHER_HAIL", "HAZARD_WEATHER_HEAVY_RAIN", "HAZARD_WEATHER":
      return (.weather, .minor, nil)
    case "HAZARD_WEATHER_HEAT_WAVE": return (.weather, .low, nil)
    case "HAZARD_WEATHER_HEAVY_SNOW": return (.weather, .major, .snow)
    case "HAZARD_WEATHER_FLOOD": return (.weather, .major, .flooding)
    case "HAZARD_WEATHER_FREEZING_RAIN": return (.weather, .major, .ice)
    case "HAZARD_WEATHER_MONSOON": return (.weather, .major, nil)
    case "HAZARD_WEATHER_TORNADO", "HAZARD_WEATHER_HURRICANE":
      return (.weather, .major, .strongWinds)
    default:
      if subtype.hasPrefix("HAZARD_ON_SHOULDER") { return (.roadHazard, .low, nil) }
      return (.roadHazard, .minor, nil)
    }
  }
}
