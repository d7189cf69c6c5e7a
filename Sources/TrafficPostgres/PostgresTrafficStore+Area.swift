import Foundation
import Geo
import Traffic

extension PostgresTrafficStore {
  /// The incidents with a line whose bounding box meets `box`, by PostGIS's GiST index
  /// (`geom && envelope`, then the same test on each line of the candidates): the candidate
  /// stage of an area query.
  ///
  /// `&&` compares 32-bit float boxes rounded outwards, so candidates may include a near
  /// miss at the edges; never a hit left out. A box crossing the antimeridian is searched on both sides, and each part also
  /// 360 degrees either side, where unwrapped geometries lie (see `IncidentGeometry`).
  /// - Returns: `(originalId, body)` of each candidate, by original id.
  /// - Throws: `TrafficStoreError.operationFailed` when the database cannot be read.
  /// - Complexity: O(log n + k) for k candidates.
  func candidateBodies(
    intersecting box: GeoBox
  ) throws(TrafficStoreError) -> [(originalId: String, body: Data)] {
    try withSession { session throws(TrafficStoreError) in
      try session.retrying { connection throws(TrafficStoreError) in
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
