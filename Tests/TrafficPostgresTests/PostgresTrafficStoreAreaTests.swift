import Foundation
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficPostgres

@Suite struct PostgresTrafficStoreAreaTests {
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

  @Test func theGiSTIndexFindsEveryIncidentWhoseBoxesMeetTheQuery() throws {
    var generator = SeededGenerator(seed: 0x5EED_0101)
    let store = try PostgresTestDatabase.freshStore()
    var incidents = try Self.incidents(count: 600, generator: &generator)
    try store.apply(IncidentBatch(upserts: incidents))
    // Moved and deleted incidents must leave the index too.
    let moved = try Self.incidents(count: 50, generator: &generator)
    try store.apply(
      IncidentBatch(
        upserts: moved.map { try $0.updated(id: $0.id + "-moved", startTime: nil, endTime: nil) },
        deletions: (550..<600).map { "i\($0)" }))
    incidents = Array(incidents[50..<550]) + moved
    var extra = 0
    for _ in 0..<200 {
      let box = try Self.randomBox(&generator)
      let oracle = Set(
        incidents.filter { incident in
          incident.location.allPolylines.contains { box.intersects($0.boundingBox) }
        }.map(\.originalId))
      let candidates = Set(try store.candidateIds(intersecting: box))
      #expect(
        candidates.isSuperset(of: oracle), "box \(box): missed \(oracle.subtracting(candidates))")
      // Near misses only, where the index's float boxes round outwards.
      extra += candidates.subtracting(oracle).count
    }
    #expect(extra < 10)
  }

  @Test func areaQueriesThroughPostGISMatchTheSnapshot() throws {
    var generator = SeededGenerator(seed: 0x5EED_0102)
    let store = try PostgresTestDatabase.freshStore()
    try store.apply(IncidentBatch(upserts: try Self.incidents(count: 400, generator: &generator)))
    let snapshot = IncidentIndex(try store.currentIncidents())
    func expected(_ area: some GeoArea) -> [TrafficIncident] {
      snapshot.positions(meeting: area).map { snapshot.incidents[$0] }
        .sorted { $0.originalId < $1.originalId }
    }
    var nonEmpty = 0
    for _ in 0..<100 {
      let box = try Self.randomBox(&generator)
      let found = try store.incidents(meeting: box)
      #expect(found == expected(box), "box \(box)")
      if !found.isEmpty { nonEmpty += 1 }
      let circle = try GeoCircle(
        center: GeoCoordinates(
          latitude: .random(in: -60...60, using: &generator),
          longitude: .random(in: -180...180, using: &generator)),
        radiusInMeters: .random(in: 1_000...400_000, using: &generator))
      #expect(try store.incidents(meeting: circle) == expected(circle), "circle \(circle)")
    }
    #expect(nonEmpty > 20)
  }

  @Test func aLineAcrossTheAntimeridianIsFoundFromBothSides() throws {
    let store = try PostgresTestDatabase.freshStore()
    let line = try TrafficIncident(
      id: "dateline", type: .weather, impact: .low,
      location: TrafficLocation(
        polyline: GeoPolyline(vertices: [
          GeoCoordinates(latitude: -17, longitude: 179.5),
          GeoCoordinates(latitude: -17.5, longitude: -179.5),
        ])))
    try store.apply(IncidentBatch(upserts: [line]))
    let east = try GeoBox(west: -179.9, south: -18, east: -179, north: -17)
    let west = try GeoBox(west: 179, south: -18, east: 179.9, north: -17)
    let greenwich = try GeoBox(west: -1, south: -18, east: 1, north: -17)
    #expect(try store.incidents(meeting: east) == [line])
    #expect(try store.incidents(meeting: west) == [line])
    #expect(try store.incidents(meeting: greenwich).isEmpty)
    #expect(
      try store.texts("SELECT ST_AsText(geom) FROM incidents") == [
        "MULTILINESTRING((179.5 -17,180.5 -17.5))"
      ])
  }
}
