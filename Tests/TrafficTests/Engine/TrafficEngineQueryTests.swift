import Foundation
import Testing
import TrafficTestSupport

@testable import Traffic

@Suite struct TrafficEngineQueryTests {
  typealias F = EngineFixtures

  @Test func guideSampleQueryInACircleAndPrintEachDescription() async throws {
    // The guide: query a circle of 1 km, then print each incident's description.
    let engine = try F.engine(
      [
        try TrafficFixtures.sachsendamm(),
        try F.incident("far", [(52.60, 13.60)]),
      ], clock: { TrafficFixtures.february20 - 86_400 })
    let center = try GeoCoordinates(latitude: 52.4800, longitude: 13.3650)
    let geoCircle = try GeoCircle(center: center, radiusInMeters: 1000)
    var queryOptions = TrafficIncidentsQueryOptions()
    queryOptions.languageCode = .deDE
    let incidents = try await engine.queryForIncidents(
      inside: geoCircle, queryOptions: queryOptions)
    #expect(incidents.map(\.originalId) == ["sachsendamm"])
    #expect(
      incidents.first?.description.text
        == "Berlin, Sachsendamm zwischen Gotenstraße und Priesterweg Fahrbahn auf einen "
        + "Fahrstreifen verengt, Staugefahr, Bauarbeiten, bis voraussichtlich 20.02.2028")
  }

  @Test func geometryIsTestedExactlyNotByBoundingBox() async throws {
    // An L-shaped road whose bounding box covers the circle but which passes 1.1 km away;
    // and a long straight road whose vertices are 5 km away but which crosses the circle.
    let engine = try F.engine([
      try F.incident("l-shape", [(52.50, 13.30), (52.50, 13.40), (52.60, 13.40)]),
      try F.incident("straight", [(52.55, 13.28), (52.55, 13.42)]),
    ])
    let circle = try F.circle(52.56, 13.35, 1_500)
    let found = try await engine.queryForIncidents(inside: circle)
    #expect(found.map(\.originalId) == ["straight"])
  }

  @Test func additionalPolylinesCount() async throws {
    let engine = try F.engine([
      try F.incident(
        "two-parts", [(52.0, 13.0), (52.0, 13.01)], additional: [[(52.3, 13.3), (52.3, 13.31)]])
    ])
    #expect(try await engine.queryForIncidents(inside: F.circle(52.3, 13.305, 100)).count == 1)
  }

  @Test func boxAndCorridorQueries() async throws {
    let engine = try F.engine([
      try F.incident("a", [(52.50, 13.40)]),
      try F.incident("b", [(52.52, 13.45), (52.53, 13.46)]),
      try F.incident("c", [(52.70, 13.70)]),
    ])
    let box = try GeoBox(west: 13.39, south: 52.49, east: 13.455, north: 52.525)
    #expect(Set(try await engine.queryForIncidents(inside: box).map(\.originalId)) == ["a", "b"])
    let corridor = try GeoCorridor(
      polyline: [F.circle(52.50, 13.30, 1).center, F.circle(52.50, 13.50, 1).center],
      halfWidthInMeters: 200)
    #expect(try await engine.queryForIncidents(inside: corridor).map(\.originalId) == ["a"])
  }

  @Test func onlyIncidentsActiveNowByDefault() async throws {
    let engine = try F.engine([
      try F.incident("active", [(52.5, 13.4)]),
      try F.incident("ended", [(52.5, 13.4)], start: F.now - 48 * F.hour, end: F.now - F.hour),
      try F.incident("endsNow", [(52.5, 13.4)], start: F.now - F.hour, end: F.now),
      try F.incident("planned", [(52.5, 13.4)], start: F.now + F.hour, end: F.now + 2 * F.hour),
      try F.incident("openEnded", [(52.5, 13.4)], start: nil, end: nil),
    ])
    let circle = try F.circle(52.5, 13.4, 100)
    #expect(
      Set(try await engine.queryForIncidents(inside: circle).map(\.originalId)) == [
        "active", "openEnded",
      ])
    var options = TrafficIncidentsQueryOptions()
    options.latestEndTime = F.now + 3 * F.hour
    #expect(
      Set(
        try await engine.queryForIncidents(inside: circle, queryOptions: options).map(\.originalId))
        == ["active", "openEnded", "planned"])
    options = TrafficIncidentsQueryOptions(earliestStartTime: F.now - 3 * F.hour)
    #expect(
      Set(
        try await engine.queryForIncidents(inside: circle, queryOptions: options).map(\.originalId))
        == ["active", "openEnded", "ended", "endsNow"])
  }

  @Test func typeAndImpactFiltersWithHereSemantics() async throws {
    let engine = try F.engine([
      try F.incident("acc", [(52.5, 13.4)], type: .accident, impact: .critical),
      try F.incident("works", [(52.5, 13.4)], type: .construction, impact: .minor),
      try F.incident("closed", [(52.5, 13.4)], type: .roadClosure, impact: .major),
    ])
    let circle = try F.circle(52.5, 13.4, 100)
    func ids(_ options: TrafficIncidentsQueryOptions) async throws -> [String] {
      try await engine.queryForIncidents(inside: circle, queryOptions: options).map(\.originalId)
    }
    // Empty filters return everything, most severe first.
    #expect(try await ids(TrafficIncidentsQueryOptions()) == ["acc", "closed", "works"])
    #expect(
      try await ids(TrafficIncidentsQueryOptions(typeFilter: [.construction, .roadClosure])) == [
        "closed", "works",
      ])
    #expect(try await ids(TrafficIncidentsQueryOptions(impactFilter: [.critical])) == ["acc"])
    #expect(
      try await ids(TrafficIncidentsQueryOptions(typeFilter: [.accident], impactFilter: [.minor]))
        == [])
  }

  @Test func sortedByDistanceAndLimited() async throws {
    let engine = try F.engine([
      try F.incident("far", [(52.52, 13.40)]),
      try F.incident("near", [(52.501, 13.40)]),
      try F.incident("mid", [(52.51, 13.40)]),
    ])
    let origin = try GeoCoordinates(latitude: 52.50, longitude: 13.40)
    let options = TrafficIncidentsQueryOptions(limit: 2).sortedByDistance(from: origin)
    let found = try await engine.queryForIncidents(
      inside: F.circle(52.50, 13.40, 5_000), queryOptions: options)
    #expect(found.map(\.originalId) == ["near", "mid"])
  }

  @Test func limitsOfHereAreEnforced() async throws {
    let engine = try F.engine([])
    let center = try GeoCoordinates(latitude: 52.5, longitude: 13.4)
    await #expect(throws: TrafficQueryError.self) {
      try await engine.queryForIncidents(inside: GeoCircle(center: center, radiusInMeters: 50_001))
    }
    _ = try await engine.queryForIncidents(
      inside: GeoCircle(center: center, radiusInMeters: 50_000))
    await #expect(throws: TrafficQueryError.self) {
      try await engine.queryForIncidents(
        inside: GeoBox(west: 13.0, south: 52.0, east: 14.01, north: 52.5))
    }
    _ = try await engine.queryForIncidents(
      inside: GeoBox(west: 179.5, south: 0, east: -179.5, north: 1))
    await #expect(throws: TrafficQueryError.self) {
      try await engine.queryForIncidents(
        inside: GeoBox(west: 179.5, south: 0, east: -179.4, north: 1))
    }
    let tooManyPoints = try (0...300).map {
      try GeoCoordinates(latitude: 52 + Double($0) * 1e-3, longitude: 13)
    }
    await #expect(throws: TrafficQueryError.self) {
      try await engine.queryForIncidents(inside: GeoCorridor(polyline: tooManyPoints))
    }
    let long = [center, try GeoCoordinates(latitude: 57.0, longitude: 13.4)]  // ~500.6 km
    await #expect(throws: TrafficQueryError.self) {
      try await engine.queryForIncidents(inside: GeoCorridor(polyline: long))
    }
    let wide = [center, try GeoCoordinates(latitude: 52.6, longitude: 13.4)]
    await #expect(throws: TrafficQueryError.self) {
      try await engine.queryForIncidents(
        inside: GeoCorridor(polyline: wide, halfWidthInMeters: 5_001))
    }
    let error = await queryError {
      _ = try await engine.queryForIncidents(
        inside: GeoCircle(center: center, radiusInMeters: 60_000))
    }
    #expect(error?.name == "invalidGeometry")
    #expect(error?.httpStatus == 400)
  }

  @Test func badOptionsAreRejected() async throws {
    let engine = try F.engine([])
    let circle = try F.circle(52.5, 13.4, 100)
    let inverted = await queryError {
      _ = try await engine.queryForIncidents(
        inside: circle,
        queryOptions: TrafficIncidentsQueryOptions(
          earliestStartTime: F.now, latestEndTime: F.now - 1))
    }
    #expect(inverted?.name == "invalidFilterOptions")
    let zeroLimit = await queryError {
      _ = try await engine.queryForIncidents(
        inside: circle, queryOptions: TrafficIncidentsQueryOptions(limit: 0))
    }
    #expect(zeroLimit?.name == "invalidParameter")
  }

  @Test func cancelledTaskReportsOperationCancelled() async throws {
    let engine = try F.engine([try F.incident("a", [(52.5, 13.4)])])
    let circle = try F.circle(52.5, 13.4, 100)
    let task = Task { () async -> TrafficQueryError? in
      withUnsafeCurrentTask { $0?.cancel() }
      return await queryError { _ = try await engine.queryForIncidents(inside: circle) }
    }
    #expect(await task.value == .operationCancelled)
  }

  @Test func randomQueriesMatchABruteForceOracle() async throws {
    var random = SeededGenerator(seed: 7)
    var incidents: [TrafficIncident] = []
    for i in 0..<400 {
      let lat = Double.random(in: 52.3...52.7, using: &random)
      let lng = Double.random(in: 13.1...13.7, using: &random)
      let count = Int.random(in: 1...4, using: &random)
      var vertices = [(lat, lng)]
      for _ in 1..<count {
        let last = vertices[vertices.count - 1]
        vertices.append(
          (
            last.0 + Double.random(in: -0.02...0.02, using: &random),
            last.1 + Double.random(in: -0.03...0.03, using: &random)
          ))
      }
      incidents.append(try F.incident("i\(i)", vertices))
    }
    let engine = try F.engine(incidents)
    for _ in 0..<60 {
      let circle = try F.circle(
        Double.random(in: 52.3...52.7, using: &random),
        Double.random(in: 13.1...13.7, using: &random),
        Double.random(in: 100...8_000, using: &random))
      let expected = Set(
        incidents.filter { circle.intersects($0.location.polyline) }.map(\.originalId))
      let found = Set(try await engine.queryForIncidents(inside: circle).map(\.originalId))
      #expect(found == expected)
    }
  }
}
