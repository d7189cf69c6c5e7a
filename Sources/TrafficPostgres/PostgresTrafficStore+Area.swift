import Foundation
import Geo
import Traffic

extension PostgresTrafficStore {
  /// The incidents with a line whose bounding box meets `box`, by PostGIS's GiST index
  /// (`geom && envelope`, then the same test on each line of the candidates): the candidate
  /// stage of an area query.
  ///
  /// Read on the reader session, so that it answers while the store's main session is busy.
  /// `&&` compares 32-bit float boxes rounded outwards, so candidates may include a near
  /// miss at the edges; never a hit left out. A box crossing the antimeridian is searched on both sides, and each part also
  /// 360 degrees either side, where unwrapped geometries lie (see `IncidentGeometry`).
  /// - Returns: `(originalId, body)` of each candidate, by original id.
  /// - Throws: `TrafficStoreError.operationFailed` when the database cannot be read.
  /// - Complexity: O(log n + k) for k candidates.
  func candidateBodies(
    intersecting box: GeoBox
  ) throws(TrafficStoreError) -> [(originalId: String, body: Data)] {
    try withReader { connection throws(TrafficStoreError) in
      var found: [String: Data] = [:]
      for part in RTreeBox.covering(box) {
        for shift in IncidentGeometry.searchShiftsInDegrees {
          let rows = try connection.query(
            """
            WITH envelope AS (
              SELECT ST_MakeEnvelope($1::float8, $2::float8, $3::float8, $4::float8, 4326) AS box
            )
            SELECT original_id, body FROM incidents, envelope
            WHERE geom && envelope.box
              AND EXISTS (SELECT 1 FROM ST_Dump(geom) line WHERE line.geom && envelope.box)
            """,
            [
              String(part.minX + shift), String(part.minY), String(part.maxX + shift),
              String(part.maxY),
            ])
          for (originalId, body) in PostgresTrafficStore.bodies(rows) { found[originalId] = body }
        }
      }
      return found.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
  }

  /// The original ids of the candidates of `box` (see `candidateBodies(intersecting:)`).
  ///
  /// - Returns: The ids, sorted.
  /// - Throws: `TrafficStoreError.operationFailed` when the database cannot be read.
  package func candidateIds(intersecting box: GeoBox) throws(TrafficStoreError) -> [String] {
    try candidateBodies(intersecting: box).map(\.originalId)
  }

  /// The incidents whose geometry really meets `area`, read from the database: PostGIS's
  /// index gives candidates, their bodies are decoded and tested exactly as the snapshot
  /// tests them. What a node without a snapshot would do for every query.
  ///
  /// - Parameter area: A circle, box or corridor.
  /// - Returns: The incidents, by original id.
  /// - Throws: `TrafficStoreError.operationFailed` when the database cannot be read.
  /// - Complexity: O(log n + k) index work, plus decoding and testing k candidates.
  package func incidents(
    meeting area: some GeoArea
  ) throws(TrafficStoreError)
    -> [TrafficIncident]
  {
    let coder = StoredIncidentCoder()
    var result: [TrafficIncident] = []
    for (originalId, body) in try candidateBodies(intersecting: area.boundingBox) {
      let incident = try coder.decode(body, originalId: originalId, store: displayName)
      if incident.location.allPolylines.contains(where: { area.intersects($0) }) {
        result.append(incident)
      }
    }
    return result
  }
}

extension PostgresTrafficStore: IndexedTrafficStore {
  /// The number of incidents (`count(*)`) and the latest entry time (the largest
  /// `entry_time`, from its index), read on the reader session.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` when the database cannot be read.
  /// - Complexity: O(n) for the count (an index scan), O(log n) otherwise.
  package func summary() throws(TrafficStoreError) -> TrafficStoreSummary {
    try withReader { connection throws(TrafficStoreError) in
      let rows = try connection.execute("SELECT count(*), max(entry_time) FROM incidents")
      return TrafficStoreSummary(
        count: Int(rows.integer(0, 0) ?? 0),
        latestEntry: rows.text(0, 1).flatMap(Double.init).map {
          Date(timeIntervalSinceReferenceDate: $0)
        })
    }
  }

  /// The current incidents any of whose polylines' bounding boxes meets `box`, by PostGIS's
  /// index (`candidateBodies(intersecting:)`), decoded; by original id.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` when the database cannot be read or a
  ///   body is damaged.
  /// - Complexity: O(log n + k) for k candidates, plus decoding them.
  package func candidates(
    intersecting box: GeoBox
  ) throws(TrafficStoreError) -> [TrafficIncident] {
    let coder = StoredIncidentCoder()
    var found: [TrafficIncident] = []
    for (originalId, body) in try candidateBodies(intersecting: box) {
      found.append(try coder.decode(body, originalId: originalId, store: displayName))
    }
    return found
  }

  /// The current incident of this original id, decoded from its body, read on the reader
  /// session.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` when the database cannot be read or the
  ///   body is damaged.
  /// - Complexity: O(log n).
  package func incident(originalId: String) throws(TrafficStoreError) -> TrafficIncident? {
    guard !originalId.utf8.contains(0) else { return nil }
    let body = try withReader { connection throws(TrafficStoreError) -> Data? in
      let rows = try connection.query(
        "SELECT body FROM incidents WHERE original_id = $1", [originalId])
      return rows.count == 0 ? nil : rows.data(0, 0)
    }
    guard let body else { return nil }
    return try StoredIncidentCoder().decode(body, originalId: originalId, store: displayName)
  }
}
