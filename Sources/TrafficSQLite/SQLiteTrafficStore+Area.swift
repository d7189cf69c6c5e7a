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
      var ids: [String] = []
      try Self.rows(meeting: box, column: "i.original_id", in: connection) {
        row throws(TrafficStoreError) in ids.append(row.text(1))
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
    try candidates(intersecting: area.boundingBox).filter { incident in
      incident.location.allPolylines.contains { area.intersects($0) }
    }
  }

  /// Calls `body` once per incident with an R*Tree entry meeting `box` (an incident of
  /// several entries once), on rows of `i.key` and `column` of `incidents i`.
  private static func rows(
    meeting box: GeoBox, column: String, in connection: SQLiteConnection,
    _ body: (SQLiteRow) throws(TrafficStoreError) -> Void
  ) throws(TrafficStoreError) {
    var keys = Set<Int64>()
    for part in RTreeBox.covering(box) {
      try connection.query(
        """
        SELECT i.key, \(column) FROM incident_rtree r JOIN incidents i ON i.key = r.entry >> 4
        WHERE r.min_lng <= ?3 AND r.max_lng >= ?1 AND r.min_lat <= ?4 AND r.max_lat >= ?2
          AND r.west <= ?3 AND r.east >= ?1 AND r.south <= ?4 AND r.north >= ?2
        """, [.real(part.minX), .real(part.minY), .real(part.maxX), .real(part.maxY)]
      ) { row throws(TrafficStoreError) in
        guard keys.insert(row.integer(0)).inserted else { return }
        try body(row)
      }
    }
  }
}

extension SQLiteTrafficStore: IndexedTrafficStore {
  /// The number of incidents (`count(*)`) and the latest entry time (the largest
  /// `entry_time`, from its index).
  ///
  /// - Throws: `TrafficStoreError.operationFailed` when the file cannot be read.
  /// - Complexity: O(n) for the count (a scan of the smallest index), O(log n) otherwise.
  package func summary() throws(TrafficStoreError) -> TrafficStoreSummary {
    try withReader { connection throws(TrafficStoreError) in
      var summary = TrafficStoreSummary(count: 0, latestEntry: nil)
      try connection.query("SELECT count(*), max(entry_time) FROM incidents") {
        row throws(TrafficStoreError) in
        summary.count = Int(row.integer(0))
        if !row.isNull(1) {
          summary.latestEntry = Date(timeIntervalSinceReferenceDate: row.real(1))
        }
      }
      return summary
    }
  }

  /// The current incidents any of whose polylines' bounding boxes meets `box`, from the
  /// file's R*Tree, decoded from their bodies; by original id.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` when the file cannot be read or a body
  ///   is damaged.
  /// - Complexity: O(log n + k) for k incidents met, plus decoding them.
  package func candidates(
    intersecting box: GeoBox
  ) throws(TrafficStoreError) -> [TrafficIncident] {
    try withReader { connection throws(TrafficStoreError) in
      let coder = StoredIncidentCoder()
      var found: [TrafficIncident] = []
      try Self.rows(meeting: box, column: "i.original_id, i.body", in: connection) {
        row throws(TrafficStoreError) in
        found.append(
          try coder.decode(row.data(2), originalId: row.text(1), store: connection.path))
      }
      return found.sorted { $0.originalId < $1.originalId }
    }
  }

  /// The current incident of this original id, decoded from its body.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` when the file cannot be read or the body
  ///   is damaged.
  /// - Complexity: O(log n).
  package func incident(originalId: String) throws(TrafficStoreError) -> TrafficIncident? {
    try withReader { connection throws(TrafficStoreError) in
      let coder = StoredIncidentCoder()
      var found: TrafficIncident?
      try connection.query(
        "SELECT body FROM incidents WHERE original_id = ?", [.text(originalId)]
      ) { row throws(TrafficStoreError) in
        found = try coder.decode(row.data(0), originalId: originalId, store: connection.path)
      }
      return found
    }
  }

  /// Runs `body` on the store's second connection (opened read-only on first use), so that
  /// it does not wait for a load holding the first; on the first connection for a database
  /// only that connection sees (in memory).
  func withReader<Result: Sendable>(
    _ body: (SQLiteConnection) throws(TrafficStoreError) -> Result
  ) throws(TrafficStoreError) -> Result {
    if path.isEmpty || path == ":memory:" || path.hasPrefix("file:") {
      return try withConnection(body)
    }
    return try readerConnection.withLock { reader throws(TrafficStoreError) in
      let connection: SQLiteConnection
      if let reader {
        connection = reader
      } else {
        connection = try SQLiteConnection(path: path, readOnly: true)
        connection.setBusyTimeout(milliseconds: Self.busyTimeoutInMilliseconds)
        reader = connection
      }
      return try body(connection)
    }
  }
}
