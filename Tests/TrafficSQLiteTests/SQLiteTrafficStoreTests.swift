import Foundation
import Synchronization
import Testing
import Traffic
import TrafficStoreContract

@testable import TrafficSQLite

@Suite struct SQLiteTrafficStoreTests {
  static func point(_ id: String, version: Int = 1) throws -> TrafficIncident {
    try TrafficIncident(
      id: "\(id)-v\(version)", originalId: id, type: .accident, impact: .major,
      description: LocalizedText(text: id, language: .enUS),
      location: TrafficLocation(point: GeoCoordinates(latitude: 52.5, longitude: 13.4)))
  }

  @Test(arguments: StoreContract.checks)
  func contract(_ check: StoreContractCheck) throws {
    let directory = try TemporaryDirectory()
    try check.run(
      on: StoreHarness(
        makeStore: { try SQLiteTrafficStore(path: directory.path("\(UUID().uuidString).sqlite")) },
        reopen: { store in
          let sqlite = try #require(store as? SQLiteTrafficStore)
          return try SQLiteTrafficStore(path: sqlite.path)
        }))
  }

  @Test func aNewFileIsInWALModeWithForeignKeysAndTheLatestSchema() throws {
    let directory = try TemporaryDirectory()
    let store = try SQLiteTrafficStore(path: directory.path("new.sqlite"))
    #expect(try store.texts("PRAGMA journal_mode") == ["wal"])
    #expect(try store.texts("PRAGMA foreign_keys") == ["1"])
    #expect(try store.texts("PRAGMA synchronous") == ["1"])  // NORMAL
    #expect(try store.texts("PRAGMA busy_timeout") == ["5000"])
    #expect(try store.texts("PRAGMA application_id") == ["\(0x5452_4146)"])
    #expect(try store.schemaVersion() == SQLiteTrafficStore.latestSchemaVersion)
    #expect(try store.integrityCheck() == ["ok"])
    let full = try SQLiteTrafficStore(path: directory.path("new.sqlite"), durability: .powerLoss)
    #expect(try full.texts("PRAGMA synchronous") == ["2"])  // FULL
  }

