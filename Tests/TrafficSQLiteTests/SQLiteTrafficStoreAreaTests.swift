import Foundation
import Testing
import Traffic
import TrafficStoreContract
import TrafficTestSupport

@testable import TrafficSQLite

@Suite struct SQLiteTrafficStoreAreaTests {
  @Test func theRTreeFindsExactlyTheIncidentsWhoseBoxesMeetTheQuery() throws {
    var generator = SeededGenerator(seed: 0x5EED_0001)
    let directory = try TemporaryDirectory()
    let store = try SQLiteTrafficStore(path: directory.path("area.sqlite"))
    var incidents = try AreaFixtures.incidents(count: 600, generator: &generator)
    try store.apply(IncidentBatch(upserts: incidents))
    // Moved and deleted incidents must leave the tree too; new versions in place (whose
    // entries are kept as they are) must stay in it.
    let moved = try AreaFixtures.incidents(count: 50, generator: &generator)
    let inPlace = try incidents[100..<150].map {
      try $0.updated(id: $0.id + "-v2", startTime: nil, endTime: nil)
    }
    try store.apply(
      IncidentBatch(
        upserts: moved.map { try $0.updated(id: $0.id + "-moved", startTime: nil, endTime: nil) }
          + inPlace,
        deletions: (550..<600).map { "i\($0)" }))
    #expect(
      try store.texts("SELECT count(*) FROM incident_rtree")
        == (try store.texts("SELECT sum(box_count) FROM incidents")))
    incidents = Array(incidents[50..<550]) + moved
    for _ in 0..<200 {
      let box = try AreaFixtures.randomBox(&generator)
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
    try store.apply(
      IncidentBatch(upserts: try AreaFixtures.incidents(count: 400, generator: &generator)))
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
