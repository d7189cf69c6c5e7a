import Foundation
import Testing
import TrafficTestSupport

@testable import Traffic

/// The incidents along a route, found piece by piece, against the plain definition: every
/// active incident meeting the route's corridor, placed where its first point in the
/// corridor projects onto the whole route.
@Suite struct IncidentsAlongRouteTests {
  typealias F = EngineFixtures

  static func reference(
    along route: GeoPolyline, halfWidth: Double, in index: IncidentIndex, at now: Date
  ) throws -> [(String, Double)] {
    let corridor = try GeoCorridor(polyline: route.vertices, halfWidthInMeters: halfWidth)
    var found: [(String, Double)] = []
    for position in index.incidents.indices {
      let incident = index.incidents[position]
      guard incident.isActive(at: now),
        incident.location.allPolylines.contains(where: { corridor.intersects($0) })
      else { continue }
      let points = incident.location.allPolylines.flatMap(\.vertices)
      let inside = points.first { corridor.contains($0) } ?? points[0]
      found.append((incident.originalId, route.closestPoint(to: inside).distanceAlongInMeters))
    }
    return found.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
  }

  @Test func aLongRouteFindsAndPlacesWhatTheWholeCorridorDoes() throws {
    var generator = SeededGenerator(seed: 21)
    for round in 0..<12 {
      // A winding route of 20 to 80 vertices, sometimes turning back over itself.
      var point = (52.5, 13.4)
      var vertices: [GeoCoordinates] = []
      for _ in 0..<Int.random(in: 20...80, using: &generator) {
        vertices.append(try GeoCoordinates(latitude: point.0, longitude: point.1))
        point.0 += Double.random(in: -0.0015...0.002, using: &generator)
        point.1 += Double.random(in: -0.002...0.003, using: &generator)
      }
      let route = try GeoPolyline(vertices: vertices)
      let incidents = try (0..<300).map { k -> TrafficIncident in
        let base = vertices[Int.random(in: 0..<vertices.count, using: &generator)]
        let lat = base.latitude + Double.random(in: -0.0008...0.0008, using: &generator)
        let lng = base.longitude + Double.random(in: -0.0012...0.0012, using: &generator)
        return k % 3 == 0
          ? try F.incident("p\(k)", [(lat, lng)])
          : try F.incident("l\(k)", [(lat, lng), (lat + 0.0004, lng + 0.0006)])
      }
      let index = IncidentIndex(incidents)
      let halfWidth = [30.0, 5, 80][round % 3]
      let found = TrafficEngine.incidents(
        along: route, corridorHalfWidthInMeters: halfWidth, in: index, at: F.now
      ).map { ($0.incident.originalId, $0.offsetInMeters) }
      let expected = try Self.reference(along: route, halfWidth: halfWidth, in: index, at: F.now)
      #expect(found.map { $0.0 } == expected.map { $0.0 }, "round \(round)")
      for (got, want) in zip(found, expected) {
        #expect(abs(got.1 - want.1) < 0.01, "round \(round): \(got) vs \(want)")
      }
      #expect(expected.count > 20, "the route must meet incidents for the test to mean anything")
    }
  }
}
