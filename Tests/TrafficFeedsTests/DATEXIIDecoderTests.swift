import Foundation
import Testing
import Traffic
import TrafficFeeds
import TrafficTestSupport

/// A file of this suite's own fixtures.
func ownFixture(_ format: String, _ name: String) throws -> Data {
  try Data(
    contentsOf: Fixtures.repositoryRoot.appendingPathComponent(
      "Tests/TrafficFeedsTests/Fixtures/\(format)/\(name)"))
}

/// A UTC date from ISO 8601 text known to be valid.
func utc(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Date {
  try #require(ISO8601DateFormatter().date(from: text), sourceLocation: sourceLocation)
}

/// The coordinates of a polyline's vertices as (latitude, longitude) pairs.
func pairs(_ polyline: GeoPolyline) -> [[Double]] {
  polyline.vertices.map { [$0.latitude, $0.longitude] }
}

@Suite struct DATEXIIDecoderTests {
  let options = FeedOptions(sourceName: "test", now: Date(timeIntervalSince1970: 1_750_000_000))

  func decode(_ name: String, options: FeedOptions? = nil) throws -> FeedDocument {
    try DATEXIIDecoder.decode(ownFixture("datex2", name), options: options ?? self.options)
  }

  @Test func v2SOAPEnvelopeWithPrefixes() throws {
    let document = try decode("v2_soap_records.xml")
    #expect(document.isFullRefresh == false)  // updateMethod singleElementUpdate
    #expect(document.publicationTime == (try utc("2025-03-10T08:00:00Z")))
    #expect(document.incidents.map(\.id) == ["R1_3", "R2_1", "R3_2", "R4_1"])
    #expect(document.incidents.map(\.originalId) == ["R1", "R2", "R3", "R4"])
    #expect(
      document.incidents.map(\.type) == [.disabledVehicle, .roadClosure, .construction, .weather])
    #expect(document.incidents.map(\.impact) == [.major, .minor, .low, .critical])

    let broken = document.incidents[0]
    #expect(broken.startTime == (try utc("2025-03-10T06:40:00Z")))
    #expect(broken.endTime == nil)
    #expect(broken.entryTime == (try utc("2025-03-10T06:40:00Z")))
    #expect(pairs(broken.location.polyline) == [[52.35, 4.85], [52.36, 4.86]])
    #expect(broken.details.roadName == "Ringweg")
    #expect(broken.details.roadNumber == "A10")
    #expect(broken.details.lanesClosed == 1)
    #expect(broken.details.totalLanes == 3)
    #expect(broken.details.delayInSeconds == 300)
    #expect(broken.details.eventKind == .brokenDownVehicle)
    #expect(broken.details.countryCode == "DE")  // the publication creator's, not the supplier's
    #expect(
      broken.sourceTexts == [
        LocalizedText(text: "Pechgeval op de rechterrijstrook", language: try LanguageCode("nl")),
        LocalizedText(
          text: "Broken-down vehicle in the right lane", language: try LanguageCode("en")),
      ])

    let closure = document.incidents[1]
    #expect(closure.isRoadClosed)
    #expect(closure.startTime == (try utc("2025-03-10T20:00:00Z")))
    #expect(closure.endTime == (try utc("2025-03-11T05:00:00Z")))
    #expect(pairs(closure.location.polyline) == [[52.1, 5.1], [52.101, 5.102], [52.103, 5.105]])

    let suspended = document.incidents[2]
    #expect(suspended.details.eventKind == .maintenanceWork)
    #expect(suspended.startTime == (try utc("2025-03-01T09:00:00Z")))
    #expect(suspended.endTime == (try utc("2025-03-09T12:00:00Z")))  // suspended at version time
    #expect(!suspended.isActive(at: try utc("2025-03-10T00:00:00Z")))
    #expect(pairs(suspended.location.polyline) == [[51.9, 4.4], [51.9, 4.4]])

    let fog = document.incidents[3]
    #expect(fog.details.eventKind == .fog)
    // The coordinates beside the Alert-C location are used.
    #expect(pairs(fog.location.polyline) == [[52.0, 5.0], [52.0, 5.0]])

    #expect(document.problems.count == 1)
    let problem = try #require(document.problems.first)
    #expect(problem.location?.hasPrefix("situation[5] id=S5/situationRecord id=R5 (line ") == true)
    #expect(problem.reason.contains("Alert-C") && problem.reason.contains("1234"))
  }

  @Test func v3SituationPublication() throws {
    let document = try decode("v3_situation.xml")
    #expect(document.isFullRefresh)
    #expect(
      document.incidents.map(\.id) == [
        "acc-1_4", "queue-1_2", "closure-1_1", "winter-1_1", "flood-1_7", "event-1_1",
      ])
    #expect(
      document.incidents.map(\.type) == [
        .accident, .congestion, .roadClosure, .weather, .weather, .plannedEvent,
      ])
    #expect(
      document.incidents.map(\.impact) == [.critical, .minor, .minor, .unknown, .minor, .unknown])
    #expect(
      document.incidents.map(\.details.eventKind) == [
        .multiVehicleAccident, .stationaryTraffic, nil, nil, .flooding, .demonstration,
      ])

    let accident = document.incidents[0]
    #expect(accident.startTime == (try utc("2025-06-02T07:10:00Z")))
    #expect(accident.endTime == (try utc("2025-06-02T10:00:00Z")))
    #expect(accident.entryTime == (try utc("2025-06-02T07:12:00Z")))
    #expect(accident.details.roadName == "Stadtautobahn")
    #expect(accident.details.roadNumber == "A100")
    #expect(accident.details.towards == "Wedding")
    #expect(accident.details.countryCode == "DE")
    #expect(pairs(accident.location.polyline) == [[52.48, 13.3], [52.485, 13.305]])
    #expect(accident.sourceTexts.map(\.language) == [try LanguageCode("de")])

    #expect(pairs(document.incidents[1].location.polyline) == [[52.47, 13.29], [52.48, 13.3]])
    #expect(document.incidents[2].isRoadClosed)

    let winter = document.incidents[3]
    #expect(pairs(winter.location.polyline) == [[47.4, 11.1], [47.4, 11.1]])
    #expect(winter.location.additionalPolylines.map(pairs) == [[[47.5, 11.2], [47.5, 11.2]]])
    #expect(winter.vehicleRestrictions[.all]?.isDrivingWithoutSnowChainsRestricted == true)

    #expect(document.problems.count == 1)
    #expect(document.problems.first?.location?.contains("situationRecord id=animal-1") == true)
    #expect(document.problems.first?.reason.contains("latitude 147.0") == true)
  }

  @Test func posListAxisOrderIsPerSource() throws {
    var lonLat = options
    lonLat.axisOrder = .lonLat
    let document = try decode("v2_lonlat_poslist.xml", options: lonLat)
    #expect(document.isFullRefresh)
    let incident = try #require(document.incidents.first)
    #expect(pairs(incident.location.polyline) == [[48.85, 2.35], [48.86, 2.36]])
    #expect(incident.type == .construction)
    #expect(incident.details.countryCode == "FR")
    let swapped = try decode("v2_lonlat_poslist.xml")
    #expect(
      pairs(try #require(swapped.incidents.first).location.polyline) == [
        [2.35, 48.85], [2.36, 48.86],
      ])
  }

  @Test(
    arguments: [
      ("highest", "certain", TrafficIncidentImpact.critical), ("high", "probable", .major),
      ("medium", nil, .minor), ("low", nil, .low), ("lowest", nil, .low), ("none", nil, .low),
      ("unknown", nil, .unknown), ("highest", "riskOf", .major), ("medium", "riskOf", .low),
    ] as [(String, String?, TrafficIncidentImpact)])
  func severityMapping(severity: String, probability: String?, impact: TrafficIncidentImpact) throws
  {
    let xml = """
      <d2LogicalModel xmlns="http://datex2.eu/schema/2/2_0" \
      xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><payloadPublication \
      xsi:type="SituationPublication" lang="en"><situation id="s"><situationRecord \
      xsi:type="Accident" id="r" version="1">\
      \(probability.map { "<probabilityOfOccurrence>\($0)</probabilityOfOccurrence>" } ?? "")\
      <severity>\(severity)</severity><groupOfLocations xsi:type="Point"><locationForDisplay>\
      <latitude>50</latitude><longitude>8</longitude></locationForDisplay></groupOfLocations>\
      </situationRecord></situation></payloadPublication></d2LogicalModel>
      """
    let document = try DATEXIIDecoder.decode(Data(xml.utf8), options: options)
    #expect(document.incidents.map(\.impact) == [impact])
  }

  // MARK: Real fixtures

  static var sharedDATEXII: URL? { Fixtures.shared?.appendingPathComponent("datex2") }

  @Test(.enabled(if: Fixtures.shared != nil, "needs ../shared/fixtures"))
  func everyUKEventFileDecodesToOneAbnormalTrafficPoint() throws {
    let folder = try #require(Self.sharedDATEXII)
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      .filter { $0.hasPrefix("uk_ntis_Event_Data_") }.sorted()
    #expect(names.count == 25)
    for name in names {
      let data = try Data(contentsOf: folder.appendingPathComponent(name))
      #expect(DATEXIIDecoder.recognizes(data))
      let document = try DATEXIIDecoder.decode(data, options: options)
      #expect(document.problems.isEmpty, "\(name)")
      let incident = try #require(document.incidents.first, "\(name)")
      #expect(document.incidents.count == 1)
      #expect(incident.type == .congestion, "\(name)")
      #expect([.low, .minor].contains(incident.impact), "\(name)")
      #expect(incident.location.polyline.lengthInMeters == 0)
      #expect(incident.details.countryCode == "GB")
      #expect(incident.sourceTexts.first?.language == LanguageCode.enUS.primaryLanguage)
      #expect(incident.sourceTexts.first?.text.hasPrefix("TYPE : GDP") == true)
      // NTIS writes an empty version, so the id is the record id.
      #expect(incident.id == incident.originalId)
      #expect(incident.startTime != nil && incident.entryTime != nil)
    }
  }

  @Test(.enabled(if: Fixtures.shared != nil, "needs ../shared/fixtures"))
  func ukEventWithLifeCycleEnd() throws {
    let folder = try #require(Self.sharedDATEXII)
    let document = try DATEXIIDecoder.decode(
      Data(contentsOf: folder.appendingPathComponent("uk_ntis_Event_Data_3794692773234866.xml")),
      options: options)
    let incident = try #require(document.incidents.first)
    #expect(incident.id == "949883")
    #expect(incident.impact == .low)
    #expect(
      abs(
        (incident.startTime ?? .distantPast).timeIntervalSince(try utc("2015-04-29T05:22:33Z"))
          - 0.541) < 1e-6)
    #expect(
      abs(
        (incident.endTime ?? .distantPast).timeIntervalSince(try utc("2015-04-29T10:47:50Z"))
          - 0.939) < 1e-6)
    #expect(
      abs(
        (incident.entryTime ?? .distantPast).timeIntervalSince(try utc("2015-04-29T05:22:33Z"))
          - 0.544) < 1e-6)
    #expect(
      pairs(incident.location.polyline) == [[53.466034, -1.985049], [53.466034, -1.985049]])
    #expect(incident.details.delayInSeconds == 480)
    #expect(
      abs(
        (document.publicationTime ?? .distantPast).timeIntervalSince(
          try utc("2015-04-29T08:53:46Z")) - 0.781) < 1e-6)

    // lifeCycleManagement end=true: ends at its overall end, before the version time.
    let ended = try DATEXIIDecoder.decode(
      Data(contentsOf: folder.appendingPathComponent("uk_ntis_Event_Data_3794841881472645.xml")),
      options: options)
    let cleared = try #require(ended.incidents.first)
    #expect(cleared.id == "950059")
    #expect(cleared.impact == .low)
    #expect(cleared.endTime == (try utc("2015-04-29T08:56:13Z")).addingTimeInterval(0.658))
  }

  @Test(.enabled(if: Fixtures.shared != nil, "needs ../shared/fixtures"))
  func italianSituationPublication() throws {
    let folder = try #require(Self.sharedDATEXII)
    let document = try DATEXIIDecoder.decode(
      Data(contentsOf: folder.appendingPathComponent("it_situation_publication_v2.xml")),
      options: options)
    #expect(document.problems.isEmpty)
    #expect(
      document.incidents.map(\.id) == [
        "1_2", "10_1", "11_1", "12_1", "2_1", "4_1", "5_1", "7_1", "9_1",
      ])
    #expect(
      document.incidents.map(\.type) == [
        .congestion, .laneRestriction, .other, .weather, .accident, .other, .construction,
        .plannedEvent, .roadClosure,
      ])
    #expect(
      document.incidents.map(\.impact) == [
        .major, .minor, .low, .minor, .major, .minor, .minor, .minor, .major,
      ])
    #expect(
      document.incidents.map(\.isRoadClosed) == [
        false, false, false, false, false, false, false, false, true,
      ])
    let first = document.incidents[0]
    #expect(first.details.eventKind == .slowTraffic)
    #expect(first.details.countryCode == "IT")
    #expect(first.startTime == (try utc("2024-01-01T07:00:00Z")))
    #expect(first.endTime == (try utc("2098-12-31T23:00:00Z")))
    #expect(first.entryTime == (try utc("2024-01-01T06:55:00Z")))
    #expect(pairs(first.location.polyline) == [[46.4983, 11.3548], [46.4983, 11.3548]])
    #expect(
      first.sourceTexts == [
        LocalizedText(
          text: "Coda tra Bolzano Sud e Bolzano Nord", language: try LanguageCode("it")),
        LocalizedText(
          text: "Stau zwischen Bozen Süd und Bozen Nord", language: try LanguageCode("de")),
      ])
    // The empty German value of the roadworks comment is dropped.
    #expect(document.incidents[6].sourceTexts.map(\.text) == ["Cantiere"])
    #expect(
      document.incidents[3].vehicleRestrictions[.all]?.isDrivingWithoutSnowChainsRestricted == true)
    #expect(document.incidents[4].startTime == (try utc("2099-06-01T07:00:00Z")))
    #expect(document.incidents[1].endTime == nil)
  }

  @Test(.enabled(if: Fixtures.shared != nil, "needs ../shared/fixtures"))
  func measuredDataIsRecognisedAndHasNoIncidents() throws {
    let folder = try #require(Self.sharedDATEXII)
    let data = try Data(
      contentsOf: folder.appendingPathComponent("uk_ntis_MIDAS_loop_measured.xml"))
    #expect(DATEXIIDecoder.recognizes(data))
    let document = try DATEXIIDecoder.decode(data, options: options)
    #expect(document.incidents.isEmpty)
    #expect(document.flowObservations.isEmpty)
    #expect(document.problems.isEmpty)
    #expect(
      abs(
        (document.publicationTime ?? .distantPast).timeIntervalSince(
          try utc("2015-04-29T08:39:21Z")) - 0.023) < 1e-6)
  }

  @Test func fuzzSeedsAreRecognisedAndDecode() throws {
    let folder = Fixtures.repositoryRoot.appendingPathComponent(
      "Tests/TrafficFeedsTests/Fuzz/datex2")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    #expect(names.count >= 3)
    var incidents = 0
    for name in names {
      let data = try Data(contentsOf: folder.appendingPathComponent(name))
      #expect(DATEXIIDecoder.recognizes(data), "\(name)")
      let document = try DATEXIIDecoder.decode(data, options: options)
      #expect(document.problems.isEmpty, "\(name)")
      incidents += document.incidents.count
    }
    #expect(incidents == 3)
  }

  // MARK: Bad input

  @Test func recognisesOnlyDATEXII() throws {
    #expect(DATEXIIDecoder.recognizes(try ownFixture("datex2", "v3_situation.xml")))
    #expect(!DATEXIIDecoder.recognizes(Data("{\"events\": []}".utf8)))
    #expect(!DATEXIIDecoder.recognizes(Data("<open511 version=\"v1\"/>".utf8)))
    #expect(!DATEXIIDecoder.recognizes(Data()))
  }

  @Test func truncatedDocumentNamesTheLine() throws {
    let full = try ownFixture("datex2", "v2_soap_records.xml")
    let truncated = full.prefix(full.count / 2)
    #expect {
      _ = try DATEXIIDecoder.decode(truncated, options: options)
    } throws: { error in
      guard let error = error as? FeedError else { return false }
      return error.format == .datex2 && error.location?.contains("line ") == true
        && error.reason.contains("ends early")
    }
  }

  @Test func entityExpansionBombIsRejected() throws {
    var entities = "<!ENTITY a0 \"xxxxxxxxxx\">"
    for level in 1...9 {
      entities += "<!ENTITY a\(level) \"" + String(repeating: "&a\(level - 1);", count: 10) + "\">"
    }
    let xml = """
      <?xml version="1.0"?><!DOCTYPE d2LogicalModel [\(entities)]>\
      <d2LogicalModel xmlns="http://datex2.eu/schema/2/2_0"><payloadPublication>\
      <situation id="s"><situationRecord id="r"><generalPublicComment><comment><values>\
      <value>&a9;</value></values></comment></generalPublicComment></situationRecord>\
      </situation></payloadPublication></d2LogicalModel>
      """
    #expect {
      _ = try DATEXIIDecoder.decode(Data(xml.utf8), options: options)
    } throws: { error in
      (error as? FeedError)?.reason.contains("amplification") == true
    }
  }

  @Test func externalEntitiesAreNotResolved() throws {
    let secret = FileManager.default.temporaryDirectory.appendingPathComponent(
      "datex2-xxe-\(UUID().uuidString).txt")
    try Data("SECRET-CONTENT".utf8).write(to: secret)
    defer { try? FileManager.default.removeItem(at: secret) }
    let xml = """
      <?xml version="1.0"?><!DOCTYPE d2LogicalModel [<!ENTITY x SYSTEM "\(secret.absoluteString)">]>\
      <d2LogicalModel xmlns="http://datex2.eu/schema/2/2_0" \
      xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><payloadPublication lang="en">\
      <situation id="s"><situationRecord xsi:type="Accident" id="r"><generalPublicComment>\
      <comment><values><value>before &x; after</value></values></comment></generalPublicComment>\
      <groupOfLocations><locationForDisplay><latitude>50</latitude><longitude>8</longitude>\
      </locationForDisplay></groupOfLocations></situationRecord></situation>\
      </payloadPublication></d2LogicalModel>
      """
    let texts: [String]
    do {
      texts = try DATEXIIDecoder.decode(Data(xml.utf8), options: options).incidents
        .flatMap(\.sourceTexts).map(\.text)
    } catch {
      texts = [error.description]
    }
    #expect(!texts.joined().contains("SECRET-CONTENT"))
  }

  @Test func deepNestingIsRejectedWithItsPlace() throws {
    let depth = 400
    let xml =
      "<d2LogicalModel xmlns=\"http://datex2.eu/schema/2/2_0\">"
      + String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
      + "</d2LogicalModel>"
    #expect {
      _ = try DATEXIIDecoder.decode(Data(xml.utf8), options: options)
    } throws: { error in
      guard let error = error as? FeedError else { return false }
      return error.reason.contains("deeper than 256") && error.location?.contains("line 1") == true
    }
  }

  @Test func wronglyEncodedBytesAreRejected() throws {
    var data = Data(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><d2LogicalModel xmlns=\"http://datex2.eu/schema/2/2_0\"><exchange>caf"
        .utf8)
    data.append(0xE9)  // Latin-1 é, not UTF-8
    data.append(contentsOf: Array("</exchange></d2LogicalModel>".utf8))
    #expect {
      _ = try DATEXIIDecoder.decode(data, options: options)
    } throws: { error in
      let error = error as? FeedError
      return error?.reason.contains("not valid UTF-8") == true && error?.location == "byte 105"
    }
  }

  @Test func otherXMLIsNotDATEXII() throws {
    #expect {
      _ = try DATEXIIDecoder.decode(Data("<feed><entry/></feed>".utf8), options: options)
    } throws: { error in
      (error as? FeedError)?.reason.contains("not a DATEX II document") == true
    }
    #expect(throws: FeedError.self) {
      _ = try DATEXIIDecoder.decode(Data(), options: options)
    }
  }

  @Test func brokenRecordsAreSkippedAndTheRestDecodes() throws {
    let xml = """
      <d2LogicalModel xmlns="http://datex2.eu/schema/2/2_0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
      <payloadPublication xsi:type="SituationPublication" lang="en">
      <situation id="s1"><situationRecord xsi:type="Accident" id="bad-time">
      <validity><validityTimeSpecification><overallStartTime>yesterday</overallStartTime></validityTimeSpecification></validity>
      <groupOfLocations><locationForDisplay><latitude>50</latitude><longitude>8</longitude></locationForDisplay></groupOfLocations>
      </situationRecord></situation>
      <situation id="s2"><situationRecord xsi:type="Accident" id="bad-poslist">
      <groupOfLocations><gmlLineString><posList>50 8 51</posList></gmlLineString></groupOfLocations>
      </situationRecord></situation>
      <situation id="s3"><situationRecord xsi:type="Accident" id="reversed">
      <validity><validityTimeSpecification><overallStartTime>2025-01-02T00:00:00Z</overallStartTime><overallEndTime>2025-01-01T00:00:00Z</overallEndTime></validityTimeSpecification></validity>
      <groupOfLocations><locationForDisplay><latitude>50</latitude><longitude>8</longitude></locationForDisplay></groupOfLocations>
      </situationRecord></situation>
      <situation id="s4"><situationRecord xsi:type="Accident" id="good">
      <groupOfLocations><locationForDisplay><latitude>50</latitude><longitude>8</longitude></locationForDisplay></groupOfLocations>
      </situationRecord></situation>
      </payloadPublication></d2LogicalModel>
      """
    let document = try DATEXIIDecoder.decode(Data(xml.utf8), options: options)
    #expect(document.incidents.map(\.id) == ["good"])
    #expect(
      document.problems.map(\.location) == [
        "situation[1] id=s1/situationRecord id=bad-time (line 3)",
        "situation[2] id=s2/situationRecord id=bad-poslist (line 7)",
        "situation[3] id=s3/situationRecord id=reversed (line 10)",
      ])
    #expect(document.problems[0].reason.contains("\"yesterday\""))
    #expect(document.problems[1].reason.contains("not a multiple of 2"))
    #expect(document.problems[2].reason.contains("before"))
  }
}

