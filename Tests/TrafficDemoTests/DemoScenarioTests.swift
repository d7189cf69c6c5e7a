import Foundation
import Roads
import Testing
import Traffic
import TrafficFeeds
import TrafficTestSupport

@testable import TrafficDemo

/// The demo's feed documents decode, with our own decoders, to the intended incidents on the
/// intended roads — on a small network built here and on the real A10KW network.
@Suite("Demo scenario")
struct DemoScenarioTests {
  static let now = Date(timeIntervalSince1970: 1_760_000_000)

  /// A junction east of Berlin: a motorway with two carriageways 30 m apart (3 lanes each;
  /// the eastbound one in two segments, so the roadworks segment has a motorway before it,
  /// the westbound one longer), a two-way primary road and a named tertiary street.
  static func smallNetwork() throws -> RoadNetwork {
    func point(_ latitude: Double, _ longitude: Double) throws -> GeoCoordinates {
      try GeoCoordinates(latitude: latitude, longitude: longitude)
    }
    let coordinates = [
      try point(52.3000, 13.5000), try point(52.3010, 13.5200), try point(52.3030, 13.5500),
      try point(52.2900, 13.5200), try point(52.3100, 13.5250), try point(52.3050, 13.5300),
      try point(52.3080, 13.5400), try point(52.3033, 13.5500), try point(52.3003, 13.5000),
    ]
    let nodes = coordinates.enumerated().map {
      RoadNode(id: $0.offset, sourceID: "n\($0.offset)", coordinates: $0.element)
    }
    let limit = SpeedLimit(metersPerSecond: 27.78, source: .posted)
    let urban = SpeedLimit(metersPerSecond: 13.89, source: .posted)
    func line(_ points: GeoCoordinates...) throws -> GeoPolyline {
      try GeoPolyline(vertices: points)
    }
    let segments = [
      RoadSegment(
        id: 0, sourceID: "mw-east-1", fromNode: 0, toNode: 1,
        geometry: try line(coordinates[0], coordinates[1]), name: "Berliner Ring",
        roadClass: .motorway, speedLimit: limit, laneCount: 3),
      RoadSegment(
        id: 1, sourceID: "mw-east-2", fromNode: 1, toNode: 2,
        geometry: try line(coordinates[1], try point(52.3022, 13.5350), coordinates[2]),
        name: "Berliner Ring", roadClass: .motorway, speedLimit: limit, laneCount: 3),
      RoadSegment(
        id: 2, sourceID: "mw-west", fromNode: 7, toNode: 8,
        geometry: try line(coordinates[7], try point(52.3021, 13.5250), coordinates[8]),
        name: "Berliner Ring", roadClass: .motorway, speedLimit: limit, laneCount: 3),
      RoadSegment(
        id: 3, sourceID: "primary", fromNode: 3, toNode: 4,
        geometry: try line(coordinates[3], try point(52.3000, 13.5230), coordinates[4]),
        roadClass: .primary, speedLimit: urban, laneCount: 2, oppositeID: 4),
      RoadSegment(
        id: 4, sourceID: "-primary", fromNode: 4, toNode: 3,
        geometry: try line(coordinates[4], try point(52.3000, 13.5230), coordinates[3]),
        roadClass: .primary, speedLimit: urban, laneCount: 2, isReversed: true, oppositeID: 3),
      RoadSegment(
        id: 5, sourceID: "street", fromNode: 5, toNode: 6,
        geometry: try line(coordinates[5], coordinates[6]), name: "Chausseestraße",
        roadClass: .tertiary, speedLimit: urban, laneCount: 1),
    ]
    return try RoadNetwork(nodes: nodes, segments: segments)
  }

  /// Decodes a demo document with its format's decoder, as the feed poller does.
  static func decode(_ document: DemoDocument) throws -> FeedDocument {
    try document.format.decoder.decode(
      document.data,
      options: FeedOptions(sourceName: document.feedName, defaultCountryCode: "DE", now: now))
  }

