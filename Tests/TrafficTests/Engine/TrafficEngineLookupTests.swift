import Foundation
import Synchronization
import Testing

@testable import Traffic

@Suite struct TrafficEngineLookupTests {
  typealias F = EngineFixtures

  @Test func guideSampleLookupByOriginalIdInALanguage() async throws {
    let engine = try F.engine(
      [try TrafficFixtures.sachsendamm()], clock: { TrafficFixtures.february20 - 86_400 })
    let incident = try await engine.lookupIncident(
      with: "sachsendamm", lookupOptions: TrafficIncidentLookupOptions(languageCode: .deDE))
    #expect(incident.id == "v2")
    #expect(incident.description.language == .deDE)
    #expect(incident.description.text.hasPrefix("Berlin, Sachsendamm zwischen Gotenstraße"))
    let english = try await engine.lookupIncident(
      with: "here:traffic:incident:sachsendamm",
      lookupOptions: TrafficIncidentLookupOptions(languageCode: .enGB))
    #expect(english.description.text.contains("roadworks, expected until 20/02/2028"))
  }

  @Test func unknownAndEmptyIdsAreErrors() async throws {
    let engine = try F.engine([try F.incident("a", [(52.5, 13.4)])])
    #expect(
      await queryError { _ = try await engine.lookupIncident(with: "nope") }
        == .incidentIdNotFound("nope"))
    #expect(
      await queryError { _ = try await engine.lookupIncident(with: "") }?.name == "invalidIncident")
  }

  @Test func endedIncidentsCanStillBeLookedUpUntilPurged() async throws {
    let engine = try F.engine([
      try F.incident("old", [(52.5, 13.4)], start: F.now - 10 * F.hour, end: F.now - F.hour)
    ])
    #expect(try await engine.lookupIncident(with: "old").originalId == "old")
    #expect(try await engine.queryForIncidents(inside: F.circle(52.5, 13.4, 100)).isEmpty)
  }

  @Test func guideSampleNearestIncidentMeasuresToSegmentsNotVertices() async throws {
    // A motorway incident 10 km long whose vertices are 5 km from the car, but whose road
    // passes 150 m from it; and a point incident 400 m away. Measuring only to vertices (as
    // the guide's sample does) would pick the point incident.
    let engine = try F.engine([
      try F.incident("motorway", [(52.50, 13.30), (52.50, 13.447)]),
      try F.incident("point", [(52.5050, 13.3735)]),
    ])
    let car = try GeoCoordinates(latitude: 52.50135, longitude: 13.3735)
    let nearest = try #require(try await engine.nearestIncident(to: car, within: 5_000))
    #expect(nearest.incident.originalId == "motorway")
    // GeographicLib, sampling the geodesic every 5 cm: 147.684 m (the geodesic bulges north
    // of the parallel, so it passes nearer than the 150 m latitude difference).
    #expect(abs(nearest.distanceInMeters - 147.684) < 0.05)
    // Vertex-only distance for comparison.
    let vertexDistance =
      nearest.incident.location.polyline.vertices.map { $0.distance(to: car) }.min() ?? 0
    #expect(vertexDistance > 4_900)
  }

  @Test func nearestHonoursFiltersRadiusAndTime() async throws {
    let engine = try F.engine([
      try F.incident("accident", [(52.501, 13.40)], type: .accident),
      try F.incident("works", [(52.505, 13.40)], type: .construction),
      try F.incident("ended", [(52.5001, 13.40)], end: F.now - 1),
    ])
    let origin = try GeoCoordinates(latitude: 52.50, longitude: 13.40)
    #expect(try await engine.nearestIncident(to: origin)?.incident.originalId == "accident")
    #expect(
      try await engine.nearestIncident(
        to: origin, queryOptions: TrafficIncidentsQueryOptions(typeFilter: [.construction]))?
        .incident.originalId
        == "works")
    #expect(try await engine.nearestIncident(to: origin, within: 50) == nil)
    #expect(
      await queryError { _ = try await engine.nearestIncident(to: origin, within: -1) }?.name
        == "invalidGeometry")
    #expect(
      await queryError { _ = try await engine.nearestIncident(to: origin, within: 60_000) }?.name
        == "invalidGeometry")
  }

  @Test func completionHandlersDeliverExactlyOnce() async throws {
    let engine = try F.engine([try F.incident("a", [(52.5, 13.4)])])
    let circle = try F.circle(52.5, 13.4, 100)
    let result: [String] = await withCheckedContinuation { continuation in
      engine.queryForIncidents(inside: circle) { error, incidents in
        continuation.resume(
          returning: error == nil ? (incidents ?? []).map(\.originalId) : ["error"])
      }
    }
    #expect(result == ["a"])
    let lookup: TrafficQueryError? = await withCheckedContinuation { continuation in
      engine.lookupIncident(with: "missing") { error, incident in
        continuation.resume(returning: incident == nil ? error : nil)
      }
    }
    #expect(lookup == .incidentIdNotFound("missing"))
  }

  @Test func cancellingAHandleAnswersOperationCancelledOnce() async throws {
    let engine = try F.engine([try F.incident("a", [(52.5, 13.4)])])
    let calls = Mutex<[TrafficQueryError?]>([])
    let handle = engine.lookupIncident(with: "a") { error, _ in calls.withLock { $0.append(error) }
    }
    let cancelled = handle.cancel()
    try await Task.sleep(for: .milliseconds(50))
    let seen = calls.withLock { $0 }
    #expect(seen.count == 1)
    if cancelled {
      #expect(seen == [.operationCancelled])
      #expect(handle.isCancelled)
    } else {
      #expect(seen == [nil])
      #expect(handle.isFinished)
    }
    #expect(handle.cancel() == false)
  }
}
