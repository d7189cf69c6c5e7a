import Foundation
import Traffic

/// The store's schema: versioned migrations recorded in `PRAGMA user_version`.
///
/// Each migration runs in its own transaction together with the bump of `user_version`, so a
/// crash during an upgrade leaves the file at the previous version, and the next open
/// retries. A migration never changes once released; a new schema is a new migration.
///
/// - Version 1: `incidents` (the current version per original id, with its JSON body),
///   `incident_versions` (every version, oldest first) and `feed_state`.
/// - Version 2: `incident_rtree`, an R*Tree over incident bounding boxes (filled from the
///   stored bodies on upgrade), `incidents.box_count`, and an index on `end_time` for purges.
/// - Version 3: the road network (`road_network`, `road_network_chunks`, `segment_rtree`)
///   and the flow state (`flow_state`, `flow_segments`, `flow_latest`); see
///   `SQLiteTrafficStore+Network.swift` and `SQLiteTrafficStore+Flow.swift`.
/// - Version 4: `feed_state.consecutive_failures` and `feed_state.problem_count`, so that a
///   restarted feed poller reports what it reported before (`SQLiteTrafficStore+FeedState`).
/// - Version 5: `typical_speeds`, each segment's typical week (`SQLiteTrafficStore+Flow`).
/// - Version 6: `incidents.entry_time` (seconds since 2001, as the body holds it; filled from
///   the stored bodies on upgrade) and its index, so that the latest entry time is known
///   without reading every body (`SQLiteTrafficStore+Area`'s `summary()`). From this
///   version on, the `incident_versions` row of an incident's latest version holds an empty
///   body, meaning the incident's own (`incidents.body`): each body is written once, and a
///   row gets its body when a newer version supersedes it. The full bodies older files
///   hold there stay valid.
/// - Version 7: history as a chain. `incident_history` holds the bodies of superseded
///   versions, appended in the order they were superseded, each naming the version before it
///   (`previous`); `incidents.history` names the latest superseded one. `incident_versions`
///   is converted and dropped. An update of a version then writes the incident's row and
///   the end of `incident_history`, instead of also a history row in a B-tree leaf chosen by
///   the incident (a push of 1,000 updates to a million incidents: 5,600 pages → 2,140).
/// - Version 8: `probe_ledger`, the times each probe vehicle reported (`ProbeLedger`), one
///   row per vehicle in the binary form of `FlowStateCoder.ledger`, so that probes imported
///   again by another process are duplicates (`SQLiteTrafficStore+Flow`).
enum SQLiteSchema {
  /// `PRAGMA application_id` of a traffic store: "TRAF" in ASCII, so that another
  /// application's SQLite file is refused rather than written into.
  static let applicationID: Int64 = 0x5452_4146

  /// The newest schema version this build knows.
  static let latestVersion: Int64 = 8

  /// Takes the file from version `target - 1` to `target`, inside the caller's transaction.
  private static func migration(
    to target: Int64, _ connection: SQLiteConnection
  )
    throws(TrafficStoreError)
  {
    switch target {
    case 1:
      try connection.execute(script: version1)
    case 2:
      try connection.execute(script: version2)
      try fillBoundingBoxes(connection)
    case 3:
      try connection.execute(script: version3)
    case 4:
      try connection.execute(script: version4)
    case 5:
      try connection.execute(script: version5)
    case 6:
      try connection.execute(script: version6)
    case 7:
      try connection.execute(script: version7)
      try chainHistory(connection)
    case 8:
      try connection.execute(script: version8)
    default:
      throw .incompatibleSchema("no migration to schema version \(target)")
    }
  }

