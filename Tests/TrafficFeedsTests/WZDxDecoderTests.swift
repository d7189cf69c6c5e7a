import Codec
import Foundation
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficFeeds

private func ownFixture(_ name: String) throws -> Data {
  try Data(
    contentsOf: Fixtures.repositoryRoot.appendingPathComponent(
      "Tests/TrafficFeedsTests/Fixtures/wzdx/\(name)"))
}

/// A public WZDx sample shipped in `Tests/Fixtures/wzdx` (US DOT examples and Colorado
/// feeds, CC0).
private func sampleFixture(_ name: String) throws -> Data {
  try Data(contentsOf: Fixtures.sample("wzdx/\(name)"))
}

private func date(_ text: String) -> Date? { FeedDates.parseISO8601(text) }

private let options = FeedOptions(sourceName: "test")

@Suite struct WZDxDecoderTests {
  @Test func decodesClosureDetourAndLaneClosureOfA42Feed() throws {
    let document = try WZDxDecoder.decode(ownFixture("feed_v42.geojson"), options: options)
    #expect(document.problems.isEmpty)
    #expect(document.isFullRefresh)
    #expect(document.publicationTime == date("2024-05-02T14:30:00Z"))
    try #require(document.incidents.count == 3)

    let closure = document.incidents[0]
    #expect(closure.originalId == "wz-bridge-closure")
    #expect(closure.id == "wz-bridge-closure_1714564800")
    #expect(closure.type == .roadClosure)
    #expect(closure.impact == .critical)
    #expect(closure.isRoadClosed)
    #expect(closure.startTime == date("2024-05-06T05:00:00Z"))
    #expect(closure.endTime == date("2024-08-31T03:00:00Z"))
    #expect(closure.entryTime == date("2024-04-20T08:00:00Z"))
    #expect(closure.location.polyline.vertices.count == 3)
    #expect(closure.location.polyline.vertices[0].longitude == -93.5402)
    #expect(closure.location.polyline.vertices[0].latitude == 42.0105)
    #expect(closure.location.description == "US 30 / Lincoln Highway eastbound")
    #expect(closure.details.roadNumber == "US 30")
    #expect(closure.details.roadName == "Lincoln Highway")
    #expect(closure.details.fromJunction == "S 500th Ave")
    #expect(closure.details.toJunction == "Dayton Ave")
    #expect(closure.details.lanesClosed == 2)
    #expect(closure.details.totalLanes == 2)
    #expect(closure.details.countryCode == "US")
    #expect(closure.details.eventKind == .roadworks)
    #expect(
      closure.sourceTexts == [
        LocalizedText(
          text: "US 30 eastbound closed at the Skunk River bridge for deck replacement.",
          language: .enUS)
      ])
    #expect(closure.description.text.hasPrefix("US 30 eastbound closed"))
    var all = VehicleRestriction()
    all.restrictedIfHigherThanInCentimeters = 411  // 13.5 ft
    all.restrictedIfAxleWeightMoreThanInKilograms = 9072  // 20,000 lb
    #expect(closure.vehicleRestrictions == [.all: all, .truck: .always])

    let detour = document.incidents[1]
    #expect(detour.id == "detour-1")
    #expect(detour.parentId == "wz-bridge-closure")
    #expect(detour.type == .construction)
    #expect(detour.impact == .low)
    #expect(!detour.isRoadClosed)
    #expect(detour.details.roadNumber == "E41")
    #expect(detour.endTime == date("2024-08-31T03:00:00Z"))

