import Foundation
import Geo
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficSQLite

/// A large first batch into an empty store is written once, into the file, under a rollback
/// journal (not into the write-ahead log and again by the checkpoint), and the store is
/// in WAL mode again afterwards.
@Suite struct SQLiteBulkLoadTests {
  func incidents(_ count: Int, version: Int = 1) throws -> [TrafficIncident] {
    try (0..<count).map { number in
      try TrafficIncident(
        id: "z\(number)-v\(version)", originalId: "z\(number)", type: .construction,
        impact: version == 1 ? .minor : .major,
        description: LocalizedText(text: "work zone \(number)", language: .enUS),
        location: TrafficLocation(
          point: GeoCoordinates(
            latitude: 48 + Double(number % 50) / 100, longitude: 9 + Double(number / 50) / 100)))
    }
  }

  func walBytes(_ path: String) -> Int {
    let size = try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size]
    return (size as? Int) ?? 0
  }

  func open(_ path: String, bulkLoadUpserts: Int) throws -> SQLiteTrafficStore {
    try SQLiteTrafficStore(
      path: path, access: .readWrite, durability: .processCrash, bulkLoadUpserts: bulkLoadUpserts)
  }

  @Test("the first large batch bypasses the write-ahead log; every row, version and box is there")
  func firstLargeBatch() throws {
    let directory = try TemporaryDirectory()
    let bulkPath = directory.path("bulk.sqlite")
    let walPath = directory.path("wal.sqlite")
    let first = try incidents(600)
    let bulk = try open(bulkPath, bulkLoadUpserts: 500)
    try bulk.apply(IncidentBatch(upserts: first, deletions: []))
    let logged = try open(walPath, bulkLoadUpserts: 5_000)
    try logged.apply(IncidentBatch(upserts: first, deletions: []))
    // The same batch through the log leaves its pages there; the bulk load leaves none.
    #expect(walBytes(walPath) > 600 * 100)
    #expect(walBytes(bulkPath) < 600 * 10)
    for store in [bulk, logged] {
      #expect(try store.texts("PRAGMA journal_mode") == ["wal"])
      #expect(try store.integrityCheck() == ["ok"])
      #expect(try store.currentIncidents() == first)
      #expect(try store.texts("SELECT count(*) FROM incident_history") == ["0"])
      #expect(
        try store.texts("SELECT count(*) FROM incident_rtree")
          == store.texts("SELECT sum(box_count) FROM incidents"))
    }
    // A store that holds incidents takes the next large batch through the log, as usual.
    let before = walBytes(bulkPath)
    let second = try incidents(600, version: 2)
    try bulk.apply(IncidentBatch(upserts: second, deletions: []))
    #expect(walBytes(bulkPath) > before + 600 * 100)
    #expect(try bulk.currentIncidents() == second)
    #expect(try bulk.texts("SELECT count(*) FROM incident_history") == ["600"])
    #expect(try bulk.history(ofOriginalId: "z7").map(\.id) == ["z7-v1", "z7-v2"])
  }

  @Test("with another connection on the file the batch goes through the log, without waiting")
  func anotherConnection() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("shared.sqlite")
    let reader = try SQLiteTrafficStore(path: path)
    #expect(try reader.currentIncidents().isEmpty)
    let writer = try open(path, bulkLoadUpserts: 500)
    let first = try incidents(600)
    let clock = ContinuousClock()
    let elapsed = try clock.measure {
      try writer.apply(IncidentBatch(upserts: first, deletions: []))
    }
    // The busy timeout is 5 s: a switch that waited for the other connection would show.
    #expect(elapsed < .seconds(3))
    #expect(walBytes(path) > 600 * 100)
    #expect(try writer.texts("PRAGMA journal_mode") == ["wal"])
    #expect(try reader.currentIncidents() == first)
  }
}

