import Foundation
import Testing
import Traffic
import TrafficStoreContract
import TrafficTestSupport

@testable import TrafficPostgres

@Suite struct PostgresTrafficStoreAreaTests {
  @Test func theGiSTIndexFindsEveryIncidentWhoseBoxesMeetTheQuery() throws {
    var generator = SeededGenerator(seed: 0x5EED_0101)
    let store = try PostgresTestDatabase.freshStore()
    var incidents = try AreaFixtures.incidents(count: 600, generator: &generator)
    try store.apply(IncidentBatch(upserts: incidents))
    // Moved and deleted incidents must leave the index too.
    let moved = try AreaFixtures.incidents(count: 50, generator: &generator)
    try store.apply(
      IncidentBatch(
        upserts: moved.map { try $0.updated(id: $0.id + "-moved", startTime: nil, endTime: nil) },
        deletions: (550..<600).map { "i\($0)" }))
    incidents = Array(incidents[50..<550]) + moved
    var extra = 0
    for _ in 0..<200 {
      let box = try AreaFixtures.randomBox(&generator)
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
    try store.apply(
      IncidentBatch(upserts: try AreaFixtures.incidents(count: 400, generator: &generator)))
    let snapshot = IncidentIndex(try store.currentIncidents())
    func expected(_ area: some GeoArea) -> [TrafficIncident] {
      snapshot.positions(meeting: area).map { snapshot.incidents[$0] }
        .sorted { $0.originalId < $1.originalId }
    }
    var nonEmpty = 0
    for _ in 0..<100 {
      let box = try AreaFixtures.randomBox(&generator)
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
