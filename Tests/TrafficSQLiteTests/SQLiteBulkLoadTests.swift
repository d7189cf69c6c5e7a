import Foundation
import Geo
import Testing
import Traffic

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