/// The R*Tree of a bulk load is written packed into SQLite's shadow tables
/// (`PackedRTreeLoad`): SQLite's own check finds it sound, it finds exactly what the tree a
/// store grows by inserts finds, and later writes change it as usual.
@Suite struct PackedRTreeLoadTests {
  /// `count` incidents of one to three polylines of two to five vertices at random places,
  /// a few across the antimeridian, versions `version`.
  static func incidents(
    _ count: Int, version: Int, generator: inout SeededGenerator
  ) throws -> [TrafficIncident] {
    try (0..<count).map { number in
      func polyline() throws -> GeoPolyline {
        let across = Int.random(in: 0..<50, using: &generator) == 0
        let latitude = Double.random(in: -60...60, using: &generator)
        let longitude = across ? 179.999 : Double.random(in: -179...179, using: &generator)
        let vertices = try (0..<Int.random(in: 2...5, using: &generator)).map { step in
          try GeoCoordinates(
            latitude: latitude + Double(step) * Double.random(in: 0...0.02, using: &generator),
            longitude: across && step > 0
              ? -179.999 + Double(step) * 0.001
              : longitude + Double(step) * Double.random(in: 0...0.02, using: &generator))
        }
        return try GeoPolyline(vertices: vertices)
      }
      let pieces = try (0..<Int.random(in: 1...3, using: &generator)).map { _ in try polyline() }
      return try TrafficIncident(
        id: "p\(number)-v\(version)", originalId: "p\(number)", type: .construction,
        impact: .minor, description: LocalizedText(text: "zone \(number)", language: .enUS),
        location: TrafficLocation(
          polyline: pieces[0], additionalPolylines: Array(pieces.dropFirst())))
    }
  }

  static func open(_ path: String, bulkLoadUpserts: Int) throws -> SQLiteTrafficStore {
    try SQLiteTrafficStore(
      path: path, access: .readWrite, durability: .processCrash, bulkLoadUpserts: bulkLoadUpserts)
  }

  /// The ids each of 300 random boxes meets, in both stores, must be equal (and some found).
  static func expectSameAnswers(
    _ packed: SQLiteTrafficStore, _ grown: SQLiteTrafficStore, generator: inout SeededGenerator
  ) throws {
    var found = 0
    for _ in 0..<300 {
      let west = Double.random(in: -180...170, using: &generator)
      let south = Double.random(in: -70...60, using: &generator)
      let size = Double.random(in: 0.01...20, using: &generator)
      let box = try GeoBox(
        west: west, south: south, east: min(180, west + size), north: min(90, south + size))
      let expected = try grown.incidentIds(intersecting: box)
      #expect(try packed.incidentIds(intersecting: box) == expected, "\(box)")
      found += expected.count
    }
    #expect(found > 300)
  }

  @Test(
    "a packed tree of three levels is sound and answers as a grown one, before and after updates")
  func packedTreeAnswersAsAGrownOne() throws {
    let directory = try TemporaryDirectory()
    var generator = SeededGenerator(seed: 0x9ACC_ED01)
    var first = try Self.incidents(3_000, version: 1, generator: &generator)
    // The same incident twice in the batch: the later version's boxes are the ones indexed.
    first.append(try Self.incidents(1, version: 2, generator: &generator)[0])
    let packed = try Self.open(directory.path("packed.sqlite"), bulkLoadUpserts: 1_000)
    let grown = try Self.open(directory.path("grown.sqlite"), bulkLoadUpserts: 10_000_000)
    for store in [packed, grown] { try store.apply(IncidentBatch(upserts: first)) }
    let check = "SELECT rtreecheck('incident_rtree')"
    #expect(try packed.texts(check) == ["ok"])
    // Depth 2 (the root's first two bytes): more than 51 × 51 entries.
    #expect(
      try packed.texts("SELECT hex(substr(data, 1, 2)) FROM incident_rtree_node WHERE nodeno = 1")
        == ["0002"])
    #expect(
      try packed.texts("SELECT count(*) FROM incident_rtree")
        == grown.texts("SELECT count(*) FROM incident_rtree"))
    try Self.expectSameAnswers(packed, grown, generator: &generator)
    // Boxes that only touch an incident's corner find it: the 32-bit edges are rounded
    // outwards, never inwards.
    for incident in first.prefix(200) where incident.location.additionalPolylines.isEmpty {
      let edges = incident.location.polyline.boundingBox
      guard edges.west > -179 else { continue }
      let corner = try GeoBox(
        west: edges.west - 0.5, south: edges.south - 0.5, east: edges.west, north: edges.south)
      #expect(try packed.incidentIds(intersecting: corner).contains(incident.originalId))
    }

    // Updates that move a third of the incidents, deletions of a tenth: the R*Tree module
    // changes the packed tree as it changes its own.
    let moved = try Self.incidents(1_000, version: 3, generator: &generator)
    let deleted = (2_000..<2_300).map { "p\($0)" }
    for store in [packed, grown] {
      try store.apply(IncidentBatch(upserts: moved, deletions: deleted))
      #expect(try store.texts(check) == ["ok"])
      #expect(try store.integrityCheck() == ["ok"])
    }
    try Self.expectSameAnswers(packed, grown, generator: &generator)
  }
}
