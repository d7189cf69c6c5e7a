import Foundation
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficFeeds

private func ownFixture(_ name: String) throws -> Data {
  try Data(
    contentsOf: Fixtures.repositoryRoot.appendingPathComponent(
      "Tests/TrafficFeedsTests/Fixtures/waze/\(name)"))
}

private let options = FeedOptions(sourceName: "test")

@Suite struct WazeDecoderTests {
  @Test func mapsAlertsOfEachKind() throws {
    let document = try WazeDecoder.decode(ownFixture("alerts_and_jams.json"), options: options)
    #expect(document.publicationTime == Date(timeIntervalSince1970: 1_714_659_060))
    let alerts = Array(document.incidents.prefix(5))
    #expect(
      alerts.map(\.originalId) == (1...5).map { "0b2f6a0e-7a1c-4a8e-9d55-31c7f6e1a00\($0)" })
    #expect(
      alerts.map(\.type) == [.accident, .roadClosure, .disabledVehicle, .weather, .congestion])
    #expect(alerts.map(\.impact) == [.major, .critical, .minor, .minor, .critical])
    #expect(alerts.map(\.isRoadClosed) == [false, true, false, false, false])
    #expect(
      alerts.map(\.details.eventKind) == [
        .accident, .majorEvent, .brokenDownVehicle, .fog, .stationaryTraffic,
      ])
    let accident = alerts[0]
    #expect(accident.id == accident.originalId)
    #expect(accident.startTime == Date(timeIntervalSince1970: 1_714_658_400))
    #expect(accident.entryTime == accident.startTime)
    #expect(accident.endTime == nil)
    #expect(
      accident.location.polyline.vertices == [
        try GeoCoordinates(latitude: 39.7817, longitude: -89.6501),
        try GeoCoordinates(latitude: 39.7817, longitude: -89.6501),
      ])
    #expect(accident.location.description == "I-55 N")
    #expect(accident.details.area == "Springfield, IL")
    #expect(accident.details.roadName == "I-55 N")
    #expect(accident.details.countryCode == "US")
    #expect(
      accident.sourceTexts == [LocalizedText(text: "Two cars, right lane blocked", language: .enUS)]
    )
    #expect(alerts[1].startTime == Date(timeIntervalSince1970: 1_714_650_000.5))
  }

  @Test func turnsJamsIntoCongestionAndFlowObservations() throws {
    let document = try WazeDecoder.decode(ownFixture("alerts_and_jams.json"), options: options)
    let jams = Array(document.incidents.dropFirst(5))
    #expect(jams.map(\.originalId) == ["987654321", "jam-closed-2", "jam-single-point"])
    #expect(jams.map(\.type) == [.congestion, .congestion, .congestion])
    #expect(jams.map(\.impact) == [.major, .critical, .minor])
    #expect(jams.map(\.isRoadClosed) == [false, true, false])
    let heavy = jams[0]
    #expect(heavy.parentId == "0b2f6a0e-7a1c-4a8e-9d55-31c7f6e1a001")
    #expect(heavy.details.queueLengthInMeters == 450)
    #expect(heavy.details.delayInSeconds == 120)
    #expect(heavy.details.toJunction == "Clear Lake Ave")
    #expect(heavy.details.eventKind == .queuingTraffic)
    #expect(heavy.location.polyline.vertices.count == 3)
    #expect(heavy.location.polyline.vertices[2].latitude == 39.7817)
    #expect(jams[1].details.delayInSeconds == nil)  // Waze's -1 for a blocked road
    #expect(jams[2].location.lengthInMeters == 0)

    let flow = document.flowObservations
    #expect(flow.count == 3)
    let time = Date(timeIntervalSince1970: 1_714_659_060)
    #expect(
      flow[0]
        == FlowObservation(
          polyline: heavy.location.polyline, speedInMetersPerSecond: 2.5,
          freeFlowSpeedInMetersPerSecond: 7.5,  // 450 m in 180 s - 120 s delay
          jamFactor: 6, delayInSeconds: 120, time: time, sourceId: "987654321"))
    #expect(flow[1].jamFactor == 10)
    #expect(flow[1].speedInMetersPerSecond == 0)
    #expect(flow[1].delayInSeconds == nil)
    #expect(flow[1].freeFlowSpeedInMetersPerSecond == nil)
    #expect(flow[2].speedInMetersPerSecond == 5)  // 18 km/h
    #expect(flow[2].jamFactor == 4)
  }

  @Test func skipsPoliceAndReportsBrokenItemsByPath() throws {
    let document = try WazeDecoder.decode(ownFixture("alerts_and_jams.json"), options: options)
    #expect(document.incidents.count == 8)
    #expect(!document.incidents.contains { $0.originalId.hasSuffix("a006") })
    #expect(document.problems.map(\.location) == ["alerts[6].location", "jams[3].line"])
    #expect(document.problems[0].reason.contains("longitude -189.5"))
  }

  @Test func readsArraysOfWindowsAndNumericIds() throws {
    let text = """
      [{"alerts": [{"type": "ACCIDENT", "uuid": 17, "location": {"x": 10, "y": 50},
                    "pubMillis": 1700000000000, "country": "UK"}]},
       {"jams": [{"uuid": 18, "level": 0, "line": [{"x": 10, "y": 50}, {"x": 10.1, "y": 50}],
                  "pubMillis": 1700000000000}], "endTimeMillis": 1700000060000}]
      """
    let document = try WazeDecoder.decode(Data(text.utf8), options: options)
    #expect(document.incidents.map(\.id) == ["17", "18"])
    #expect(document.incidents[0].details.countryCode == "GB")
    #expect(document.incidents[0].impact == .minor)
    #expect(document.incidents[1].impact == .low)
    #expect(document.flowObservations.first?.time == Date(timeIntervalSince1970: 1_700_000_060))
    #expect(document.flowObservations.first?.jamFactor == 0)
  }

  @Test func recognizesWazeOnly() throws {
    #expect(WazeDecoder.recognizes(try ownFixture("alerts_and_jams.json")))
    #expect(!WazeDecoder.recognizes(Data(#"{"incidents": [], "iconCategory": 1}"#.utf8)))
    #expect(!WazeDecoder.recognizes(Data(#"{"jams": []}"#.utf8)))
    // A quiet feed: empty lists in a window that says its times.
    let quiet =
      #"{"alerts": [], "jams": [], "startTimeMillis": 1700000000000, "endTimeMillis": 1700000060000}"#
    #expect(WazeDecoder.recognizes(Data(quiet.utf8)))
    #expect(FeedFormat.detect(Data(quiet.utf8)) == .waze)
  }

  @Test(arguments: [
    (
      #"{"jams": [{"uuid": 1, "line": [{"x": 1, "y": 2}], "pubMillis": 1e400}]}"#,
      "line 1, column 64 (byte 63)"
    ),
    (#"{"alerts": 3}"#, "$"),
    (#""jams""#, "$"),
    (#"{"jams": [{"uuid": 1, "#, "line 1, column 23 (byte 22)"),
  ])
  func rejectsBadDocumentsNamingThePlace(text: String, location: String) {
    #expect {
      try WazeDecoder.decode(Data(text.utf8), options: options)
    } throws: { error in
      (error as? FeedError)?.location == location && (error as? FeedError)?.format == .waze
    }
  }

  /// A quiet feed's answer: the lists are there, with nothing in them. It is an empty
  /// document (a full refresh), not an error; a document with none of the lists still is.
  @Test(arguments: [
    #"{"alerts": [], "jams": []}"#, #"{"alerts": []}"#, #"{"jams": [], "endTimeMillis": 1}"#,
    #"{"irregularities": []}"#, #"[{"alerts": []}]"#,
  ])
  func acceptsPresentButEmptyLists(text: String) throws {
    let document = try WazeDecoder.decode(Data(text.utf8), options: options)
    #expect(document.incidents.isEmpty)
    #expect(document.problems.isEmpty)
    #expect(document.isFullRefresh)
  }

  @Test func rejectsADocumentWithoutLists() {
    #expect(throws: FeedError.self) {
      try WazeDecoder.decode(Data(#"{"startTimeMillis": 1}"#.utf8), options: options)
    }
  }

  @Test func reportsWrongTypesInsideItems() throws {
    let text =
      #"{"jams": [{"uuid": 1, "line": [{"x": "1", "y": 2}], "pubMillis": 1}, {"line": []}, {"uuid": 3, "line": [{"x": 1, "y": 2}], "pubMillis": "soon"}]}"#
    let document = try WazeDecoder.decode(Data(text.utf8), options: options)
    #expect(document.incidents.isEmpty)
    #expect(
      document.problems.map(\.location) == ["jams[0].line[0].x", "jams[1]", "jams[2].pubMillis"])
  }

  // MARK: A processor's jams-only window

  /// A one-minute window as a city's processor archives it: only `jams` (no `alerts`), the
  /// window times before the list, extra members (`data_file_id`, text times), numeric ids,
  /// blocked jams with Waze's -1 delay.
  @Test func decodesAJamsOnlyWindow() throws {
    let data = try ownFixture("jams_only_window.json")
    #expect(WazeDecoder.recognizes(data))
    let document = try WazeDecoder.decode(data, options: options)
    #expect(document.problems.isEmpty)
    #expect(document.isFullRefresh)
    #expect(document.publicationTime == Date(timeIntervalSince1970: 1_699_979_460))
    #expect(
      document.incidents.map(\.id) == [
        "2031457781", "2031460012", "2029981345", "2030012277", "2031399054", "2031501876",
      ])
    #expect(document.incidents.allSatisfy { $0.type == .congestion })
    #expect(
      document.incidents.map(\.impact) == [.critical, .critical, .critical, .major, .major, .minor])
    #expect(document.incidents.map(\.isRoadClosed) == [true, true, false, false, false, false])
    #expect(
      document.incidents.map(\.details.eventKind) == [
        .stationaryTraffic, .stationaryTraffic, .stationaryTraffic, .queuingTraffic,
        .queuingTraffic, .slowTraffic,
      ])
    #expect(
      document.incidents.map(\.parentId) == [
        "5e0c3b7a-91d4-3c2e-8f6a-0d7b2c4e9a11", "a41d7c92-0be3-3f58-9c16-7e2b5d8f0c34", nil, nil,
        "0f6e2d19-4a7b-3c85-b2e0-91d3c7a4f562", nil,
      ])

    let blocked = document.incidents[0]
    #expect(blocked.originalId == "2031457781")
    #expect(blocked.startTime == Date(timeIntervalSince1970: 1_699_951_234.567))
    #expect(blocked.entryTime == blocked.startTime)
    #expect(blocked.endTime == nil)
    #expect(blocked.details.roadName == "E 3rd St")
    #expect(blocked.location.description == "E 3rd St")
    #expect(blocked.details.area == "Dayton, OH")
    #expect(blocked.details.countryCode == "US")
    #expect(blocked.details.delayInSeconds == nil)  // -1: blocked
    #expect(blocked.details.queueLengthInMeters == 271)
    #expect(
      pairs(blocked.location.polyline) == [
        [39.759874, -84.186521], [39.759402, -84.184903], [39.758951, -84.183377],
      ])
    #expect(document.incidents[1].details.toJunction == "Wayne Ave")

    let highway = document.incidents[3]
    #expect(highway.details.area == nil)  // no city
    #expect(highway.details.fromJunction == "I-75")
    #expect(highway.details.toJunction == "James H McGee Blvd")
    #expect(highway.details.delayInSeconds == 95)
    #expect(highway.location.polyline.vertices.count == 4)

    let flow = document.flowObservations
    #expect(flow.map(\.sourceId) == document.incidents.map(\.originalId))
    #expect(flow.map(\.jamFactor) == [10, 10, 8, 6, 6, 4])
    #expect(flow.allSatisfy { $0.time == Date(timeIntervalSince1970: 1_699_979_460) })
    #expect(flow[0].speedInMetersPerSecond == 0)
    #expect(flow[0].delayInSeconds == nil)
    #expect(flow[0].freeFlowSpeedInMetersPerSecond == nil)
    let salem = flow[2]
    #expect(salem.speedInMetersPerSecond == 2)
    #expect(salem.delayInSeconds == 190)
    #expect(salem.polyline.vertices.count == 6)
    // 480 m in 240 s, 190 s of it delay: 480 m in 50 s at free flow.
    #expect(abs(try #require(salem.freeFlowSpeedInMetersPerSecond) - 9.6) < 1e-9)
    #expect(flow[5].speedInMetersPerSecond == 5.36)
    let farHillsFreeFlow: Double = 330 / (330 / 5.36 - 28)
    #expect(abs(try #require(flow[5].freeFlowSpeedInMetersPerSecond) - farHillsFreeFlow) < 1e-9)
  }

  /// Every jams-only window: the one above, and Louisville's archived window of
  /// `Fixtures.shared` (`waze/`) when present.
  @Test func everyJamsOnlyWindowDecodes() throws {
    var documents = [("jams_only_window.json", try ownFixture("jams_only_window.json"))]
    if let shared = Fixtures.shared {
      let name = "louisville_jams_sample.json"
      documents.append((name, try Data(contentsOf: shared.appendingPathComponent("waze/\(name)"))))
    }
    for (name, data) in documents {
      #expect(WazeDecoder.recognizes(data), "\(name)")
      #expect(FeedFormat.detect(data) == .waze, "\(name)")
      let document = try WazeDecoder.decode(data, options: options)
      #expect(document.problems.isEmpty, "\(name)")
      #expect(!document.incidents.isEmpty, "\(name)")
      #expect(document.flowObservations.count == document.incidents.count, "\(name)")
      #expect(document.incidents.allSatisfy { $0.type == .congestion }, "\(name)")
      #expect(document.publicationTime != nil, "\(name)")
      #expect(
        document.incidents.filter(\.isRoadClosed).count
          == document.flowObservations.filter { $0.jamFactor == 10 }.count, "\(name)")
      #expect(
        document.flowObservations.allSatisfy { $0.time == document.publicationTime }, "\(name)")
    }
  }
}

