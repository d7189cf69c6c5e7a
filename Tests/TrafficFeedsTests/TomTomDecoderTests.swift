import Foundation
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficFeeds

private func ownFixture(_ name: String) throws -> Data {
  try Data(
    contentsOf: Fixtures.repositoryRoot.appendingPathComponent(
      "Tests/TrafficFeedsTests/Fixtures/tomtom/\(name)"))
}

private func date(_ text: String) -> Date? { FeedDates.parseISO8601(text) }

private let options = FeedOptions(sourceName: "test")

@Suite struct TomTomDecoderTests {
  @Test func decodesJamsClosuresAndBreakdowns() throws {
    let document = try TomTomDecoder.decode(ownFixture("incident_details.json"), options: options)
    #expect(document.incidents.count == 4)
    let jam = document.incidents[0]
    #expect(jam.id == "4819f7d0a3b1c2d3e4f5a6b7c8d9e0f1")
    #expect(jam.originalId == jam.id)
    #expect(jam.type == .congestion)
    #expect(jam.impact == .major)
    #expect(!jam.isRoadClosed)
    #expect(jam.codes == [101])
    #expect(jam.startTime == date("2024-05-02T07:41:00Z"))
    #expect(jam.endTime == date("2024-05-02T09:15:00Z"))
    #expect(jam.entryTime == nil)
    #expect(jam.location.lengthInMeters == 2350.4)
    #expect(jam.location.description == "A10")
    #expect(jam.location.polyline.vertices.count == 3)
    #expect(jam.location.polyline.vertices[1].longitude == 4.9201)
    #expect(jam.location.polyline.vertices[1].latitude == 52.4035)
    #expect(jam.details.roadNumber == "A10")
    #expect(jam.details.fromJunction == "Amsterdam-Noord (A10)")
    #expect(jam.details.toJunction == "Coenplein (A8)")
    #expect(jam.details.delayInSeconds == 540)
    #expect(jam.details.queueLengthInMeters == 2350.4)
    #expect(jam.details.eventKind == .stationaryTraffic)
    #expect(!jam.details.queueRisk)
    #expect(jam.sourceTexts == [LocalizedText(text: "Stationary traffic", language: .enGB)])

    let works = document.incidents[1]
    #expect(works.type == .construction)
    #expect(works.impact == .critical)
    #expect(works.isRoadClosed)  // an event of icon category 8
    #expect(works.codes == [701, 401])
    #expect(works.sourceTexts.first?.text == "Roadworks, Closed")
    #expect(works.location.description == "S114 / A10")
    #expect(works.details.eventKind == .roadworks)
    #expect(works.details.queueLengthInMeters == nil)

    let breakdown = document.incidents[2]
    #expect(breakdown.type == .disabledVehicle)
    #expect(breakdown.impact == .low)
    #expect(breakdown.endTime == nil)
    #expect(breakdown.location.lengthInMeters == 0)
    #expect(breakdown.location.polyline.vertices[0] == breakdown.location.polyline.vertices[1])
    #expect(breakdown.details.eventKind == .brokenDownVehicle)

    let risk = document.incidents[3]
    #expect(risk.impact == .unknown)
    #expect(risk.details.queueRisk)
    #expect(risk.details.eventKind == .queuingTraffic)

    #expect(document.problems.map(\.location) == ["incidents[4].geometry.coordinates[0][1]"])
  }

