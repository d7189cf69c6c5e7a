import Codec
import Foundation
import Geo

/// The parts of an OSRM route leg made from a ``RouteSection``: its steps (one per
/// maneuver, with OSRM's maneuver types and modifiers), its summary and its annotation.
enum OSRMSteps {
  /// One stretch between consecutive points of the leg's geometry.
  struct Pair {
    var meters: Double
    var seconds: Double
    /// Where its speed comes from: 0 the speed limit, 1 history (the learned free flow or
    /// the typical week), 2 live probes or feeds (the confidence bands of ``TrafficFlow``).
    var source: Int
  }

  /// The names of the speed sources, as OSRM's `metadata.datasource_names`.
  static let sourceNames = ["speed limit", "historical", "live"]

  /// The leg's geometry cut into the stretches between its points, each with its meters and
  /// its seconds (at the speed of the span it lies on, scaled so that the seconds add up to
  /// the leg's duration); and for each point the OpenStreetMap id of the junction there, 0
  /// for a point between junctions (`nodeIDs`: a segment's junctions).
  static func annotation(
    _ section: RouteSection, nodeIDs: (Int) -> (from: Int, to: Int)
  ) -> (pairs: [Pair], nodes: [Int]) {
    let points = section.polyline.vertices
    guard points.count >= 2 else { return ([], points.map { _ in 0 }) }
    let spans = section.traffic.spans
    let origin = spans.first?.offsetInMeters ?? 0
    var pairs: [Pair] = []
    pairs.reserveCapacity(points.count - 1)
    var nodes = [Int](repeating: 0, count: points.count)
    var along = 0.0
    var span = 0
    // A point within half a meter of a span's start (past the first) is that segment's
    // first junction; the last span's end its last.
    func node(at distance: Double) -> Int {
      for (index, candidate) in spans.enumerated() {
        let start = candidate.offsetInMeters - origin
        if index > 0, abs(start - distance) < 0.5 { return nodeIDs(candidate.segmentID).from }
        if start > distance + 0.5 { break }
      }
      return 0
    }
    for k in 1..<points.count {
      let meters = points[k - 1].distance(to: points[k])
      let middle = along + meters / 2
      while span + 1 < spans.count, spans[span + 1].offsetInMeters - origin <= middle { span += 1 }
      let speed = spans.isEmpty ? 0 : spans[span].trafficSpeedInMetersPerSecond
      let confidence = spans.isEmpty ? 0 : spans[span].confidence
      pairs.append(
        Pair(
          meters: meters, seconds: speed > 0 ? meters / speed : 0,
          source: confidence > 0.7 ? 2 : confidence > 0.5 ? 1 : 0))
      along += meters
      if k < points.count - 1 { nodes[k] = node(at: along) }
    }
    let total = pairs.reduce(0) { $0 + $1.seconds }
    if total > 0 {
      let scale = section.durationInSeconds / total
      for k in pairs.indices { pairs[k].seconds *= scale }
    }
    return (pairs, nodes)
  }

  /// The names of the two roads driven longest on the leg, in driving order (OSRM's
  /// `summary`).
  static func summary(_ section: RouteSection) -> String {
    var meters: [String: Double] = [:]
    var first: [String: Double] = [:]
    for span in section.traffic.spans {
      guard let name = span.roadName, !name.isEmpty else { continue }
      meters[name, default: 0] += span.lengthInMeters
      if first[name] == nil { first[name] = span.offsetInMeters }
    }
    let longest = meters.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(2).map(\.key)
    return longest.sorted { first[$0]! < first[$1]! }.joined(separator: ", ")
  }

