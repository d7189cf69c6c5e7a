import Foundation
import Roads

extension FlowPipeline {
  /// What the active incidents close at a time: segments and junction turns, each with the
  /// part long-term closures close.
  struct Closures: Sendable {
    var segments: Set<Int> = []
    var turns: Set<UInt64> = []
    var longTermSegments: Set<Int> = []
    var longTermTurns: Set<UInt64> = []

    /// Puts the closures into a snapshot.
    func apply(to snapshot: inout FlowSnapshot) {
      snapshot.closed = segments
      snapshot.closedTurns = turns
      snapshot.longTermClosed = longTermSegments
      snapshot.longTermClosedTurns = longTermTurns
    }
  }

  /// A closure lasting longer than this is long-term, seconds (a day).
  static let longTermClosureSeconds = 86_400.0

  /// Whether an incident's closure is long-term, as HERE's Routing API counts them
  /// ("closures that last for more than a day", which its planning mode still avoids): its
  /// known span, from its start (else its entry time, else `now`) to its end (else `now`),
  /// passes a day. So a closure planned for more than a day is long-term from its first
  /// minute, and an open-ended one once it has lasted a day; one with neither start nor end
  /// known is not.
  static func isLongTerm(_ incident: TrafficIncident, at now: Date) -> Bool {
    let begin = incident.startTime ?? incident.entryTime ?? now
    return (incident.endTime ?? now).timeIntervalSince(begin) > longTermClosureSeconds
  }

  /// The segments and turns the incidents active at `now` close (``closedSegments`` and
  /// ``closedTurns``).
  static func closures(
    incidents: IncidentIndex, now: Date, index: FlowIndex, distance: Double,
    junctionTurns cache: inout [String: [UInt64]]
  ) -> Closures {
    var closures = Closures()
    (closures.segments, closures.longTermSegments) = closedSegments(
      incidents: incidents, now: now, index: index, distance: distance)
    (closures.turns, closures.longTermTurns) = closedTurns(
      incidents: incidents, now: now, index: index, cache: &cache)
    return closures
  }

  /// The turns closed by the active incidents whose junctions are not all open: each such
  /// incident's geometry is matched to its stretch of segments (both directions of the
  /// roads); of the stretch's junctions — the node it starts at, the nodes between its
  /// segments, the node it ends at — those `junctionsTraversability` closes cannot be used to
  /// enter or leave the stretch: every turn there between a stretch segment and another
  /// segment is closed. Driving along the stretch through them stays possible (a closed road
  /// is `closedSegments`' job).
  ///
  /// An incident that names its closed lanes (``TrafficIncidentDetails/closedLanes``) also
  /// closes, on networks that know which lanes each turn leaves from, every turn at the end
  /// of its stretch's segments (where the closure reaches that end) that leaves only from
  /// closed lanes: the right turn of a road whose right lane is shut.
  ///
  /// An incident's turns are computed once per incident version (its geometry is matched to
  /// the network): `cache` keeps them by version id between rebuilds, and drops versions no
  /// longer active. Returns all of them and those of long-term closures.
  static func closedTurns(
    incidents: IncidentIndex, now: Date, index: FlowIndex, cache: inout [String: [UInt64]]
  ) -> (all: Set<UInt64>, longTerm: Set<UInt64>) {
    var turns: Set<UInt64> = []
    var longTerm: Set<UInt64> = []
    var seen: [String: [UInt64]] = [:]
    // Closed lanes shut turns only on a network that knows its turns' lanes; elsewhere (an
    // OpenStreetMap region) such an incident is not matched to the network for nothing.
    let knowsLanes = index.network.turns?.knowsLanes == true
    for incident in incidents.incidents
    where
      (incident.junctionsTraversability != .allOpen
      || (knowsLanes && incident.details.closedLanes != nil))
      && incident.isActive(at: now)
    {
      let own = cache[incident.id] ?? turnsClosed(by: incident, index: index)
      seen[incident.id] = own
      turns.formUnion(own)
      if isLongTerm(incident, at: now) { longTerm.formUnion(own) }
    }
    cache = seen
    return (turns, longTerm)
  }

  /// How far from a segment's end a lane closure may stop and still shut the turns there,
  /// meters: an incident's geometry is matched to the network at points 15 m apart.
  static let laneClosureReach = 20.0