    let lanes = document.incidents[2]
    #expect(lanes.id == "wz-lane-closure_1714641330")
    #expect(lanes.type == .laneRestriction)
    #expect(lanes.impact == .major)
    #expect(lanes.entryTime == date("2024-05-02T09:15:30Z"))
    #expect(lanes.details.lanesClosed == 1)
    #expect(lanes.details.totalLanes == 2)  // the bike lane is not a driving lane
    #expect(lanes.details.closedLanes == [2])  // `order` 2 of the driving lanes, from the left
    #expect(lanes.details.roadName == "Grand Avenue")
    #expect(lanes.details.eventKind == .maintenanceWork)
    #expect(lanes.location.polyline.vertices.count == 2)  // MultiPoint start and end
    var width = VehicleRestriction()
    width.restrictedIfWiderThanInCentimeters = 320  // the open lane's 3.2 m, not the closed one's
    #expect(lanes.vehicleRestrictions == [.all: width])
  }

  @Test func readsA40FeedAndReportsBrokenRecordsByPlace() throws {
    let document = try WZDxDecoder.decode(ownFixture("feed_v40.geojson"), options: options)
    #expect(document.publicationTime == date("2021-03-10T17:00:00Z"))
    #expect(document.incidents.map(\.id) == ["evt-100", "evt-101"])
    let workZone = document.incidents[0]
    #expect(workZone.type == .laneRestriction)  // "unknown" impact, one of two lanes closed
    #expect(workZone.impact == .major)
    var all = VehicleRestriction()
    all.isThroughTrafficRestricted = true
    var car = VehicleRestriction()
    car.restrictedIfOccupantsFewerThan = 2
    #expect(workZone.vehicleRestrictions == [.all: all, .car: car])
    let detour = document.incidents[1]
    #expect(detour.parentId == "evt-100")
    #expect(detour.location.polyline.vertices.count == 2)
    #expect(detour.location.lengthInMeters == 0)
    #expect(detour.location.polyline.vertices[0].latitude == 39.7401)

    #expect(document.problems.count == 2)
    #expect(document.problems[0].format == .wzdx)
    #expect(document.problems[0].location == "features[2] (id evt-102)")
    #expect(document.problems[0].reason.contains("end time"))
    #expect(document.problems[1].location == "features[3].geometry.coordinates[1]")
    #expect(document.problems[1].reason.contains("latitude 95"))
  }

  @Test func recognizesWZDxAndNotOtherFormats() throws {
    #expect(WZDxDecoder.recognizes(try ownFixture("feed_v42.geojson")))
    #expect(WZDxDecoder.recognizes(try ownFixture("feed_v40.geojson")))
    #expect(!WZDxDecoder.recognizes(Data(#"{"type":"FeatureCollection","features":[]}"#.utf8)))
    #expect(!WZDxDecoder.recognizes(Data(#"{"jams":[],"pubMillis":1}"#.utf8)))
    #expect(!WZDxDecoder.recognizes(Data("<xml/>".utf8)))
  }

  @Test(arguments: [
    ("", "line 1, column 1 (byte 0)", "end of the text"),
    (#"{"feed_info": {}, "features": [{"id": 1,"#, "line 1, column 41 (byte 40)", "truncated"),
    ("{\"features\": [\n  {\"id\": \"a\" \"x\"}]}", "line 2, column 14 (byte 28)", "expected ','"),
    (#"{"features": 1e999}"#, "line 1, column 14 (byte 13)", "out of range"),
    (String(repeating: "[", count: 300), "line 1, column 257 (byte 256)", "nesting"),
    (#"{"feed_info": {}}"#, "features", "missing"),
    (#"[1, 2]"#, "$", "expected a GeoJSON object"),
  ])
  func rejectsBadDocumentsNamingThePlace(text: String, location: String, reason: String) {
    #expect {
      try WZDxDecoder.decode(Data(text.utf8), options: options)
    } throws: { error in
      guard let error = error as? FeedError else { return false }
      return error.format == .wzdx && error.location == location && error.reason.contains(reason)
    }
  }

  @Test func everyTruncationOfAFeedIsAnErrorNamingItsPlace() throws {
    let data = try ownFixture("feed_v40.geojson")
    let whole = try WZDxDecoder.decode(data, options: options)
    #expect(whole.incidents.count == 2)
    let trimmed = data.count - 1  // the trailing newline
    for length in stride(from: 0, to: trimmed, by: 7) {
      #expect {
        try WZDxDecoder.decode(data.prefix(length), options: options)
      } throws: { error in
        (error as? FeedError)?.location?.hasPrefix("line ") == true
      }
    }
  }

  @Test func rejectsUTF16AndInvalidUTF8() {
    let utf16 = Data([0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00])  // "{}" in UTF-16LE with BOM
    #expect(throws: FeedError.self) { try WZDxDecoder.decode(utf16, options: options) }
    let badUTF8 = Data(#"{"features": [], "x": ""#.utf8) + Data([0xC3, 0x28]) + Data(#""}"#.utf8)
    #expect {
      try WZDxDecoder.decode(badUTF8, options: options)
    } throws: { error in
      (error as? FeedError)?.reason.contains("UTF-8") == true
    }
  }

  @Test func skipsFeaturesWithWrongTypesAndKeepsTheRest() throws {
    let text = """
      {"feed_info": {"version": "4.2"}, "features": [
        {"id": "ok", "properties": {"core_details": {"event_type": "work-zone"},
          "start_date": "2024-01-01T00:00:00Z", "vehicle_impact": "all-lanes-open"},
         "geometry": {"type": "LineString", "coordinates": [[1, 2], [1.5, 2.5]]}},
        {"id": "bad-date", "properties": {"start_date": "tomorrow"},
         "geometry": {"type": "LineString", "coordinates": [[1, 2], [1.5, 2.5]]}},
        {"id": "no-geometry", "properties": {}},
        {"properties": {}, "geometry": {"type": "Point", "coordinates": [1, 2]}},
        {"id": "bad-type", "properties": {}, "geometry": {"type": "Circle", "coordinates": []}},
        "not an object"
      ]}
      """
    let document = try WZDxDecoder.decode(Data(text.utf8), options: options)
    #expect(document.incidents.map(\.id) == ["ok"])
    #expect(
      document.problems.map { $0.location ?? "" } == [
        "features[1].properties.start_date", "features[2] (id no-geometry)", "features[3]",
        "features[4].geometry.type", "features[5]",
      ])
  }

  @Test func aLargeDocumentDecodesAsItsFeaturesOneByOne() throws {
    // Past a chunk of features, they are decoded on a second thread while the next ones
    // are parsed; the result must be each feature's own, in the document's order.
    let features = (0..<1_100).map { number -> String in
      if number % 29 == 5 { return "\"not an object\"" }
      if number % 17 == 3 {
        return """
          {"id": "device-\(number)", "properties": {"core_details": {"device_type": "camera"}},
           "geometry": {"type": "Point", "coordinates": [1, 2]}}
          """
      }
      let start = number % 13 == 7 ? "tomorrow" : "2024-01-\(10 + number % 9)T00:00:00Z"
      let impact = ["all-lanes-open", "some-lanes-closed", "all-lanes-closed"][number % 3]
      return """
        {"id": "zone-\(number)", "properties": {"core_details": {"event_type": "work-zone",
          "description": "zone \(number)"}, "start_date": "\(start)",
          "vehicle_impact": "\(impact)"}, "geometry": {"type": "LineString",
          "coordinates": [[\(Double(number) / 100), 2], [\(Double(number) / 100 + 0.01), 2.5]]}}
        """
    }
    func document(_ features: [String]) -> Data {
      Data(
        ("{\"feed_info\": {\"version\": \"4.2\"}, \"features\": [" + features.joined(separator: ",")
          + "]}").utf8)
    }
    let whole = try WZDxDecoder.decode(document(features), options: options)
    var incidents: [TrafficIncident] = []
    var problems: [String] = []
    for (index, feature) in features.enumerated() {
      let alone = try WZDxDecoder.decode(document([feature]), options: options)
      incidents += alone.incidents
      problems += alone.problems.map {
        ($0.location ?? "").replacingOccurrences(of: "features[0]", with: "features[\(index)]")
          + " " + $0.reason
      }
    }
    #expect(incidents.count > 900)
    #expect(problems.count > 100)
    #expect(whole.incidents == incidents)
    #expect(whole.problems.map { ($0.location ?? "") + " " + $0.reason } == problems)
  }

  @Test(
    "a syntax error deep in a large document is the one a whole-text parse finds, however many chunks are in flight"
  )
  func aSyntaxErrorInALargeDocumentIsTheEarliest() throws {
    let features = (0..<1_500).map { number in
      """
      {"id": "zone-\(number)",
        "properties": {"core_details": {"event_type": "work-zone", "description": "zone \(number)"},
          "vehicle_impact": "all-lanes-open"},
        "geometry": {"type": "LineString", "coordinates": [[\(Double(number) / 100), 2], [\(Double(number) / 100 + 0.01), 2.5]]}}
      """
    }
    func document(_ features: [String]) -> String {
      "{\"feed_info\": {\"version\": \"4.2\"},\n\"features\": [\n"
        + features.joined(separator: ",\n")
        + "\n]}\n"
    }
    func broken(_ feature: String) -> String {
      feature.replacingOccurrences(of: "\"all-lanes-open\"", with: "\"all-lanes-open\" tru")
    }
    func unpaired(_ feature: String) -> String {
      feature.replacingOccurrences(of: "[[", with: "[{[")
    }
    var corruptions: [[String]] = []
    for spot in [3, 600, 1_100, 1_499] {
      var one = features
      one[spot] = broken(one[spot])
      corruptions.append(one)
    }
    // An element that is not JSON before a later bracket that does not pair up: the first.
    var two = features
    two[700] = broken(two[700])
    two[1_200] = unpaired(two[1_200])
    corruptions.append(two)
    var late = features
    late[1_300] = unpaired(late[1_300])
    corruptions.append(late)
    for corrupted in corruptions {
      let text = document(corrupted)
      let reference: JSONSyntaxError
      do {
        _ = try JSONParser.parse(bytes: Array(text.utf8))
        Issue.record("the reference parse accepted the corrupted document")
        continue
      } catch {
        reference = error
      }
      #expect {
        try WZDxDecoder.decode(Data(text.utf8), options: options)
      } throws: { error in
        (error as? FeedError)?.location == reference.place
      }
    }
    #expect(
      try WZDxDecoder.decode(Data(document(features).utf8), options: options).incidents.count
        == 1_500)
  }

  // MARK: Public real-world samples (Tests/Fixtures/wzdx)

  @Test(
    arguments: [
      ("colorado_i70_noise_wall.json", 1), ("colorado_production_2025_08_07.json", 85),
      ("scenario1_simple_linestring_example.geojson", 5),
      ("scenario1_simple_multipoint_example.geojson", 5),
      ("scenario2_laneshift_linestring_example.geojson", 1),
      ("scenario3_shoulder_bidirectional_linestring_example.geojson", 2),
      ("scenario4_detour_linestring_example.geojson", 4),
      ("scenario5_recurring_linestring_example.geojson", 4),
      ("scenario6_multi_lane_closure_linestring_example.geojson", 1),
      ("scenario7_mobileoperation_linestring_example.geojson", 2),
      ("scenario8_local_access_only_bidirectional_linestring_example.geojson", 2),
    ])
  func decodesEverySample(name: String, count: Int) throws {
    let data = try sampleFixture(name)
    #expect(WZDxDecoder.recognizes(data))
    let document = try WZDxDecoder.decode(data, options: options)
    #expect(document.problems.isEmpty)
    #expect(document.incidents.count == count)
    for incident in document.incidents {
      #expect(incident.startTime != nil)
      #expect(incident.endTime != nil)
      #expect(incident.details.countryCode == "US")
      #expect(incident.sourceTexts.allSatisfy { $0.language == .enUS })
      let box = incident.location.polyline.boundingBox
      #expect(box.south > 36.5 && box.north < 43.5)  // Colorado and Iowa
      #expect(box.west > -109.5 && box.east < -90)
    }
  }

  @Test
  func mapsTheColoradoProductionFeed() throws {
    let document = try WZDxDecoder.decode(
      sampleFixture("colorado_production_2025_08_07.json"), options: options)
    #expect(document.publicationTime == date("2025-08-08T00:04:06Z"))
    var counts: [String: Int] = [:]
    for incident in document.incidents {
      counts["\(incident.type)/\(incident.impact)", default: 0] += 1
    }
    #expect(
      counts == [
        "laneRestriction/major": 49, "construction/minor": 12, "construction/low": 18,
        "roadClosure/critical": 6,
      ])
    let first = document.incidents[0]
    #expect(first.originalId == "67d57954-bdbb-5272-89ad-164f53e987aa")
    #expect(first.id == "67d57954-bdbb-5272-89ad-164f53e987aa_1754263359")  // 2025-08-03T23:22:39Z
    #expect(first.type == .construction)  // only the right shoulder is closed
    #expect(first.impact == .minor)
    #expect(first.startTime == date("2025-08-08T06:00:00Z"))
    #expect(first.endTime == date("2025-08-09T05:59:00Z"))
    #expect(first.location.polyline.vertices[0].longitude == -107.87297450499995)
    #expect(first.location.polyline.vertices[0].latitude == 37.254471343000034)
    #expect(first.details.roadNumber == "CO-3")
    #expect(first.location.description == "CO-3 northbound")

    let closure = try #require(
      document.incidents.first { $0.originalId == "f2ed522f-a4f8-53e9-b7e3-a670535fa7d3" })
    #expect(closure.type == .roadClosure)
    #expect(closure.isRoadClosed)
    #expect(closure.startTime == date("2025-08-07T13:00:00Z"))
    #expect(closure.endTime == date("2025-08-08T01:00:00Z"))
    #expect(closure.details.fromJunction == "Trinchera Ranch Road")
    #expect(closure.location.polyline.vertices.count == 7)
    #expect(closure.location.polyline.vertices[6].longitude == -105.35357355899998)
  }

  @Test
  func linksTheDetoursOfScenario4ToTheirWorkZone() throws {
    let document = try WZDxDecoder.decode(
      sampleFixture("scenario4_detour_linestring_example.geojson"), options: options)
    let workZone = document.incidents[0]
    #expect(workZone.originalId == "a15f7570-b7e6-4367-8ad9-3a462eea65dd")
    #expect(workZone.type == .laneRestriction)
    #expect(workZone.details.lanesClosed == 1)
    #expect(workZone.details.totalLanes == 2)
    #expect(workZone.location.polyline.vertices.count == 41)
    #expect(workZone.vehicleRestrictions[.all]?.restrictedIfWiderThanInCentimeters == 335)  // 11 ft
    let detours = document.incidents.dropFirst()
    #expect(detours.count == 3)
    for detour in detours {
      #expect(detour.type == .construction)
      #expect(detour.parentId == workZone.originalId)
    }
    #expect(detours.map { $0.location.polyline.vertices.count } == [11, 85, 13])
  }

  @Test
  func convertsScenario6RestrictionUnits() throws {
    let document = try WZDxDecoder.decode(
      sampleFixture("scenario6_multi_lane_closure_linestring_example.geojson"), options: options)
    let incident = try #require(document.incidents.first)
    #expect(incident.details.lanesClosed == 2)
    #expect(incident.details.totalLanes == 3)
    var all = VehicleRestriction()
    all.restrictedIfWiderThanInCentimeters = 488  // 16 ft
    all.restrictedIfGrossWeightMoreThanInKilograms = 70_760  // 156,000 lb
    #expect(incident.vehicleRestrictions == [.all: all])
  }

  @Test
  func readsMultiPointAsStartAndEnd() throws {
    let lines = try WZDxDecoder.decode(
      sampleFixture("scenario1_simple_linestring_example.geojson"), options: options)
    let points = try WZDxDecoder.decode(
      sampleFixture("scenario1_simple_multipoint_example.geojson"), options: options)
    #expect(points.incidents.map(\.originalId) == lines.incidents.map(\.originalId))
    for (point, line) in zip(points.incidents, lines.incidents) {
      #expect(point.location.polyline.vertices.count == 2)
      #expect(point.type == line.type)
      #expect(point.startTime == line.startTime)
    }
    #expect(points.incidents[0].location.polyline.vertices[0].longitude == -93.77668405099996)
  }
}

