import Foundation
import Testing
import Traffic
import TrafficFeeds
import TrafficTestSupport

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
