import Foundation
import Geo
import Roads
import Traffic

/// The maneuvers of a section, from the segments it drives: a departure, a maneuver at each
/// junction where the road changes or the way bends sharply, an arrival.
///
/// At the junction from segment `a` into `b`, the turn angle is the change of bearing from
/// the last 15 m of `a` to the first 15 m of `b` (positive to the right):
/// - `b` the other direction of `a`: a U-turn;
/// - `b` a link road (`*_link`) and `a` not: an exit off a motorway or trunk road, else a
///   ramp, to the side the way turns;
/// - 30° or more into another road, or 60° or more on the same one: a turn, light below
///   60°, quite up to 120°, heavy beyond;
/// - less into another road with a name or number: continue;
/// - anything else is the same road going on, no maneuver;
/// - and where no other way goes on (but back), a bend is no maneuver and a new name is
///   continue.
/// Roads are told apart by name and number (OpenStreetMap `name` and `ref`); a road with
/// neither is another road only when it turns. A roundabout (``RoadSegment/isRoundabout``)
/// is one maneuver where it is entered, `roundaboutExit` with the number of the exit taken:
/// the junctions on the ring where a road open to cars leaves it, counted from the entry;
/// its side and sharpness those of the way from the road before to the road after.
enum Guidance {
  /// The bearing over this many meters at a segment's end or start.
  static let bearingLength = 15.0

  /// The maneuvers of the pieces driven, each piece `meters[i]` long (with the way across
  /// the junction before it, on a SUMO network) and taking `seconds[i]`: offsets and lengths
  /// along the section's polyline.
  static func maneuvers(
    _ pieces: [FlowIndex.Piece], meters: [Double], seconds: [Double], network: RoadNetwork,
    graph: MatchingGraph
  ) -> [RouteManeuver] {
    guard let first = pieces.first, let last = pieces.last else { return [] }
    let segments = network.segments
    func road(_ segment: Int) -> RouteManeuver.Road? {
      RouteManeuver.Road(name: segments[segment].name, number: segments[segment].ref)
    }
    // Where each maneuver is: the piece it starts and what it is.
    var starts: [(piece: Int, maneuver: RouteManeuver)] = []
    let start = segments[first.segmentID].geometry
    let headingEnd = min(first.endOffsetInMeters, first.startOffsetInMeters + bearingLength)
    starts.append(
      (
        0,
        RouteManeuver(
          action: .depart, offsetInMeters: 0, lengthInMeters: 0, durationInSeconds: 0,
          road: road(first.segmentID),
          headingInDegrees: headingEnd > first.startOffsetInMeters
            ? start.coordinates(atDistance: first.startOffsetInMeters).bearing(
              to: start.coordinates(atDistance: headingEnd)) : nil)
      ))
    var offset = 0.0
    // In a roundabout: where it was entered (piece, offset, the road before) and the exits
    // passed since.
    var ring: (piece: Int, offset: Double, before: Int?, exits: Int)?
    if segments[first.segmentID].isRoundabout { ring = (0, 0, nil, 0) }
    for k in pieces.indices {
      defer { offset += k < meters.count ? meters[k] : pieces[k].lengthInMeters }
      guard k > 0, pieces[k].segmentID != pieces[k - 1].segmentID else { continue }
      let a = pieces[k - 1].segmentID, b = pieces[k].segmentID
      switch (segments[a].isRoundabout, segments[b].isRoundabout) {
      case (false, true):
        ring = (k, offset, a, 0)
        continue
      case (true, true):
        if exitsRing(at: a, besides: b, network: network, graph: graph) { ring?.exits += 1 }
        continue
      case (true, false):
        guard let entered = ring else { continue }
        ring = nil
        var maneuver = roundabout(from: entered.before, into: b, network: network)
        maneuver.exit = entered.exits + 1
        maneuver.offsetInMeters = entered.offset
        maneuver.fromRoad = entered.before.flatMap(road)
        maneuver.road = road(b)
        // The departure inside the ring: the maneuver starts the stretch where it leaves.
        starts.append((entered.before == nil ? k : entered.piece, maneuver))
        if entered.before == nil { starts[starts.count - 1].maneuver.offsetInMeters = offset }
        continue
      case (false, false):
        break
      }
      guard var maneuver = maneuver(from: a, into: b, network: network, graph: graph) else {
        continue
      }
      maneuver.offsetInMeters = offset
      maneuver.fromRoad = road(a)
      maneuver.road = road(b)
      starts.append((k, maneuver))
    }
    // Each maneuver's stretch runs to the next one.
    var result: [RouteManeuver] = []
    for (index, entry) in starts.enumerated() {
      let end = index + 1 < starts.count ? starts[index + 1].piece : pieces.count
      var maneuver = entry.maneuver
      for k in entry.piece..<end {
        maneuver.lengthInMeters += k < meters.count ? meters[k] : pieces[k].lengthInMeters
        maneuver.durationInSeconds += k < seconds.count ? seconds[k] : 0
      }
      result.append(maneuver)
    }
    result.append(
      RouteManeuver(
        action: .arrive, offsetInMeters: offset, lengthInMeters: 0, durationInSeconds: 0,
        fromRoad: road(last.segmentID), road: road(last.segmentID)))
    return result
  }

