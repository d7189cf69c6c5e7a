import Codec
import Foundation
import Geo
import Traffic

extension V8RouteWire {
  /// The routes of a `GET /v8/routes` answer (what ``encode(_:returning:spans:)`` writes,
  /// with `return=summary,polyline,incidents,turnByTurnActions` and every span attribute):
  /// the remote
  /// `RoutingEngine` reads its server's answers with it.
  ///
  /// Spans keep their speeds, jam factors and lengths; their segment is unknown (-1), and an
  /// incident carries the fields the answer has, placed at its point on the route.
  ///
  /// - Throws: ``RoutingError/remote(_:)`` naming the JSON path of what cannot be read;
  ///   ``RoutingError/noRoute(fromIndex:toIndex:)`` for a route whose section has a
  ///   `violatedAvoid...` notice (the server found none without the avoided features, which
  ///   ``RouteOptions/avoidedFeatures`` never drives).
  public static func decode(_ data: Data) throws(RoutingError) -> [Route] {
    let root: JSONValue
    do { root = try JSONParser.parse(data) } catch {
      throw .remote("the route answer cannot be read: $: not JSON: \(error.description)")
    }
    for route in root["routes"]?.array ?? [] {
      for (number, section) in (route["sections"]?.array ?? []).enumerated() {
        let codes = (section["notices"]?.array ?? []).compactMap { $0["code"]?.string }
        if codes.contains(where: { $0.hasPrefix("violatedAvoid") }) {
          throw .noRoute(fromIndex: number, toIndex: number + 1)
        }
      }
    }
    do throws(JSONFieldError) {
      return try root.required("routes", at: "$").requiredArray(at: "routes").enumerated().map {
        index, route throws(JSONFieldError) in
        let path = "routes[\(index)]"
        let sections = try route.required("sections", at: path).requiredArray(
          at: path + ".sections")
        return Route(
          sections: try sections.enumerated().map { number, section throws(JSONFieldError) in
            try decodeSection(section, at: "\(path).sections[\(number)]")
          })
      }
    } catch {
      throw .remote("the route answer cannot be read: \(error.description)")
    }
  }

  private static func decodeSection(
    _ section: JSONValue, at path: String
  ) throws(JSONFieldError) -> RouteSection {
    let departure = try place(section.required("departure", at: path), at: path + ".departure")
    let arrival = try place(section.required("arrival", at: path), at: path + ".arrival")
    let summary = try section.required("summary", at: path)
    let duration = try summary.required("duration", at: path + ".summary").requiredDouble(
      at: path + ".summary.duration")
    let length = try summary.required("length", at: path + ".summary").requiredDouble(
      at: path + ".summary.length")
    let base = try summary.required("baseDuration", at: path + ".summary").requiredDouble(
      at: path + ".summary.baseDuration")
    let typical = summary["typicalDuration"]?.double
    let encoded = try section.required("polyline", at: path).requiredString(
      at: path + ".polyline")
    let polyline: GeoPolyline
    do {
      let points = try FlexiblePolyline.decode(encoded).coordinates
      polyline = try GeoPolyline(vertices: points.count == 1 ? points + points : points)
    } catch {
      throw JSONFieldError(path: path + ".polyline", reason: error.description)
    }
    var offsets = [0.0]
    for (a, b) in zip(polyline.vertices, polyline.vertices.dropFirst()) {
      offsets.append(offsets[offsets.count - 1] + a.distance(to: b))
    }
    var spans: [TrafficOnRoute.Span] = []
    for (k, span) in (section["spans"]?.array ?? []).enumerated() {
      let spanPath = "\(path).spans[\(k)]"
      let vertex = try span.required("offset", at: spanPath).requiredDouble(
        at: spanPath + ".offset")
      guard vertex >= 0, vertex < Double(offsets.count) else {
        throw JSONFieldError(path: spanPath + ".offset", reason: "no vertex \(vertex)")
      }
      let speed = span["dynamicSpeedInfo"]?["trafficSpeed"]?.double ?? 0
      let baseSpeed = span["dynamicSpeedInfo"]?["baseSpeed"]?.double ?? 0
      let spanLength = span["length"]?.double ?? 0
      let closed = speed <= 0
      spans.append(
        TrafficOnRoute.Span(
          offsetInMeters: offsets[Int(vertex)], lengthInMeters: spanLength, segmentID: -1,
          roadName: span["names"]?.array?.first?["value"]?.string,
          baseSpeedInMetersPerSecond: baseSpeed,
          trafficSpeedInMetersPerSecond: speed,
          jamFactor: span["dynamicSpeedInfo"]?["jamFactor"]?.double ?? 0, confidence: 0,
          traversability: closed ? .closed : .open,
          delayInSeconds: closed || baseSpeed <= 0
            ? nil : spanLength / speed - spanLength / baseSpeed,
          speedLimitInMetersPerSecond: span["speedLimit"]?.double,
          functionalClass: span["functionalClass"]?.double.flatMap { Int(exactly: $0) }))
    }
    var incidents: [TrafficOnRoute.IncidentOnRoute] = []
    for (k, item) in (section["incidents"]?.array ?? []).enumerated() {
      let itemPath = "\(path).incidents[\(k)]"
      let offset = item["offsetOnSection"]?.double ?? 0
      let id = try item.required("id", at: itemPath).requiredString(at: itemPath + ".id")
      do {
        let incident = try TrafficIncident(
          id: id, type: item["type"]?.string.flatMap(TrafficIncidentType.init(wireName:)) ?? .other,
          impact: item["criticality"]?.string.flatMap(TrafficIncidentImpact.init(wireName:))
            ?? .unknown,
          description: item["description"]?.string.map {
            LocalizedText(text: $0, language: .enUS)
          },
          startTime: item["validFrom"]?.string.flatMap { RFC3339.parse($0) },
          endTime: item["validUntil"]?.string.flatMap { RFC3339.parse($0) },
          isRoadClosed: item["roadClosed"]?.bool ?? false,
          location: TrafficLocation(point: polyline.coordinates(atDistance: offset)))
        incidents.append(TrafficOnRoute.IncidentOnRoute(incident: incident, offsetInMeters: offset))
      } catch {
        throw JSONFieldError(path: itemPath, reason: error.description)
      }
    }
    let traffic = TrafficOnRoute(
      spans: spans, incidents: incidents, lengthInMeters: length, baseDurationInSeconds: base,
      trafficDurationInSeconds: duration, totalDelayInSeconds: duration - base,
      isBlocked: spans.contains { $0.traversability == .closed })
    return RouteSection(
      departure: departure, arrival: arrival, durationInSeconds: duration,
      baseDurationInSeconds: base, typicalDurationInSeconds: typical, lengthInMeters: length,
      polyline: polyline, traffic: traffic,
      maneuvers: try maneuvers(section, polyline: polyline, offsets: offsets, at: path))
  }

