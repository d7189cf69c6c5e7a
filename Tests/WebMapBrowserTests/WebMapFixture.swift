import Foundation
import Geo
import Roads
import Traffic
import TrafficTestSupport

/// The data the browser test serves: SUMO's A10 Königs Wusterhausen network (the Berlin ring
/// motorway at its south-east corner, from Debian's `sumo` package) when installed, else a
/// small grid built here; flow on every major road cycling through the four colours; three
/// incidents, one of them (the clicked one) a critical accident along the longest motorway
/// segment.
struct WebMapFixture {
  var engine: TrafficEngine
  /// The original id of the incident the test clicks.
  var clickedIncidentId: String
  /// Where the test clicks: the middle of the clicked incident's longest edge.
  var clickPoint: GeoCoordinates
  /// The clicked incident's description as the server words it in German and in English.
  var germanDescription: String
  var englishDescription: String

  static func make() throws -> WebMapFixture {
    let network = try SUMONetworkImporter.importNetwork(
      from: URL(fileURLWithPath: try DebianFile.a10kwNetwork.require()))
    let now = Date()
    let major: Set<RoadClass> = [.motorway, .trunk, .primary, .secondary, .tertiary]
    let roads = network.segments.filter { major.contains($0.roadClass) }
    let motorways = network.segments.filter { $0.roadClass == .motorway }
      .sorted { $0.lengthInMeters > $1.lengthInMeters }
    guard let clicked = motorways.first ?? roads.max(by: { $0.lengthInMeters < $1.lengthInMeters })
    else { throw FixtureError(description: "the network has no major road") }
    let others = roads.filter { $0.id != clicked.id && $0.id != clicked.oppositeID }
      .sorted { $0.lengthInMeters > $1.lengthInMeters }
    guard others.count >= 2 else {
      throw FixtureError(description: "the network has too few major roads")
    }

    let jamCycle: [Double] = [1, 5, 2, 9, 1, 6, 10, 2]
    var observations = roads.enumerated().map { index, segment in
      FlowObservation(
        polyline: segment.geometry, jamFactor: jamCycle[index % jamCycle.count], time: now)
    }
    observations.removeAll { $0.polyline == clicked.geometry }
    observations.append(FlowObservation(polyline: clicked.geometry, jamFactor: 9, time: now))

    func incident(
      _ id: String, _ type: TrafficIncidentType, _ impact: TrafficIncidentImpact,
      on segment: RoadSegment, closed: Bool = false
    ) throws -> TrafficIncident {
      try TrafficIncident(
        id: "\(id)-v1", originalId: id, type: type, impact: impact,
        startTime: now.addingTimeInterval(-1800), endTime: now.addingTimeInterval(7200),
        entryTime: now.addingTimeInterval(-1800), isRoadClosed: closed,
        location: TrafficLocation(polyline: segment.geometry))
    }
    let incidents = [
      try incident("web-accident", .accident, .critical, on: clicked),
      try incident("web-works", .construction, .minor, on: others[0]),
      try incident("web-closure", .roadClosure, .major, on: others[1], closed: true),
    ]
    let store = InMemoryTrafficStore()
    try store.apply(IncidentBatch(upserts: incidents))
    let engine = try TrafficEngine(store: store, clock: { Date() }, network: network)
    _ = engine.ingest(observations: observations)

    func description(_ tag: String) throws -> String {
      try engine.incident(
        originalId: "web-accident",
        options: TrafficIncidentLookupOptions(languageCode: try LanguageCode(tag))
      ).description.text
    }
    let vertices = clicked.geometry.vertices
    var best = (length: -1.0, index: 0)
    for index in 1..<vertices.count {
      let length = vertices[index - 1].distance(to: vertices[index])
      if length > best.length { best = (length, index) }
    }
    let a = vertices[best.index - 1]
    let b = vertices[best.index]
    return WebMapFixture(
      engine: engine, clickedIncidentId: "web-accident",
      clickPoint: GeoCoordinates(
        uncheckedLatitude: (a.latitude + b.latitude) / 2,
        longitude: (a.longitude + b.longitude) / 2),
      germanDescription: try description("de-DE"), englishDescription: try description("en-US"))
  }
}

struct FixtureError: Error, CustomStringConvertible {
  var description: String
}
