import Foundation
import Traffic

/// The store's schema: versioned migrations recorded in the `schema_migrations` table.
///
/// Several nodes may start at once on a new database, so each migration runs in its own
/// transaction under a transaction-level advisory lock (`pg_advisory_xact_lock`): the first
/// node migrates, the others wait, then find the version recorded and skip it. A migration
/// never changes once released; a new schema is a new migration. Tables are created in the
/// first schema of the connection's `search_path`.
///
/// - Version 1: `incidents` (the current version per original id: indexed columns, a PostGIS
///   `geom` with a GiST index, the `jsonb` body), `incident_versions` (every version, oldest
///   first), `feed_state`, and the change log `incident_changes` that LISTEN/NOTIFY
///   listeners read (see `PostgresTrafficStore.changes(since:)`).
/// - Version 2: `feed_state.consecutive_failures` and `feed_state.problem_count`, so that a
///   restarted feed poller reports what it reported before
///   (`PostgresTrafficStore+FeedState.swift`).
/// - Version 3: `probe_log` (the probe batches each node ingests, which the other nodes
///   ingest too, announced on `PostgresTrafficStore.probeChannel`) and `flow_state` (the
///   flow state saved per road network, keyed by the network's fingerprint)
///   (`PostgresTrafficStore+Flow.swift`).
/// - Version 4: `incidents.entry_time` (seconds since 2001, as the body holds it; filled
///   from the stored bodies on upgrade) and its index, so that a node starting on a large
///   database knows the latest entry time without reading every body
///   (`PostgresTrafficStore+Area.swift`).
enum PostgresSchema {
  /// The newest schema version this build knows.
  static let latestVersion = 4

  /// The advisory lock key that serialises migrations and batch writes: "TRAF" in ASCII.
  static let lockKey = "1414676806"

  /// The advisory lock key of the writers' turn (`PostgresWriterTurn`), held by a node
  /// from before its plan to after its batch commits: "TRFW" in ASCII.
  static let writerTurnKey = "1414678103"

  /// The change-log rows kept; older ones are pruned, and a listener further behind
  /// reloads everything.
  static let retainedChanges: Int64 = 10_000

  /// The advisory lock key that serialises probe-log appends, so that the log's sequence
  /// follows commit order: "TRFP" in ASCII.
  static let probeLockKey = "1414678096"

  /// How long probe batches stay in `probe_log`, seconds: a node that starts replays what
  /// is left after its saved flow state.
  static let retainedProbeSeconds = 900

  /// The SQL of each migration, by target version.
  static func migration(to version: Int) -> String? {
    switch version {
    case 1: return version1
    case 2: return version2
    case 3: return version3
    case 4: return version4
    default: return nil
    }
  }

  static let version1 = """
    CREATE EXTENSION IF NOT EXISTS postgis;
    CREATE TABLE incidents (
      key bigserial PRIMARY KEY,
      original_id text NOT NULL UNIQUE,
      id text NOT NULL,
      type text NOT NULL,
      impact text NOT NULL,
      start_time bigint,
      end_time bigint,
      geom geometry(MultiLineString, 4326) NOT NULL,
      body jsonb NOT NULL
    );
    COMMENT ON COLUMN incidents.start_time IS 'milliseconds since 1970 UTC, rounded down';
    COMMENT ON COLUMN incidents.end_time IS 'milliseconds since 1970 UTC, rounded down';
    COMMENT ON COLUMN incidents.geom IS
      'one line per polyline, longitudes unwrapped across the antimeridian';
    CREATE INDEX incidents_geom ON incidents USING gist (geom);
    CREATE INDEX incidents_end_time ON incidents (end_time);
    CREATE TABLE incident_versions (
      original_id text NOT NULL REFERENCES incidents (original_id) ON DELETE CASCADE,
      version integer NOT NULL,
      id text NOT NULL,
      body jsonb NOT NULL,
      PRIMARY KEY (original_id, version)
    );
    CREATE TABLE feed_state (
      name text PRIMARY KEY,
      url text NOT NULL,
      etag text,
      last_modified text,
      last_fetch double precision,
      last_success double precision,
      last_error text,
      fetch_count bigint NOT NULL DEFAULT 0,
      error_count bigint NOT NULL DEFAULT 0,
      incident_count bigint NOT NULL DEFAULT 0
    );
    CREATE TABLE incident_changes (
      sequence bigserial PRIMARY KEY,
      batch_id uuid NOT NULL UNIQUE,
      upserted text[] NOT NULL,
      deleted text[] NOT NULL,
      committed_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE incident_changes_pruned (through bigint NOT NULL);
    INSERT INTO incident_changes_pruned VALUES (0);
    """

