import Codec
import Foundation
import Geo
import Roads
import Traffic

/// The HERE Routing API v8 answer of `GET /v8/routes`, written for the subset this engine
/// serves: `routes[].sections[]` with `departure`, `arrival`, `summary`, `travelSummary`,
/// `polyline` (a flexible polyline), `spans` and `incidents`, as `return=` and `spans=` ask.
public enum V8RouteWire {
  /// What an answer carries (v8 `return`).
  public struct Return: OptionSet, Hashable, Sendable {
    /// The bits of the set.
    public let rawValue: Int
    /// A set of its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `summary`: duration, length, base duration of each section.
    public static let summary = Return(rawValue: 1)
    /// `polyline`: each section's geometry as a flexible polyline.
    public static let polyline = Return(rawValue: 2)
    /// `travelSummary`: the same figures as `summary`.
    public static let travelSummary = Return(rawValue: 4)
    /// `incidents`: the incidents on each section.
    public static let incidents = Return(rawValue: 8)
    /// `actions`: each section's maneuvers (`action`, `duration`, `length`, `offset`, and
    /// `direction` and `severity` where they apply).
    public static let actions = Return(rawValue: 16)
    /// `instructions`: with `actions`, each one's `instruction` text (in English).
    public static let instructions = Return(rawValue: 32)
    /// `turnByTurnActions`: the maneuvers with the roads before and after them
    /// (`currentRoad`, `nextRoad`: `name` and `number`).
    public static let turnByTurnActions = Return(rawValue: 64)

    /// The v8 names, in the order v8 documents them.
    public static let names: [(String, Return)] = [
      ("summary", .summary), ("polyline", .polyline), ("travelSummary", .travelSummary),
      ("incidents", .incidents), ("actions", .actions), ("instructions", .instructions),
      ("turnByTurnActions", .turnByTurnActions),
    ]
  }

  /// What each span carries (v8 `spans`); none writes no spans.
  public struct SpanAttributes: OptionSet, Hashable, Sendable {
    /// The bits of the set.
    public let rawValue: Int
    /// A set of its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `length`: meters.
    public static let length = SpanAttributes(rawValue: 1)
    /// `duration`: seconds with traffic (`null` when closed).
    public static let duration = SpanAttributes(rawValue: 2)
    /// `dynamicSpeedInfo`: traffic and base speed, turn time, jam factor.
    public static let dynamicSpeedInfo = SpanAttributes(rawValue: 4)
    /// `names`: the road's name (`[{"value"}]`).
    public static let roadNames = SpanAttributes(rawValue: 8)
    /// `speedLimit`: meters per second.
    public static let speedLimit = SpanAttributes(rawValue: 16)
    /// `functionalClass`: 1 (motorways) to 5.
    public static let functionalClass = SpanAttributes(rawValue: 32)
    /// `baseDuration`: seconds at free flow.
    public static let baseDuration = SpanAttributes(rawValue: 64)

    /// The v8 names.
    public static let names: [(String, SpanAttributes)] = [
      ("length", .length), ("duration", .duration), ("dynamicSpeedInfo", .dynamicSpeedInfo),
      ("names", .roadNames), ("speedLimit", .speedLimit), ("functionalClass", .functionalClass),
      ("baseDuration", .baseDuration),
    ]
  }

  /// The answer to a routing request.
  ///
  /// - Complexity: O(v + s + i) for the vertices, spans and incidents of the routes.
  ///
  /// - Parameter language: the BCP 47 tag instructions are written for (v8 `lang`; English
  ///   where the text catalogs have no such language).
  /// - Parameter violated: per route and section, the avoided features it drives anyway
  ///   (none could be avoided), each written as a critical `notices` entry
  ///   (`violatedAvoidTollRoad`, ...), as HERE does.
  public static func encode(
    _ routes: [Route], returning: Return, spans: SpanAttributes, language: String? = nil,
    violated: [[Set<RoadFeature>]] = []
  ) -> Data {
    var w = JSONWriter(capacity: 4_096)
    w.beginObject()
    w.key("routes")
    w.beginArray()
    for (index, route) in routes.enumerated() {
      w.beginObject()
      w.member("id", "route-\(index)")
      w.key("sections")
      w.beginArray()
      for (number, section) in route.sections.enumerated() {
        let features =
          index < violated.count && number < violated[index].count ? violated[index][number] : []
        write(
          section, id: "section-\(index)-\(number)", returning: returning, spans: spans,
          language: language, violated: features, to: &w)
      }
      w.endArray()
      w.endObject()
    }
    w.endArray()
    w.endObject()
    return Data(w.bytes)
  }

