import Foundation
import Testing
import TrafficFeeds
import TrafficTestSupport

@testable import Traffic

/// The stores' fast body reader must give, for every body the stores write, exactly the
/// incident `JSONDecoder` gives; whatever it does not read it leaves to `JSONDecoder`.
@Suite struct StoredIncidentReaderTests {
  /// Every incident of every feed fixture (the shared real feeds and the project's own).
  static func fixtureIncidents() throws -> [TrafficIncident] {
    var folders = [
      Fixtures.repositoryRoot.appendingPathComponent("Tests/TrafficFeedsTests/Fixtures")
    ]
    if let shared = Fixtures.shared { folders.append(shared) }
    var incidents: [TrafficIncident] = []
    for folder in folders {
      let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
      while let url = files?.nextObject() as? URL {
        guard ["json", "geojson", "xml"].contains(url.pathExtension),
          !url.path.contains("/schemas/"), let data = try? Data(contentsOf: url),
          let format = FeedFormat.detect(data),
          let document = try? format.decoder.decode(data, options: FeedOptions(sourceName: "t"))
        else { continue }
        incidents += document.incidents
      }
    }
    return incidents
  }

  /// Incidents with what the fixtures rarely have: escapes and non-ASCII text, altitudes,
  /// merged sources, details of every kind, nulls.
  static func madeIncidents() throws -> [TrafficIncident] {
    let polyline = try GeoPolyline(vertices: [
      GeoCoordinates(latitude: 52.5, longitude: 13.4, altitude: 34.25),
      GeoCoordinates(latitude: -0.000001, longitude: 179.999999),
    ])
    let details = try TrafficIncidentDetails(
      countryCode: "DE", area: "Brandenburg \"Süd\"", roadName: "A10 / Berliner Ring",
      roadNumber: "A10", towards: "Dreieck\tNuthetal\n", fromJunction: "Königs Wusterhausen",
      toJunction: "Schönefelder Kreuz", atJunction: nil, lanesClosed: 2, totalLanes: 3,
      queueRisk: true, queueLengthInMeters: 1_250.5, delayInSeconds: 600,
      eventKind: .roadworks, cause: LocalizedText(text: "Bauarbeiten 🚧", language: .deDE),
      timeZone: TimeZone(identifier: "Europe/Berlin"))
    var incident = try TrafficIncident(
      id: "v\\1\u{2028}", originalId: "o/1", parentId: "p\u{1}", type: .construction,
      impact: .critical,
      description: LocalizedText(text: "Straße gesperrt — \u{1F6A7}", language: .deDE),
      summary: nil, startTime: Date(timeIntervalSince1970: 1.5e9 + 0.123),
      endTime: Date(timeIntervalSince1970: 1.6e9 + 1e-7), entryTime: nil, isRoadClosed: true,
      junctionsTraversability: .allClosed, codes: [401, -3, 0],
      location: TrafficLocation(
        polyline: polyline, additionalPolylines: [polyline], lengthInMeters: 1e-300,
        description: "between \"A\" and 'B'", openLR: "CwRbWyNG9BpsCQCb/jsbtAT/"),
      details: details,
      sourceTexts: [LocalizedText(text: "", language: .enUS)])
    incident.sources = [
      TrafficIncidentSource(feed: "wzdx:CDOT", id: "a"),
      TrafficIncidentSource(
        feed: "uk", id: "b", reportDigest: "abc", reportEntryTime: Date(timeIntervalSince1970: 0)),
    ]
    let plain = try TrafficIncident(
      id: "x", type: .accident, impact: .minor,
      location: TrafficLocation(point: GeoCoordinates(latitude: 0, longitude: 0)))
    return [incident, plain]
  }