  /// The maneuvers of `turnByTurnActions` (with their roads), else of `actions`; none
  /// without either. A departure's heading is the polyline's over its first 15 m.
  private static func maneuvers(
    _ section: JSONValue, polyline: GeoPolyline, offsets: [Double], at path: String
  ) throws(JSONFieldError) -> [RouteManeuver] {
    let key = section["turnByTurnActions"] != nil ? "turnByTurnActions" : "actions"
    var maneuvers: [RouteManeuver] = []
    for (k, item) in (section[key]?.array ?? []).enumerated() {
      let itemPath = "\(path).\(key)[\(k)]"
      let name = try item.required("action", at: itemPath).requiredString(
        at: itemPath + ".action")
      guard let action = RouteManeuver.Action(rawValue: name) else {
        throw JSONFieldError(path: itemPath + ".action", reason: "unknown action \(name)")
      }
      let vertex = try item.required("offset", at: itemPath).requiredDouble(
        at: itemPath + ".offset")
      guard vertex >= 0, vertex < Double(offsets.count) else {
        throw JSONFieldError(path: itemPath + ".offset", reason: "no vertex \(vertex)")
      }
      func road(_ key: String) -> RouteManeuver.Road? {
        RouteManeuver.Road(
          name: item[key]?["name"]?.array?.first?["value"]?.string,
          number: item[key]?["number"]?.array?.first?["value"]?.string)
      }
      let offset = offsets[Int(vertex)]
      var heading: Double?
      if action == .depart, let length = offsets.last, length > 0 {
        heading = polyline.coordinates(atDistance: offset).bearing(
          to: polyline.coordinates(atDistance: min(length, offset + Guidance.bearingLength)))
      }
      maneuvers.append(
        RouteManeuver(
          action: action,
          direction: item["direction"]?.string.flatMap(RouteManeuver.Direction.init(rawValue:)),
          severity: item["severity"]?.string.flatMap(RouteManeuver.Severity.init(rawValue:)),
          offsetInMeters: offset, lengthInMeters: item["length"]?.double ?? 0,
          durationInSeconds: item["duration"]?.double ?? 0, fromRoad: road("currentRoad"),
          road: road("nextRoad") ?? (action == .arrive ? road("currentRoad") : nil),
          headingInDegrees: heading,
          exit: item["exit"]?.double.flatMap { Int(exactly: $0.rounded()) }.flatMap {
            $0 >= 1 ? $0 : nil
          }))
    }
    return maneuvers
  }

  private static func place(
    _ value: JSONValue, at path: String
  ) throws(JSONFieldError)
    -> RoutePlace
  {
    let text = try value.required("time", at: path).requiredString(at: path + ".time")
    guard let time = RFC3339.parse(text) else {
      throw JSONFieldError(path: path + ".time", reason: "not an RFC 3339 time: \(text)")
    }
    let place = try value.required("place", at: path)
    let location = try point(
      place.required("location", at: path + ".place"), at: path + ".place.location")
    var original = location
    if let given = place["originalLocation"] {
      original = try point(given, at: path + ".place.originalLocation")
    }
    return RoutePlace(location: location, originalLocation: original, time: time)
  }

  private static func point(
    _ value: JSONValue, at path: String
  ) throws(JSONFieldError)
    -> GeoCoordinates
  {
    let latitude = try value.required("lat", at: path).requiredDouble(at: path + ".lat")
    let longitude = try value.required("lng", at: path).requiredDouble(at: path + ".lng")
    return try JSONValue.coordinates(latitude: latitude, longitude: longitude, at: path)
  }
}