@Suite struct DATEXIILocationReferenceTests {
  let options = FeedOptions(sourceName: "test", now: Date(timeIntervalSince1970: 1_750_000_000))

  @Test func v2KeepsAlertCCodesAndPlacesBinaryOpenLR() throws {
    let document = try DATEXIIDecoder.decode(
      ownFixture("datex2", "v2_location_references.xml"), options: options)
    #expect(document.incidents.map(\.originalId) == ["tmc-linear", "olr-only"])

    let linear = document.incidents[0].location
    #expect(pairs(linear.polyline) == [[52.30, 4.90], [52.31, 4.91]])
    #expect(
      linear.tmc == [
        try TMCLocationReference(
          countryCode: "8", tableNumber: "1.11", tableVersion: "11.0",
          primaryLocationCode: 12345, secondaryLocationCode: 12346, direction: .negative,
          primaryOffsetInMeters: 250, secondaryOffsetInMeters: 0)
      ])
    #expect(linear.openLR == nil)

    // Only binary OpenLR: the white paper's line, its reference points joined.
    let openLR = document.incidents[1].location
    #expect(openLR.openLR == "CwRbWyNG9RpsCQCb/jsbtAT/6/+jK1lE")
    #expect(openLR.tmc.isEmpty)
    let expected = try OpenLR.decode(base64: "CwRbWyNG9RpsCQCb/jsbtAT/6/+jK1lE")
      .referenceCoordinates
    #expect(openLR.polyline.vertices == expected)
    #expect(abs(openLR.polyline.vertices[0].longitude - 6.1268198) < 1e-7)

