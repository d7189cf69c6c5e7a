import Foundation
import Geo
import Testing
import Traffic
import TrafficFeeds
import TrafficTestSupport

/// Every fixture the decoders read, own and shared, published as DATEX II v3 and WZDx 4.2:
/// each document validates against the official schema and reads back into the same
/// incidents.
@Suite struct PublishingRoundTripTests {
  /// A decoded fixture.
  struct Source: CustomStringConvertible, Sendable {
    var name: String
    var incidents: [TrafficIncident]
    var description: String { name }
  }

  static let publicationTime = Date(timeIntervalSince1970: 1_764_547_200)  // 2025-12-01

  /// Every situation-bearing fixture: the suite's own, the shipped samples and the shared
  /// real samples where present.
  static func sources() throws -> [Source] {
    var urls: [URL] = []
    let own = Fixtures.repositoryRoot.appendingPathComponent("Tests/TrafficFeedsTests/Fixtures")
    for folder in ["datex2", "wzdx", "open511", "waze", "here-v7", "tomtom"] {
      let names = try FileManager.default.contentsOfDirectory(
        atPath: own.appendingPathComponent(folder).path)
      urls += names.filter { !$0.hasPrefix("bad-") }.sorted().map {
        own.appendingPathComponent("\(folder)/\($0)")
      }
    }
    // The public WZDx samples shipped in Tests/Fixtures, and the development checkout's
    // other real samples where `Fixtures.shared` is present.
    let samples = Fixtures.sample("wzdx")
    urls += try FileManager.default.contentsOfDirectory(atPath: samples.path).sorted().map {
      samples.appendingPathComponent($0)
    }
    if let shared = Fixtures.shared {
      for folder in ["datex2", "open511", "waze"] {
        let names = try FileManager.default.contentsOfDirectory(
          atPath: shared.appendingPathComponent(folder).path)
        urls += names.sorted().map { shared.appendingPathComponent("\(folder)/\($0)") }
      }
    }
    var sources: [Source] = []
    for url in urls {
      let data = try Data(contentsOf: url)
      guard let format = FeedFormat.detect(data) else { continue }
      let document = try format.decoder.decode(
        data, options: FeedOptions(sourceName: format.rawValue, now: publicationTime))
      guard !document.incidents.isEmpty else { continue }
      let name = url.deletingLastPathComponent().lastPathComponent + "/" + url.lastPathComponent
      sources.append(Source(name: name, incidents: document.incidents))
    }
    return sources
  }

  @Test func everyFixtureIsPublishedAsValidDATEXIIThatReadsBackTheSameIncidents() throws {
    let sources = try Self.sources()
    #expect(sources.count >= 20, "fixtures found: \(sources.map(\.name))")
    var documents: [Data] = []
    for source in sources {
      let publication = Publication(
        incidents: source.incidents, publicationTime: Self.publicationTime, countryCode: "DE")
      let document = DATEXIIPublisher.document(publication)
      documents.append(document)
      let back = try DATEXIIDecoder.decode(
        document, options: FeedOptions(sourceName: "datex2", now: Self.publicationTime))
      #expect(back.problems.isEmpty, "\(source): \(back.problems)")
      #expect(back.isFullRefresh)
      try Self.expectSame(source.incidents, back.incidents, in: source.name, format: .datex2)
    }
    // The fixtures exercise the references: OpenLR lines and ALERT-C locations.
    let incidents = sources.flatMap(\.incidents)
    #expect(incidents.contains { $0.location.openLR != nil && $0.location.lengthInMeters > 0 })
    #expect(incidents.contains { $0.location.tmc.contains { $0.secondaryLocationCode != nil } })
    let verdict = try PublishedDocumentValidator.validateDATEXII(documents)
    #expect(verdict.status == 0, "\(verdict.output.prefix(4000))")
    #expect(verdict.output.components(separatedBy: " validates").count - 1 == documents.count)
  }

