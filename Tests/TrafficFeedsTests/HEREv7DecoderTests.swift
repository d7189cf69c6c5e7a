import Foundation
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficFeeds

private func ownFixture(_ name: String) throws -> Data {
  try Data(
    contentsOf: Fixtures.repositoryRoot.appendingPathComponent(
      "Tests/TrafficFeedsTests/Fixtures/here-v7/\(name)"))
}

private func date(_ text: String) -> Date? { FeedDates.parseISO8601(text) }

private let options = FeedOptions(sourceName: "test")

@Suite struct HEREv7DecoderTests {
  @Test func decodesAHEREResponse() throws {
    let data = try ownFixture("incidents.json")
    #expect(HEREv7Decoder.recognizes(data))
    let document = try HEREv7Decoder.decode(data, options: options)
    #expect(document.publicationTime == date("2024-05-02T09:00:12Z"))
    #expect(document.isFullRefresh)
    try #require(document.incidents.count == 2)

    let closure = document.incidents[0]
    #expect(closure.id == "here:traffic:incident:3879526487457467810")
    #expect(closure.originalId == "here:traffic:incident:3879526487457467809")
    #expect(closure.type == .roadClosure)
    #expect(closure.impact == .critical)
    #expect(closure.isRoadClosed)
    #expect(closure.codes == [401, 701])
    #expect(closure.startTime == date("2024-05-01T06:00:00Z"))
    #expect(closure.endTime == date("2024-06-30T16:00:00Z"))
    #expect(closure.entryTime == date("2024-04-30T10:12:45.250Z"))
    #expect(closure.junctionsTraversability == .intermediateClosedEdgeOpen)
    #expect(closure.description.language == .deDE)
    #expect(closure.summary.text == "Straße gesperrt wegen Bauarbeiten")
    #expect(closure.sourceTexts == [closure.description])
    var truck = VehicleRestriction()
    truck.restrictedIfGrossWeightMoreThanInKilograms = 7500
    #expect(closure.vehicleRestrictions == [.truck: truck])
    // The two consecutive links are one path.
    #expect(closure.location.additionalPolylines.isEmpty)
    #expect(
      closure.location.polyline.vertices.map(\.longitude) == [13.04771, 13.0479, 13.0481, 13.053])
    #expect(closure.location.lengthInMeters == 376)

    let breakdown = document.incidents[1]
    #expect(breakdown.id == "555")
    #expect(breakdown.type == .disabledVehicle)
    #expect(breakdown.impact == .minor)
    #expect(breakdown.startTime == date("2024-05-02T06:30:00Z"))
    #expect(breakdown.endTime == nil)
    #expect(breakdown.location.description == "A20")
    #expect(breakdown.location.polyline.vertices.count == 2)
    #expect(breakdown.location.lengthInMeters == 0)

    #expect(document.problems.count == 1)
    #expect(document.problems[0].location == "results[2].location")
    #expect(document.problems[0].reason == "missing member \"shape\"")
  }

  @Test func decodesALookupAnswer() throws {
    let text = """
      {"location": {"length": 10, "shape": {"links": [{"points": [{"lat": 1, "lng": 2}, {"lat": 1, "lng": 2.0001}]}]}},
       "incidentDetails": {"id": "9", "originalId": "8", "type": "accident", "criticality": "major",
         "description": {"value": "Crash", "language": "en-US"}, "summary": {"value": "Crash", "language": "en-US"}}}
      """
    let document = try HEREv7Decoder.decode(Data(text.utf8), options: options)
    #expect(document.incidents.map(\.id) == ["9"])
    #expect(document.incidents.first?.originalId == "8")
  }

  @Test func recognizesV7Only() {
    #expect(!HEREv7Decoder.recognizes(Data(#"{"incidents": [{"iconCategory": 1}]}"#.utf8)))
    #expect(!HEREv7Decoder.recognizes(Data(#"["incidentDetails"]"#.utf8)))
  }

  @Test(arguments: [
    (#"{"results": 4}"#, "results"),
    (#"{"sourceUpdated": "yesterday", "results": []}"#, "sourceUpdated"),
    (#"{"results": [ {"location": "#, "line 1, column 28 (byte 27)"),
    (#"[]"#, "$"),
  ])
  func rejectsBadDocumentsNamingThePlace(text: String, location: String) {
    #expect {
      try HEREv7Decoder.decode(Data(text.utf8), options: options)
    } throws: { error in
      (error as? FeedError)?.location == location && (error as? FeedError)?.format == .hereV7
    }
  }

  @Test func roundTripsThroughTheEncoder() throws {
    let document = try HEREv7Decoder.decode(ownFixture("incidents.json"), options: options)
    let encoded = V7IncidentWire.encode(document.incidents, sourceUpdated: document.publicationTime)
    let again = try HEREv7Decoder.decode(encoded, options: options)
    #expect(again.incidents == document.incidents)
    #expect(again.publicationTime == document.publicationTime)
  }
}
