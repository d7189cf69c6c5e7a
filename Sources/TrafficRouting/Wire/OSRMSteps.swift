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
    // The points come in order along the leg: the next span start to look at moves on with them.
    var boundary = 1
    func node(at distance: Double) -> Int {
      while boundary < spans.count, spans[boundary].offsetInMeters - origin < distance - 0.5 {
        boundary += 1
      }
      guard boundary < spans.count,
        abs(spans[boundary].offsetInMeters - origin - distance) < 0.5
      else { return 0 }
      return nodeIDs(spans[boundary].segmentID).from
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
    return longest.sorted { first[$0, default: 0] < first[$1, default: 0] }.joined(
      separator: ", ")
  }

  /// Writes the step that starts at `maneuver` and ends at the next one.
  static func write(
    _ maneuver: RouteManeuver, next: RouteManeuver?, in section: RouteSection, along line: Along,
    geometries: OSRMQuery.Geometries, to w: inout JSONWriter
  ) {
    let length = line.length
    let start = min(max(0, maneuver.offsetInMeters), length)
    let end = min(max(start, next?.offsetInMeters ?? start), length)
    let location = line.point(at: start)
    let before = maneuver.action == .depart ? 0 : line.bearing(from: start - 5, to: start)
    let after = maneuver.action == .arrive ? 0 : line.bearing(from: start, to: start + 5)
    w.beginObject()
    w.key("geometry")
    OSRMRouteWire.writeGeometry(line.piece(from: start, to: end), geometries, to: &w)
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

  /// A section's geometry measured once: each point's distance from the start, so that a
  /// point, a bearing or a piece at any distance is a binary search away (a long route's
  /// steps would otherwise walk the whole line for each of hundreds of maneuvers).
  struct Along {
    let points: [GeoCoordinates]
    /// Meters from the first point to each point.
    let distances: [Double]

    init(_ line: GeoPolyline) {
      points = line.vertices
      var distances = [0.0]
      distances.reserveCapacity(points.count)
      for k in points.indices.dropFirst() {
        distances.append(distances[k - 1] + points[k - 1].distance(to: points[k]))
      }
      self.distances = distances
    }

    var length: Double { distances.last ?? 0 }

    /// The last point at or before `meters` (at most the second last, so that a stretch
    /// follows it).
    func index(at meters: Double) -> Int {
      var lower = 0
      var upper = max(0, points.count - 2)
      while lower < upper {
        let middle = (lower + upper + 1) / 2
        if distances[middle] <= meters { lower = middle } else { upper = middle - 1 }
      }
      return lower
    }

    /// The point `meters` along the line (clamped to it).
    func point(at meters: Double) -> GeoCoordinates {
      guard points.count > 1 else {
        return points.first ?? GeoCoordinates(uncheckedLatitude: 0, longitude: 0)
      }
      let k = index(at: meters)
      let span = distances[k + 1] - distances[k]
      let t = span > 0 ? min(1, max(0, (meters - distances[k]) / span)) : 0
      let a = points[k]
      let b = points[k + 1]
      return GeoCoordinates(
        uncheckedLatitude: a.latitude + t * (b.latitude - a.latitude),
        longitude: a.longitude + t * (b.longitude - a.longitude))
    }

    /// The whole-degree bearing between two distances along the line (clamped to it).
    func bearing(from: Double, to: Double) -> Int {
      var a = max(0, min(from, length))
      var b = max(0, min(to, length))
      if b - a < 0.5 { (a, b) = (max(0, b - 5), min(length, a + 5)) }
      guard b > a else { return 0 }
      let degrees = point(at: a).bearing(to: point(at: b))
      return (Int(degrees.rounded()) % 360 + 360) % 360
    }

    /// The points of the line between two distances along it (at least two).
    func piece(from start: Double, to end: Double) -> [GeoCoordinates] {
      var result = [point(at: start)]
      var k = index(at: start) + 1
      while k < points.count, distances[k] < end {
        if distances[k] > start { result.append(points[k]) }
        k += 1
      }
      result.append(point(at: end))
      return result
    }
  }
}