  @Test func everyFixturesWorkZonesArePublishedAsValidWZDxThatReadsBackTheSameIncidents() throws {
    let sources = try Self.sources()
    var documents: [Data] = []
    var published = 0
    for source in sources {
      let publication = Publication(
        incidents: source.incidents, publicationTime: Self.publicationTime)
      let document = WZDxPublisher.document(publication)
      documents.append(document)
      let back = try WZDxDecoder.decode(
        document, options: FeedOptions(sourceName: "wzdx", now: Self.publicationTime))
      #expect(back.problems.isEmpty, "\(source): \(back.problems)")
      let workZones = source.incidents.filter(WZDxPublisher.includes)
      published += workZones.count
      try Self.expectSame(workZones, back.incidents, in: source.name, format: .wzdx)
    }
    #expect(published >= 100)
    let verdict = try PublishedDocumentValidator.validateWZDx(documents)
    #expect(verdict.status == 0, "\(verdict.output.prefix(4000))")
    #expect(
      verdict.output.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == documents.count)
  }

  @Test func aMissingStartIsEstimatedNeverAfterTheEnd() throws {
    // Found by the fuzzer: no start, an end, and an entry time after the end (a late report
    // of something over). The required start must not lie after the end.
    let end = Self.publicationTime.addingTimeInterval(-86_400)
    let incident = try TrafficIncident(
      id: "late", type: .construction, impact: .minor, endTime: end,
      entryTime: Self.publicationTime,
      location: TrafficLocation(
        polyline: try GeoPolyline(vertices: [
          try GeoCoordinates(latitude: 52.5, longitude: 13.4),
          try GeoCoordinates(latitude: 52.51, longitude: 13.41),
        ])))
    let publication = Publication(incidents: [incident], publicationTime: Self.publicationTime)
    let options = FeedOptions(sourceName: "test", now: Self.publicationTime)
    for back in [
      try DATEXIIDecoder.decode(DATEXIIPublisher.document(publication), options: options),
      try WZDxDecoder.decode(WZDxPublisher.document(publication), options: options),
    ] {
      #expect(back.problems.isEmpty, "\(back.problems)")
      #expect(back.incidents.first?.startTime == end)
      #expect(back.incidents.first?.endTime == end)
    }
  }

  /// The facts a round trip keeps: ids, type, times, closure, geometry within 1 m (WZDx:
  /// the main polyline), and for DATEX II the impact and every polyline.
  static func expectSame(
    _ original: [TrafficIncident], _ back: [TrafficIncident], in name: String, format: FeedFormat
  ) throws {
    #expect(back.count == original.count, "\(name): \(back.count) of \(original.count) read back")
    let byId = Dictionary(back.map { ($0.originalId, $0) }, uniquingKeysWith: { first, _ in first })
    for incident in original {
      let context = "\(name) \(incident.originalId)"
      guard let read = byId[incident.originalId] else {
        Issue.record("\(context): not read back")
        continue
      }
      // The version id survives where the format can carry it: DATEX II `<id>_<version>`
      // and WZDx `<id>_<update_date as Unix seconds>`; other forms (another feed's own
      // version ids) keep the original id only.
      let version =
        incident.id.hasPrefix(incident.originalId + "_")
        ? Int(incident.id.dropFirst(incident.originalId.count + 1)) : nil
      let carriesVersion =
        format == .datex2 ? version != nil : version.map { $0 >= 1_000_000_000 } ?? false
      if incident.id == incident.originalId || carriesVersion {
        #expect(read.id == incident.id, "\(context)")
      }
      #expect(read.type == expectedType(incident, format: format), "\(context)")
      #expect(read.isRoadClosed == incident.isRoadClosed, "\(context)")
      if let start = incident.startTime {
        #expect(
          read.startTime.map { abs($0.timeIntervalSince(start)) < 0.001 } == true, "\(context)")
      }
      // WZDx requires an end: one is estimated where the incident has none.
      if format == .datex2 || incident.endTime != nil {
        #expect(
          read.endTime == incident.endTime
            || read.endTime.flatMap { end in
              incident.endTime.map { abs(end.timeIntervalSince($0)) < 0.001 }
            } == true,
          "\(context): end \(String(describing: read.endTime)) for \(String(describing: incident.endTime))"
        )
      }
      if format == .datex2 {
        #expect(read.impact == incident.impact, "\(context)")
        #expect(read.parentId == nil)
        let polylines = incident.location.allPolylines
        #expect(read.location.allPolylines.count == polylines.count, "\(context)")
        for (a, b) in zip(read.location.allPolylines, polylines) {
          expectWithinOneMetre(a, b, context)
        }
        expectSameReferences(read.location, incident.location, context)
      } else {
        // Which lanes are closed, where the incident says it of a known number of lanes.
        if incident.details.closedLanes != nil, incident.details.totalLanes != nil {
          #expect(read.details.closedLanes == incident.details.closedLanes, "\(context)")
          #expect(read.details.totalLanes == incident.details.totalLanes, "\(context)")
        }
        // The number of lanes of a work zone with none closed (it was lost).
        if let total = incident.details.totalLanes, total <= 32,
          (incident.details.lanesClosed ?? 0) == 0, !incident.isRoadClosed,
          expectedType(incident, format: format) == .construction
        {
          #expect(read.details.totalLanes == total, "\(context)")
        }
        // No road name where the incident has none: not the `unknown` WZDx requires be
        // written, nor a place's description.
        let names = [incident.details.roadNumber, incident.details.roadName].compactMap { $0 }
        if names.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
          #expect(read.details.roadName == nil, "\(context): \(read.details.roadName ?? "")")
          #expect(read.details.roadNumber == nil, "\(context)")
        }
        if read.parentId != nil || incident.type == .construction && incident.impact == .low {
          #expect(read.parentId == incident.parentId, "\(context)")
        }
        expectWithinOneMetre(read.location.polyline, incident.location.polyline, context)
      }
    }
  }

  static func expectedType(_ incident: TrafficIncident, format: FeedFormat) -> TrafficIncidentType {
    if format == .wzdx {
      if incident.isRoadClosed || incident.type == .roadClosure { return .roadClosure }
      if incident.type == .laneRestriction || (incident.details.lanesClosed ?? 0) > 0 {
        return .laneRestriction
      }
      return .construction
    }
    let trafficElements: Set<TrafficIncidentType> = [
      .accident, .congestion, .disabledVehicle, .roadHazard, .weather, .plannedEvent,
    ]
    let isTrafficElement =
      trafficElements.contains(incident.type)
      || (incident.type == .other && incident.details.eventKind == .demonstration)
    if incident.isRoadClosed, !isTrafficElement { return .roadClosure }
    return incident.type == .unknown ? .other : incident.type
  }

  /// The OpenLR line and the ALERT-C locations a DATEX II location carries read back: the
  /// OpenLR reference points within 2 m with the same road classes and forms of way, the
  /// ALERT-C codes the same (linear ones on lines, point ones on points).
  static func expectSameReferences(
    _ read: TrafficLocation, _ original: TrafficLocation, _ context: String
  ) {
    let isPoint = original.polyline.vertices.allSatisfy { $0 == original.polyline.vertices[0] }
    if !isPoint, let text = original.openLR,
      case .line(let line)? = try? OpenLR.decode(base64: text)
    {
      guard let readText = read.openLR, case .line(let back)? = try? OpenLR.decode(base64: readText)
      else {
        Issue.record("\(context): OpenLR line \(text) not read back")
        return
      }
      #expect(back.points.count == line.points.count, "\(context)")
      for (a, b) in zip(back.points, line.points) {
        #expect(a.coordinates.distance(to: b.coordinates) < 2, "\(context)")
        #expect(a.functionalRoadClass == b.functionalRoadClass, "\(context)")
        #expect(a.formOfWay == b.formOfWay, "\(context)")
        #expect(abs(a.bearingInDegrees - b.bearingInDegrees) < 12, "\(context)")
      }
    }
    let expected = original.tmc.filter { isPoint || $0.secondaryLocationCode != nil }
    func key(_ reference: TMCLocationReference) -> String {
      "\(reference.countryCode)/\(reference.tableNumber):\(reference.primaryLocationCode)"
        + (isPoint ? "" : "-\(reference.secondaryLocationCode ?? -1)")
    }
    #expect(read.tmc.map(key) == expected.map(key), "\(context)")
  }

  static func expectWithinOneMetre(_ a: GeoPolyline, _ b: GeoPolyline, _ context: String) {
    #expect(a.vertices.count == b.vertices.count, "\(context): vertices")
    for (p, q) in zip(a.vertices, b.vertices) {
      let metres = p.distance(to: q)
      #expect(metres < 1, "\(context): \(p) is \(metres) m from \(q)")
    }
  }
}