  /// Writes the step that starts at `maneuver` and ends at the next one.
  static func write(
    _ maneuver: RouteManeuver, next: RouteManeuver?, in section: RouteSection,
    geometries: OSRMQuery.Geometries, to w: inout JSONWriter
  ) {
    let line = section.polyline
    let length = line.lengthInMeters
    let start = min(max(0, maneuver.offsetInMeters), length)
    let end = min(max(start, next?.offsetInMeters ?? start), length)
    let location = line.coordinates(atDistance: start)
    let before = maneuver.action == .depart ? 0 : bearing(line, from: start - 5, to: start)
    let after = maneuver.action == .arrive ? 0 : bearing(line, from: start, to: start + 5)
    w.beginObject()
    w.key("geometry")
    OSRMRouteWire.writeGeometry(piece(line, from: start, to: end), geometries, to: &w)
    w.key("maneuver")
    w.beginObject()
    w.member("bearing_after", after)
    w.member("bearing_before", before)
    w.key("location")
    OSRMRouteWire.writePoint(location, to: &w)
    var (type, modifier) = kind(maneuver)
    if maneuver.action == .depart {
      // As OSRM: the side of the road the place asked for lies on, seen in the direction of
      // travel.
      let toPlace = location.bearing(to: section.departure.originalLocation)
      let turn = ((toPlace - Double(after)).truncatingRemainder(dividingBy: 360) + 360)
        .truncatingRemainder(dividingBy: 360)
      modifier =
        location.distance(to: section.departure.originalLocation) < 1
        ? "straight" : turn < 180 ? "right" : "left"
    }
    if let modifier { w.member("modifier", modifier) }
    w.member("type", type)
    if maneuver.action == .roundaboutExit, let exit = maneuver.exit { w.member("exit", exit) }
    w.endObject()
    w.member("mode", "driving")
    w.member("driving_side", "right")
    w.member("name", maneuver.road?.name ?? "")
    if let number = maneuver.road?.number { w.member("ref", number) }
    w.key("intersections")
    w.beginArray()
    w.beginObject()
    w.key("location")
    OSRMRouteWire.writePoint(location, to: &w)
    // The way in (the reverse of the bearing before) and the way out, ascending.
    var bearings: [(bearing: Int, role: String)] = []
    if maneuver.action != .depart { bearings.append(((before + 180) % 360, "in")) }
    if maneuver.action != .arrive { bearings.append((after, "out")) }
    bearings.sort { $0.bearing < $1.bearing }
    w.key("bearings")
    w.beginArray()
    for entry in bearings { w.integer(entry.bearing) }
    w.endArray()
    w.key("entry")
    w.beginArray()
    for _ in bearings { w.bool(true) }
    w.endArray()
    for (index, entry) in bearings.enumerated() {
      if entry.role == "in" { w.member("in", index) } else { w.member("out", index) }
    }
    w.endObject()
    w.endArray()
    w.member("weight", maneuver.durationInSeconds, decimals: 1)
    w.member("duration", maneuver.durationInSeconds, decimals: 1)
    w.member("distance", maneuver.lengthInMeters, decimals: 1)
    w.endObject()
  }

  /// OSRM's maneuver type and modifier of a maneuver.
  static func kind(_ maneuver: RouteManeuver) -> (type: String, modifier: String?) {
    func side(_ sharpness: String?) -> String? {
      switch maneuver.direction {
      case .left?: return sharpness.map { "\($0) left" } ?? "left"
      case .right?: return sharpness.map { "\($0) right" } ?? "right"
      case .middle?: return "straight"
      case nil: return nil
      }
    }
    switch maneuver.action {
    case .depart: return ("depart", nil)
    case .arrive: return ("arrive", nil)
    case .continue: return ("new name", "straight")
    case .turn:
      let sharpness: String? =
        switch maneuver.severity {
        case .light?: "slight"
        case .heavy?: "sharp"
        default: nil
        }
      return ("turn", side(sharpness) ?? "straight")
    case .uTurn: return ("continue", "uturn")
    case .ramp: return ("on ramp", side("slight") ?? "straight")
    case .exit: return ("off ramp", side("slight") ?? "straight")
    case .roundaboutExit: return ("roundabout", side(nil))
    }
  }

  /// The whole-degree bearing of the line between two distances along it (clamped to it).
  static func bearing(_ line: GeoPolyline, from: Double, to: Double) -> Int {
    let length = line.lengthInMeters
    var a = max(0, min(from, length))
    var b = max(0, min(to, length))
    if b - a < 0.5 { (a, b) = (max(0, b - 5), min(length, a + 5)) }
    guard b > a else { return 0 }
    let degrees = line.coordinates(atDistance: a).bearing(to: line.coordinates(atDistance: b))
    return (Int(degrees.rounded()) % 360 + 360) % 360
  }

  /// The points of the line between two distances along it (at least two).
  static func piece(_ line: GeoPolyline, from start: Double, to end: Double) -> [GeoCoordinates] {
    let vertices = line.vertices
    var points = [line.coordinates(atDistance: start)]
    var along = 0.0
    for k in 1..<max(1, vertices.count) {
      along += vertices[k - 1].distance(to: vertices[k])
      if along > start, along < end { points.append(vertices[k]) }
      if along >= end { break }
    }
    points.append(line.coordinates(atDistance: end))
    return points
  }
}