    #expect(document.problems.count == 2)
    let tmcOnly = try #require(document.problems.first)
    #expect(tmcOnly.location?.contains("situationRecord id=tmc-only") == true)
    #expect(
      tmcOnly.reason
        == "the location has no coordinates, only Alert-C (TMC) location codes 777, which "
        + "need a TMC location table")
    let broken = try #require(document.problems.last)
    #expect(broken.location?.contains("situationRecord id=olr-broken") == true)
    #expect(
      broken.reason.hasPrefix(
        "the location has no coordinates, only binary OpenLR, which cannot be decoded: "
          + "malformed OpenLR at position 9: a line location needs at least 16 bytes, found 9 "
          + "(line "))
  }

  @Test func v3KeepsAlertCAndPlacesAPointAlongALine() throws {
    let document = try DATEXIIDecoder.decode(
      ownFixture("datex2", "v3_location_references.xml"), options: options)
    #expect(document.problems.isEmpty)
    #expect(document.incidents.map(\.originalId) == ["pal", "coords-and-olr"])

    let point = document.incidents[0].location
    #expect(point.openLR == "K/6P+SKSuBJGGAUn/1gSUyM=")  // white space removed
    #expect(
      point.tmc == [
        try TMCLocationReference(
          countryCode: "D", tableNumber: "1", tableVersion: "19.1", primaryLocationCode: 10429,
          direction: .both, primaryOffsetInMeters: 120)
      ])
    // The point at the offset (35.5/256) between the two reference points.
    #expect(point.polyline.vertices.count == 2 && point.lengthInMeters == 0)
    let position = point.polyline.vertices[0]
    #expect(abs(position.latitude - 48.61820643) < 1e-7)
    #expect(abs(position.longitude - -2.01979472) < 1e-7)

    // Coordinates win over OpenLR for the geometry; the OpenLR is kept.
    let linear = document.incidents[1].location
    #expect(pairs(linear.polyline) == [[52.0, 13.0], [52.1, 13.1]])
    #expect(linear.openLR == "CwRbWyNG9RpsCQCb/jsbtAT/6/+jK1lE")
  }

  /// The shared fixtures' Alert-C codes are kept beside their coordinates.
  @Test func v2SOAPRecordsKeepTheirAlertCPoint() throws {
    let document = try DATEXIIDecoder.decode(
      ownFixture("datex2", "v2_soap_records.xml"), options: options)
    let fog = try #require(document.incidents.first { $0.originalId == "R4" })
    #expect(
      fog.location.tmc == [
        try TMCLocationReference(countryCode: "8", tableNumber: "1.11", primaryLocationCode: 4321)
      ])
  }
}