  @Test func readsEveryBodyTheStoresWriteAsJSONDecoderDoes() throws {
    let incidents = try Self.fixtureIncidents() + Self.madeIncidents()
    #expect(incidents.count > 100, "the fixtures must be found for the test to mean anything")
    let coder = StoredIncidentCoder()
    var read = 0
    for incident in incidents {
      let body = try coder.encode(incident)
      let reference = try JSONDecoder().decode(TrafficIncident.self, from: body)
      let fast = StoredIncidentReader.incident(in: body)
      if incident.location.tmc.isEmpty && incident.vehicleRestrictions.isEmpty {
        #expect(fast != nil, "the fast reader left \(incident.originalId) to JSONDecoder")
        read += 1
      }
      if let fast { #expect(fast == reference, "\(incident.originalId)") }
      #expect(try coder.decode(body, originalId: incident.originalId, store: "t") == reference)
    }
    #expect(read > 100)
  }

  /// Damaged bodies: the reader never traps and never answers what `JSONDecoder` would not
  /// read; the coder's error is `JSONDecoder`'s, naming the incident and the store.
  @Test func damagedBodiesAreLeftToJSONDecoder() throws {
    let coder = StoredIncidentCoder()
    let body = try coder.encode(try Self.madeIncidents()[0])
    var generator = SeededGenerator(seed: 5)
    var damaged: [Data] = (0..<body.count).map { body.prefix($0) }
    for _ in 0..<2_000 {
      var copy = body
      copy[Int.random(in: 0..<copy.count, using: &generator)] = UInt8.random(
        in: 0...255, using: &generator)
      damaged.append(copy)
    }
    damaged += [
      Data(#"{"id":"a","location":{"polyline":[{"lat":91,"lng":0},{"lat":0,"lng":0}]}}"#.utf8),
      Data(#"{"id":"a","type":"nonsense","location":{"polyline":[{"lat":1,"lng":0}]}}"#.utf8),
      Data(
        #"{"id":"a","codes":[1e3],"location":{"polyline":[{"lat":1,"lng":0},{"lat":1,"lng":0}]}}"#
          .utf8),
      // JSON has no leading zeros; numbers out of range are errors, not zero.
      Data(#"{"id":"a","location":{"polyline":[{"lat":01,"lng":0},{"lat":1,"lng":0}]}}"#.utf8),
      Data(
        #"{"id":"a","codes":[007],"location":{"polyline":[{"lat":1,"lng":0},{"lat":1,"lng":0}]}}"#
          .utf8),
      Data(#"{"id":"a","location":{"polyline":[{"lat":1e-400,"lng":0},{"lat":1,"lng":0}]}}"#.utf8),
      Data(
        #"{"id":"a","location":{"lengthInMeters":1e999,"polyline":[{"lat":1,"lng":0},{"lat":1,"lng":0}]}}"#
          .utf8),
      Data(#"{"id":"a","location":{"polyline":[{"lat":1,"lng":0},{"lat":1,"lng":0}]}} x"#.utf8),
    ]
    for copy in damaged {
      let reference = try? JSONDecoder().decode(TrafficIncident.self, from: copy)
      let fast = StoredIncidentReader.incident(in: copy)
      if let fast { #expect(fast == reference) }
      do {
        let decoded = try coder.decode(copy, originalId: "o/1", store: "s.sqlite")
        #expect(decoded == reference)
      } catch {
        #expect(reference == nil)
        #expect("\(error)".contains("o/1") && "\(error)".contains("s.sqlite"))
      }
    }
  }

  /// The fast writer's bodies read back, through `JSONDecoder` and the fast reader, as the
  /// very incident written, and as `JSONEncoder`'s body of it reads; what it does not write
  /// (TMC references, vehicle restrictions, numbers JSON cannot carry) is left to
  /// `JSONEncoder`.
  @Test func writesBodiesThatReadBackAsJSONEncoderBodiesDo() throws {
    let incidents = try Self.fixtureIncidents() + Self.madeIncidents()
    var written = 0
    for incident in incidents {
      let reference = try JSONDecoder().decode(
        TrafficIncident.self, from: try JSONEncoder().encode(incident))
      guard let body = StoredIncidentWriter.body(of: incident) else {
        #expect(!incident.location.tmc.isEmpty || !incident.vehicleRestrictions.isEmpty)
        continue
      }
      written += 1
      let decoded = try JSONDecoder().decode(TrafficIncident.self, from: body)
      #expect(decoded == reference, "\(incident.originalId)")
      #expect(decoded == incident, "\(incident.originalId)")
      #expect(StoredIncidentReader.incident(in: body) == incident, "\(incident.originalId)")
    }
    #expect(written > 100)
    var endless = try Self.madeIncidents()[1]
    endless.entryTime = Date(timeIntervalSinceReferenceDate: .infinity)
    #expect(StoredIncidentWriter.body(of: endless) == nil)
    #expect(throws: TrafficStoreError.self) { try StoredIncidentCoder().encode(endless) }
  }
}