/// A real one-minute CCP window of New York (22 March 2019) with alerts, irregularities and
/// jams, as published in nyc-lib's tests (Apache-2.0, see `Fixtures/README.md`); expected
/// values read from the file by hand.
@Suite struct WazeRealSampleTests {
  @Test func nycWindowWithIrregularities() throws {
    let data = try ownFixture("waze", "real-nyc-ccp-window.json")
    #expect(FeedFormat.detect(data) == .waze)
    let document = try WazeDecoder.decode(data, options: options)
    #expect(document.problems.isEmpty)
    #expect(document.publicationTime == (try utc("2019-03-22T21:39:00Z")))
    #expect(
      document.incidents.map(\.originalId) == [
        "03769afc-d16d-376a-b5ed-628ade6beedf", "bb53aa5b-ef97-33f5-8b3a-84a4a7dfadf4",
        "76745544", "76986232", "411005085", "431427598",
      ])
    #expect(
      document.incidents.map(\.type) == [
        .disabledVehicle, .construction, .congestion, .congestion, .congestion, .congestion,
      ])
    #expect(document.incidents.map(\.impact) == [.low, .minor, .major, .major, .major, .minor])
    #expect(document.flowObservations.count == 2)  // jams only

    let construction = document.incidents[1]
    #expect(construction.startTime == (try utc("2018-09-08T12:43:00Z")))
    #expect(
      pairs(construction.location.polyline) == [[40.556061, -74.266732], [40.556061, -74.266732]])
    #expect(
      construction.sourceTexts.map(\.text) == [
        "XCM:Long term road construction New Jersey Turnpike SB"
      ])

    let irregularity = document.incidents[2]
    #expect(isNear(irregularity.startTime, try utc("2019-03-22T20:19:19Z") + 0.922))
    #expect(isNear(irregularity.entryTime, try utc("2019-03-22T21:39:35Z") + 0.986))
    #expect(irregularity.endTime == nil)
    #expect(
      pairs(irregularity.location.polyline) == [
        [40.596345, -73.908038], [40.595727, -73.908303], [40.595425, -73.908408],
      ])
    #expect(irregularity.details.roadName == "Belt Pkwy W")
    #expect(irregularity.details.toJunction == "Exit 7B: Ocean Pkwy")
    #expect(irregularity.details.delayInSeconds == 697)
    #expect(irregularity.details.queueLengthInMeters == 5389)
    #expect(irregularity.details.eventKind == .queuingTraffic)
    #expect(irregularity.details.countryCode == "US")

    let jam = document.incidents[5]
    #expect(isNear(jam.startTime, try utc("2019-03-22T21:40:49Z") + 0.213))
    #expect(jam.details.roadName == "Market St")
  }

  /// A document with only irregularities is a Waze feed.
  @Test func irregularitiesAlone() throws {
    let text = """
      {"irregularities": [{"id": 7, "detectionDateMillis": 1553285959922, "jamLevel": 5,
        "line": [{"x": -73.9, "y": 40.6}, {"x": -73.91, "y": 40.61}]}]}
      """
    #expect(FeedFormat.detect(Data(text.utf8)) == .waze)
    let document = try WazeDecoder.decode(Data(text.utf8), options: options)
    #expect(document.incidents.map(\.id) == ["7"])
    #expect(document.incidents.map(\.impact) == [.critical])
    #expect(document.incidents.map(\.isRoadClosed) == [true])
  }
}
