import Foundation
import Testing
import Traffic

@Suite struct TrafficIncidentTests {
  let t0 = Date(timeIntervalSince1970: 1_000_000)

  @Test func rejectsEmptyIdsAndEndBeforeStart() throws {
    let location = TrafficLocation(point: try TrafficFixtures.place(1, 2))
    #expect(throws: TrafficModelError.emptyField("id")) {
      try TrafficIncident(id: "", type: .accident, impact: .major, location: location)
    }
    #expect(throws: TrafficModelError.emptyField("originalId")) {
      try TrafficIncident(
        id: "a", originalId: "", type: .accident, impact: .major, location: location)
    }
    #expect(throws: TrafficModelError.endBeforeStart(start: t0, end: t0 - 1)) {
      try TrafficFixtures.incident(start: t0, end: t0 - 1)
    }
    let instant = try TrafficFixtures.incident(start: t0, end: t0)
    #expect(instant.endTime == t0)
  }

  @Test func originalIdDefaultsToIdAndSurvivesUpdates() throws {
    let first = try TrafficFixtures.incident(start: t0, end: nil)
    #expect(first.originalId == "i")
    let second = try first.updated(id: "i-2", startTime: t0, endTime: t0 + 60)
    #expect(second.id == "i-2")
    #expect(second.originalId == "i")
    #expect(second.endTime == t0 + 60)
    #expect(throws: TrafficModelError.endBeforeStart(start: t0, end: t0 - 5)) {
      try first.updated(id: "i-3", startTime: t0, endTime: t0 - 5)
    }
  }

  @Test func activeFromStartUntilBeforeEnd() throws {
    let bounded = try TrafficFixtures.incident(start: t0, end: t0 + 100)
    #expect(!bounded.isActive(at: t0 - 1))
    #expect(bounded.isActive(at: t0))
    #expect(bounded.isActive(at: t0 + 99.999))
    #expect(!bounded.isActive(at: t0 + 100))
    let openStart = try TrafficFixtures.incident(start: nil, end: t0)
    #expect(openStart.isActive(at: .distantPast))
    #expect(!openStart.isActive(at: t0))
    let openEnd = try TrafficFixtures.incident(start: t0, end: nil)
    #expect(openEnd.isActive(at: .distantFuture))
    #expect(!openEnd.isActive(at: t0 - 1))
  }

  @Test func activeDuringAWindow() throws {
    let incident = try TrafficFixtures.incident(start: t0, end: t0 + 100)
    #expect(incident.isActive(during: (t0 - 50)...(t0)))
    #expect(!incident.isActive(during: (t0 - 50)...(t0 - 1)))
    #expect(incident.isActive(during: (t0 + 99)...(t0 + 500)))
    #expect(!incident.isActive(during: (t0 + 100)...(t0 + 500)))
  }

  @Test func withoutTextsTheDescriptionIsWordedInTheCountrysLanguage() throws {
    let incident = try TrafficFixtures.sachsendamm()
    #expect(incident.description.language == .deDE)
    #expect(incident.description.text.hasPrefix("Berlin, Sachsendamm"))
    let explicit = try TrafficIncident(
      id: "x", type: .other, impact: .low,
      description: LocalizedText(text: "Given", language: .enGB),
      location: TrafficLocation(point: try TrafficFixtures.place(1, 1)))
    #expect(explicit.description.text == "Given")
    #expect(explicit.summary.text == "Traffic disruption")
  }

  @Test func codableRoundTrip() throws {
    var incident = try TrafficFixtures.sachsendamm(
      sourceTexts: [LocalizedText(text: "Baustelle", language: .deDE)])
    incident.codes = [701, 401]
    incident.parentId = "parent"
    incident.entryTime = t0
    incident.isRoadClosed = true
    incident.junctionsTraversability = .intermediateClosedEdgeOpen
    var truck = VehicleRestriction()
    truck.restrictedIfGrossWeightMoreThanInKilograms = 7_500
    truck.restrictedHazardousGoods = [.explosive]
    truck.restrictedTunnelCategory = .c
    incident.vehicleRestrictions = [.heavyGoodsVehicle: truck, .bus: .always]
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let data = try encoder.encode(incident)
    let decoded = try JSONDecoder().decode(TrafficIncident.self, from: data)
    #expect(decoded == incident)
    #expect(String(decoding: data, as: UTF8.self).contains("\"heavyGoodsVehicle\":{"))
  }

  @Test func decodingValidates() {
    let json = """
      {"id": "a", "type": "accident", "impact": "major", "startTime": 100, "endTime": 50,
       "location": {"polyline": [{"lat": 1, "lng": 2}, {"lat": 1, "lng": 2}]}}
      """
    #expect(throws: TrafficModelError.self) {
      try JSONDecoder().decode(TrafficIncident.self, from: Data(json.utf8))
    }
    let badPolyline = """
      {"id": "a", "location": {"polyline": [{"lat": 1, "lng": 2}]}}
      """
    #expect(throws: GeoError.tooFewVertices(1)) {
      try JSONDecoder().decode(TrafficIncident.self, from: Data(badPolyline.utf8))
    }
  }
}
