import Foundation
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficSQLite

@Suite struct SQLiteTrafficStoreAreaTests {
  /// Random incidents of one to three polylines, some crossing the antimeridian.
  static func incidents(count: Int, generator: inout SeededGenerator) throws -> [TrafficIncident] {
    try (0..<count).map { number in
      let lines = try (0..<Int.random(in: 1...3, using: &generator)).map { _ in
        let latitude = Double.random(in: -60...60, using: &generator)
        let longitude = Double.random(in: -180...180, using: &generator)
        let vertices = try (0..<Int.random(in: 2...4, using: &generator)).map { _ in
          var lng = longitude + Double.random(in: -2...2, using: &generator)
          if lng > 180 { lng -= 360 }
          if lng < -180 { lng += 360 }
          return try GeoCoordinates(
            latitude: latitude + Double.random(in: -1...1, using: &generator), longitude: lng)
        }
        return try GeoPolyline(vertices: vertices)
      }
      return try TrafficIncident(
        id: "i\(number)", type: .congestion, impact: .minor,
        description: LocalizedText(text: "i\(number)", language: .enUS),
        location: TrafficLocation(polyline: lines[0], additionalPolylines: Array(lines.dropFirst()))
      )
    }
  }

  static func randomBox(_ generator: inout SeededGenerator) throws -> GeoBox {
    let south = Double.random(in: -70...60, using: &generator)
    let west = Double.random(in: -180...180, using: &generator)
    var east = west + Double.random(in: 0...40, using: &generator)
    if east > 180 { east -= 360 }
    return try GeoBox(
      west: west, south: south, east: east,
      north: south + Double.random(in: 0...20, using: &generator))
  }

  @Test func theRTreeFindsExactlyTheIncidentsWhoseBoxesMeetTheQuery() throws {
    var generator = SeededGenerator(seed: 0x5EED_0001)
    let directory = try TemporaryDirectory()
    let store = try SQLiteTrafficStore(path: directory.path("area.sqlite"))
    var incidents = try Self.incidents(count: 600, generator: &generator)
    try store.apply(IncidentBatch(upserts: incidents))
    // Moved and deleted incidents must leave the tree too.
    let moved = try Self.incidents(count: 50, generator: &generator)
    try store.apply(
      IncidentBatch(
        upserts: moved.map { try $0.updated(id: $0.id + "-moved", startTime: nil, endTime: nil) },
        deletions: (550..<600).map { "i\($0)" }))
    incidents = Array(incidents[50..<550]) + moved
    for _ in 0..<200 {
      let box = try Self.randomBox(&generator)
      let oracle = incidents.filter { incident in
        incident.location.allPolylines.contains { box.intersects($0.boundingBox) }
      }.map(\.originalId).sorted()
      #expect(try store.incidentIds(intersecting: box) == oracle, "box \(box)")
    }
  }

  @Test func areaQueriesFromTheFileMatchTheSnapshot() throws {
    var generator = SeededGenerator(seed: 0x5EED_0002)
    let directory = try TemporaryDirectory()
    let store = try SQLiteTrafficStore(path: directory.path("area.sqlite"))
    try store.apply(IncidentBatch(upserts: try Self.incidents(count: 400, generator: &generator)))
    let snapshot = IncidentIndex(try store.currentIncidents())
    for _ in 0..<100 {
      let circle = try GeoCircle(
        center: GeoCoordinates(
          latitude: .random(in: -60...60, using: &generator),
          longitude: .random(in: -180...180, using: &generator)),
        radiusInMeters: .random(in: 1_000...400_000, using: &generator))
      let expected = snapshot.positions(meeting: circle).map { snapshot.incidents[$0] }
        .sorted { $0.originalId < $1.originalId }
      #expect(try store.incidents(meeting: circle) == expected)
    }
  }
}