  /// The turns one incident's closed junctions and closed lanes close (see `closedTurns`).
  private static func turnsClosed(by incident: TrafficIncident, index: FlowIndex) -> [UInt64] {
    var turns: Set<UInt64> = []
    let network = index.network
    let graph = index.polylineMatcher.graph
    for polyline in incident.location.allPolylines where polyline.lengthInMeters >= 1 {
      var stretch: [Int] = []
      var pieces: [FlowIndex.Piece] = []
      for piece in index.pieces(along: polyline) {
        if stretch.last != piece.segmentID {
          stretch.append(piece.segmentID)
          pieces.append(piece)
        } else {
          pieces[pieces.count - 1].endOffsetInMeters = piece.endOffsetInMeters
        }
      }
      guard let first = stretch.first else { continue }
      if let lanes = incident.details.closedLanes, !incident.isRoadClosed,
        let table = network.turns, table.knowsLanes
      {
        var closed: SegmentTurns.Lanes = 0
        for lane in lanes where lane <= 32 { closed |= 1 << (lane - 1) }
        for (k, piece) in pieces.enumerated() {
          let segment = piece.segmentID
          // The closure reaches the segment's end: the stretch goes on, or ends close to it.
          guard
            k < pieces.count - 1
              || piece.endOffsetInMeters
                >= network.segments[segment].lengthInMeters - laneClosureReach,
            let masks = table.laneMasks(of: segment)
          else { continue }
          for (next, mask) in zip(table[segment], masks)
          where mask != 0 && mask != SegmentTurns.everyLane && mask & ~closed == 0 {
            turns.insert(FlowSnapshot.turnKey(from: segment, to: Int(next)))
          }
        }
      }
      var nodes: [Int] = [network.segments[first].fromNode]
      nodes += stretch.map { network.segments[$0].toNode }
      let closed: [Int]
      switch incident.junctionsTraversability {
      case .allOpen: closed = []
      case .allClosed: closed = nodes
      case .intermediateClosedEdgeOpen: closed = Array(nodes.dropFirst().dropLast())
      case .startOpenOthersClosed: closed = Array(nodes.dropFirst())
      case .endOpenOthersClosed: closed = Array(nodes.dropLast())
      }
      var members = Set(stretch)
      for segment in stretch {
        if let opposite = network.segments[segment].oppositeID { members.insert(opposite) }
      }
      // Every turn through a closed junction with exactly one side on the stretch; the
      // segments entering a junction are those near it that end there.
      for junction in Set(closed) {
        let point = network.nodes[junction].coordinates
        let near = GeoBox.enclosingSegment(point, point).expandedUnchecked(byMeters: 1)
        for from in index.segments(inBox: near) where network.segments[from].toNode == junction {
          let range =
            Int(graph.successorOffsets[from])..<Int(graph.successorOffsets[from + 1])
          for k in range {
            let to = Int(graph.successors[k])
            if members.contains(from) != members.contains(to) {
              turns.insert(FlowSnapshot.turnKey(from: from, to: to))
            }
          }
        }
      }
    }
    return Array(turns)
  }

  /// The segments covered by active road-closure incidents: a segment's midpoint within
  /// `distance` of the incident's geometry, running its way (within 60°; any way for an
  /// incident at a point). Returns all of them and those of long-term closures.
  static func closedSegments(
    incidents: IncidentIndex, now: Date, index: FlowIndex, distance: Double
  ) -> (all: Set<Int>, longTerm: Set<Int>) {
    var all: Set<Int> = []
    var longTerm: Set<Int> = []
    let network = index.network
    for incident in incidents.incidents
    where (incident.isRoadClosed || incident.type == .roadClosure) && incident.isActive(at: now) {
      let isLongTerm = isLongTerm(incident, at: now)
      func close(_ segment: Int) {
        all.insert(segment)
        if isLongTerm { longTerm.insert(segment) }
      }
      for polyline in incident.location.allPolylines {
        let isPoint = polyline.lengthInMeters < 1
        let box = polyline.boundingBox.expandedUnchecked(byMeters: distance)
        for id in index.segments(inBox: box) {
          let segment = network.segments[id]
          let middle = segment.geometry.coordinates(atDistance: segment.lengthInMeters / 2)
          let nearest = polyline.closestPoint(to: middle)
          guard nearest.distanceInMeters <= distance else { continue }
          if isPoint {
            close(id)
            continue
          }
          let i = min(nearest.segmentIndex, polyline.vertices.count - 2)
          let incidentBearing = polyline.vertices[i].bearing(to: polyline.vertices[i + 1])
          let onSegment = segment.geometry.closestPoint(to: middle)
          let k = min(onSegment.segmentIndex, segment.geometry.vertices.count - 2)
          let segmentBearing = segment.geometry.vertices[k].bearing(
            to: segment.geometry.vertices[k + 1])
          var difference = abs(incidentBearing - segmentBearing).truncatingRemainder(
            dividingBy: 360)
          if difference > 180 { difference = 360 - difference }
          if difference <= 60 { close(id) }
        }
      }
    }
    return (all, longTerm)
  }
}