extension PublishingRoundTripTests {
  @Test("closed lanes are listed in WZDx for a real road, and a bad lane count lists none")
  func closedLanesOfAnyCountPublishSafely() throws {
    let line = try GeoPolyline(vertices: [
      try GeoCoordinates(latitude: 52.5, longitude: 13.4),
      try GeoCoordinates(latitude: 52.51, longitude: 13.41),
    ])
    func incident(_ total: Int) throws -> TrafficIncident {
      try TrafficIncident(
        id: "lanes-\(total)", type: .laneRestriction, impact: .major,
        startTime: Self.publicationTime, endTime: Self.publicationTime.addingTimeInterval(3_600),
        location: TrafficLocation(polyline: line),
        details: TrafficIncidentDetails(totalLanes: total, closedLanes: [1]))
    }
    let publication = Publication(
      incidents: [try incident(3), try incident(2_000_000_000)],
      publicationTime: Self.publicationTime)
    let document = WZDxPublisher.document(publication)
    #expect(document.count < 20_000)
    let back = try WZDxDecoder.decode(
      document, options: FeedOptions(sourceName: "t", now: Self.publicationTime))
    #expect(back.problems.isEmpty, "\(back.problems)")
    let read = Dictionary(
      back.incidents.map { ($0.originalId, $0) }, uniquingKeysWith: { a, _ in a })
    #expect(read["lanes-3"]?.details.closedLanes == [1])
    #expect(read["lanes-3"]?.details.totalLanes == 3)
    #expect(read["lanes-2000000000"]?.details.closedLanes == nil)
    #expect(read["lanes-2000000000"]?.type == .laneRestriction)
  }
}