/// Whether `date` lies within a millisecond of `expected` (times with fractions of a second).
func isNear(_ date: Date?, _ expected: Date) -> Bool {
  guard let date else { return false }
  return abs(date.timeIntervalSince(expected)) < 0.001
}

/// Published DATEX II documents of real publishers (see `Fixtures/README.md`); the expected
/// values are read from the files by hand, positions in national grids converted with PROJ.
@Suite struct DATEXIIRealSampleTests {
  let options = FeedOptions(sourceName: "test", now: Date(timeIntervalSince1970: 1_750_000_000))

  func decode(_ name: String) throws -> FeedDocument {
    let data = try ownFixture("datex2", name)
    #expect(FeedFormat.detect(data) == .datex2)
    return try DATEXIIDecoder.decode(data, options: options)
  }

  /// Whether `polyline` is the point `expected` (a point is stored as two equal vertices),
  /// within 1e-8 degrees (about a millimetre) in latitude and longitude.
  func isClose(_ polyline: GeoPolyline, _ expected: [[Double]]) -> Bool {
    let actual = pairs(polyline)
    let expected = expected + expected
    return actual.count == expected.count
      && zip(actual, expected).allSatisfy {
        abs($0[0] - $1[0]) <= 1e-8 && abs($0[1] - $1[1]) <= 1e-8
      }
  }

