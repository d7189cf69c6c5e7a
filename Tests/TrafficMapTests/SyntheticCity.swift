import Foundation
import Roads
import Traffic

@testable import TrafficMap

/// A small made-up town with known traffic, for map tests:
///
/// - Main Street, two-way primary, west to east along 47.000° N from 9.500° E to 9.520° E,
///   in two blocks split at 9.510° E. The eastbound west block is jammed (jam factor 9, red);
///   the eastbound east block is slow (5, amber); the westbound blocks flow freely (green).
/// - Cross Street, two-way secondary, south to north along 9.510° E from 46.995° N to
///   47.005° N through Main Street's middle junction; free flowing.
/// - The bypass, a one-way motorway, west to east along 47.004° N; blocked (jam factor 10)
///   on its whole length.
/// - Incidents: a critical accident at a point on Main Street (47.000, 9.505); a road
///   closure along the north half of Cross Street; minor roadworks on the bypass.
enum SyntheticCity {
  static let now = Date(timeIntervalSince1970: 1_811_851_200)  // 2027-06-01 12:00 UTC
  static let center = point(47.000, 9.510)

  static func point(_ latitude: Double, _ longitude: Double) -> GeoCoordinates {
    GeoCoordinates(uncheckedLatitude: latitude, longitude: longitude)
  }

  static func network() throws -> RoadNetwork {
    let nodes = [
      (47.000, 9.500), (47.000, 9.510), (47.000, 9.520), (46.995, 9.510), (47.005, 9.510),
      (47.004, 9.500), (47.004, 9.520),
    ].enumerated().map { i, c in
      RoadNode(id: i, sourceID: "n\(i)", coordinates: point(c.0, c.1))
    }
    var segments: [RoadSegment] = []
    func road(
      _ from: Int, _ to: Int, _ roadClass: RoadClass, name: String, twoWay: Bool, speed: Double
    ) throws {
      let id = segments.count
      let forward = try GeoPolyline(vertices: [nodes[from].coordinates, nodes[to].coordinates])
      let limit = SpeedLimit(metersPerSecond: speed, source: .posted)
      segments.append(
        RoadSegment(
          id: id, sourceID: name, fromNode: from, toNode: to, geometry: forward, name: name,
          roadClass: roadClass, speedLimit: limit, oppositeID: twoWay ? id + 1 : nil))
      if twoWay {
        let backward = try GeoPolyline(vertices: forward.vertices.reversed())
        segments.append(
          RoadSegment(
            id: id + 1, sourceID: name, fromNode: to, toNode: from, geometry: backward,
            name: name, roadClass: roadClass, speedLimit: limit, isReversed: true,
            oppositeID: id))
      }
    }
    try road(0, 1, .primary, name: "Main Street", twoWay: true, speed: 13.9)  // 0, 1
    try road(1, 2, .primary, name: "Main Street", twoWay: true, speed: 13.9)  // 2, 3
    try road(3, 1, .secondary, name: "Cross Street", twoWay: true, speed: 13.9)  // 4, 5
    try road(1, 4, .secondary, name: "Cross Street", twoWay: true, speed: 13.9)  // 6, 7
    try road(5, 6, .motorway, name: "Bypass", twoWay: false, speed: 27.8)  // 8
    return try RoadNetwork(nodes: nodes, segments: segments)
  }

  /// Segment ids of the jams.
  static let jammedEastbound = 0
  static let slowEastbound = 2
  static let freeWestbound = 1
  static let blockedBypass = 8

  static func engine(incidents: Bool = true) throws -> TrafficEngine {
    let network = try network()
    let store = InMemoryTrafficStore()
    if incidents { try store.apply(IncidentBatch(upserts: try self.incidents())) }
    let engine = try TrafficEngine(store: store, clock: { now }, network: network)
    engine.ingest(observations: [
      FlowObservation(
        polyline: network.segments[jammedEastbound].geometry, jamFactor: 9, time: now),
      FlowObservation(polyline: network.segments[slowEastbound].geometry, jamFactor: 5, time: now),
      FlowObservation(polyline: network.segments[blockedBypass].geometry, jamFactor: 10, time: now),
    ])
    return engine
  }

  static func incidents() throws -> [TrafficIncident] {
    [
      try TrafficIncident(
        id: "accident-1", originalId: "accident", type: .accident, impact: .critical,
        startTime: now - 600, endTime: now + 3600,
        location: TrafficLocation(point: point(47.000, 9.505))),
      try TrafficIncident(
        id: "closure-1", originalId: "closure", type: .roadClosure, impact: .major,
        startTime: now - 3600, endTime: now + 7200, isRoadClosed: true,
        location: TrafficLocation(
          polyline: GeoPolyline(vertices: [point(47.0012, 9.510), point(47.0045, 9.510)]))),
      try TrafficIncident(
        id: "works-1", originalId: "works", type: .construction, impact: .minor,
        startTime: now - 86_400, endTime: now + 86_400,
        location: TrafficLocation(
          polyline: GeoPolyline(vertices: [point(47.004, 9.503), point(47.004, 9.508)]))),
    ]
  }

  /// A loaded view of the town at zoom 15, 512 x 512 pixels.
  static func view(
    engine: TrafficEngine, zoom: Double = 15, bearing: Double = 0,
    features: [MapFeatures: MapFeatureModes] = [:]
  ) async throws -> MapView {
    let view = try MapView(
      size: Size2D(width: 512, height: 512), engine: engine, clock: { now })
    view.camera.lookAt(
      point: point(47.0015, 9.510), bearingInDegrees: bearing,
      zoom: MapMeasure(kind: .zoomLevel, value: zoom))
    try await view.mapScene.loadScene(mapScheme: .normalDay)
    try view.mapScene.enableFeatures(features)
    return view
  }
}
