import Foundation
import Testing
import Traffic

@testable import TrafficSQLite

@Suite struct SQLiteSchemaTests {
  /// The version-1 schema as released, frozen here: the upgrade must work on files that
  /// were written by it, whatever `SQLiteSchema` says today.
  static let version1 = """
    PRAGMA application_id = 1414676806;
    CREATE TABLE incidents (
      key INTEGER PRIMARY KEY, original_id TEXT NOT NULL UNIQUE, id TEXT NOT NULL,
      type TEXT NOT NULL, impact TEXT NOT NULL, start_time INTEGER, end_time INTEGER,
      body TEXT NOT NULL
    ) STRICT;
    CREATE TABLE incident_versions (
      incident_key INTEGER NOT NULL REFERENCES incidents(key) ON DELETE CASCADE,
      version INTEGER NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL,
      PRIMARY KEY (incident_key, version)
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE feed_state (
      name TEXT PRIMARY KEY, url TEXT NOT NULL, etag TEXT, last_modified TEXT,
      last_fetch REAL, last_success REAL, last_error TEXT,
      fetch_count INTEGER NOT NULL DEFAULT 0, error_count INTEGER NOT NULL DEFAULT 0,
      incident_count INTEGER NOT NULL DEFAULT 0
    ) STRICT;
    PRAGMA user_version = 1;
    """

  static func incident(
    _ id: String, version: Int, latitude: Double, longitude: Double, end: Date? = nil,
    entry: Date? = nil
  ) throws -> TrafficIncident {
    try TrafficIncident(
      id: "\(id)-v\(version)", originalId: id, type: .roadClosure, impact: .critical,
      description: LocalizedText(text: "\(id) closed", language: .enUS), endTime: end,
      entryTime: entry,
      location: TrafficLocation(
        polyline: GeoPolyline(vertices: [
          GeoCoordinates(latitude: latitude, longitude: longitude),
          GeoCoordinates(latitude: latitude + 0.01, longitude: longitude + 0.01),
        ])))
  }

  static func sqlText(_ data: Data) -> String {
    "'" + String(decoding: data, as: UTF8.self).replacingOccurrences(of: "'", with: "''") + "'"
  }