/// The US DOT's published WZDx examples of feeds other than work zones (CC0, see
/// `Fixtures/README.md`); expected values read from the files by hand.
@Suite struct WZDxRealSampleTests {
  /// A RoadRestrictionFeed (4.0): low bridges on the Hutchinson River Parkway, no times, no
  /// `vehicle_impact`.
  @Test func roadRestrictionFeed() throws {
    let data = try ownFixture("wzdx", "real-usdot-road-restriction.geojson")
    #expect(FeedFormat.detect(data) == .wzdx)
    let document = try WZDxDecoder.decode(data, options: options)
    #expect(document.problems.isEmpty)
    #expect(document.publicationTime == (try utc("2021-07-01T15:00:00Z")))
    #expect(document.incidents.map(\.id) == ["Bridge1", "Bridge2"])
    #expect(document.incidents.map(\.type) == [.other, .other])
    #expect(document.incidents.map(\.impact) == [.low, .low])
    #expect(document.incidents.map(\.details.eventKind) == [nil, nil])
    #expect(document.incidents.map(\.isRoadClosed) == [false, false])

    let first = document.incidents[0]
    #expect(first.startTime == nil)
    #expect(first.endTime == nil)
    #expect(
      pairs(first.location.polyline) == [
        [40.83782481579416, -73.83857488632202], [40.83905758069452, -73.8385534286499],
        [40.84667890696712, -73.83646667003632],
      ])
    #expect(first.details.lanesClosed == 0)
    #expect(first.details.totalLanes == 3)
    var lowest = VehicleRestriction()
    lowest.restrictedIfHigherThanInCentimeters = 320  // 10.5 ft, the lowest of the lanes
    #expect(first.vehicleRestrictions == [.all: lowest])
    var second = VehicleRestriction()
    second.restrictedIfHigherThanInCentimeters = 274  // 9.0 ft
    #expect(document.incidents[1].vehicleRestrictions == [.all: second])
    #expect(pairs(document.incidents[1].location.polyline).count == 4)
  }

  /// A DeviceFeed (arrow board) is recognised as WZDx and holds no road events.
  @Test func deviceFeedHasNoIncidents() throws {
    let data = try ownFixture("wzdx", "real-usdot-device-feed.geojson")
    #expect(FeedFormat.detect(data) == .wzdx)
    let document = try WZDxDecoder.decode(data, options: options)
    #expect(document.incidents.isEmpty)
    #expect(document.problems.isEmpty)
    #expect(document.publicationTime == (try utc("2021-12-06T15:00:00Z")))
  }

  /// Restriction values written as text are read as numbers.
  @Test func restrictionValueAsText() throws {
    var text = String(
      decoding: try ownFixture("wzdx", "real-usdot-road-restriction.geojson"), as: UTF8.self)
    text = text.replacingOccurrences(of: "\"value\": 9.0", with: "\"value\": \"9.0\"")
    let document = try WZDxDecoder.decode(Data(text.utf8), options: options)
    #expect(
      document.incidents[1].vehicleRestrictions[.all]?.restrictedIfHigherThanInCentimeters == 274)
  }
}

