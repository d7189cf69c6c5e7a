import Codec
import Foundation
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficFeeds

@Suite struct Open511DecoderTests {
  let options = FeedOptions(
    sourceName: "test", defaultLanguage: .enCA, now: Date(timeIntervalSince1970: 1_750_000_000))

  func decode(_ name: String) throws -> FeedDocument {
    try Open511Decoder.decode(ownFixture("open511", name), options: options)
  }

  @Test func jsonEvents() throws {
    let document = try decode("events.json")
    #expect(document.isFullRefresh)
    #expect(
      document.incidents.map(\.originalId) == [
        "drivebc.ca/DBC-100", "drivebc.ca/DBC-101", "drivebc.ca/DBC-102",
      ])
    // Each update a version: the `updated` time, as Unix seconds (DBC-100's is
    // 2025-02-03T09:30:00-08:00).
    #expect(
      document.incidents.map(\.id) == [
        "drivebc.ca/DBC-100_1738603800", "drivebc.ca/DBC-101_1738562400",
        "drivebc.ca/DBC-102_1738548900",
      ])
    #expect(document.incidents.map(\.type) == [.construction, .weather, .accident])
    #expect(document.incidents.map(\.impact) == [.critical, .minor, .low])
    #expect(document.incidents.map(\.isRoadClosed) == [true, false, false])
    #expect(document.incidents.map(\.details.eventKind) == [.maintenanceWork, .ice, .accident])

    let works = document.incidents[0]
    // Recurring 20:00-05:00 from 10 to 14 February, Vancouver time (UTC-8).
    #expect(works.startTime == (try utc("2025-02-11T04:00:00Z")))
    #expect(works.endTime == (try utc("2025-02-15T13:00:00Z")))
    #expect(works.entryTime == (try utc("2025-02-01T16:00:00Z")))
    #expect(works.details.roadName == "Highway 1")
    #expect(works.details.fromJunction == "Exit 10")
    #expect(works.details.toJunction == "Exit 12")
    #expect(works.details.area == "Lower Mainland")
    #expect(works.details.timeZone?.identifier == "America/Vancouver")
    #expect(
      pairs(works.location.polyline) == [[49.2, -122.9], [49.21, -122.95], [49.22, -123.0]])
    #expect(
      works.sourceTexts == [
        LocalizedText(text: "Bridge deck repairs", language: .enCA),
        LocalizedText(
          text: "Highway 1 closed westbound between Exit 10 and Exit 12.", language: .enCA),
      ])

    let ice = document.incidents[1]
    #expect(ice.startTime == (try utc("2025-02-03T06:00:00Z")))
    #expect(ice.endTime == nil)  // open-ended interval
    #expect(ice.details.lanesClosed == 1)
    #expect(ice.details.totalLanes == 3)
    #expect(pairs(ice.location.polyline) == [[49.7, -123.15], [49.7, -123.15]])  // WKT

    let collision = document.incidents[2]
    // Naive times at the offset of `updated` (-08:00); archived at its update time.
    #expect(collision.startTime == (try utc("2025-02-03T01:00:00Z")))
    #expect(collision.endTime == (try utc("2025-02-03T02:15:00Z")))

    #expect(
      document.problems.map(\.location) == [
        "events[3] id=drivebc.ca/DBC-103", "events[4] id=drivebc.ca/DBC-104",
      ])
    #expect(
      document.problems.map(\.reason) == ["the event has no geography", "roads: expected an array"])
  }

  @Test func xmlEvents() throws {
    let document = try decode("events.xml")
    #expect(document.incidents.map(\.originalId) == ["quebec.ca/Q-1", "quebec.ca/Q-2"])
    #expect(
      document.incidents.map(\.id) == ["quebec.ca/Q-1_1743591600", "quebec.ca/Q-2_1736935200"])
    #expect(document.incidents.map(\.type) == [.construction, .weather])
    #expect(document.incidents.map(\.impact) == [.minor, .major])
    let works = document.incidents[0]
    #expect(works.startTime == (try utc("2025-04-07T13:00:00Z")))
    #expect(works.endTime == (try utc("2025-04-08T19:00:00Z")))
    #expect(works.entryTime == (try utc("2025-04-01T11:00:00Z")))
    #expect(pairs(works.location.polyline) == [[45.5, -73.6], [45.51, -73.62]])
    #expect(works.details.roadName == "Autoroute 40")
    #expect(works.details.lanesClosed == 1)
    #expect(works.details.totalLanes == 3)
    #expect(!works.isRoadClosed)
    #expect(
      works.sourceTexts == [
        LocalizedText(text: "Travaux de réfection", language: try LanguageCode("fr")),
        LocalizedText(text: "Resurfacing work", language: try LanguageCode("en")),
        LocalizedText(text: "Une voie fermée en direction nord.", language: try LanguageCode("fr")),
      ])
    let snow = document.incidents[1]
    #expect(snow.details.eventKind == .snow)
    #expect(snow.startTime == (try utc("2025-01-15T05:00:00Z")))  // midnight in Montreal
    #expect(snow.endTime == nil)
    #expect(pairs(snow.location.polyline) == [[46.8, -71.2], [46.8, -71.2]])
    #expect(document.problems.count == 1)
    #expect(
      document.problems.first?.location?.hasPrefix("event[3] id=quebec.ca/Q-3 (line ") == true)
  }

  @Test(
    arguments: [
      ("CONSTRUCTION", [], TrafficIncidentType.construction), ("SPECIAL_EVENT", [], .plannedEvent),
      ("INCIDENT", ["ACCIDENT"], .accident), ("INCIDENT", ["SPILL"], .roadHazard),
      ("INCIDENT", [], .other), ("WEATHER_CONDITION", ["STRONG_WINDS"], .weather),
      ("ROAD_CONDITION", ["PASSABLE_WITH_CARE"], .roadHazard),
      ("ROAD_CONDITION", ["SURFACE_WATER_HAZARD"], .weather),
    ] as [(String, [String], TrafficIncidentType)])
  func typeMapping(eventType: String, subtypes: [String], type: TrafficIncidentType) throws {
    let event: [String: Any] = [
      "id": "x.org/1", "event_type": eventType, "event_subtypes": subtypes,
      "geography": ["type": "Point", "coordinates": [1.0, 2.0]],
    ]
    let data = try JSONSerialization.data(withJSONObject: ["events": [event]])
    #expect(try Open511Decoder.decode(data, options: options).incidents.map(\.type) == [type])
  }

  @Test(
    arguments: [
      (
        "Réfection de la chaussée", nil, TrafficIncidentType.construction,
        TrafficEventKind?.some(.roadworks)
      ),
      ("TRAVAUX D'ÉGOUT", nil, .construction, .roadworks),
      ("Underground infrastructure repair", nil, .construction, .roadworks),
      ("Opération de déneigement", nil, .construction, .maintenanceWork),
      ("Fermeture complète de la rue Sherbrooke", nil, .roadClosure, nil),
      ("Fermeture de deux voies", nil, .laneRestriction, nil),
      ("Entrave sur l'autoroute 40", nil, .laneRestriction, nil),
      ("Collision sur le pont", nil, .accident, .accident),
      ("Défilé de la Saint-Patrick", nil, .plannedEvent, .majorEvent),
      // The description is read when the headline says nothing; closures only in headlines.
      (
        "Rue Meilleur", "Stationnement interdit dans la zone des travaux.", .construction,
        .roadworks
      ),
      ("Rue Meilleur", "Aucune voie fermée.", .unknown, nil),
      ("Chemin de la Ferme", nil, .unknown, nil),
    ] as [(String, String?, TrafficIncidentType, TrafficEventKind?)])
  func untypedEventsAreClassifiedByTheirWords(
    headline: String, description: String?, type: TrafficIncidentType, kind: TrafficEventKind?
  ) throws {
    var event: [String: Any] = [
      "id": "x.org/1", "headline": headline, "lang": "fr",
      "geography": ["type": "Point", "coordinates": [-73.6, 45.5]],
    ]
    event["description"] = description
    let data = try JSONSerialization.data(withJSONObject: ["events": [event]])
    let incident = try #require(try Open511Decoder.decode(data, options: options).incidents.first)
    #expect(incident.type == type)
    #expect(incident.details.eventKind == kind)
    #expect(!incident.isRoadClosed)  // words never close a road; only a road `state` does
  }

  @Test func aKnownTypeWinsOverWords() throws {
    let text = """
      {"events": [{"id": "x.org/1", "event_type": "INCIDENT", "headline": "Travaux",
                   "geography": {"type": "Point", "coordinates": [-73.6, 45.5]}}]}
      """
    let document = try Open511Decoder.decode(Data(text.utf8), options: options)
    #expect(document.incidents.map(\.type) == [.other])
  }

  @Test func decimalCoordinatesSurviveExactly() throws {
    // Read as written, correctly rounded: the 18-digit pair (as PostGIS writes Montreal's
    // geometry) came out one unit in the last place off through JSONSerialization.
    let text = """
      {"events": [{"id": "mtl/1", "event_type": "CONSTRUCTION",
        "geography": {"type": "LineString", "coordinates":
          [[-73.56789, 45.50884], [-73.6586093902588033, 45.5703130353666026], [-122.95, 49.21]]}}]}
      """
    let document = try Open511Decoder.decode(Data(text.utf8), options: options)
    let vertices = try #require(document.incidents.first).location.polyline.vertices
    #expect(vertices.map(\.latitude) == [45.50884, 45.5703130353666026, 49.21])
    #expect(vertices.map(\.longitude) == [-73.56789, -73.6586093902588033, -122.95])
  }

  @Test func oneEventDecodesOnItsOwnWithPathsToTheFault() throws {
    func event(_ text: String) throws -> JSONValue { try JSONParser.parse(Data(text.utf8)) }
    let good = try event(
      #"{"id": 42, "event_type": "CONSTRUCTION", "geography": {"type": "Point", "coordinates": [-73.6, 45.5]}}"#
    )
    let incident = try Open511Decoder.decodeEvent(good, at: "events[7]", options: options)
    #expect(incident.id == "42")
    #expect(incident.type == .construction)

    let cases: [(String, JSONFieldError)] = [
      (
        #"{"id": "a", "roads": [{"lanes_closed": -1}], "geography": {"type": "Point", "coordinates": [1, 2]}}"#,
        JSONFieldError(path: "events[7].roads[0].lanes_closed", reason: "-1 is not a lane count")
      ),
      (
        #"{"id": "a", "geography": {"type": "LineString", "coordinates": [[1, 2], [1, "x"]]}}"#,
        JSONFieldError(
          path: "events[7].geography.coordinates[1][1]",
          reason: "expected a number, got a string")
      ),
      (
        #"{"id": "a", "schedule": {"recurring_schedules": [3]}, "geography": "POINT (1 2)"}"#,
        JSONFieldError(
          path: "events[7].schedule.recurring_schedules[0]", reason: "expected an object")
      ),
      (#"{"id": "a"}"#, JSONFieldError(path: "events[7]", reason: "the event has no geography")),
      ("[]", JSONFieldError(path: "events[7]", reason: "expected an object")),
    ]
    for (text, expected) in cases {
      let value = try event(text)
      #expect(throws: expected) {
        _ = try Open511Decoder.decodeEvent(value, at: "events[7]", options: options)
      }
      // In a document, the problem is placed at the event and its id.
      let problem = Open511Decoder.problem(expected, in: value, at: "events[7]")
      #expect(problem.location == (value["id"] == nil ? "events[7]" : "events[7] id=a"))
    }
    let problem = Open511Decoder.problem(cases[0].1, in: try event(cases[0].0), at: "events[7]")
    #expect(problem.reason == "roads[0].lanes_closed: -1 is not a lane count")
  }

  // MARK: Publisher shapes

  /// Open511 JSON as the Open511 reference library writes it from TMDD: `meta`, schedules of
  /// one interval (one open-ended) at the UTC offset of each event's `updated`, roads with
  /// `from` / `to`, points.
  @Test func tmddConversion() throws {
    let data = try ownFixture("open511", "tmdd_events.json")
    #expect(Open511Decoder.recognizes(data))
    let document = try Open511Decoder.decode(data, options: options)
    #expect(document.problems.isEmpty)
    #expect(document.isFullRefresh)
    #expect(
      document.incidents.map(\.originalId) == [
        "tmdd.example.net/4410", "tmdd.example.net/4417", "tmdd.example.net/388",
      ])
    #expect(
      document.incidents.map(\.id) == [
        "tmdd.example.net/4410_1379029320", "tmdd.example.net/4417_1379029320",
        "tmdd.example.net/388_1379078465",
      ])
    #expect(document.incidents.map(\.type) == [.plannedEvent, .other, .accident])
    #expect(document.incidents.map(\.impact) == [.low, .low, .major])
    #expect(document.incidents.map(\.details.eventKind) == [.majorEvent, nil, .accident])
    #expect(document.incidents.map(\.isRoadClosed) == [false, false, false])

    let special = document.incidents[0]
    // "2013-09-12T18:42/" at the -05:00 of `updated`: open-ended.
    #expect(special.startTime == (try utc("2013-09-12T23:42:00Z")))
    #expect(special.endTime == nil)
    #expect(special.entryTime == (try utc("2013-09-12T23:42:00Z")))
    #expect(special.details.roadName == "US-75")
    #expect(special.details.fromJunction == "ARENA BLVD")
    #expect(special.details.toJunction == nil)
    #expect(
      pairs(special.location.polyline) == [[32.790317, -96.804571], [32.790317, -96.804571]])
    #expect(
      special.sourceTexts == [LocalizedText(text: "Stadium traffic on US-75 N", language: .enCA)])

    let incident = document.incidents[1]
    #expect(incident.startTime == (try utc("2013-09-12T23:15:00Z")))
    #expect(incident.endTime == (try utc("2013-09-13T00:00:00Z")))  // past midnight UTC
    #expect(incident.details.roadName == "SH-183")

    // Another offset (-06:00) in the same document.
    let accident = document.incidents[2]
    #expect(accident.startTime == (try utc("2013-09-13T13:00:00Z")))
    #expect(accident.endTime == (try utc("2013-09-13T14:20:00Z")))
    #expect(accident.entryTime == (try utc("2013-09-13T13:21:05Z")))
    #expect(accident.details.roadName == "I-30")
    #expect(accident.details.fromJunction == "Mile 13")
    #expect(accident.details.toJunction == "Mile 14")
    #expect(
      accident.sourceTexts == [
        LocalizedText(text: "Collision on I-30 E", language: .enCA),
        LocalizedText(text: "Two vehicles blocking the left lane near mile 14", language: .enCA),
      ])
    #expect(
      pairs(accident.location.polyline) == [[32.744809, -97.118275], [32.744809, -97.118275]])
  }

  /// The open511-server fixture form: a JSON list of `open511.roadevent` records, each a 2012
  /// draft `RoadEvent` in XML (`fields.xml_data`, character references, French with an
  /// English title) and its WKT geometry (`fields.geom`, 16 decimals).
  @Test func serverRecordsWithEmbeddedXMLAndWKT() throws {
    let data = try ownFixture("open511", "server_roadevents.json")
    #expect(Open511Decoder.recognizes(data))
    let document = try Open511Decoder.decode(data, options: options)
    #expect(document.problems.isEmpty)
    #expect(document.incidents.count == 5)
    let jurisdiction = "converted.ville.example.qc.ca/"
    #expect(
      document.incidents.map(\.id)
        == [
          "3c9e1f0a7b5d4e26a18f02c47d9b6e51", "8b21d6c04f9a47e3b5c7e90a12f3d468",
          "f0d47a3c92e14b58a6c1b7e2d3059f84", "27e5b8d1c06f4a93b2d8e4f1a7c3960b",
          "a96c3e0f5d7b41288e4fb1d02c6a7e35",
        ].map { jurisdiction + $0 })
    // The draft RoadEvent has no type; the titles say what the works are.
    #expect(document.incidents.map(\.type) == Array(repeating: .construction, count: 5))
    #expect(
      document.incidents.map(\.details.eventKind) == [
        .roadworks, .roadworks, .roadworks, .roadworks, .maintenanceWork,
      ])
    #expect(document.incidents.map(\.impact) == Array(repeating: .unknown, count: 5))
    #expect(document.incidents.allSatisfy { !$0.isRoadClosed })
    #expect(document.incidents.map { $0.location.polyline.vertices.count } == [4, 2, 7, 2, 2])

    let french = try LanguageCode("fr")
    let first = document.incidents[0]
    #expect(first.startTime == (try utc("2013-05-13T00:00:00Z")))
    #expect(first.endTime == (try utc("2013-06-22T00:00:00Z")))  // EndDate 2013-06-21 inclusive
    #expect(
      first.location.polyline.vertices.first
        == (try GeoCoordinates(latitude: 45.4421877219403962, longitude: -75.7248731613159180)))
    #expect(
      first.location.polyline.vertices.last
        == (try GeoCoordinates(latitude: 45.4455932410478032, longitude: -75.7281209945678711)))
    #expect(
      first.location.description
        == "Boulevard Saint-Joseph (direction sud) entre Montclair et Saint-Raymond")
    #expect(
      first.sourceTexts == [
        LocalizedText(text: "Reconstruction de la chaussée", language: french),
        LocalizedText(
          text:
            "Une voie fermée dans chaque direction pendant les travaux. Stationnement interdit. Accès aux commerces maintenu.",
          language: french),
      ])

    let point = document.incidents[1]
    #expect(point.location.lengthInMeters == 0)  // a POINT
    #expect(
      pairs(point.location.polyline) == [
        [45.4592218000000031, -75.7413302063941956], [45.4592218000000031, -75.7413302063941956],
      ])
    #expect(point.sourceTexts.first?.text == "Réhabilitation d'une conduite d'égout")
    #expect(point.location.description == "Rue Laval")
    #expect(document.incidents[2].location.description == nil)  // no AffectedRoads

    // A French and an English title, no description.
    #expect(
      document.incidents[3].sourceTexts == [
        LocalizedText(text: "Réparation d'un ponceau", language: french),
        LocalizedText(text: "Culvert repair", language: try LanguageCode("en")),
      ])
    let lighting = document.incidents[4]
    #expect(lighting.startTime == (try utc("2012-10-01T00:00:00Z")))
    #expect(lighting.endTime == (try utc("2013-11-01T00:00:00Z")))
  }

  /// Every Open511 JSON document of the publisher shapes above, and the TMDD conversions and
  /// open511-server records of `Fixtures.shared` (`open511/`) when present.
  @Test func everyPublisherShapedDocumentDecodesWithoutProblems() throws {
    var documents = try ["tmdd_events.json", "server_roadevents.json"].map {
      ($0, try ownFixture("open511", $0))
    }
    if let shared = Fixtures.shared?.appendingPathComponent("open511") {
      documents += try ["tmdd_output_1.json", "tmdd_output_2.json", "montreal_five.json"].map {
        ($0, try Data(contentsOf: shared.appendingPathComponent($0)))
      }
    }
    #expect(documents.count == (Fixtures.shared == nil ? 2 : 5))
    for (name, data) in documents {
      #expect(Open511Decoder.recognizes(data), "\(name)")
      #expect(FeedFormat.detect(data) == .open511, "\(name)")
      let document = try Open511Decoder.decode(data, options: options)
      #expect(document.problems.isEmpty, "\(name)")
      #expect(!document.incidents.isEmpty, "\(name)")
      #expect(document.incidents.allSatisfy { $0.startTime != nil }, "\(name)")
      #expect(document.incidents.allSatisfy { !$0.sourceTexts.isEmpty }, "\(name)")
      #expect(document.incidents.allSatisfy { $0.id.contains("/") }, "\(name)")
    }
  }

  @Test func fuzzSeedsAreRecognisedAndDecode() throws {
    let folder = Fixtures.repositoryRoot.appendingPathComponent(
      "Tests/TrafficFeedsTests/Fuzz/open511")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    #expect(names.count >= 3)
    var incidents = 0
    for name in names {
      let data = try Data(contentsOf: folder.appendingPathComponent(name))
      #expect(Open511Decoder.recognizes(data), "\(name)")
      incidents += try Open511Decoder.decode(data, options: options).incidents.count
    }
    #expect(incidents == 5)  // 1 + 1 + 2 (the XML seed; its third event has no place) + 1
  }

  // MARK: Bad input

  @Test func recognisesOnlyOpen511() throws {
    #expect(Open511Decoder.recognizes(try ownFixture("open511", "events.json")))
    #expect(Open511Decoder.recognizes(try ownFixture("open511", "events.xml")))
    #expect(!Open511Decoder.recognizes(try ownFixture("datex2", "v3_situation.xml")))
    #expect(!Open511Decoder.recognizes(Data("{\"features\": []}".utf8)))
    #expect(!Open511Decoder.recognizes(Data()))
  }

  @Test func malformedJSONNamesTheCharacter() {
    #expect {
      _ = try Open511Decoder.decode(Data("{\"events\": [{\"id\": }]}".utf8), options: options)
    } throws: { error in
      guard let error = error as? FeedError else { return false }
      return error.format == .open511
        && error.reason == "not valid JSON: expected a value, found '}'"
        && error.location == "line 1, column 20 (byte 19)"
    }
  }

  @Test func deeplyNestedJSONIsRejected() {
    let text =
      "{\"events\": " + String(repeating: "[", count: 10_000)
      + String(repeating: "]", count: 10_000) + "}"
    #expect {
      _ = try Open511Decoder.decode(Data(text.utf8), options: options)
    } throws: { error in
      (error as? FeedError)?.reason.contains("nesting deeper than") == true
    }
  }

  @Test func giganticNumbersAndWrongTypesEndInErrorsNotCrashes() throws {
    #expect(throws: FeedError.self) {
      _ = try Open511Decoder.decode(Data("{\"events\": [1e999]}".utf8), options: options)
    }
    let text = """
      {"events": [
        "not an object",
        {"id": "x.org/1", "geography": {"type": "Point", "coordinates": [1e300, 2]}},
        {"id": "x.org/2", "roads": [{"lanes_closed": 123456789012345678901234567890}],
         "geography": {"type": "Point", "coordinates": [1, 2]}},
        {"id": ["x"], "geography": {"type": "Point", "coordinates": [1, 2]}}
      ]}
      """
    let document = try Open511Decoder.decode(Data(text.utf8), options: options)
    #expect(document.incidents.isEmpty)
    #expect(
      document.problems.map(\.location) == [
        "events[0]", "events[1] id=x.org/1", "events[2] id=x.org/2", "events[3]",
      ])
    #expect(document.problems[0].reason == "expected an object")
    #expect(document.problems[1].reason.contains("geography"))
    #expect(document.problems[2].reason.contains("lanes_closed"))
    #expect(document.problems[3].reason == "id: expected a string")
  }

  @Test func hostileXMLIsRejected() {
    let bomb = """
      <?xml version="1.0"?><!DOCTYPE open511 [<!ENTITY a "aaaaaaaaaa">\
      <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">\
      <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">\
      <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;"><!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">\
      <!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">]>\
      <open511><events><event><headline>&h;</headline></event></events></open511>
      """
    #expect {
      _ = try Open511Decoder.decode(Data(bomb.utf8), options: options)
    } throws: { error in
      (error as? FeedError)?.reason == XMLGuard.dtdRefusal
    }
    #expect {
      _ = try Open511Decoder.decode(Data("<open511><events><event><id>x".utf8), options: options)
    } throws: { error in
      (error as? FeedError)?.location?.hasPrefix("line 1") == true
    }
    #expect {
      _ = try Open511Decoder.decode(Data("<rss><channel/></rss>".utf8), options: options)
    } throws: { error in
      (error as? FeedError)?.reason.contains("not an Open511 document") == true
    }
  }

  @Test func badScheduleSkipsTheEvent() throws {
    let text = """
      {"events": [
        {"id": "x.org/1", "schedule": {"intervals": ["tomorrow/"]},
         "geography": {"type": "Point", "coordinates": [1, 2]}},
        {"id": "x.org/2", "schedule": {"intervals": ["2025-01-02T00:00/2025-01-01T00:00"]},
         "geography": {"type": "Point", "coordinates": [1, 2]}}
      ]}
      """
    let document = try Open511Decoder.decode(Data(text.utf8), options: options)
    #expect(document.incidents.isEmpty)
    #expect(document.problems.map(\.reason.isEmpty) == [false, false])
    #expect(document.problems[0].reason.contains("\"tomorrow\""))
    #expect(document.problems[1].reason.contains("ends"))
  }
}

