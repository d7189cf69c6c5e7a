import Foundation
import Roads
import Traffic

/// A town to show traffic on: the SUMO network of the A10 game when SUMO is installed, else
/// a small built-in grid — with flow and incidents made up so that every colour and a few
/// incident types appear.
struct SampleTraffic {
  let engine: TrafficEngine
  /// Where to look.
  let center: GeoCoordinates
  /// The zoom level that shows the interesting part.
  let zoomLevel: Double
  /// The incident the example taps.
  let tappedIncidentId: String

  static let sumoNetwork = URL(fileURLWithPath: "/usr/share/sumo/tools/game/A10KW/osm.net.xml")

  /// The sample: on `network`, on the SUMO network when present, else the built-in grid.
  static func make(network url: URL?, now: Date) throws -> SampleTraffic {
    if let url {
      return try onNetwork(SUMONetworkImporter.importNetwork(from: url), now: now)
    }
    return try onNetwork(builtInNetwork(), now: now)
  }

  /// A 4 x 4 grid of two-way streets 400 m apart with a one-way motorway along its north.
  static func builtInNetwork() throws -> RoadNetwork {
    func point(_ row: Int, _ column: Int) -> GeoCoordinates {
      GeoCoordinates(
        uncheckedLatitude: 52.50 + Double(row) * 0.0036, longitude: 13.40 + Double(column) * 0.0059)
    }
    var nodes: [RoadNode] = []
    for row in 0..<4 {
      for column in 0..<4 {
        nodes.append(
          RoadNode(id: nodes.count, sourceID: "n\(row)-\(column)", coordinates: point(row, column)))
      }
    }
    nodes.append(RoadNode(id: 16, sourceID: "mw-w", coordinates: point(4, -1)))
    nodes.append(RoadNode(id: 17, sourceID: "mw-e", coordinates: point(4, 4)))
    var segments: [RoadSegment] = []
    func road(_ a: Int, _ b: Int, _ roadClass: RoadClass, twoWay: Bool = true) throws {
      let id = segments.count
      let geometry = try GeoPolyline(vertices: [nodes[a].coordinates, nodes[b].coordinates])
      let limit = SpeedLimit(metersPerSecond: roadClass == .motorway ? 27.8 : 13.9, source: .posted)
      segments.append(
        RoadSegment(
          id: id, sourceID: "w\(id)", fromNode: a, toNode: b, geometry: geometry,
          name: "Street \(id)",
          roadClass: roadClass, speedLimit: limit, oppositeID: twoWay ? id + 1 : nil))
      if twoWay {
        segments.append(
          RoadSegment(
            id: id + 1, sourceID: "w\(id)", fromNode: b, toNode: a,
            geometry: try GeoPolyline(vertices: geometry.vertices.reversed()), name: "Street \(id)",
            roadClass: roadClass, speedLimit: limit, isReversed: true, oppositeID: id))
      }
    }
    for row in 0..<4 {
      for column in 0..<3 {
        try road(row * 4 + column, row * 4 + column + 1, row == 1 ? .primary : .residential)
      }
    }
    for column in 0..<4 {
      for row in 0..<3 {
        try road(row * 4 + column, (row + 1) * 4 + column, column == 2 ? .secondary : .tertiary)
      }
    }
    try road(16, 17, .motorway, twoWay: false)
    return try RoadNetwork(nodes: nodes, segments: segments)
  }

  /// Jams on every third major road (colours by position), a closure, an accident and
  /// roadworks on the longest roads near the middle.
  static func onNetwork(_ network: RoadNetwork, now: Date) throws -> SampleTraffic {
    guard let box = GeoBox.enclosing(network.nodes.map(\.coordinates)) else {
      throw SampleError.emptyNetwork
    }
    let center = box.center
    let store = InMemoryTrafficStore()
    // The longest major roads near the middle carry the incidents.
    let candidates = network.segments.filter { $0.functionalClass <= 4 && $0.lengthInMeters > 100 }
      .sorted {
        ($0.geometry.distance(to: center), $0.id) < ($1.geometry.distance(to: center), $1.id)
      }
    // Three roads apart from each other, so that a tap on one incident hits only it.
    var chosen: [RoadSegment] = []
    for segment in candidates where chosen.count < 3 {
      let apart = chosen.allSatisfy { other in
        segment.geometry.distance(to: other.geometry.vertices[0]) > 150
          && other.geometry.distance(to: segment.geometry.vertices[0]) > 150
      }
      if apart { chosen.append(segment) }
    }
    guard chosen.count == 3 else { throw SampleError.emptyNetwork }
    let major = chosen
    let accident = try TrafficIncident(
      id: "sample-accident-1", originalId: "sample-accident", type: .accident, impact: .critical,
      startTime: now - 900, endTime: now + 3600,
      location: TrafficLocation(polyline: major[0].geometry, description: major[0].name))
    let closure = try TrafficIncident(
      id: "sample-closure-1", originalId: "sample-closure", type: .roadClosure, impact: .major,
      startTime: now - 3600, endTime: now + 7200, isRoadClosed: true,
      location: TrafficLocation(polyline: major[1].geometry, description: major[1].name))
    let works = try TrafficIncident(
      id: "sample-works-1", originalId: "sample-works", type: .construction, impact: .minor,
      startTime: now - 86_400, endTime: now + 86_400,
      location: TrafficLocation(polyline: major[2].geometry, description: major[2].name))
    try store.apply(IncidentBatch(upserts: [accident, closure, works]))
    let engine = try TrafficEngine(store: store, clock: { now }, network: network)
    var observations: [FlowObservation] = []
    for segment in network.segments where segment.functionalClass <= 4 && segment.id % 3 == 0 {
      let jam = [9.0, 5.0, 2.0, 6.5][(segment.id / 3) % 4]
      observations.append(FlowObservation(polyline: segment.geometry, jamFactor: jam, time: now))
    }
    engine.ingest(observations: observations)
    let span = max(box.widthInDegrees * cos(center.latitude * .pi / 180), box.heightInDegrees)
    let zoom = min(17, max(12, log2(360 / max(span, 1e-6)) + 0.5))
    return SampleTraffic(
      engine: engine, center: major[0].geometry.coordinates(atDistance: 0), zoomLevel: zoom,
      tappedIncidentId: accident.originalId)
  }
}

/// Why the sample could not be made.
enum SampleError: Error {
  case emptyNetwork
}