extension WZDxDecoderTests {
  /// WZDx 3.x fields written apart: `road_number`, `total_num_lanes`.
  @Test func wzdx3RoadNumberAndLaneCount() throws {
    let text = """
      {"road_event_feed_info": {"update_date": "2021-01-01T00:00:00Z", "version": "3.0"},
       "type": "FeatureCollection", "features": [{"type": "Feature",
         "properties": {"road_event_id": "3x-1", "event_type": "work-zone", "road_name": "Main St",
           "road_number": "VT 133", "direction": "northbound", "total_num_lanes": 2,
           "start_date": "2021-01-02T08:00:00Z", "vehicle_impact": "all-lanes-open"},
         "geometry": {"type": "LineString", "coordinates": [[-72.9, 43.6], [-72.91, 43.61]]}}]}
      """
    let document = try WZDxDecoder.decode(Data(text.utf8), options: options)
    let incident = try #require(document.incidents.first)
    #expect(incident.details.roadNumber == "VT 133")
    #expect(incident.details.roadName == "Main St")
    #expect(incident.details.totalLanes == 2)
    #expect(incident.startTime == (try utc("2021-01-02T08:00:00Z")))
  }

  /// A time without an offset (RFC 3339 allows none, feeds write it) is local time where
  /// the work zone begins: it was read as UTC, six or seven hours early in Colorado.
  @Test func timesWithoutAnOffsetAreLocalTimeThere() throws {
    let text = """
      {"feed_info": {"update_date": "2026-07-01T00:00:00Z", "version": "4.2"},
       "type": "FeatureCollection", "features": [{"id": "local", "type": "Feature",
         "properties": {"core_details": {"event_type": "work-zone", "road_names": ["I-25"],
           "direction": "northbound", "data_source_id": "x",
           "creation_date": "2026-06-30T09:30:00"},
           "start_date": "2026-07-01T08:00:00", "end_date": "2026-12-01T17:00:00",
           "vehicle_impact": "all-lanes-open"},
         "geometry": {"type": "LineString", "coordinates": [[-104.99, 39.74], [-104.98, 39.75]]}}]}
      """
    let incident = try #require(
      try WZDxDecoder.decode(Data(text.utf8), options: options).incidents.first)
    // Denver: UTC-6 in summer, UTC-7 in winter.
    #expect(incident.startTime == (try utc("2026-07-01T14:00:00Z")))
    #expect(incident.endTime == (try utc("2026-12-02T00:00:00Z")))
    #expect(incident.entryTime == (try utc("2026-06-30T15:30:00Z")))
  }
}