  @Test(arguments: [
    (0, TrafficIncidentType.unknown), (1, .accident), (2, .weather), (3, .roadHazard),
    (4, .weather), (5, .weather), (6, .congestion), (7, .laneRestriction), (8, .roadClosure),
    (9, .construction), (10, .weather), (11, .weather), (14, .disabledVehicle), (13, .other),
  ])
  func mapsIconCategories(icon: Int, type: TrafficIncidentType) throws {
    let text = """
      {"incidents": [{"type": "Feature", "properties": {"id": "i", "iconCategory": \(icon),
        "magnitudeOfDelay": 2}, "geometry": {"type": "Point", "coordinates": [5, 52]}}]}
      """
    let incident = try #require(
      TomTomDecoder.decode(Data(text.utf8), options: options).incidents.first)
    #expect(incident.type == type)
    #expect(incident.isRoadClosed == (icon == 8))
    #expect(incident.impact == .minor)
  }

  @Test(arguments: [
    (0, TrafficIncidentImpact.unknown), (1, .low), (2, .minor), (3, .major), (4, .critical),
  ])
  func mapsMagnitudesOfDelay(magnitude: Int, impact: TrafficIncidentImpact) throws {
    let text = """
      {"incidents": [{"type": "Feature", "properties": {"id": "i", "iconCategory": 1,
        "magnitudeOfDelay": \(magnitude)}, "geometry": {"type": "Point", "coordinates": [5, 52]}}]}
      """
    let incident = try #require(
      TomTomDecoder.decode(Data(text.utf8), options: options).incidents.first)
    #expect(incident.impact == impact)
  }

  @Test func recognizesTomTomOnly() throws {
    #expect(TomTomDecoder.recognizes(try ownFixture("incident_details.json")))
    #expect(!TomTomDecoder.recognizes(Data(#"{"results": [{"incidentDetails": {}}]}"#.utf8)))
    #expect(!TomTomDecoder.recognizes(Data(#"{"incidents": []}"#.utf8)))
  }

  @Test(arguments: [
    (#"{"incidents": {}}"#, "$"),
    (#"{"incidents": [}"#, "line 1, column 16 (byte 15)"),
    ("{\"incidents\": [\"\u{01}\"]}", "line 1, column 17 (byte 16)"),
  ])
  func rejectsBadDocumentsNamingThePlace(text: String, location: String) {
    #expect {
      try TomTomDecoder.decode(Data(text.utf8), options: options)
    } throws: { error in
      (error as? FeedError)?.location == location
    }
  }

  @Test func reportsBadRecords() throws {
    let text = """
      {"incidents": [
        {"properties": {"iconCategory": 1}, "geometry": {"type": "Point", "coordinates": [5, 52]}},
        {"properties": {"id": "t", "startTime": "2024-13-01T00:00:00Z"},
         "geometry": {"type": "Point", "coordinates": [5, 52]}},
        {"properties": {"id": "e", "startTime": "2024-05-02T00:00:00Z", "endTime": "2024-05-01T00:00:00Z"},
         "geometry": {"type": "Point", "coordinates": [5, 52]}},
        {"properties": {"id": "g"}}
      ]}
      """
    let document = try TomTomDecoder.decode(Data(text.utf8), options: options)
    // The first has no id but a geometry: it gets a derived one (see below).
    #expect(document.incidents.map(\.type) == [.accident])
    #expect(
      document.problems.map(\.location) == [
        "incidents[1].properties.startTime", "incidents[2] (id e)", "incidents[3] (id g)",
      ])
  }

  /// TomTom's default `fields` leave out `id`: every incident of such a response must still
  /// import, under an id that stays the same from one poll to the next.
  @Test func defaultFieldsWithoutIdsGetStableDerivedIds() throws {
    let text = """
      {"incidents": [
        {"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[4.9, 52.37], [4.91, 52.371]]},
         "properties": {"iconCategory": 9}},
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [4.95, 52.4]},
         "properties": {"iconCategory": 8}}
      ]}
      """
    let first = try TomTomDecoder.decode(Data(text.utf8), options: options)
    let again = try TomTomDecoder.decode(Data(text.utf8), options: options)
    #expect(first.problems.isEmpty)
    #expect(first.incidents.map(\.type) == [.construction, .roadClosure])
    #expect(first.incidents.map(\.originalId) == again.incidents.map(\.originalId))
    #expect(Set(first.incidents.map(\.originalId)).count == 2)
    #expect(first.incidents.allSatisfy { $0.originalId.hasPrefix("tomtom-") })
    let moved = text.replacingOccurrences(of: "4.95", with: "4.96")
    let changed = try TomTomDecoder.decode(Data(moved.utf8), options: options)
    #expect(changed.incidents[1].originalId != first.incidents[1].originalId)
  }
}

extension TomTomDecoderTests {
  /// Responses that ask for `aci` carry the probability there.
  @Test func probabilityUnderAci() throws {
    let text = """
      {"incidents": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [4.9, 52.4]},
        "properties": {"id": "aci-1", "iconCategory": 6, "magnitudeOfDelay": 1,
          "aci": {"probabilityOfOccurrence": "risk_of", "numberOfReports": 2}}}]}
      """
    let document = try TomTomDecoder.decode(Data(text.utf8), options: options)
    #expect(document.incidents.map(\.details.queueRisk) == [true])
  }
}
