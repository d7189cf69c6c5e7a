import Codec
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

  // MARK: Publisher shapes

  /// The project's one-event documents in the shape of a national traffic centre's event feed
  /// (`v2_event_*.xml`), and the UK NTIS events of `Fixtures.shared` (`datex2/`, a development checkout's samples) when present.
  static func eventDocuments() throws -> [(name: String, data: Data)] {
    var documents = try ["v2_event_queue.xml", "v2_event_cleared.xml", "v2_event_cancelled.xml"]
      .map { (name: $0, data: try ownFixture("datex2", $0)) }
    if let shared = Fixtures.shared?.appendingPathComponent("datex2") {
      let names = try FileManager.default.contentsOfDirectory(atPath: shared.path)
        .filter { $0.hasPrefix("uk_ntis_Event_Data_") }.sorted()
      documents += try names.map {
        (name: $0, data: try Data(contentsOf: shared.appendingPathComponent($0)))
      }
    }
    return documents
  }

  @Test func everyEventDocumentDecodesToOneAbnormalTrafficPoint() throws {
    let documents = try Self.eventDocuments()
    #expect(documents.count == (Fixtures.shared == nil ? 3 : 3 + 25))
    for (name, data) in documents {
      #expect(DATEXIIDecoder.recognizes(data), "\(name)")
      let document = try DATEXIIDecoder.decode(data, options: options)
      #expect(document.problems.isEmpty, "\(name)")
      #expect(document.isFullRefresh, "\(name)")  // feedType "Event Data"
      #expect(document.incidents.count == 1, "\(name)")
      let incident = try #require(document.incidents.first, "\(name)")
      #expect(incident.type == .congestion, "\(name)")
      #expect([.low, .minor].contains(incident.impact), "\(name)")
      #expect(incident.location.polyline.lengthInMeters == 0, "\(name)")
      #expect(incident.details.countryCode?.count == 2, "\(name)")
      #expect(incident.sourceTexts.first?.language == LanguageCode.enUS.primaryLanguage)
      // An empty version: the id is the record id.
      #expect(incident.id == incident.originalId, "\(name)")
      #expect(incident.startTime != nil && incident.entryTime != nil, "\(name)")
    }
  }

  /// A queue in a location group of a point and two predefined locations (no coordinates), an
  /// empty `version`, times with milliseconds at +01:00, a delay, no lane closed.
  @Test func eventInALocationGroupWithDelay() throws {
    let document = try decode("v2_event_queue.xml")
    #expect(document.problems.isEmpty)
    #expect(document.isFullRefresh)
    #expect(isNear(document.publicationTime, try utc("2024-10-08T16:42:05Z") + 0.312))
    let incident = try #require(document.incidents.first)
    #expect(document.incidents.count == 1)
    #expect(incident.id == "2207341")
    #expect(incident.originalId == "2207341")
    #expect(incident.type == .congestion)
    #expect(incident.impact == .low)
    #expect(incident.details.eventKind == nil)  // unspecifiedAbnormalTraffic
    #expect(!incident.isRoadClosed)
    #expect(isNear(incident.startTime, try utc("2024-10-08T15:58:12Z") + 0.904))
    #expect(isNear(incident.endTime, try utc("2024-10-08T18:15:00Z") + 0.25))
    #expect(isNear(incident.entryTime, try utc("2024-10-08T15:58:12Z") + 0.907))
    #expect(
      pairs(incident.location.polyline) == [[53.317712, -6.369204], [53.317712, -6.369204]])
    #expect(incident.location.additionalPolylines.isEmpty)
    #expect(incident.details.delayInSeconds == 720)
    #expect(incident.details.lanesClosed == nil)  // numberOfLanesRestricted 0
    #expect(incident.details.totalLanes == 3)
    #expect(incident.details.countryCode == "IE")
    #expect(
      incident.sourceTexts == [
        LocalizedText(
          text: """
            KIND : Queue
            Where : M50 northbound from junction 9 (Red Cow) to junction 7 (Castleknock)
            Delay : about 12 minutes longer than usual
            """,
          language: try LanguageCode("en"))
      ])
  }

  /// `lifeCycleManagement` `end` true: the record ends at its overall end, which lies before
  /// its version time; `cancel` true: at its version time, before its overall end.
  @Test func endedAndCancelledEvents() throws {
    let cleared = try #require(try decode("v2_event_cleared.xml").incidents.first)
    #expect(cleared.id == "2207388")
    #expect(cleared.impact == .low)  // lowest
    #expect(cleared.details.eventKind == .slowTraffic)
    #expect(isNear(cleared.startTime, try utc("2024-10-08T16:20:03Z") + 0.437))
    #expect(isNear(cleared.endTime, try utc("2024-10-08T17:05:46Z") + 0.215))
    #expect(isNear(cleared.entryTime, try utc("2024-10-08T16:20:03Z") + 0.441))
    #expect(!cleared.isActive(at: try utc("2024-10-08T17:05:47Z")))
    #expect(
      pairs(cleared.location.polyline) == [[53.304918, -6.4025117], [53.304918, -6.4025117]])
    #expect(cleared.details.delayInSeconds == nil)
    #expect(
      cleared.sourceTexts.map(\.text) == [
        "KIND : Slow traffic\nWhere : N7 westbound at junction 2 (Kingswood)\nStatus : Cleared"
      ])

    let cancelled = try #require(try decode("v2_event_cancelled.xml").incidents.first)
    #expect(cancelled.id == "2207402")
    #expect(cancelled.impact == .minor)
    #expect(cancelled.details.eventKind == .stationaryTraffic)
    #expect(cancelled.startTime == (try utc("2024-10-08T16:48:00Z")))
    // Overall end 20:00 UTC; withdrawn at the version time.
    #expect(cancelled.endTime == (try utc("2024-10-08T17:11:30Z")) + 0.5)
    #expect(cancelled.entryTime == (try utc("2024-10-08T17:11:30Z")) + 0.5)  // no creation time
    #expect(pairs(cancelled.location.polyline) == [[53.247301, -6.1228], [53.247301, -6.1228]])
  }

  /// Nine situations of one record each, typed only by their xsi:type and impacted only by the
  /// situation's `overallSeverity`, with French and German comments.
  @Test func bilingualSituationPublication() throws {
    let document = try decode("v2_bilingual_situations.xml")
    #expect(document.problems.isEmpty)
    #expect(document.isFullRefresh)
    #expect(isNear(document.publicationTime, try utc("2024-02-10T09:07:31Z") + 0.482))
    #expect(
      document.incidents.map(\.id) == [
        "VS-0412_3", "VS-0423_1", "VS-0415_1", "VS-0418_1", "VS-0421_1", "VS-0427_1",
        "VS-0430_1", "VS-0433_1", "VS-0436_1",
      ])
    #expect(
      document.incidents.map(\.type) == [
        .congestion, .accident, .laneRestriction, .other, .weather, .other, .construction,
        .plannedEvent, .roadClosure,
      ])
    #expect(
      document.incidents.map(\.impact) == [
        .major, .major, .minor, .low, .minor, .minor, .minor, .minor, .major,
      ])
    #expect(
      document.incidents.map(\.details.eventKind) == [
        .slowTraffic, .accident, nil, nil, nil, nil, .roadworks, .majorEvent, nil,
      ])
    #expect(
      document.incidents.map(\.isRoadClosed) == [
        false, false, false, false, false, false, false, false, true,
      ])
    #expect(document.incidents.allSatisfy { $0.details.countryCode == "CH" })

    let slow = document.incidents[0]
    #expect(slow.originalId == "VS-0412")
    #expect(slow.startTime == (try utc("2024-02-10T08:00:00Z")))
    #expect(slow.endTime == (try utc("2099-12-30T23:00:00Z")))
    #expect(slow.entryTime == (try utc("2024-02-10T07:55:00Z")))
    #expect(pairs(slow.location.polyline) == [[46.2331, 7.3606], [46.2331, 7.3606]])
    #expect(
      slow.sourceTexts == [
        LocalizedText(
          text: "Trafic ralenti entre Sion et Sierre", language: try LanguageCode("fr")),
        LocalizedText(
          text: "Stockender Verkehr zwischen Sitten und Siders", language: try LanguageCode("de")),
      ])
    // A probable accident of the future, summer time to winter time.
    let accident = document.incidents[1]
    #expect(accident.startTime == (try utc("2099-07-01T08:00:00Z")))
    #expect(accident.endTime == (try utc("2099-11-15T08:00:00Z")))
    #expect(document.incidents[2].endTime == nil)
    #expect(
      document.incidents[4].vehicleRestrictions[.all]?.isDrivingWithoutSnowChainsRestricted == true)
    #expect(document.incidents.filter { !$0.vehicleRestrictions.isEmpty }.count == 1)
    // The empty German value of the roadworks comment is dropped.
    #expect(
      document.incidents[6].sourceTexts == [
        LocalizedText(text: "Travaux de revêtement", language: try LanguageCode("fr"))
      ])
    #expect(
      document.incidents[8].sourceTexts.map(\.language) == [
        try LanguageCode("fr"), try LanguageCode("de"),
      ])
  }

  /// The South Tyrol publication of `Fixtures.shared` (`datex2/`, a development checkout's samples) when present: the same shape
  /// as `v2_bilingual_situations.xml`, which the test above reads exactly.
  @Test func everyMultiRecordPublicationDecodesWithoutProblems() throws {
    var documents = [
      ("v2_bilingual_situations.xml", try ownFixture("datex2", "v2_bilingual_situations.xml"))
    ]
    if let shared = Fixtures.shared {
      let name = "it_situation_publication_v2.xml"
      documents.append(
        (name, try Data(contentsOf: shared.appendingPathComponent("datex2/\(name)"))))
    }
    for (name, data) in documents {
      #expect(DATEXIIDecoder.recognizes(data), "\(name)")
      let document = try DATEXIIDecoder.decode(data, options: options)
      #expect(document.problems.isEmpty, "\(name)")
      #expect(document.incidents.count == 9, "\(name)")
      #expect(Set(document.incidents.map(\.type)).count == 8, "\(name)")
      #expect(
        document.incidents.allSatisfy { $0.sourceTexts.allSatisfy { !$0.text.isEmpty } },
        "\(name)")
      #expect(document.incidents.filter(\.isRoadClosed).count == 1, "\(name)")
    }
  }

  /// Measured data (loop detectors whose places are in a site table the document does not
  /// carry) is DATEX II but yields neither incidents nor flow; the NTIS MIDAS sample of
  /// `Fixtures.shared` (`datex2/`, a development checkout's samples) is checked too when present.
  @Test func measuredDataIsRecognisedAndHasNoIncidents() throws {
    var documents = [("v2_measured_data.xml", try ownFixture("datex2", "v2_measured_data.xml"))]
    if let shared = Fixtures.shared {
      let name = "uk_ntis_MIDAS_loop_measured.xml"
      documents.append(
        (name, try Data(contentsOf: shared.appendingPathComponent("datex2/\(name)"))))
    }
    for (name, data) in documents {
      #expect(DATEXIIDecoder.recognizes(data), "\(name)")
      #expect(FeedFormat.detect(data) == .datex2, "\(name)")
      let document = try DATEXIIDecoder.decode(data, options: options)
      #expect(document.incidents.isEmpty, "\(name)")
      #expect(document.flowObservations.isEmpty, "\(name)")
      #expect(document.problems.isEmpty, "\(name)")
      #expect(document.publicationTime != nil, "\(name)")
    }
    let own = try decode("v2_measured_data.xml")
    #expect(isNear(own.publicationTime, try utc("2024-10-08T16:45:02Z") + 0.118))
    #expect(own.isFullRefresh)
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

  @Test func entityExpansionBombIsRefusedWithItsDTD() throws {
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
      (error as? FeedError)?.reason == XMLGuard.dtdRefusal
        && (error as? FeedError)?.location == "byte 21"
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
      #expect(error.reason == XMLGuard.dtdRefusal)
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