extension WZDxDecoderTests {
  @Test("closed lanes are places among the driving lanes in `order`, however the array is sorted")
  func closedLanesFollowOrder() throws {
    let text = """
      {"road_event_feed_info": {"update_date": "2024-05-02T09:00:00Z", "version": "4.2"},
       "type": "FeatureCollection", "features": [{"id": "z", "type": "Feature",
       "properties": {"core_details": {"event_type": "work-zone", "data_source_id": "s",
         "road_names": ["Main St"], "direction": "northbound"},
         "start_date": "2024-05-01T00:00:00Z", "end_date": "2024-06-01T00:00:00Z",
         "is_start_date_verified": false, "is_end_date_verified": false,
         "is_start_position_verified": false, "is_end_position_verified": false,
         "location_method": "unknown", "vehicle_impact": "some-lanes-closed",
         "lanes": [{"order": 4, "type": "general", "status": "closed"},
                   {"order": 1, "type": "shoulder", "status": "closed"},
                   {"order": 3, "type": "general", "status": "open"},
                   {"order": 2, "type": "general", "status": "closed"}]},
       "geometry": {"type": "LineString", "coordinates": [[-93.6, 41.6], [-93.6, 41.61]]}}]}
      """
    let document = try WZDxDecoder.decode(
      Data(text.utf8), options: FeedOptions(sourceName: "t", now: Date()))
    #expect(document.problems.isEmpty, "\(document.problems)")
    let incident = try #require(document.incidents.first)
    // Driving lanes from the left: order 2 (closed), 3 (open), 4 (closed).
    #expect(incident.details.totalLanes == 3)
    #expect(incident.details.closedLanes == [1, 3])
    #expect(incident.details.lanesClosed == 2)
  }
}
