import Foundation
import Testing
import Traffic

@testable import find_traffic

@Suite struct FindTrafficExamplesTests {
  let now = Date(timeIntervalSince1970: 1_811_851_200)  // 2027-06-01 12:00 UTC

  @Test func queryInACirclePrintsEachDescription() async throws {
    let engine = try sampleEngine(now: now)
    let place = try GeoCoordinates(latitude: 52.4833, longitude: 13.3600)
    let printed = try await queryIncidentsInCircle(engine, around: place, print: { _ in })
    #expect(
      printed == [
        "Berlin, Sachsendamm between Gotenstraße and Priesterweg: reduced to one lane, "
          + "queues likely, construction, expected until 07/01/2027"
      ])
  }

  @Test func nearestIncidentIsMeasuredToSegments() async throws {
    let engine = try sampleEngine(now: now)
    // Beside the middle of the Sachsendamm's longest segment, 1.5 km from the accident.
    let place = try GeoCoordinates(latitude: 52.4826, longitude: 13.3575)
    let nearest = try #require(try await nearestIncident(engine, to: place, print: { _ in }))
    #expect(nearest.originalId == "sachsendamm")
    #expect(nearest.distanceInMeters < 30)
  }

  @Test func lookupInGerman() async throws {
    let engine = try sampleEngine(now: now)
    let text = await lookupIncidentInGerman(engine, originalId: "sachsendamm", print: { _ in })
    #expect(
      text
        == "Berlin, Sachsendamm zwischen Gotenstraße und Priesterweg Fahrbahn auf einen "
        + "Fahrstreifen verengt, Staugefahr, Bauarbeiten, bis voraussichtlich 01.07.2027")
    #expect(
      await lookupIncidentInGerman(engine, originalId: "nope", print: { _ in })
        == "incidentIdNotFound")
  }
}