  /// A v8 error body: `title`, `status`, `code`, `cause`, `action` and `correlationId`
  /// (last, filled in by the server).
  public static func error(status: Int, code: String, title: String, cause: String) -> Data {
    var w = JSONWriter(capacity: 256)
    w.beginObject()
    w.member("title", title)
    w.member("status", status)
    w.member("code", code)
    w.member("cause", cause)
    w.member("action", "")
    w.member("correlationId", "")
    w.endObject()
    return Data(w.bytes)
  }

  private static func write(
    _ section: RouteSection, id: String, returning: Return, spans attributes: SpanAttributes,
    language: String?, violated: Set<RoadFeature>, to w: inout JSONWriter
  ) {
    w.beginObject()
    w.member("id", id)
    w.member("type", "vehicle")
    w.key("departure")
    write(section.departure, to: &w)
    w.key("arrival")
    write(section.arrival, to: &w)
    for (name, flag) in [("summary", Return.summary), ("travelSummary", .travelSummary)]
    where returning.contains(flag) {
      w.key(name)
      w.beginObject()
      w.member("duration", Int(section.durationInSeconds.rounded()))
      w.member("length", Int(section.lengthInMeters.rounded()))
      w.member("baseDuration", Int(section.baseDurationInSeconds.rounded()))
      if let typical = section.typicalDurationInSeconds {
        w.member("typicalDuration", Int(typical.rounded()))
      }
      w.endObject()
    }
    if returning.contains(.polyline),
      let polyline = try? FlexiblePolyline.encode(section.polyline.vertices)
    {
      w.member("polyline", polyline)
    }
    // The vertices' distances along the line (geodesics), only when something is placed on it.
    let offsets =
      attributes.isEmpty && returning.isDisjoint(with: [.actions, .turnByTurnActions])
      ? [] : vertexOffsets(section.polyline)
    if returning.contains(.actions) {
      w.key("actions")
      write(
        section.maneuvers, roads: false,
        instructions: returning.contains(.instructions) ? language ?? "en" : nil,
        offsets: offsets, to: &w)
    }
    if returning.contains(.turnByTurnActions) {
      w.key("turnByTurnActions")
      write(section.maneuvers, roads: true, instructions: nil, offsets: offsets, to: &w)
    }
    if !attributes.isEmpty {
      w.key("spans")
      w.beginArray()
      var vertex = 0
      for (index, span) in section.traffic.spans.enumerated() {
        // The first span starts the section: at its first vertex, also where the next ones
        // lie at the same place (a route of no length has two).
        vertex = index == 0 ? 0 : vertexIndex(at: span.offsetInMeters, in: offsets, from: vertex)
        w.beginObject()
        w.member("offset", vertex)
        if attributes.contains(.length) { w.member("length", Int(span.lengthInMeters.rounded())) }
        if attributes.contains(.duration) {
          let speed = span.trafficSpeedInMetersPerSecond
          w.key("duration")
          if speed > 0 { w.integer(Int((span.lengthInMeters / speed).rounded())) } else { w.null() }
        }
        if attributes.contains(.dynamicSpeedInfo) {
          w.key("dynamicSpeedInfo")
          w.beginObject()
          w.member("trafficSpeed", span.trafficSpeedInMetersPerSecond, decimals: 2)
          w.member("baseSpeed", span.baseSpeedInMetersPerSecond, decimals: 2)
          w.member("turnTime", 0)
          w.member("jamFactor", span.jamFactor, decimals: 1)
          w.endObject()
        }
        if attributes.contains(.roadNames), let name = span.roadName {
          w.key("names")
          w.beginArray()
          w.beginObject()
          w.member("value", name)
          w.endObject()
          w.endArray()
        }
        if attributes.contains(.speedLimit), let limit = span.speedLimitInMetersPerSecond {
          w.member("speedLimit", limit, decimals: 2)
        }
        if attributes.contains(.functionalClass), let value = span.functionalClass {
          w.member("functionalClass", value)
        }
        if attributes.contains(.baseDuration), span.baseSpeedInMetersPerSecond > 0 {
          w.member(
            "baseDuration", Int((span.lengthInMeters / span.baseSpeedInMetersPerSecond).rounded()))
        }
        w.endObject()
      }
      w.endArray()
    }
    if returning.contains(.incidents) {
      w.key("incidents")
      w.beginArray()
      // Descriptions in the language asked for (as `/v7/incidents?lang=` words them).
      let wording = language.flatMap { try? LanguageCode($0) }
      for item in section.traffic.incidents {
        let incident = wording.map { item.incident.localized(to: $0) } ?? item.incident
        w.beginObject()
        w.member("id", incident.originalId)
        w.member("type", incident.type.wireName ?? "other")
        w.member("criticality", incident.impact.wireName ?? "low")
        w.member("description", incident.description.text)
        if let start = incident.startTime { w.member("validFrom", start) }
        if let end = incident.endTime { w.member("validUntil", end) }
        w.member("roadClosed", incident.isRoadClosed)
        w.member("offsetOnSection", item.offsetInMeters, decimals: 1)
        w.endObject()
      }
      w.endArray()
    }
    if !violated.isEmpty {
      w.key("notices")
      w.beginArray()
      for feature in violated.sorted() {
        w.beginObject()
        w.member("title", "Violated avoid \(feature.hereName) preference")
        w.member(
          "code",
          "violatedAvoid" + feature.hereName.prefix(1).uppercased() + feature.hereName.dropFirst())
        w.member("severity", "critical")
        w.endObject()
      }
      w.endArray()
    }
    w.key("transport")
    w.beginObject()
    w.member("mode", "car")
    w.endObject()
    w.endObject()
  }

