import Foundation
import Testing
import Traffic

@Suite struct TrafficIncidentDetailsTests {
  @Test func validatesFields() throws {
    #expect(try TrafficIncidentDetails(countryCode: "de").countryCode == "DE")
    #expect(throws: TrafficModelError.invalidCountryCode("DEU")) {
      try TrafficIncidentDetails(countryCode: "DEU")
    }
    #expect(throws: TrafficModelError.self) { try TrafficIncidentDetails(lanesClosed: -1) }
    #expect(throws: TrafficModelError.self) { try TrafficIncidentDetails(totalLanes: 0) }
    #expect(throws: TrafficModelError.self) {
      try TrafficIncidentDetails(lanesClosed: 3, totalLanes: 2)
    }
    #expect(throws: TrafficModelError.self) {
      try TrafficIncidentDetails(queueLengthInMeters: -5)
    }
    #expect(throws: TrafficModelError.self) {
      try TrafficIncidentDetails(delayInSeconds: .infinity)
    }
  }

  @Test func codableRoundTripWithTimeZone() throws {
    let details = try TrafficIncidentDetails(
      countryCode: "NL", roadNumber: "A2", towards: "Utrecht", queueRisk: true,
      queueLengthInMeters: 1_500, eventKind: .stationaryTraffic,
      cause: LocalizedText(text: "defecte vrachtwagen", language: .nlNL),
      timeZone: TimeZone(identifier: "Europe/Amsterdam"))
    let data = try JSONEncoder().encode(details)
    #expect(String(decoding: data, as: UTF8.self).contains("Europe\\/Amsterdam"))
    #expect(try JSONDecoder().decode(TrafficIncidentDetails.self, from: data) == details)
    #expect(throws: (any Error).self) {
      try JSONDecoder().decode(
        TrafficIncidentDetails.self, from: Data(#"{"timeZone": "Mars/Olympus"}"#.utf8))
    }
  }
}