  @Test func eachBodyIsStoredOnceHistoryIncluded() throws {
    let directory = try TemporaryDirectory()
    let store = try SQLiteTrafficStore(path: directory.path("once.sqlite"))
    func incident(_ originalId: String, version: Int = 1) throws -> TrafficIncident {
      try TrafficIncident(
        id: "\(originalId)-v\(version)", originalId: originalId, type: .accident,
        impact: .major,
        description: LocalizedText(text: "\(originalId) version \(version)", language: .enUS),
        location: TrafficLocation(point: GeoCoordinates(latitude: 52.5, longitude: 13.4)))
    }
    let versions = try (1...4).map { try incident("a", version: $0) }
    try store.apply(IncidentBatch(upserts: [versions[0], try incident("b")]))
    try store.apply(IncidentBatch(upserts: [versions[1]]))
    try store.apply(IncidentBatch(upserts: [versions[2], versions[3]]))
    var corrected = versions[3]
    corrected.impact = .critical
    try store.apply(IncidentBatch(upserts: [corrected]))
    // The three superseded versions' bodies are in `incident_history`, each once, chained
    // from the incident; the current ones are the incidents' own.
    #expect(
      try store.texts(
        """
        SELECT count(*) FROM incident_history h JOIN incidents i ON i.history = h.ref
          JOIN incident_history h2 ON h2.ref = h.previous
          JOIN incident_history h3 ON h3.ref = h2.previous
        WHERE i.original_id = 'a' AND h3.previous IS NULL
        """) == ["1"])
    #expect(try store.texts("SELECT count(*) FROM incident_history") == ["3"])
    #expect(try store.history(ofOriginalId: "a") == Array(versions[0..<3]) + [corrected])
    #expect(try store.history(ofOriginalId: "b") == [try incident("b")])
    // Deleting the incident deletes its history with it; the other's stays.
    try store.apply(IncidentBatch(deletions: ["a"]))
    #expect(try store.history(ofOriginalId: "a") == [])
    #expect(try store.texts("SELECT count(*) FROM incident_history") == ["0"])
    #expect(try store.history(ofOriginalId: "b") == [try incident("b")])
    #expect(try store.integrityCheck() == ["ok"])
  }

  @Test func theDefaultPathIsTheEnvironmentsOrTheCurrentDirectorys() {
    let variable = ProcessInfo.processInfo.environment["TRAFFIC_DB"] ?? ""
    #expect(SQLiteTrafficStore.defaultPath == (variable.isEmpty ? "./traffic.sqlite" : variable))
  }

  @Test func aFileThatIsNotADatabaseIsRefusedNamedAndLeftAlone() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("notes.txt")
    let content = Data(String(repeating: "not a database, just text\n", count: 200).utf8)
    try content.write(to: URL(fileURLWithPath: path))
    #expect {
      try SQLiteTrafficStore(path: path)
    } throws: { error in
      guard case .cannotOpen(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains(path)
        && detail.contains("is not a traffic store: it is not an SQLite database")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == content)
    #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
  }

  @Test func anotherApplicationsDatabaseIsRefusedAndLeftAlone() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("other.sqlite")
    try SQLiteScript.run(
      "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');", inFileAt: path)
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect {
      try SQLiteTrafficStore(path: path)
    } throws: { error in
      guard case .cannotOpen(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains(path) && detail.contains("another application")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    #expect(try SQLiteScript.texts("PRAGMA journal_mode", inFileAt: path) == ["delete"])
  }

  @Test func aFileOfANewerSchemaIsIncompatible() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("future.sqlite")
    try SQLiteScript.run(
      "PRAGMA application_id = \(0x5452_4146); CREATE TABLE later (x); PRAGMA user_version = 99;",
      inFileAt: path)
    #expect {
      try SQLiteTrafficStore(path: path)
    } throws: { error in
      guard case .incompatibleSchema(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains(path) && detail.contains("99")
    }
    #expect(try SQLiteScript.texts("PRAGMA user_version", inFileAt: path) == ["99"])
  }

  @Test func aMissingDirectoryCannotBeOpened() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("missing/store.sqlite")
    #expect {
      try SQLiteTrafficStore(path: path)
    } throws: { error in
      guard case .cannotOpen(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains(path)
    }
  }

  @Test func aReadOnlyStoreReadsAndRefusesEveryWriteLeavingTheDataAsItWas() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("store.sqlite")
    let writer = try SQLiteTrafficStore(path: path)
    try writer.apply(IncidentBatch(upserts: [try Self.point("a"), try Self.point("b")]))
    let reader = try SQLiteTrafficStore(path: path, access: .readOnly)
    #expect(try reader.currentIncidents().map(\.originalId).sorted() == ["a", "b"])
    #expect {
      try reader.apply(IncidentBatch(upserts: [try Self.point("c")], deletions: ["a"]))
    } throws: { error in
      guard case .operationFailed(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains(path) && detail.contains("read-only")
    }
    #expect(throws: TrafficStoreError.self) { try reader.purge(endedBefore: .distantFuture) }
    // The file itself is open read-only: SQLite refuses a write that bypasses the store.
    #expect {
      try reader.execute("DELETE FROM incidents")
    } throws: { error in
      guard case .operationFailed(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains("readonly")
    }
    let reopened = try SQLiteTrafficStore(path: path)
    #expect(try reopened.currentIncidents().map(\.originalId).sorted() == ["a", "b"])
    #expect(try reopened.history(ofOriginalId: "a").map(\.id) == ["a-v1"])
    #expect(throws: TrafficStoreError.self) {
      try SQLiteTrafficStore(path: directory.path("absent.sqlite"), access: .readOnly)
    }
  }

  /// A full disk, simulated with `PRAGMA max_page_count`: SQLite then fails page
  /// allocations with `SQLITE_FULL` exactly as it does when the file system is full.
  @Test func aFullDiskFailsTheBatchWithAClearErrorAndRollsItBack() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("store.sqlite")
    let store = try SQLiteTrafficStore(path: path)
    try store.apply(IncidentBatch(upserts: [try Self.point("kept")]))
    let pages = try #require(try store.texts("PRAGMA page_count").first ?? nil)
    try store.execute("PRAGMA max_page_count = \(pages)")
    let big = try (0..<2_000).map { try Self.point("new-\($0)") }
    #expect {
      try store.apply(IncidentBatch(upserts: big + [try Self.point("kept", version: 2)]))
    } throws: { error in
      guard case .operationFailed(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains(path) && detail.contains("full")
    }
    #expect(try store.currentIncidents().map(\.id) == ["kept-v1"])
    #expect(try store.history(ofOriginalId: "kept").map(\.id) == ["kept-v1"])
    #expect(try store.integrityCheck() == ["ok"])
    // With room again the same store takes the batch.
    try store.execute("PRAGMA max_page_count = 1073741823")
    try store.apply(IncidentBatch(upserts: big))
    #expect(try store.currentIncidents().count == 2_001)
  }

  @Test func twoStoresOnOneFileWriteInTurnWithoutLosingABatch() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("shared.sqlite")
    let stores = [try SQLiteTrafficStore(path: path), try SQLiteTrafficStore(path: path)]
    let failures = Mutex<[TrafficStoreError]>([])
    DispatchQueue.concurrentPerform(iterations: 2) { writer in
      for batch in 0..<10 {
        do {
          let upserts = try (0..<100).map { try Self.point("w\(writer)-b\(batch)-\($0)") }
          try stores[writer].apply(IncidentBatch(upserts: upserts))
        } catch let error as TrafficStoreError {
          failures.withLock { $0.append(error) }
        } catch {
          failures.withLock { $0.append(.operationFailed("\(error)")) }
        }
      }
    }
    #expect(failures.withLock { $0 }.isEmpty)
    #expect(try SQLiteTrafficStore(path: path).currentIncidents().count == 2_000)
  }

  @Test func anEngineOnADatabasePathKeepsItsIncidentsAcrossRestarts() async throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("engine.sqlite")
    let first = try TrafficEngine(databasePath: path)
    try first.apply(IncidentBatch(upserts: [try Self.point("x")]))
    let second = try TrafficEngine(databasePath: path)
    #expect(second.incidentCount == 1)
    #expect(try await second.lookupIncident(with: "x").id == "x-v1")
    #expect(second.store is SQLiteTrafficStore)
    #expect(throws: TrafficEngineError.self) {
      try TrafficEngine(databasePath: directory.path("no/such/dir.sqlite"))
    }
  }

  @Test func incidentsComeBackInTheOrderStoredAndADamagedBodyIsNamed() throws {
    let directory = try TemporaryDirectory()
    let store = try SQLiteTrafficStore(path: directory.path("order.sqlite"))
    // More than one decoding chunk, so the concurrent path must keep the order.
    let incidents = try (0..<9_000).map { try Self.point("p\(8_999 - $0)") }
    try store.apply(IncidentBatch(upserts: incidents))
    #expect(try store.currentIncidents() == incidents)
    try store.execute("UPDATE incidents SET body = '{\"id\": 7}' WHERE original_id = 'p17'")
    #expect {
      try store.currentIncidents()
    } throws: { error in
      guard case .operationFailed(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains("p17") && detail.contains(store.path)
    }
  }
}