  /// The rest of what a feed poller reports, beside the version-1 columns of `feed_state`.
  static let version2 = """
    ALTER TABLE feed_state
      ADD COLUMN consecutive_failures bigint NOT NULL DEFAULT 0,
      ADD COLUMN problem_count bigint NOT NULL DEFAULT 0;
    """

  /// Each incident's entry time beside its body, indexed (for the latest one).
  static let version4 = """
    ALTER TABLE incidents ADD COLUMN entry_time double precision;
    UPDATE incidents SET entry_time = (body->>'entryTime')::double precision
    WHERE jsonb_typeof(body->'entryTime') = 'number';
    CREATE INDEX incidents_entry_time ON incidents (entry_time);
    COMMENT ON COLUMN incidents.entry_time IS 'seconds since 2001-01-01 UTC, as in the body';
    """

  /// The probe log and the saved flow state.
  static let version3 = """
    CREATE TABLE probe_log (
      sequence bigserial PRIMARY KEY,
      node uuid NOT NULL,
      flush boolean NOT NULL,
      probes bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    COMMENT ON COLUMN probe_log.probes IS 'the batch in the binary form of ProbeCoder';
    CREATE INDEX probe_log_created_at ON probe_log (created_at);
    CREATE TABLE flow_state (
      network text PRIMARY KEY,
      saved_at timestamptz NOT NULL DEFAULT now(),
      probe_sequence bigint NOT NULL,
      held_sequences bigint[] NOT NULL,
      state bytea NOT NULL
    );
    COMMENT ON COLUMN flow_state.network IS 'the fingerprint of the road network';
    COMMENT ON COLUMN flow_state.probe_sequence IS
      'every probe_log batch up to this sequence is in the state';
    COMMENT ON COLUMN flow_state.held_sequences IS
      'the later probe_log batches that are in the state too';
    COMMENT ON COLUMN flow_state.state IS 'the state in the binary form of FlowStateCoder';
    """

  /// Brings the database to `latestVersion`, one transaction per migration.
  ///
  /// - Throws: `TrafficStoreError.incompatibleSchema` for a database of a newer version;
  ///   `.operationFailed` when a migration fails (the database stays at the version before
  ///   it), e.g. when PostGIS is missing and the user may not create extensions.
  static func migrate(_ connection: PostgresConnection) throws(TrafficStoreError) {
    var target = 1
    while target <= latestVersion {
      defer { target += 1 }
      try connection.transaction { () throws(TrafficStoreError) in
        try connection.query("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey])
        try connection.execute(
          """
          CREATE TABLE IF NOT EXISTS schema_migrations (
            version integer PRIMARY KEY,
            applied_at timestamptz NOT NULL DEFAULT now()
          )
          """)
        let rows = try connection.query("SELECT coalesce(max(version), 0) FROM schema_migrations")
        let version = Int(rows.integer(0, 0) ?? 0)
        guard version <= latestVersion else {
          throw .incompatibleSchema(
            "\(connection.target.displayName) has schema version \(version); this version of "
              + "the library reads up to \(latestVersion)")
        }
        guard version < target else { return }
        guard let script = migration(to: target) else {
          throw .incompatibleSchema("no migration to schema version \(target)")
        }
        try connection.execute(script)
        try connection.query(
          "INSERT INTO schema_migrations (version) VALUES ($1::integer)", [String(target)])
      }
    }
  }
}