  /// DGT (Spain) publishes DATEX II v3.6 under `http://levelC/schema/3/...` namespaces, most
  /// records as `GenericSituationRecord` typed by their `causeType`, locations as TPEG points
  /// and from/to pairs, times with `+01:00`/`+02:00` offsets.
  @Test func dgtLevelCNamespacesAndGenericRecords() throws {
    let document = try decode("real-dgt-v3-levelc.xml")
    #expect(document.problems.isEmpty)
    #expect(document.isFullRefresh)
    #expect(isNear(document.publicationTime, try utc("2026-09-02T22:52:41Z") + 0.560))
    #expect(
      document.incidents.map(\.id) == ["27433286_1", "20276492_3", "26710501_2", "27470012_1"])
    #expect(
      document.incidents.map(\.type) == [.accident, .roadClosure, .weather, .disabledVehicle])
    #expect(document.incidents.map(\.impact) == [.low, .critical, .minor, .minor])
    #expect(
      document.incidents.map(\.details.eventKind) == [
        .accident, nil, .flooding, .brokenDownVehicle,
      ])

    let accident = document.incidents[0]
    #expect(accident.startTime == (try utc("2026-09-02T04:30:00Z")))
    #expect(accident.endTime == nil)
    #expect(accident.entryTime == (try utc("2026-09-02T04:32:54Z")))
    #expect(
      pairs(accident.location.polyline) == [[39.136375, -0.48124817], [39.136375, -0.48124817]])
    #expect(accident.details.roadName == "CV-550")

    let closure = document.incidents[1]
    #expect(closure.isRoadClosed)
    #expect(closure.startTime == (try utc("2026-02-19T12:00:00Z")))
    #expect(closure.endTime == (try utc("2026-12-31T22:59:00Z")))
    #expect(closure.entryTime == (try utc("2026-02-19T12:19:14Z")))
    // `to` comes before `from` in the file: the line still runs from `from` to `to`.
    #expect(
      pairs(closure.location.polyline) == [[37.41493, -4.5017304], [37.31576, -4.3549824]])

    let flooding = document.incidents[2]
    #expect(flooding.startTime == (try utc("2026-09-01T16:00:00Z")))
    #expect(flooding.entryTime == (try utc("2026-09-01T16:05:10Z")))
    #expect(
      pairs(flooding.location.polyline) == [[37.458626, -3.6391692], [37.458626, -3.6391692]])
  }

  /// Fintraffic's v3 variable speed limits write ETRS-TM35FIN metres in `latitude` (northing)
  /// and `longitude` (easting).
  @Test func fintrafficV3GridMetres() throws {
    let document = try decode("real-fintraffic-v3-speed-management.xml")
    #expect(document.problems.isEmpty)
    #expect(isNear(document.publicationTime, try utc("2025-09-22T09:29:34Z") + 0.995))
    #expect(
      document.incidents.map(\.id) == [
        "KRM021323_1758233391165", "KRM01K001_1758247908068",
      ])
    #expect(document.incidents.map(\.type) == [.other, .other])
    #expect(document.incidents.map(\.impact) == [.major, .major])
    #expect(isNear(document.incidents[0].startTime, try utc("2025-09-18T22:09:51Z") + 0.165))
    #expect(isNear(document.incidents[0].entryTime, try utc("2025-09-18T22:09:51Z") + 0.165))
    #expect(document.incidents[0].details.countryCode == "FI")
    // N 6 704 207, E 286 946 and N 6 672 259, E 379 389 (EPSG:3067), by PROJ.
    #expect(
      isClose(document.incidents[0].location.polyline, [[60.417834350822986, 23.129905037484345]]))
    #expect(
      isClose(document.incidents[1].location.polyline, [[60.169370796085396, 24.826265157697488]]))
  }

  /// Fintraffic's v2 feed writes the same grid with the easting in `latitude`.
  @Test func fintrafficV2SwappedGridMetres() throws {
    let document = try decode("real-fintraffic-v2-speed-management.xml")
    #expect(document.problems.isEmpty)
    #expect(document.incidents.map(\.originalId) == ["KRM043951", "KRM044051"])
    #expect(isNear(document.incidents[1].startTime, try utc("2021-04-13T05:13:21Z") + 0.932))
    // E 326 986.03, N 6 818 407 and E 328 063, N 6 818 573 (EPSG:3067), by PROJ.
    #expect(
      isClose(document.incidents[0].location.polyline, [[61.460652524545004, 23.75306534254971]]))
    #expect(
      isClose(document.incidents[1].location.polyline, [[61.46261996475703, 23.77308473951295]]))
  }

  /// Grid metres are only read as such for Finnish publishers: elsewhere they stay an error.
  @Test func gridMetresOfOtherCountriesAreSkipped() throws {
    var text = String(
      decoding: try ownFixture("datex2", "real-fintraffic-v3-speed-management.xml"), as: UTF8.self)
    text = text.replacingOccurrences(of: "<country>FI</country>", with: "<country>SE</country>")
    let document = try DATEXIIDecoder.decode(Data(text.utf8), options: options)
    #expect(document.incidents.isEmpty)
    #expect(document.problems.count == 2)
    #expect(document.problems.first?.reason.contains("6704207") == true)
  }
}

