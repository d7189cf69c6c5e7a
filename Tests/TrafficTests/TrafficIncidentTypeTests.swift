import Testing
import Traffic

@Suite struct TrafficIncidentTypeTests {
  @Test func wireNamesAreTheV7Names() {
    let v7 = [
      "accident", "congestion", "construction", "disabledVehicle", "massTransit",
      "plannedEvent", "roadHazard", "weather", "roadClosure", "laneRestriction", "other",
    ]
    #expect(TrafficIncidentType.allCases.compactMap(\.wireName) == v7)
    #expect(TrafficIncidentType.unknown.wireName == nil)
    for name in v7 { #expect(TrafficIncidentType(wireName: name)?.wireName == name) }
    #expect(TrafficIncidentType(wireName: "unknown") == nil)
    #expect(TrafficIncidentType(wireName: "Accident") == nil)
  }

  @Test func impactWireNamesAreV7Criticalities() {
    #expect(
      TrafficIncidentImpact.allCases.map(\.wireName) == [
        "critical", "major", "minor", "lowImpact", nil,
      ])
    #expect(TrafficIncidentImpact(wireName: "lowImpact") == .low)
    #expect(TrafficIncidentImpact(wireName: "low") == nil)
  }

  @Test func junctionTraversabilityNamesAreV7Names() {
    #expect(
      JunctionsTraversability.allCases.map(\.rawValue) == [
        "allOpen", "allClosed", "intermediateClosedEdgeOpen", "startOpenOthersClosed",
        "endOpenOthersClosed",
      ])
  }
}
