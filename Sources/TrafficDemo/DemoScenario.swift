import Codec
import Foundation
import Roads
import Traffic
import TrafficFeeds

/// The first-run demo's place: a real road network, and the roads on which the demo's
/// incidents happen.
///
/// By default the network is the A10 motorway junction south-east of Berlin that Debian's
/// `sumo-tools` package ships for its traffic-light game (`/usr/share/sumo/tools/game/A10KW/`,
/// converted from OpenStreetMap). The incident roads are chosen from the imported network by
/// road class, so that another network works too:
///
/// | incident | road | document |
/// |---|---|---|
/// | roadworks, one lane closed | the longest motorway segment that another motorway segment leads into (so that its queue backs up on the motorway) | DATEX II v2, in German |
/// | accident | the longest motorway segment of the other carriageway (heading more than 90° away) | Waze for Cities alert `ACCIDENT_MAJOR` |
/// | work zone, one lane closed | the longest primary road segment (else secondary, else trunk) | WZDx 4.2 |
/// | road closure | the longest named primary, secondary or tertiary segment on another road | Open511 event, road `CLOSED` |
///
/// ``writeFeeds(to:now:validityInDays:)`` writes the documents; the server polls them with
/// `FeedPoller` through `file://` URLs, the same path as real feeds.
package struct DemoScenario: Sendable {
  /// Where Debian's `sumo-tools` package installs the A10KW network.
  package static let defaultNetworkPath = "/usr/share/sumo/tools/game/A10KW/osm.net.xml"

  /// The SUMO network file.
  package let networkURL: URL
  /// The imported network.
  package let network: RoadNetwork
  /// The road number written for the motorway when its segments carry none: the A10KW
  /// network has street names but no `ref`s, and its motorway is the A 10 (Berliner Ring).
  package let motorwayNumber: String?
  /// Where the DATEX II roadworks are.
  package let roadworksSegment: RoadSegment
  /// Where the Waze accident is.
  package let accidentSegment: RoadSegment
  /// Where the WZDx work zone is.
  package let workZoneSegment: RoadSegment
  /// Where the Open511 road closure is.
  package let closureSegment: RoadSegment

  /// How many lanes the roadworks close (the leftmost ones), at most the segment's lanes − 1.
  package var roadworksClosedLanes: Int {
    min(1, max((roadworksSegment.laneCount ?? 2) - 1, 0))
  }

  /// Where along the roadworks segment the closure begins, as a fraction of its length.
  package static let roadworksStartFraction = 0.4
  /// Where along the roadworks segment the closure ends, as a fraction of its length.
  package static let roadworksEndFraction = 0.95

  /// Imports a SUMO network and chooses the incident roads.
  ///
  /// - Parameters:
  ///   - networkURL: the SUMO `.net.xml`; A10KW by default.
  ///   - motorwayNumber: the motorway's road number when the network has none.
  /// - Throws: ``DemoError/networkMissing(path:)`` when the file is absent,
  ///   ``DemoError/networkUnreadable(path:reason:)`` when it does not import,
  ///   ``DemoError/noSuitableRoad(_:)`` when a kind of road is missing.
  /// - Complexity: O(e log e) for e edges (the import), then O(s) for s segments.
  package init(
    networkURL: URL = URL(fileURLWithPath: DemoScenario.defaultNetworkPath),
    motorwayNumber: String? = "A10"
  ) throws(DemoError) {
    guard FileManager.default.fileExists(atPath: networkURL.path) else {
      throw .networkMissing(path: networkURL.path)
    }
    let network: RoadNetwork
    do {
      network = try SUMONetworkImporter.importNetwork(from: networkURL)
    } catch {
      throw .networkUnreadable(path: networkURL.path, reason: "\(error)")
    }
    try self.init(network: network, networkURL: networkURL, motorwayNumber: motorwayNumber)
  }

  /// Chooses the incident roads on a network already imported.
  ///
  /// - Parameters:
  ///   - network: the network.
  ///   - networkURL: the SUMO file it came from (the probe stream simulates on it).
  ///   - motorwayNumber: the motorway's road number when the network has none.
  /// - Throws: ``DemoError/noSuitableRoad(_:)`` when a kind of road is missing.
  /// - Complexity: O(s) for s segments.
  package init(
    network: RoadNetwork, networkURL: URL, motorwayNumber: String? = "A10"
  ) throws(DemoError) {
    self.network = network
    self.networkURL = networkURL
    self.motorwayNumber = motorwayNumber
    let segments = network.segments
    let motorways = segments.filter { $0.roadClass == .motorway }
    let motorwayEnds = Set(motorways.map(\.toNode))
    func longest(_ candidates: [RoadSegment]) -> RoadSegment? {
      // Ties go to the smaller id, so the choice is the same on every run.
      candidates.min {
        ($0.lengthInMeters, -$0.id) > ($1.lengthInMeters, -$1.id)
      }
    }
    guard
      let roadworks = longest(motorways.filter { motorwayEnds.contains($0.fromNode) })
        ?? longest(motorways)
    else { throw .noSuitableRoad("motorway for the roadworks") }
    let heading = Self.heading(of: roadworks)
    let otherCarriageway = motorways.filter {
      $0.id != roadworks.id && Self.angle(Self.heading(of: $0), heading) > 90
    }
    guard
      let accident = longest(otherCarriageway)
        ?? longest(motorways.filter { $0.id != roadworks.id })
    else { throw .noSuitableRoad("second motorway segment for the accident") }
    var workZone: RoadSegment?
    for roadClass in [RoadClass.primary, .secondary, .trunk] where workZone == nil {
      workZone = longest(segments.filter { $0.roadClass == roadClass })
    }
    guard let workZone else { throw .noSuitableRoad("primary or secondary road for the work zone") }
    let closure = longest(
      segments.filter {
        [.primary, .secondary, .tertiary].contains($0.roadClass) && $0.name != nil
          && $0.sourceID != workZone.sourceID && $0.id != workZone.oppositeID
          && $0.name != workZone.name
      })
    guard let closure else { throw .noSuitableRoad("named road for the closure") }
    roadworksSegment = roadworks
    accidentSegment = accident
    workZoneSegment = workZone
    closureSegment = closure
  }

  /// Writes the four demo feed documents into `directory` (created when needed), with times
  /// around `now`.
  ///
  /// - Parameters:
  ///   - directory: where to write; existing demo documents are replaced.
  ///   - now: the current time; incidents begin half an hour before it.
  ///   - validityInDays: how long the roadworks, work zone and closure last from `now`.
  /// - Returns: the feeds, to poll with `FeedPoller`.
  /// - Throws: ``DemoError/io(path:reason:)`` when a file cannot be written.
  /// - Complexity: O(v) for v vertices of the chosen segments.
  package func writeFeeds(
    to directory: URL, now: Date = Date(), validityInDays: Int = 7
  ) throws(DemoError) -> [DemoFeed] {
    do {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    } catch {
      throw .io(path: directory.path, reason: SystemErrorText.reason(error))
    }
    var feeds: [DemoFeed] = []
    for document in documents(now: now, validityInDays: validityInDays) {
      let url = directory.appendingPathComponent(document.fileName)
      do {
        try document.data.write(to: url, options: .atomic)
      } catch {
        throw .io(path: url.path, reason: SystemErrorText.reason(error))
      }
      feeds.append(
        DemoFeed(
          format: document.format, url: url, name: document.feedName,
          incidentKind: document.incidentKind, segment: document.segment))
    }
    return feeds
  }

  /// The demo documents in memory, in the order roadworks, accident, work zone, closure.
  ///
  /// - Parameters:
  ///   - now: the current time.
  ///   - validityInDays: how long the planned incidents last from `now`.
  /// - Returns: the documents with their file names and intended roads.
  /// - Complexity: O(v) for v vertices of the chosen segments.
  package func documents(now: Date = Date(), validityInDays: Int = 7) -> [DemoDocument] {
    let end = now.addingTimeInterval(Double(max(validityInDays, 1)) * 86_400)
    let start = now.addingTimeInterval(-1_800)
    return [
      DemoDocument(
        format: .datex2, fileName: "roadworks.datex2.xml", feedName: "demo-datex2",
        incidentKind: .roadworks, segment: roadworksSegment,
        data: Data(datexRoadworks(start: start, end: end, now: now).utf8)),
      DemoDocument(
        format: .waze, fileName: "accident.waze.json", feedName: "demo-waze",
        incidentKind: .accident, segment: accidentSegment,
        data: Data(wazeAccident(start: now.addingTimeInterval(-600), now: now).utf8)),
      DemoDocument(
        format: .wzdx, fileName: "workzone.wzdx.geojson", feedName: "demo-wzdx",
        incidentKind: .workZone, segment: workZoneSegment,
        data: Data(wzdxWorkZone(start: start, end: end, now: now).utf8)),
      DemoDocument(
        format: .open511, fileName: "closure.open511.json", feedName: "demo-open511",
        incidentKind: .closure, segment: closureSegment,
        data: Data(open511Closure(start: start, end: end, now: now).utf8)),
    ]
  }

  /// The road number to print for a segment.
  func roadNumber(of segment: RoadSegment) -> String? {
    segment.ref ?? (segment.roadClass == .motorway ? motorwayNumber : nil)
  }

  /// Degrees clockwise from north from a segment's first to its last vertex.
  static func heading(of segment: RoadSegment) -> Double {
    let vertices = segment.geometry.vertices
    return vertices[0].bearing(to: vertices[vertices.count - 1])
  }

  /// The angle between two headings, 0...180 degrees.
  static func angle(_ a: Double, _ b: Double) -> Double {
    let difference = abs((a - b).truncatingRemainder(dividingBy: 360))
    return difference > 180 ? 360 - difference : difference
  }

  /// The part of a segment's geometry between two fractions of its length, with the
  /// segment's own vertices in between.
  static func stretch(
    of segment: RoadSegment, from startFraction: Double, to endFraction: Double
  ) -> [GeoCoordinates] {
    let geometry = segment.geometry
    let length = geometry.lengthInMeters
    let startDistance = length * startFraction
    let endDistance = length * endFraction
    var points = [geometry.coordinates(atDistance: startDistance)]
    var travelled = 0.0
    let vertices = geometry.vertices
    for index in 1..<vertices.count {
      travelled += vertices[index - 1].distance(to: vertices[index])
      if travelled > startDistance && travelled < endDistance && index < vertices.count - 1 {
        points.append(vertices[index])
      }
    }
    points.append(geometry.coordinates(atDistance: endDistance))
    return points
  }
}