/// Shapes individual publishers give DATEX II (German state feeds, UK councils' v1.0), in
/// documents written for these tests; grid positions converted with PROJ for reference.
@Suite struct DATEXIIPublisherVariantTests {
  let options = FeedOptions(sourceName: "test", now: Date(timeIntervalSince1970: 1_750_000_000))

  /// A v2 document with one situation per record body.
  func document(_ records: [String]) -> Data {
    let situations = records.enumerated().map { index, body in
      """
      <situation id="S\(index)"><situationRecord \(body)</situationRecord></situation>
      """
    }
    return Data(
      """
      <d2LogicalModel xmlns="http://datex2.eu/schema/2/2_0" modelBaseVersion="2"
          xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
        <payloadPublication xsi:type="SituationPublication" lang="de">
          <publicationTime>2026-07-31T00:00:00Z</publicationTime>
          \(situations.joined(separator: "\n"))
        </payloadPublication>
      </d2LogicalModel>
      """.utf8)
  }

  func isClose(_ actual: [[Double]], _ expected: [[Double]]) -> Bool {
    actual.count == expected.count
      && zip(actual, expected).allSatisfy {
        abs($0[0] - $1[0]) <= 1e-8 && abs($0[1] - $1[1]) <= 1e-8
      }
  }

  /// Mecklenburg-Vorpommern writes ETRS89 / UTM 33 with the zone before the easting
  /// (EPSG:5650), easting first, and declares no system; a declared `srsName` is honoured.
  @Test func projectedPositionLists() throws {
    let data = document([
      """
      xsi:type="MaintenanceWorks" id="MV"><validity><validityStatus>active</validityStatus>
      </validity><groupOfLocations xsi:type="Linear"><linearExtension><linearExtended>
      <gmlLineString><posList>33342865.72 6020207.51 33342859.99 6020464.00</posList>
      </gmlLineString></linearExtended></linearExtension></groupOfLocations>
      """,
      """
      xsi:type="MaintenanceWorks" id="UTM32"><validity><validityStatus>active</validityStatus>
      </validity><groupOfLocations xsi:type="Linear"><linearExtension><linearExtended>
      <gmlLineString srsName="urn:ogc:def:crs:EPSG::25832"><posList>5512345.0 512345.0
      5512400.0 512400.0</posList></gmlLineString></linearExtended></linearExtension>
      </groupOfLocations>
      """,
      """
      xsi:type="MaintenanceWorks" id="UNDECLARED"><validity><validityStatus>active
      </validityStatus></validity><groupOfLocations xsi:type="Linear"><linearExtension>
      <linearExtended><gmlLineString><posList>5512345.0 512345.0 5512400.0 512400.0</posList>
      </gmlLineString></linearExtended></linearExtension></groupOfLocations>
      """,
    ])
    let decoded = try DATEXIIDecoder.decode(data, options: options)
    #expect(decoded.incidents.map(\.id) == ["MV", "UTM32"])
    #expect(
      isClose(
        pairs(decoded.incidents[0].location.polyline),
        [[54.305541513677404, 12.58487023329198], [54.30784289448461, 12.584647333973855]]))
    #expect(
      isClose(
        pairs(decoded.incidents[1].location.polyline),
        [[49.76345334072831, 9.171415298881406], [49.763946899380755, 9.172180744379768]]))
    // Plain UTM metres without a declared system cannot be placed: skipped, not guessed.
    #expect(decoded.problems.count == 1)
    #expect(decoded.problems.first?.location?.contains("UNDECLARED") == true)
  }

  /// German state feeds: `linearByCoordinates` with bare `start`/`end` pairs and indexed
  /// `intermediate` points; coordinates under extensions of the publisher's own naming.
  @Test func linearByCoordinatesAndExtensionPoints() throws {
    let data = document([
      """
      xsi:type="Accident" id="LINE"><validity><validityStatus>active</validityStatus>
      </validity><groupOfLocations xsi:type="Linear"><linearByCoordinates>
      <start><latitude>48.6206291</latitude><longitude>10.2168311</longitude></start>
      <end><latitude>48.6304951</latitude><longitude>10.2203178</longitude></end>
      <intermediate index="2"><pointCoordinates><latitude>48.627</latitude>
      <longitude>10.219</longitude></pointCoordinates></intermediate>
      <intermediate index="1"><pointCoordinates><latitude>48.625</latitude>
      <longitude>10.218</longitude></pointCoordinates></intermediate>
      </linearByCoordinates></groupOfLocations>
      """,
      """
      xsi:type="Accident" id="AREA"><validity><validityStatus>active</validityStatus>
      </validity><groupOfLocations xsi:type="Area"><areaExtension><somePublisherPoint>
      <latitude>50.1</latitude><longitude>8.6</longitude></somePublisherPoint></areaExtension>
      </groupOfLocations>
      """,
    ])
    let decoded = try DATEXIIDecoder.decode(data, options: options)
    #expect(decoded.problems.isEmpty)
    #expect(
      pairs(decoded.incidents[0].location.polyline) == [
        [48.6206291, 10.2168311], [48.625, 10.218], [48.627, 10.219], [48.6304951, 10.2203178],
      ])
    #expect(pairs(decoded.incidents[1].location.polyline) == [[50.1, 8.6], [50.1, 8.6]])
  }

  /// A management record whose type says nothing more takes the type its cause names.
  @Test func managementRecordTypedByItsCause() throws {
    let data = document([
      """
      xsi:type="SpeedManagement" id="SPEED"><validity><validityStatus>active</validityStatus>
      </validity><cause xsi:type="NonManagedCause"><causeType>roadMaintenance</causeType>
      </cause><groupOfLocations xsi:type="Point"><locationForDisplay><latitude>52.1</latitude>
      <longitude>4.3</longitude></locationForDisplay></groupOfLocations>
      <speedManagementType>speedRestrictionInOperation</speedManagementType>
      """,
      """
      xsi:type="SpeedManagement" id="PLAIN"><validity><validityStatus>active</validityStatus>
      </validity><groupOfLocations xsi:type="Point"><locationForDisplay><latitude>52.1
      </latitude><longitude>4.3</longitude></locationForDisplay></groupOfLocations>
      """,
    ])
    let decoded = try DATEXIIDecoder.decode(data, options: options)
    #expect(decoded.incidents.map(\.type) == [.construction, .other])
    #expect(decoded.incidents.map(\.details.eventKind) == [.maintenanceWork, nil])
  }

  /// DATEX II v1.0 of UK councils: version element, local times, `impactOnTraffic`.
  @Test func version1LocalTimes() throws {
    let data = try ownFixture("datex2", "v1_local_times.xml")
    #expect(FeedFormat.detect(data) == .datex2)
    let decoded = try DATEXIIDecoder.decode(data, options: options)
    #expect(decoded.problems.isEmpty)
    let works = try #require(decoded.incidents.first)
    #expect(works.id == "GUIDAB0001/1-1_2")
    #expect(works.originalId == "GUIDAB0001/1-1")
    #expect(works.type == .construction)
    #expect(works.impact == .minor)  // impactOnTraffic heavy
    // Local times at the publication time's +01:00.
    #expect(works.startTime == (try utc("2025-07-30T23:00:00Z")))
    #expect(works.endTime == (try utc("2025-08-01T22:59:59Z")))
    #expect(works.entryTime == (try utc("2025-04-18T14:38:37Z")))
    #expect(pairs(works.location.polyline) == [[52.64208, -0.24422], [52.64208, -0.24422]])
    #expect(works.details.countryCode == "GB")
  }
}
