import Foundation
import Synchronization
import Testing
import Traffic
import TrafficStoreContract
import TrafficTestSupport

@testable import TrafficPostgres

@Suite struct PostgresTrafficStoreTests {
  static func point(_ id: String, version: Int = 1) throws -> TrafficIncident {
    try TrafficIncident(
      id: "\(id)-v\(version)", originalId: id, type: .accident, impact: .major,
      description: LocalizedText(text: id, language: .enUS),
      location: TrafficLocation(point: GeoCoordinates(latitude: 52.5, longitude: 13.4)))
  }

  @Test(arguments: StoreContract.checks)
  func contract(_ check: StoreContractCheck) throws {
    try check.run(
      on: StoreHarness(
        makeStore: { try PostgresTestDatabase.freshStore() },
        reopen: { store in
          let postgres = try #require(store as? PostgresTrafficStore)
          return try PostgresTrafficStore(url: postgres.target.connectionString)
        }))
  }

  @Test func aNewDatabaseGetsTheLatestSchemaWithPostGISAndAGiSTIndex() throws {
    let store = try PostgresTestDatabase.freshStore()
    #expect(try store.schemaVersion() == PostgresTrafficStore.latestSchemaVersion)
    #expect(
      try store.texts(
        "SELECT type FROM geometry_columns WHERE f_table_schema = current_schema() "
          + "AND f_table_name = 'incidents'") == ["MULTILINESTRING"])
    #expect(
      try store.texts(
        "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() "
          + "AND indexname = 'incidents_geom'"
      ).first??.contains("USING gist (geom)") == true)
    #expect(
      try store.texts(
        "SELECT data_type FROM information_schema.columns WHERE table_schema = current_schema() "
          + "AND table_name = 'incidents' AND column_name = 'body'") == ["jsonb"])
  }

  @Test func severalStoresStartingAtOnceMigrateOnce() throws {
    let url = try PostgresTestDatabase.freshURL()
    let outcomes = Mutex<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 6) { _ in
      do {
        let store = try PostgresTrafficStore(url: url)
        try store.apply(IncidentBatch(upserts: [try Self.point("shared")]))
        outcomes.withLock { $0.append("ok") }
      } catch {
        outcomes.withLock { $0.append("\(error)") }
      }
    }
    #expect(outcomes.withLock { $0 } == Array(repeating: "ok", count: 6))
    let store = try PostgresTrafficStore(url: url)
    #expect(
      try store.texts("SELECT version FROM schema_migrations ORDER BY version")
        == (1...PostgresTrafficStore.latestSchemaVersion).map(String.init))
    #expect(try store.history(ofOriginalId: "shared").map(\.id) == ["shared-v1"])
  }

  @Test func aVersion1DatabaseIsUpgradedKeepingItsFeedStates() throws {
    let url = try PostgresTestDatabase.freshURL()
    // Version 1 as released, with a feed state written by it.
    try PostgresAdmin.run(
      PostgresSchema.version1 + """
        CREATE TABLE schema_migrations (
          version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
        INSERT INTO schema_migrations (version) VALUES (1);
        INSERT INTO feed_state (name, url, etag, fetch_count) VALUES
          ('berlin', 'https://example.org/f', 'W/"7"', 4);
        """, url: url)
    let store = try PostgresTrafficStore(url: url)
    #expect(try store.schemaVersion() == PostgresTrafficStore.latestSchemaVersion)
    #expect(
      try store.feedState(named: "berlin")
        == FeedPollState(
          name: "berlin", url: "https://example.org/f", etag: "W/\"7\"", fetchCount: 4))
  }

  @Test func aDatabaseOfANewerSchemaIsIncompatibleAndLeftAlone() throws {
    let url = try PostgresTestDatabase.freshURL()
    let store = try PostgresTrafficStore(url: url)
    _ = try store.texts("INSERT INTO schema_migrations (version) VALUES (99)")
    #expect {
      try PostgresTrafficStore(url: url)
    } throws: { error in
      guard case .incompatibleSchema(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains("99") && detail.contains("127.0.0.1")
    }
    #expect(try store.texts("SELECT max(version) FROM schema_migrations") == ["99"])
  }

  @Test func aTerminatedConnectionIsReplacedAndTheBatchApplied() throws {
    let cluster = try PostgresCluster.shared()
    let store = try PostgresTestDatabase.freshStore()
    try store.apply(IncidentBatch(upserts: [try Self.point("before")]))
    for round in 0..<3 {
      let backend = try store.backendProcessID()
      try PostgresAdmin.run(
        "SELECT pg_terminate_backend($1::integer)", [String(backend)], url: cluster.url)
      try store.apply(IncidentBatch(upserts: [try Self.point("after-\(round)")]))
      #expect(try store.backendProcessID() != backend)
    }
    let stored = try store.currentIncidents().map(\.originalId).sorted()
    #expect(stored == ["after-0", "after-1", "after-2", "before"])
    // Each batch is logged exactly once.
    #expect(try store.texts("SELECT count(*) FROM incident_changes") == ["4"])
    // Reads recover the same way.
    try PostgresAdmin.run(
      "SELECT pg_terminate_backend($1::integer)", [String(try store.backendProcessID())],
      url: cluster.url)
    #expect(try store.history(ofOriginalId: "before").map(\.id) == ["before-v1"])
  }

  @Test func aBatchWhoseCommitWasAnsweredIsFoundByItsIdAndNotWrittenAgain() throws {
    // The recovery path after an unanswered COMMIT looks the batch up under the writers'
    // lock; exercised here directly, since a COMMIT cannot be cut off on cue.
    let store = try PostgresTestDatabase.freshStore()
    try store.apply(IncidentBatch(upserts: [try Self.point("a"), try Self.point("b")]))
    let batch = try #require(
      try store.texts("SELECT batch_id::text FROM incident_changes").first ?? nil)
    let found = try store.withSession { session throws(TrafficStoreError) in
      try PostgresTrafficStore.loggedChange(batchId: batch, session.connected())
    }
    #expect(found?.upserted == ["a", "b"])
    #expect(found?.deleted == [])
    let missing = try store.withSession { session throws(TrafficStoreError) in
      try PostgresTrafficStore.loggedChange(
        batchId: UUID().uuidString, session.connected())
    }
    #expect(missing == nil)
  }

  @Test func refusedConnectionsCannotOpenAndNameTheServerButNeverThePassword() throws {
    let secret = "Sup3r-Secret-Pa55"
    let refused = "postgresql://traffic:\(secret)@127.0.0.1:1/traffic?connect_timeout=5"
    #expect {
      try PostgresTrafficStore(url: refused)
    } throws: { error in
      guard case .cannotOpen(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains("127.0.0.1") && detail.contains("refused")
        && !"\(error)".contains(secret)
    }
  }

  @Test func aServerThatAcceptsAndNeverAnswersTimesOutInOneLine() throws {
    // A socket that listens and never speaks: libpq alone would wait for ever.
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(listener >= 0)
    defer { close(listener) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    try #require(bound == 0 && listen(listener, 4) == 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(listener, $0, &length)
      }
    }
    let port = Int(UInt16(bigEndian: address.sin_port))
    let started = Date()
    #expect {
      try PostgresTrafficStore(url: "postgresql://traffic@127.0.0.1:\(port)/traffic")
    } throws: { error in
      guard case .cannotOpen(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains("timeout") && !detail.contains("\n")
    }
    let waited = Date().timeIntervalSince(started)
    #expect(waited < Double(PostgresConnection.defaultConnectTimeoutInSeconds) + 5, "\(waited) s")
    #expect {
      try PostgresTrafficStore(url: " ")
    } throws: { error in
      "\(error)".contains("the PostgreSQL connection string is empty")
    }
  }

  @Test(arguments: [
    "postgresql://traffic:Sup3r-Secret-Pa55@127.0.0.1:notaport/traffic",
    "host=127.0.0.1 password=Sup3r-Secret-Pa55 nonsense",
    "postgresql://traffic:Sup3r-Secret-Pa55@127.0.0.1/traffic?nosuchoption=1",
    "password='Sup3r-Secret-Pa55' host=127.0.0.1 port=notaport",
  ])
  func malformedConnectionStringsCannotOpenWithoutThePassword(_ url: String) throws {
    #expect {
      try PostgresTrafficStore(url: url)
    } throws: { error in
      guard case .cannotOpen(let detail) = error as? TrafficStoreError else { return false }
      return !detail.isEmpty && !"\(error)".contains("Sup3r-Secret-Pa55")
    }
  }

  @Test func theEnvironmentURLIsTheVariablesWhenSet() {
    let variable = ProcessInfo.processInfo.environment["TRAFFIC_POSTGRES"] ?? ""
    #expect(PostgresTrafficStore.environmentURL == (variable.isEmpty ? nil : variable))
  }

  @Test func valuesThatNeedQuotingAndTextThatJSONBCannotHoldAreHandled() throws {
    let store = try PostgresTestDatabase.freshStore()
    let awkward = try Self.point("quote\"back\\slash,{brace} NULL 'single' ✓")
    try store.apply(IncidentBatch(upserts: [awkward]))
    #expect(try store.currentIncidents() == [awkward])
    #expect(try store.history(ofOriginalId: awkward.originalId) == [awkward])
    var nul = try Self.point("nul")
    nul.description = LocalizedText(text: "a\u{0}b", language: .enUS)
    #expect {
      try store.apply(IncidentBatch(upserts: [nul, try Self.point("other")]))
    } throws: { error in
      guard case .invalidBatch(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains("nul") && detail.contains("NUL")
    }
    #expect(try store.currentIncidents() == [awkward])
  }

  @Test func incidentsComeBackInTheOrderStoredAndADamagedBodyIsNamed() throws {
    let store = try PostgresTestDatabase.freshStore()
    let incidents = try (0..<9_000).map { try Self.point("p\(8_999 - $0)") }
    try store.apply(IncidentBatch(upserts: incidents))
    #expect(try store.currentIncidents() == incidents)
    _ = try store.texts("UPDATE incidents SET body = '{\"id\": 7}' WHERE original_id = 'p17'")
    #expect {
      try store.currentIncidents()
    } throws: { error in
      guard case .operationFailed(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains("p17")
    }
  }

  @Test func theChangeLogGivesOtherStoresWhatChangedButNotTheirOwnBatches() throws {
    let url = try PostgresTestDatabase.freshURL()
    let nodeA = try PostgresTrafficStore(url: url)
    let nodeB = try PostgresTrafficStore(url: url)
    _ = try nodeB.currentIncidents()
    let start = nodeB.loadedSequence
    try nodeA.apply(IncidentBatch(upserts: [try Self.point("a"), try Self.point("b")]))
    try nodeA.apply(IncidentBatch(upserts: [try Self.point("a", version: 2)], deletions: ["b"]))
    try nodeB.apply(IncidentBatch(upserts: [try Self.point("own")]))
    let changes = try nodeB.changes(since: start)
    #expect(changes.upserts == [try Self.point("a", version: 2)])
    #expect(changes.deletions == ["b"])
    #expect(!changes.isFullReload)
    #expect(changes.sequence == start + 3)
    #expect(try nodeB.changes(since: changes.sequence).upserts.isEmpty)
    // Node A sees node B's batch, and a purge, through the same log.
    let purged = try nodeB.purge(endedBefore: .distantFuture)
    #expect(purged.isEmpty)
    let fromA = try nodeA.changes(since: start + 2)
    #expect(fromA.upserts.map(\.originalId) == ["own"])
  }

  @Test func aReaderBehindThePrunedLogReloadsEverything() throws {
    let store = try PostgresTestDatabase.freshStore()
    let other = try PostgresTrafficStore(url: store.target.connectionString)
    try store.apply(IncidentBatch(upserts: [try Self.point("kept")]))
    _ = try store.texts("UPDATE incident_changes_pruned SET through = 5")
    let changes = try other.changes(since: 0)
    #expect(changes.isFullReload)
    #expect(changes.upserts.map(\.originalId) == ["kept"])
  }
}
