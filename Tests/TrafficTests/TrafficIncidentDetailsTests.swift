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
    // Closed lanes are places from the left, from 1, on the road's lanes; their number is
    // how many are closed unless more are said to be.
    #expect(throws: TrafficModelError.self) { try TrafficIncidentDetails(closedLanes: [0]) }
    #expect(throws: TrafficModelError.self) {
      try TrafficIncidentDetails(totalLanes: 2, closedLanes: [3])
    }
    #expect(throws: TrafficModelError.self) {
      try TrafficIncidentDetails(lanesClosed: 1, closedLanes: [1, 2])
    }
    let lanes = try TrafficIncidentDetails(totalLanes: 3, closedLanes: [3, 2, 3])
    #expect(lanes.closedLanes == [2, 3])
    #expect(lanes.lanesClosed == 2)
    #expect(try TrafficIncidentDetails(lanesClosed: 2, closedLanes: [1]).lanesClosed == 2)
    #expect(try TrafficIncidentDetails(closedLanes: []).closedLanes == nil)
    let coded = try JSONDecoder().decode(
      TrafficIncidentDetails.self, from: JSONEncoder().encode(lanes))
    #expect(coded == lanes)
    #expect(coded != (try TrafficIncidentDetails(lanesClosed: 2, totalLanes: 3)))
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

  /// Details are equal (and hash alike) when every fact is, however they were made; the
  /// facts most incidents lack read back as given, and details without them are small.
  @Test func equalityFollowsEveryFact() throws {
    func make(delay: Double? = nil, towards: String? = nil) throws -> TrafficIncidentDetails {
      try TrafficIncidentDetails(
        countryCode: "de", roadName: "Sachsendamm", roadNumber: "A100", towards: towards,
        delayInSeconds: delay, eventKind: .roadworks)
    }
    #expect(try make() == make())
    #expect(try make(delay: 60) == make(delay: 60))
    #expect(try make(delay: 60).hashValue == make(delay: 60).hashValue)
    #expect(try make(delay: 60) != make(delay: 61))
    #expect(try make(delay: 60) != make())
    #expect(try make(towards: "Hamburg") != make(towards: "Berlin"))
    #expect(try TrafficIncidentDetails() == .none)
    #expect(try Set([make(), make(), make(delay: 1), make(towards: "Hamburg")]).count == 3)
    let full = try make(delay: 60, towards: "Hamburg")
    #expect(full.delayInSeconds == 60 && full.towards == "Hamburg" && full.countryCode == "DE")
    #expect(full.lanesClosed == nil && full.cause == nil && full.timeZone == nil)
    #expect(MemoryLayout<TrafficIncidentDetails>.size <= 64)
  }
}