  /// The largest distance from a vertex of the incident's polylines to the segment, meters.
  static func distance(of incident: TrafficIncident, to segment: RoadSegment) -> Double {
    incident.location.allPolylines.flatMap(\.vertices)
      .map { segment.geometry.distance(to: $0) }.max() ?? .infinity
  }

  /// Checks every document of a scenario: type, impact, road, place, time, language.
  static func checkDocuments(
    of scenario: DemoScenario, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let documents = scenario.documents(now: now, validityInDays: 7)
    #expect(
      documents.map(\.format) == [.datex2, .waze, .wzdx, .open511], sourceLocation: sourceLocation)
    for document in documents {
      #expect(
        FeedFormat.detect(document.data) == document.format,
        "\(document.fileName) is recognised as its format", sourceLocation: sourceLocation)
      let decoded = try decode(document)
      #expect(decoded.problems.isEmpty, "\(decoded.problems)", sourceLocation: sourceLocation)
      let incident = try #require(decoded.incidents.first, sourceLocation: sourceLocation)
      #expect(decoded.incidents.count == 1, sourceLocation: sourceLocation)
      #expect(
        distance(of: incident, to: document.segment) < 5,
        "\(document.fileName) lies on segment \(document.segment.sourceID)",
        sourceLocation: sourceLocation)
      #expect(incident.isActive(at: now), sourceLocation: sourceLocation)
      switch document.incidentKind {
      case .roadworks:
        #expect(incident.type == .construction, sourceLocation: sourceLocation)
        #expect(incident.details.eventKind == .roadworks, sourceLocation: sourceLocation)
        #expect(incident.impact == .minor, sourceLocation: sourceLocation)
        #expect(incident.details.lanesClosed == 1, sourceLocation: sourceLocation)
        #expect(
          incident.details.totalLanes == document.segment.laneCount, sourceLocation: sourceLocation
        )
        #expect(incident.details.roadName == document.segment.name, sourceLocation: sourceLocation)
        #expect(incident.details.roadNumber == "A10", sourceLocation: sourceLocation)
        #expect(incident.details.countryCode == "DE", sourceLocation: sourceLocation)
        let german = try #require(incident.sourceTexts.first, sourceLocation: sourceLocation)
        #expect(german.language.languageSubtag == "de", sourceLocation: sourceLocation)
        #expect(
          german.text.contains("Fahrbahn auf zwei Fahrstreifen verengt"),
          sourceLocation: sourceLocation)
        #expect(incident.endTime == now.addingTimeInterval(7 * 86_400))
        #expect(incident.isActive(at: now.addingTimeInterval(7 * 86_400 + 1)) == false)
      case .accident:
        #expect(incident.type == .accident, sourceLocation: sourceLocation)
        #expect(incident.impact == .major, sourceLocation: sourceLocation)
        #expect(incident.startTime == now.addingTimeInterval(-600))
      case .workZone:
        #expect(incident.type == .laneRestriction, sourceLocation: sourceLocation)
        #expect(incident.impact == .major, sourceLocation: sourceLocation)
        #expect(incident.details.lanesClosed == 1, sourceLocation: sourceLocation)
        #expect(incident.isRoadClosed == false, sourceLocation: sourceLocation)
        #expect(incident.endTime == now.addingTimeInterval(7 * 86_400))
      case .closure:
        #expect(incident.type == .roadClosure, sourceLocation: sourceLocation)
        #expect(incident.isRoadClosed, sourceLocation: sourceLocation)
        #expect(incident.impact == .critical, sourceLocation: sourceLocation)
        #expect(incident.details.roadName == document.segment.name, sourceLocation: sourceLocation)
        #expect(incident.startTime == now.addingTimeInterval(-1_800))
        #expect(incident.endTime == now.addingTimeInterval(7 * 86_400))
      }
    }
  }

  @Test(
    "the roads are chosen by class: roadworks after another motorway segment, the accident on the other carriageway"
  )
  func chosenRoads() throws {
    let scenario = try DemoScenario(
      network: try Self.smallNetwork(), networkURL: URL(fileURLWithPath: "/nonexistent"))
    #expect(scenario.roadworksSegment.sourceID == "mw-east-2")
    #expect(scenario.accidentSegment.sourceID == "mw-west")
    #expect(scenario.workZoneSegment.sourceID == "primary")
    #expect(scenario.closureSegment.sourceID == "street")
    #expect(scenario.roadworksClosedLanes == 1)
  }

  @Test("the documents decode to the intended incidents on a small network")
  func documentsOnSmallNetwork() throws {
    try Self.checkDocuments(
      of: try DemoScenario(
        network: try Self.smallNetwork(), networkURL: URL(fileURLWithPath: "/nonexistent")))
  }

  @Test(
    "the documents decode to the intended incidents on the A10KW network")
  func documentsOnA10KW() throws {
    try DebianFile.a10kwNetwork.require()
    let scenario = try DemoScenario()
    #expect(scenario.roadworksSegment.roadClass == .motorway)
    #expect(scenario.roadworksSegment.name == "Südlicher Berliner Ring")
    #expect(scenario.accidentSegment.roadClass == .motorway)
    #expect(
      DemoScenario.angle(
        DemoScenario.heading(of: scenario.roadworksSegment),
        DemoScenario.heading(of: scenario.accidentSegment)) > 90)
    #expect(scenario.workZoneSegment.roadClass == .primary)
    #expect(scenario.closureSegment.name == "Chausseestraße")
    try Self.checkDocuments(of: scenario)
  }

  @Test("a network without a motorway is refused with a message naming what is missing")
  func noMotorway() throws {
    let network = try Self.smallNetwork()
    let noMotorway = try RoadNetwork(
      nodes: network.nodes,
      segments: network.segments.filter { $0.roadClass != .motorway }.enumerated().map {
        let s = $0.element
        return RoadSegment(
          id: $0.offset, sourceID: s.sourceID, fromNode: s.fromNode, toNode: s.toNode,
          geometry: s.geometry, name: s.name, roadClass: s.roadClass,
          speedLimit: SpeedLimit(metersPerSecond: 13.89, source: .posted))
      })
    #expect(throws: DemoError.noSuitableRoad("motorway for the roadworks")) {
      try DemoScenario(network: noMotorway, networkURL: URL(fileURLWithPath: "/x"))
    }
  }

  @Test("a missing network file says how to get it")
  func missingNetwork() {
    let error = #expect(throws: DemoError.self) {
      try DemoScenario(networkURL: URL(fileURLWithPath: "/nonexistent/osm.net.xml"))
    }
    #expect(error == .networkMissing(path: "/nonexistent/osm.net.xml"))
    #expect(error?.description.contains("apt-get install sumo-tools") == true)
  }

  @Test("written feeds are polled through file URLs into an engine: four active incidents")
  func feedsThroughPoller() async throws {
    let scenario = try DemoScenario(
      network: try Self.smallNetwork(), networkURL: URL(fileURLWithPath: "/nonexistent"))
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("demo-feeds-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let now = Date()
    let feeds = try scenario.writeFeeds(to: directory, now: now)
    #expect(feeds.map(\.name) == ["demo-datex2", "demo-waze", "demo-wzdx", "demo-open511"])
    #expect(feeds.allSatisfy { $0.url.isFileURL })
    let engine = try TrafficEngine(store: InMemoryTrafficStore())
    let poller = FeedPoller(feeds: feeds.map { $0.pollerFeed() }, engine: engine)
    for feed in feeds {
      _ = await poller.poll(feed.name)
    }
    #expect(poller.status.allSatisfy { $0.lastError == nil }, "\(poller.status.map(\.lastError))")
    let box = try #require(GeoBox.enclosing(scenario.network.nodes.map(\.coordinates)))
    let incidents = try await engine.queryForIncidents(inside: box)
    #expect(
      Set(incidents.map(\.type)) == [.construction, .accident, .laneRestriction, .roadClosure])
    let roadworks = try await engine.queryForIncidents(
      inside: box,
      queryOptions: TrafficIncidentsQueryOptions(
        typeFilter: [.construction], languageCode: .deDE))
    #expect(roadworks.first?.description.text.contains("Fahrstreifen") == true)
  }
}