  /// Whether a road open to cars other than `taken` leaves the ring where `segment` ends.
  static func exitsRing(
    at segment: Int, besides taken: Int, network: RoadNetwork, graph: MatchingGraph
  ) -> Bool {
    let range = Int(graph.successorOffsets[segment])..<Int(graph.successorOffsets[segment + 1])
    return range.contains { k in
      let next = Int(graph.successors[k])
      let road = network.segments[next]
      return next != taken && !road.isRoundabout && road.isOpenToCars
        && network.segments[segment].oppositeID != next
    }
  }

  /// A roundabout maneuver from the road before it (if any) into `b`: its side and
  /// sharpness those of the change of bearing between them.
  static func roundabout(from before: Int?, into b: Int, network: RoadNetwork) -> RouteManeuver {
    var direction: RouteManeuver.Direction?
    var severity: RouteManeuver.Severity?
    if let before {
      let angle = turnAngle(
        from: network.segments[before].geometry, into: network.segments[b].geometry)
      direction = abs(angle) < 30 ? .middle : angle > 0 ? .right : .left
      severity = Self.severity(angle)
    }
    return RouteManeuver(
      action: .roundaboutExit, direction: direction, severity: severity, offsetInMeters: 0,
      lengthInMeters: 0, durationInSeconds: 0)
  }

  /// The maneuver at the junction from segment `a` into `b`, if any (its offsets, lengths
  /// and roads still to be filled in).
  static func maneuver(
    from a: Int, into b: Int, network: RoadNetwork, graph: MatchingGraph
  ) -> RouteManeuver? {
    let from = network.segments[a], into = network.segments[b]
    func make(
      _ action: RouteManeuver.Action, _ direction: RouteManeuver.Direction? = nil,
      _ severity: RouteManeuver.Severity? = nil
    ) -> RouteManeuver {
      RouteManeuver(
        action: action, direction: direction, severity: severity, offsetInMeters: 0,
        lengthInMeters: 0, durationInSeconds: 0)
    }
    if from.oppositeID == b { return make(.uTurn, .left) }
    let angle = turnAngle(from: from.geometry, into: into.geometry)
    let side: RouteManeuver.Direction = angle >= 0 ? .right : .left
    if into.roadClass.isLink, !from.roadClass.isLink {
      let leavesMotorway = from.roadClass == .motorway || from.roadClass == .trunk
      return make(leavesMotorway ? .exit : .ramp, side)
    }
    let sameRoad =
      RouteManeuver.Road(name: from.name, number: from.ref)
      == RouteManeuver.Road(name: into.name, number: into.ref)
    let magnitude = abs(angle)
    // Where the road only bends (no other way on but back), there is nothing to decide: a
    // bend of the same road is no maneuver, and another name there reads as continue.
    let range = Int(graph.successorOffsets[a])..<Int(graph.successorOffsets[a + 1])
    let choices = range.lazy.map { Int(graph.successors[$0]) }.filter {
      $0 != from.oppositeID && network.segments[$0].isOpenToCars
    }.count
    if choices <= 1 {
      return sameRoad || RouteManeuver.Road(name: into.name, number: into.ref) == nil
        ? nil : make(.continue)
    }
    if magnitude >= 60 || (magnitude >= 30 && !sameRoad) {
      return make(.turn, side, Self.severity(angle))
    }
    if !sameRoad, RouteManeuver.Road(name: into.name, number: into.ref) != nil {
      return make(.continue)
    }
    return nil
  }

  /// How sharp a turn of `angle` degrees is: light below 60°, quite up to 120°, heavy beyond.
  static func severity(_ angle: Double) -> RouteManeuver.Severity {
    let magnitude = abs(angle)
    return magnitude < 60 ? .light : magnitude < 120 ? .quite : .heavy
  }

  /// The change of bearing from the end of `from` to the start of `into`, degrees in
  /// (−180, 180], positive to the right.
  static func turnAngle(from: GeoPolyline, into: GeoPolyline) -> Double {
    var angle = (bearing(into, atEnd: false) - bearing(from, atEnd: true))
      .truncatingRemainder(dividingBy: 360)
    if angle > 180 { angle -= 360 }
    if angle <= -180 { angle += 360 }
    return angle
  }

  /// The bearing of a line over its last (`atEnd`) or first ``bearingLength`` meters: from
  /// the nearest vertex at least that far from the end to the end, degrees clockwise from
  /// north. Local plane geometry: over meters the ellipsoid's curvature does not change a
  /// maneuver (and a route has a junction every few dozen meters in a town, so geodesics
  /// here would cost more than the search).
  static func bearing(_ line: GeoPolyline, atEnd: Bool) -> Double {
    let vertices = line.vertices
    let count = vertices.count
    func vertex(_ k: Int) -> GeoCoordinates { vertices[atEnd ? count - 1 - k : k] }
    var k = 1
    var walked = vertex(0).fastDistance(to: vertex(1))
    while walked < bearingLength, k + 1 < count {
      walked += vertex(k).fastDistance(to: vertex(k + 1))
      k += 1
    }
    let (a, b) = atEnd ? (vertex(k), vertex(0)) : (vertex(0), vertex(k))
    var dLongitude = b.longitude - a.longitude
    if dLongitude > 180 { dLongitude -= 360 } else if dLongitude < -180 { dLongitude += 360 }
    let east = dLongitude * cos((a.latitude + b.latitude) / 2 * .pi / 180)
    let degrees = atan2(east, b.latitude - a.latitude) * 180 / .pi
    return degrees < 0 ? degrees + 360 : degrees
  }
}