/// Open511 XML of Repentigny (Quebec) from the Open511 API test suite (see
/// `Fixtures/README.md`): `gml:coordinates` longitude first, date-only recurring schedules,
/// no time zone, bare `INCIDENT` types; expected values read from the file by hand.
@Suite struct Open511RealSampleTests {
  @Test func repentignyXML() throws {
    let data = try ownFixture("open511", "real-repentigny-api-tests.xml")
    #expect(FeedFormat.detect(data) == .open511)
    let document = try Open511Decoder.decode(data, options: FeedOptions(sourceName: "test"))
    #expect(document.problems.isEmpty)
    #expect(
      document.incidents.map(\.originalId) == [
        "test.open511.org/1", "test.open511.org/2", "test.open511.org/7",
      ])
    // The publisher's type wins over the words ("Excavation d'égouts" is an INCIDENT).
    #expect(document.incidents.map(\.type) == [.other, .other, .construction])
    #expect(document.incidents.map(\.impact) == [.low, .low, .major])

    let sewer = document.incidents[0]
    #expect(sewer.startTime == (try utc("2013-05-08T00:00:00Z")))
    #expect(sewer.endTime == (try utc("2013-05-10T00:00:00Z")))
    #expect(
      pairs(sewer.location.polyline) == [
        [45.722562664000002, -73.468033075299999], [45.723641236500001, -73.467056751300007],
        [45.724540030999997, -73.466262817399993],
      ])
    #expect(sewer.details.roadName == "Iberville")
    #expect(sewer.details.fromJunction == "Bonaventure")
    #expect(sewer.details.toJunction == "Bord-de-l'eau")

    let archived = document.incidents[1]
    #expect(isNear(archived.entryTime, try utc("2013-05-24T13:14:21Z") + 0.688587))
    #expect(archived.endTime == (try utc("2013-05-20T00:00:00Z")))
    #expect(
      pairs(archived.location.polyline) == [
        [45.727479736900001, -73.471326828000002], [45.727479736900001, -73.471326828000002],
      ])

    let works = document.incidents[2]
    #expect(works.startTime == (try utc("2013-05-06T00:00:00Z")))
    #expect(works.endTime == (try utc("2013-06-01T00:00:00Z")))
    #expect(works.sourceTexts.first?.language == (try LanguageCode("fr")))
  }
}