extension PublishingRoundTripTests {
  /// What `traffic export datex2` and `/v1/publications/datex2` publish by default, from a
  /// store holding several sources' incidents: read back, every incident keeps its country
  /// (or none), its texts and so its description. A German text of an incident without a
  /// country came back as generated English when the publication's creator was given the
  /// country most other incidents named.
  @Test func aStoreOfSeveralCountriesPublishesEachIncidentsTextsAndCountry() throws {
    let time = try #require(ISO8601DateFormatter().date(from: "2024-05-02T14:30:00Z"))
    let engine = try TrafficEngine(store: InMemoryTrafficStore(), clock: { time })
    for (folder, name) in [
      ("here-v7", "incidents.json"), ("waze", "alerts_and_jams.json"),
      ("tomtom", "incident_details.json"),
    ] {
      let data = try ownFixture(folder, name)
      let format = try #require(FeedFormat.detect(data))
      let document = try format.decoder.decode(
        data, options: FeedOptions(sourceName: folder, now: time))
      try engine.ingest(document.incidents, from: folder, isFullRefresh: true)
    }
    let published = engine.publishedIncidents(at: time)
    let originals = Array(published.incidents)
    // Some incidents name a country, some none.
    let countries = Set(originals.map { $0.details.countryCode ?? "none" })
    #expect(countries.count >= 2 && countries.contains("none"), "\(countries)")
    let document = DATEXIIPublisher.document(Publication(published))
    let back = try DATEXIIDecoder.decode(
      document, options: FeedOptions(sourceName: "datex2", now: time))
    #expect(back.problems.isEmpty, "\(back.problems)")
    let byId = Dictionary(back.incidents.map { ($0.originalId, $0) }) { first, _ in first }
    #expect(byId.count == originals.count)
    for incident in originals {
      let read = try #require(byId[incident.originalId], "\(incident.originalId)")
      #expect(read.details.countryCode == incident.details.countryCode, "\(incident.originalId)")
      // A description worded here is published as a text, and read back as the source's.
      if !incident.sourceTexts.isEmpty {
        #expect(read.sourceTexts == incident.sourceTexts, "\(incident.originalId)")
      }
      #expect(read.description == incident.description, "\(incident.originalId)")
    }
  }
}