  /// The first schema, also written by hand in the upgrade test.
  static let version1 = """
    PRAGMA application_id = \(applicationID);
    CREATE TABLE incidents (
      key INTEGER PRIMARY KEY,
      original_id TEXT NOT NULL UNIQUE,
      id TEXT NOT NULL,
      type TEXT NOT NULL,
      impact TEXT NOT NULL,
      start_time INTEGER,
      end_time INTEGER,
      body TEXT NOT NULL
    ) STRICT;
    CREATE TABLE incident_versions (
      incident_key INTEGER NOT NULL REFERENCES incidents(key) ON DELETE CASCADE,
      version INTEGER NOT NULL,
      id TEXT NOT NULL,
      body TEXT NOT NULL,
      PRIMARY KEY (incident_key, version)
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE feed_state (
      name TEXT PRIMARY KEY,
      url TEXT NOT NULL,
      etag TEXT,
      last_modified TEXT,
      last_fetch REAL,
      last_success REAL,
      last_error TEXT,
      fetch_count INTEGER NOT NULL DEFAULT 0,
      error_count INTEGER NOT NULL DEFAULT 0,
      incident_count INTEGER NOT NULL DEFAULT 0
    ) STRICT;
    """

  /// The R*Tree and purge index. R*Tree coordinates are 32-bit floats rounded outwards, so
  /// the exact edges ride along as auxiliary columns for an exact box test.
  static let version2 = """
    ALTER TABLE incidents ADD COLUMN box_count INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX incidents_by_end_time ON incidents(end_time);
    CREATE VIRTUAL TABLE incident_rtree USING rtree(
      entry, min_lng, max_lng, min_lat, max_lat, +west, +south, +east, +north
    );
    """

  /// The road network and the flow state.
  ///
  /// - `road_network`: one row describing the stored network; `road_network_chunks` its
  ///   binary chunks (`RoadNetwork.binaryChunks`) in order. Chunks keep each row small and
  ///   decode in parallel.
  /// - `segment_rtree`: segment bounding boxes; entry `2 × segment id + k` for the k-th box
  ///   of a segment (two when it crosses the antimeridian).
  /// - `flow_state`: one row (when flow was saved) with the state's header;
  ///   `flow_segments` one binary row per segment holding aggregates or a feed observation
  ///   (`FlowStateCoder`); `flow_latest` the latest published flow per segment in plain
  ///   columns, for readers of the file.
  static let version3 = """
    CREATE TABLE road_network (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      node_count INTEGER NOT NULL,
      segment_count INTEGER NOT NULL,
      chunk_count INTEGER NOT NULL,
      saved_at REAL NOT NULL
    ) STRICT;
    CREATE TABLE road_network_chunks (
      chunk INTEGER PRIMARY KEY,
      data BLOB NOT NULL
    ) STRICT;
    CREATE VIRTUAL TABLE segment_rtree USING rtree(entry, min_lng, max_lng, min_lat, max_lat);
    CREATE TABLE flow_state (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      saved_at REAL NOT NULL,
      segment_count INTEGER NOT NULL,
      header BLOB NOT NULL
    ) STRICT;
    CREATE TABLE flow_segments (
      segment_id INTEGER PRIMARY KEY,
      state BLOB NOT NULL
    ) STRICT;
    CREATE TABLE flow_latest (
      segment_id INTEGER PRIMARY KEY,
      speed REAL NOT NULL,
      speed_uncapped REAL NOT NULL,
      free_flow REAL NOT NULL,
      jam_factor REAL NOT NULL,
      confidence REAL NOT NULL,
      traversability TEXT NOT NULL,
      jam_tendency TEXT,
      updated_at REAL NOT NULL
    ) STRICT;
    """

  /// The rest of what a feed poller reports, beside the version-1 columns of `feed_state`.
  static let version4 = """
    ALTER TABLE feed_state ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE feed_state ADD COLUMN problem_count INTEGER NOT NULL DEFAULT 0;
    """

  /// The typical weeks: one row per segment holding one, its packed bins in the binary form
  /// of `FlowStateCoder.typicalWeek`.
  static let version5 = """
    CREATE TABLE typical_speeds (
      segment_id INTEGER PRIMARY KEY,
      bins BLOB NOT NULL
    ) STRICT;
    """