extension Open511DecoderTests {
  /// DriveBC (api.open511.gov.bc.ca) writes its schedule intervals in UTC (an event created at
  /// 16:08:02-07:00 starts "23:08"); other publishers' offset-less times stay local.
  @Test func driveBCIntervalsAreUTC() throws {
    let text = """
      {"events": [
        {"id": "drivebc.ca/DBC-53013", "status": "ACTIVE", "event_type": "INCIDENT",
         "jurisdiction_url": "https://api.open511.gov.bc.ca/jurisdiction",
         "severity": "MAJOR", "created": "2023-06-05T16:08:02-07:00",
         "updated": "2025-04-10T09:28:05-07:00",
         "geography": {"type": "Point", "coordinates": [-122.37, 52.21]},
         "roads": [{"name": "Highway 1", "direction": "BOTH", "state": "CLOSED"}],
         "schedule": {"intervals": ["2023-06-05T23:08/"]}, "+linear_reference_km": -1},
        {"id": "drivebc.ca/DBC-90617", "status": "ACTIVE", "event_type": "CONSTRUCTION",
         "url": "https://api.open511.gov.bc.ca/events/drivebc.ca/DBC-90617",
         "event_subtypes": ["ROAD_CONSTRUCTION"], "severity": "MINOR",
         "updated": "2026-04-29T11:40:00-07:00",
         "geography": {"type": "Point", "coordinates": [-120.78, 49.66]},
         "schedule": {"intervals": ["2026-04-29T18:34/2026-10-02T06:59"]}},
        {"id": "example.org/1", "event_type": "CONSTRUCTION", "updated": "2026-04-29T11:40:00-07:00",
         "geography": {"type": "Point", "coordinates": [-120.78, 49.66]},
         "schedule": {"intervals": ["2026-04-29T18:34/2026-10-02T06:59"]}}
      ]}
      """
    let document = try Open511Decoder.decode(Data(text.utf8), options: options)
    #expect(document.problems.isEmpty)
    let closure = document.incidents[0]
    #expect(closure.startTime == (try utc("2023-06-05T23:08:00Z")))
    #expect(closure.endTime == nil)
    #expect(closure.type == .roadClosure)
    #expect(closure.impact == .critical)
    #expect(document.incidents[1].startTime == (try utc("2026-04-29T18:34:00Z")))
    #expect(document.incidents[1].endTime == (try utc("2026-10-02T06:59:00Z")))
    #expect(document.incidents[2].startTime == (try utc("2026-04-30T01:34:00Z")))
  }
}