  /// A section's maneuvers as v8 `actions` or, with `roads`, `turnByTurnActions`.
  private static func write(
    _ maneuvers: [RouteManeuver], roads: Bool, instructions language: String?,
    offsets: [Double], to w: inout JSONWriter
  ) {
    let catalog = language.map { RouteManeuver.catalog(for: $0) }
    w.beginArray()
    var vertex = 0
    for maneuver in maneuvers {
      // The departure is at the section's first vertex, as the first span.
      vertex =
        maneuver.action == .depart
        ? 0 : vertexIndex(at: maneuver.offsetInMeters, in: offsets, from: vertex)
      w.beginObject()
      w.member("action", maneuver.action.rawValue)
      w.member("duration", Int(maneuver.durationInSeconds.rounded()))
      w.member("length", Int(maneuver.lengthInMeters.rounded()))
      w.member("offset", vertex)
      if let direction = maneuver.direction { w.member("direction", direction.rawValue) }
      if let severity = maneuver.severity { w.member("severity", severity.rawValue) }
      if let exit = maneuver.exit { w.member("exit", exit) }
      if let catalog { w.member("instruction", maneuver.instruction(in: catalog)) }
      if roads {
        for (key, road) in [("currentRoad", maneuver.fromRoad), ("nextRoad", maneuver.road)] {
          guard let road else { continue }
          w.key(key)
          w.beginObject()
          for (name, value) in [("name", road.name), ("number", road.number)] {
            guard let value else { continue }
            w.key(name)
            w.beginArray()
            w.beginObject()
            w.member("value", value)
            w.endObject()
            w.endArray()
          }
          w.endObject()
        }
      }
      w.endObject()
    }
    w.endArray()
  }

  /// The last vertex not after `meters` along the polyline (whose vertices lie at
  /// `offsets`), looking on from `start`.
  static func vertexIndex(at meters: Double, in offsets: [Double], from start: Int) -> Int {
    var vertex = start
    while vertex + 1 < offsets.count, offsets[vertex + 1] <= meters + 0.01 { vertex += 1 }
    return vertex
  }

  private static func write(_ place: RoutePlace, to w: inout JSONWriter) {
    w.beginObject()
    // HERE writes each place's time in the local time there.
    w.key("time")
    w.date(
      place.time, offsetSeconds: PlaceTimeZone.offsetSeconds(at: place.location, on: place.time))
    w.key("place")
    w.beginObject()
    w.member("type", "place")
    w.key("location")
    write(place.location, to: &w)
    w.key("originalLocation")
    write(place.originalLocation, to: &w)
    w.endObject()
    w.endObject()
  }

  private static func write(_ point: GeoCoordinates, to w: inout JSONWriter) {
    w.beginObject()
    w.member("lat", point.latitude, decimals: 6)
    w.member("lng", point.longitude, decimals: 6)
    w.endObject()
  }

  /// The distance along the polyline of each vertex, meters.
  private static func vertexOffsets(_ polyline: GeoPolyline) -> [Double] {
    var offsets = [0.0]
    offsets.reserveCapacity(polyline.vertices.count)
    for (a, b) in zip(polyline.vertices, polyline.vertices.dropFirst()) {
      offsets.append(offsets[offsets.count - 1] + a.distance(to: b))
    }
    return offsets
  }
}