/// One demo feed document in memory.
package struct DemoDocument: Sendable {
  /// Its format.
  package var format: FeedFormat
  /// The file name it is written under.
  package var fileName: String
  /// The feed name its incidents are ingested under.
  package var feedName: String
  /// What it reports.
  package var incidentKind: DemoIncidentKind
  /// The road segment it is placed on.
  package var segment: RoadSegment
  /// The document.
  package var data: Data
}

/// The four incidents of the demo.
package enum DemoIncidentKind: String, CaseIterable, Hashable, Sendable {
  /// Motorway roadworks with a lane closed (DATEX II, German text).
  case roadworks
  /// A major accident on the motorway (Waze alert).
  case accident
  /// A work zone with a lane closed (WZDx).
  case workZone
  /// A closed road (Open511).
  case closure
}

/// A demo feed document on disk, ready to poll.
package struct DemoFeed: Sendable {
  /// Its format.
  package var format: FeedFormat
  /// Its `file://` URL.
  package var url: URL
  /// The feed name (`demo-datex2`, `demo-waze`, `demo-wzdx`, `demo-open511`).
  package var name: String
  /// What it reports.
  package var incidentKind: DemoIncidentKind
  /// The road segment it is placed on.
  package var segment: RoadSegment

  /// The feed for `FeedPoller`, with the country (`DE`) and, for DATEX II, the language
  /// (`de`) the documents are written for.
  ///
  /// - Parameter intervalInSeconds: seconds between reads of the file.
  /// - Returns: the feed.
  package func pollerFeed(intervalInSeconds: Double = 60) -> FeedPoller.Feed {
    FeedPoller.Feed(
      format: format, url: url, intervalInSeconds: intervalInSeconds, name: name,
      options: FeedOptions(
        sourceName: name, defaultLanguage: format == .datex2 ? .deDE : nil,
        defaultCountryCode: "DE"))
  }
}
