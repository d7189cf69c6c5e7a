import Foundation
import Testing
import TrafficFeeds
import TrafficTestSupport

@testable import Traffic

/// The stores' fast body reader must give, for every body the stores write, exactly the
/// incident `JSONDecoder` gives; whatever it does not read it leaves to `JSONDecoder`.
@Suite struct StoredIncidentReaderTests {
  /// Every incident of every feed fixture (the project's own, the shipped
  /// public samples, and the shared real feeds where present).
  static func fixtureIncidents() throws -> [TrafficIncident] {
    var folders = [
      Fixtures.repositoryRoot.appendingPathComponent("Tests/TrafficFeedsTests/Fixtures"),
      Fixtures.sample("wzdx"),
    ]
    if let shared = Fixtures.shared {
      folders += ["datex2", "open511", "waze"].map { shared.appendingPathComponent($0) }
    }
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
      closedLanes: [3, 2],
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

  /// `JSONEncoder`'s escapes (`\/`, `\u0001`) and hand-written ones (`\u` pairs, every short
  /// form) are read by the fast reader itself, as `JSONDecoder` reads them; what is not
  /// JSON (a lone surrogate, an unknown escape, a raw control character) is left to it.
  @Test func readsEscapesAsJSONDecoderDoes() throws {
    let made = try Self.madeIncidents()[0]
    let encoded = try JSONEncoder().encode(made)
    #expect(String(decoding: encoded, as: UTF8.self).contains(#"o\/1"#))
    let fast = try #require(StoredIncidentReader.incident(in: encoded))
    #expect(fast == made)

    func body(id: String) -> Data {
      Data(
        (#"{"id":""# + id + #"","location":{"polyline":[{"lat":1,"lng":0},{"lat":1,"lng":0}]}}"#)
          .utf8)
    }
    let read: [(String, String)] = [
      (#"a\u00e9\ud83d\udea7\n\t\r\b\f\"\\\/"#, "a\u{e9}\u{1F6A7}\n\t\r\u{8}\u{C}\"\\/"),
      (#"\u0041\u00DF\uFFFD"#, "A\u{DF}\u{FFFD}"),
    ]
    for (escaped, text) in read {
      let incident = try #require(StoredIncidentReader.incident(in: body(id: escaped)))
      #expect(incident.id == text)
      #expect(
        try JSONDecoder().decode(TrafficIncident.self, from: body(id: escaped)).id == text)
    }
    for escaped in [#"\ud83d"#, #"\udea7x"#, #"\ud83d\u0041"#, #"\x41"#, #"\u12"#, "a\u{1}b"] {
      #expect(StoredIncidentReader.incident(in: body(id: escaped)) == nil, "\(escaped)")
    }
  }

  /// Read through one coder (as a store reads at start-up), the sources of one feed share
  /// one feed name, and a source text equal to the description shares its string; the
  /// incidents are equal to those written.
  @Test func sharesFeedNamesAndSourceTexts() throws {
    let coder = StoredIncidentCoder()
    let feed = "wzdx:a feed name longer than fifteen bytes"
    let text = LocalizedText(text: "Bauarbeiten an der Straße 1, Abschnitt 7", language: .deDE)
    var read: [TrafficIncident] = []
    for id in ["a", "b", "c"] {
      var incident = try TrafficIncident(
        id: id, type: .construction, impact: .minor, description: text,
        location: TrafficLocation(point: GeoCoordinates(latitude: 1, longitude: 2)),
        sourceTexts: [LocalizedText(text: String(text.text), language: .deDE)])
      incident.sources = [
        TrafficIncidentSource(feed: String(feed), id: id),
        TrafficIncidentSource(feed: "other:feed, also longer than fifteen", id: id),
      ]
      let decoded = try coder.decode(coder.encode(incident), originalId: id, store: "t")
      #expect(decoded == incident)
      read.append(decoded)
    }
    func address(_ text: String) -> UnsafeRawPointer? {
      text.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }
    #expect(address(read[0].sources[0].feed) != nil)
    #expect(Set(read.map { address($0.sources[0].feed) }).count == 1)
    #expect(Set(read.map { address($0.sources[1].feed) }).count == 1)
    #expect(address(read[0].sources[0].feed) != address(read[0].sources[1].feed))
    for incident in read {
      #expect(address(incident.sourceTexts[0].text) == address(incident.description.text))
    }
  }

  /// Numbers read by the fast reader equal Swift's correctly rounded parse of the same text:
  /// shortest forms of random doubles, fixed decimals of every length, exponents, and
  /// numbers past the fast path's bounds (more than 19 digits, powers beyond 10^22).
  @Test func readsNumbersCorrectlyRounded() throws {
    var generator = SeededGenerator(seed: 11)
    var texts = ["0", "0.0", "1e22", "9007199254740993", "1.7976931348623157e308"]
    texts += ["4.9406564584124654e-300", "123456789012345678901234", "0.1e-22", "1E+2"]
    for _ in 0..<3_000 {
      // Lengths are never negative; the sign is read by the same code either way.
      let value = Double.random(in: 0...1e5, using: &generator)
      texts.append("\(value)")
      let places = Int.random(in: 0...17, using: &generator)
      texts.append(String(format: "%.\(places)f", value))
      texts.append(String(format: "%.\(places)e", value))
    }
    for text in texts {
      let body = Data(
        (#"{"id":"a","location":{"lengthInMeters":"# + text
          + #","polyline":[{"lat":1,"lng":0},{"lat":1,"lng":0}]}}"#).utf8)
      let incident = try #require(StoredIncidentReader.incident(in: body), "\(text)")
      let expected = try #require(Double(text))
      #expect(incident.location.lengthInMeters.bitPattern == expected.bitPattern, "\(text)")
    }
  }
}
