import Foundation
import Geo
import Traffic

extension SQLiteTrafficStore {
  /// The original ids of the incidents whose bounding box (of any of their polylines) meets
  /// `box`, straight from the file's R*Tree: the candidate stage of an area query, which the
  /// in-memory snapshot answers from its own R-tree.
  ///
  /// Edges touching count as meeting. The R*Tree holds 32-bit floats rounded outwards; the
  /// exact edges stored beside them decide.
  /// - Parameter box: The area; one crossing the antimeridian is searched on both sides.
  /// - Returns: The ids, sorted.
  /// - Throws: `TrafficStoreError.operationFailed` when the file cannot be read.
  /// - Complexity: O(log n + k) for k entries met.
  package func incidentIds(intersecting box: GeoBox) throws(TrafficStoreError) -> [String] {
    try withConnection { connection throws(TrafficStoreError) in
      var ids = Set<String>()
      for part in RTreeBox.covering(box) {
        try connection.query(
          """
          SELECT i.original_id FROM incident_rtree r JOIN incidents i ON i.key = r.entry >> 4
          WHERE r.min_lng <= ?3 AND r.max_lng >= ?1 AND r.min_lat <= ?4 AND r.max_lat >= ?2
            AND r.west <= ?3 AND r.east >= ?1 AND r.south <= ?4 AND r.north >= ?2
          """, [.real(part.minX), .real(part.minY), .real(part.maxX), .real(part.maxY)]
        ) { row throws(TrafficStoreError) in ids.insert(row.text(0)) }
      }
      return ids.sorted()
    }
  }

  /// The incidents whose geometry really meets `area`, read from the file: the R*Tree gives
  /// candidates by bounding box, their bodies are decoded and tested exactly as the
  /// snapshot tests them. What an engine without a snapshot would do for every query.
  ///
  /// - Parameter area: A circle, box or corridor.
  /// - Returns: The incidents, by original id.
  /// - Throws: `TrafficStoreError.operationFailed` when the file cannot be read.
  /// - Complexity: O(log n + k) index work, plus decoding and testing k candidates.
  package func incidents(
    meeting area: some GeoArea
  ) throws(TrafficStoreError)
    -> [TrafficIncident]
  {
    let ids = try incidentIds(intersecting: area.boundingBox)
    return try withConnection { connection throws(TrafficStoreError) in
      let coder = StoredIncidentCoder()
      var result: [TrafficIncident] = []
      for originalId in ids {
        try connection.query(
          "SELECT body FROM incidents WHERE original_id = ?", [.text(originalId)]
        ) { row throws(TrafficStoreError) in
          let incident = try coder.decode(
            row.data(0), originalId: originalId, store: connection.path)
          if incident.location.allPolylines.contains(where: { area.intersects($0) }) {
            result.append(incident)
          }
        }
      }
      return result
    }
  }
}