  /// The probe ledger: one row per vehicle, its spans of reported times in the binary form
  /// of `FlowStateCoder.ledger`.
  static let version8 = """
    CREATE TABLE probe_ledger (
      vehicle_id TEXT PRIMARY KEY,
      spans BLOB NOT NULL
    ) STRICT;
    """

  /// Each incident's entry time beside its body, indexed (for the latest one).
  static let version6 = """
    ALTER TABLE incidents ADD COLUMN entry_time REAL;
    UPDATE incidents SET entry_time = json_extract(body, '$.entryTime')
    WHERE json_valid(body) AND json_type(body, '$.entryTime') IN ('integer', 'real');
    CREATE INDEX incidents_by_entry_time ON incidents(entry_time);
    """

  /// History as a chain (see the type's notes); `chainHistory`
  /// moves the rows of `incident_versions` over before it is dropped.
  static let version7 = """
    CREATE TABLE incident_history (
      ref INTEGER PRIMARY KEY,
      previous INTEGER,
      body TEXT NOT NULL
    ) STRICT;
    ALTER TABLE incidents ADD COLUMN history INTEGER;
    """

  /// Moves each incident's superseded versions (every row of `incident_versions` but its
  /// latest, which is the incident itself) into its chain, oldest first, then drops the
  /// table. The rows are moved as they are read, one incident's chain head held at a time.
  static func chainHistory(_ connection: SQLiteConnection) throws(TrafficStoreError) {
    var current: (key: Int64, head: Int64)?
    func finish() throws(TrafficStoreError) {
      guard let current else { return }
      try connection.run(
        "UPDATE incidents SET history = ? WHERE key = ?",
        [.integer(current.head), .integer(current.key)])
    }
    try connection.query(
      """
      SELECT v.incident_key, v.body FROM incident_versions v
      WHERE v.version < (SELECT max(w.version) FROM incident_versions w
                         WHERE w.incident_key = v.incident_key)
      ORDER BY v.incident_key, v.version
      """
    ) { row throws(TrafficStoreError) in
      let key = row.integer(0)
      if current?.key != key {
        try finish()
        current = nil
      }
      try connection.run(
        "INSERT INTO incident_history (previous, body) VALUES (?, ?)",
        [current.map { .integer($0.head) } ?? .null, .utf8(row.data(1))])
      current = (key, connection.lastInsertedRowID)
    }
    try finish()
    try connection.run("DROP TABLE incident_versions")
  }

  /// Indexes the bounding boxes of every incident already stored (upgrade to version 2).
  static func fillBoundingBoxes(_ connection: SQLiteConnection) throws(TrafficStoreError) {
    var stored: [(key: Int64, incident: TrafficIncident)] = []
    let coder = StoredIncidentCoder()
    try connection.query("SELECT key, original_id, body FROM incidents") {
      row throws(TrafficStoreError) in
      stored.append(
        (
          row.integer(0),
          try coder.decode(row.data(2), originalId: row.text(1), store: connection.path)
        ))
    }
    for (key, incident) in stored {
      try IncidentBoxes.insert(IncidentBoxes.boxes(of: incident), key: key, into: connection)
    }
  }

  /// Brings the file to `latestVersion`, one transaction per migration.
  ///
  /// The version is read again inside each transaction, so two processes opening a new file
  /// at once do not both migrate it.
  /// - Throws: `TrafficStoreError.incompatibleSchema` for a newer file; `.operationFailed`
  ///   when a migration fails (the file stays at the version before it).
  static func migrate(_ connection: SQLiteConnection) throws(TrafficStoreError) {
    var target: Int64 = 1
    while target <= latestVersion {
      defer { target += 1 }
      try connection.transaction { () throws(TrafficStoreError) in
        let version = try connection.integer("PRAGMA user_version") ?? 0
        guard version < target else { return }
        guard version == target - 1 else {
          throw .incompatibleSchema(
            "\(connection.path) changed to schema version \(version) while being upgraded")
        }
        try migration(to: target, connection)
        try connection.run("PRAGMA user_version = \(target)")
      }
    }
  }
}