  @Test("a version-6 file's history becomes a chain: every version kept, in order")
  func aVersion6FilesHistoryBecomesAChain() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("v6.sqlite")
    let encoder = JSONEncoder()
    let a = try (1...3).map { try Self.incident("a", version: $0, latitude: 47.1, longitude: 9.5) }
    let b1 = try Self.incident("b", version: 1, latitude: 48.1, longitude: 11.6)
    let body = { (incident: TrafficIncident) throws -> String in
      Self.sqlText(try encoder.encode(incident))
    }
    // Version 6's layout: the latest version's history row holds no body (the incident's).
    try SQLiteScript.run(
      Self.version1.replacingOccurrences(of: "PRAGMA user_version = 1;", with: "")
        + SQLiteSchema.version2 + SQLiteSchema.version3 + SQLiteSchema.version4
        + SQLiteSchema.version5 + SQLiteSchema.version6 + """
          INSERT INTO incidents (key, original_id, id, type, impact, body) VALUES
            (1, 'a', 'a-v3', 'roadClosure', 'critical', \(try body(a[2]))),
            (2, 'b', 'b-v1', 'roadClosure', 'critical', \(try body(b1)));
          INSERT INTO incident_versions VALUES
            (1, 1, 'a-v1', \(try body(a[0]))), (1, 2, 'a-v2', \(try body(a[1]))), (1, 3, 'a-v3', ''),
            (2, 1, 'b-v1', '');
          PRAGMA user_version = 6;
          """, inFileAt: path)
    let store = try SQLiteTrafficStore(path: path)
    #expect(try store.schemaVersion() == SQLiteTrafficStore.latestSchemaVersion)
    #expect(try store.integrityCheck() == ["ok"])
    #expect(try store.history(ofOriginalId: "a") == a)
    #expect(try store.history(ofOriginalId: "b") == [b1])
    #expect(try store.texts("SELECT count(*) FROM incident_history") == ["2"])
    #expect(
      try store.texts("SELECT count(*) FROM sqlite_schema WHERE name = 'incident_versions'")
        == ["0"])
    // The chain goes on after the upgrade, and goes with its incident.
    let a4 = try Self.incident("a", version: 4, latitude: 47.1, longitude: 9.5)
    try store.apply(IncidentBatch(upserts: [a4]))
    #expect(try store.history(ofOriginalId: "a") == a + [a4])
    try store.apply(IncidentBatch(deletions: ["a"]))
    #expect(try store.texts("SELECT count(*) FROM incident_history") == ["0"])
    #expect(try store.history(ofOriginalId: "b") == [b1])
  }

  @Test func aVersion1FileIsUpgradedInPlaceKeepingItsData() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("v1.sqlite")
    let encoder = JSONEncoder()
    let end = Date(timeIntervalSince1970: 1_900_000_000)
    let a1 = try Self.incident("a", version: 1, latitude: 52.5, longitude: 13.4)
    let a2 = try Self.incident(
      "a", version: 2, latitude: 52.6, longitude: 13.5, end: end,
      entry: Date(timeIntervalSinceReferenceDate: 810_000_000))
    let b1 = try Self.incident(
      "b", version: 1, latitude: 48.1, longitude: 11.6,
      entry: Date(timeIntervalSinceReferenceDate: 800_000_000.25))
    let (bodyA1, bodyA2, bodyB1) = (
      Self.sqlText(try encoder.encode(a1)), Self.sqlText(try encoder.encode(a2)),
      Self.sqlText(try encoder.encode(b1))
    )
    try SQLiteScript.run(
      Self.version1 + """
        INSERT INTO incidents VALUES
          (1, 'a', 'a-v2', 'roadClosure', 'critical', NULL, 1900000000000, \(bodyA2)),
          (2, 'b', 'b-v1', 'roadClosure', 'critical', NULL, NULL, \(bodyB1));
        INSERT INTO incident_versions VALUES
          (1, 1, 'a-v1', \(bodyA1)), (1, 2, 'a-v2', \(bodyA2)), (2, 1, 'b-v1', \(bodyB1));
        INSERT INTO feed_state (name, url, etag) VALUES ('berlin', 'https://example.org/f', 'W/"7"');
        """, inFileAt: path)
    #expect(try SQLiteScript.texts("PRAGMA user_version", inFileAt: path) == ["1"])

    let store = try SQLiteTrafficStore(path: path)
    #expect(try store.schemaVersion() == SQLiteTrafficStore.latestSchemaVersion)
    #expect(try store.integrityCheck() == ["ok"])
    #expect(try store.currentIncidents() == [a2, b1])
    #expect(try store.history(ofOriginalId: "a") == [a1, a2])
    #expect(try store.feedState(named: "berlin")?.etag == "W/\"7\"")
    // Version 4's columns start at zero on the old rows.
    #expect(try store.feedState(named: "berlin")?.consecutiveFailures == 0)
    #expect(try store.feedState(named: "berlin")?.problemCount == 0)
    // What version 2 added works on the old rows: the R*Tree was filled from their bodies,
    // the end-time index exists.
    #expect(try store.texts("SELECT count(*) FROM incident_rtree") == ["2"])
    #expect(
      try store.incidentIds(intersecting: GeoBox(west: 13, south: 52, east: 14, north: 53)) == ["a"]
    )
    #expect(
      try store.texts(
        "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'incidents'"
      )
      .contains("incidents_by_end_time"))
    // Version 6 filled the entry times from the bodies.
    #expect(
      try store.summary()
        == TrafficStoreSummary(
          count: 2, latestEntry: Date(timeIntervalSinceReferenceDate: 810_000_000)))
    #expect(try store.purge(endedBefore: end + 1) == ["a"])
    #expect(
      try store.summary()
        == TrafficStoreSummary(
          count: 1, latestEntry: Date(timeIntervalSinceReferenceDate: 800_000_000.25)))
    try store.apply(
      IncidentBatch(upserts: [try Self.incident("c", version: 1, latitude: 1, longitude: 2)]))
    #expect(
      try store.incidentIds(intersecting: GeoBox(west: 0, south: 0, east: 3, north: 3)) == ["c"])
    // Opening again migrates nothing more.
    #expect(
      try SQLiteTrafficStore(path: path).schemaVersion() == SQLiteTrafficStore.latestSchemaVersion)
  }

  @Test func aReadOnlyStoreDoesNotUpgradeAnOldFile() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("v1.sqlite")
    try SQLiteScript.run(Self.version1, inFileAt: path)
    #expect {
      try SQLiteTrafficStore(path: path, access: .readOnly)
    } throws: { error in
      guard case .incompatibleSchema(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains("read-only")
    }
    #expect(try SQLiteScript.texts("PRAGMA user_version", inFileAt: path) == ["1"])
  }

  /// The version-2 additions as released, frozen here like `version1`.
  static let version2 = """
    ALTER TABLE incidents ADD COLUMN box_count INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX incidents_by_end_time ON incidents(end_time);
    CREATE VIRTUAL TABLE incident_rtree USING rtree(
      entry, min_lng, max_lng, min_lat, max_lat, +west, +south, +east, +north
    );
    PRAGMA user_version = 2;
    """

  @Test func aVersion2FileIsUpgradedToHoldANetworkAndFlowKeepingItsIncidents() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("v2.sqlite")
    let encoder = JSONEncoder()
    let a1 = try Self.incident("a", version: 1, latitude: 47.1, longitude: 9.5)
    let a2 = try Self.incident("a", version: 2, latitude: 47.2, longitude: 9.5)
    let (bodyA1, bodyA2) = (
      Self.sqlText(try encoder.encode(a1)), Self.sqlText(try encoder.encode(a2))
    )
    try SQLiteScript.run(
      Self.version1.replacingOccurrences(of: "PRAGMA user_version = 1;", with: "")
        + Self.version2 + """
          INSERT INTO incidents VALUES
            (1, 'a', 'a-v2', 'roadClosure', 'critical', NULL, NULL, \(bodyA2), 1);
          INSERT INTO incident_versions VALUES (1, 1, 'a-v1', \(bodyA1)), (1, 2, 'a-v2', \(bodyA2));
          INSERT INTO incident_rtree VALUES (16, 9.5, 9.51, 47.2, 47.21, 9.5, 47.2, 9.51, 47.21);
          INSERT INTO feed_state (name, url, etag) VALUES ('vaduz', 'https://example.org/v', '"1"');
          """, inFileAt: path)
    #expect(try SQLiteScript.texts("PRAGMA user_version", inFileAt: path) == ["2"])

    let store = try SQLiteTrafficStore(path: path)
    #expect(try store.schemaVersion() == SQLiteTrafficStore.latestSchemaVersion)
    #expect(try store.integrityCheck() == ["ok"])
    #expect(try store.currentIncidents() == [a2])
    #expect(try store.history(ofOriginalId: "a") == [a1, a2])
    #expect(try store.feedState(named: "vaduz")?.etag == "\"1\"")
    #expect(
      try store.incidentIds(intersecting: GeoBox(west: 9.4, south: 47.1, east: 9.6, north: 47.3))
        == ["a"])
    // What version 3 added works beside the old rows.
    #expect(try store.loadNetwork() == nil)
    #expect(try store.loadFlow() == nil)
    let network = try NetworkFixtures.grid(size: 2)
    try store.saveNetwork(network)
    #expect(try SQLiteTrafficStore(path: path).loadNetwork()?.segments == network.segments)
    #expect(try store.currentIncidents() == [a2])
    // A new version after the upgrade: the old rows keep their bodies in place, the new
    // history continues after them.
    let a3 = try Self.incident("a", version: 3, latitude: 47.2, longitude: 9.5)
    try store.apply(IncidentBatch(upserts: [a3]))
    #expect(try store.history(ofOriginalId: "a") == [a1, a2, a3])
    #expect(try store.integrityCheck() == ["ok"])
  }
}
