import Foundation
import Roads
import Traffic

/// What this store last wrote of the flow state, so that a save rewrites only the rows that
/// changed (a periodic save of a large network's flow touches a few rows, not all).
struct FlowWrites: Sendable {
  /// A hash of each `flow_segments` row as written, by segment id; `nil` when unknown (the
  /// next save rewrites the table).
  var segments: [Int: Int]?
  /// A hash of each `flow_latest` row as written, by segment id.
  var latest: [Int: Int]?
  /// A hash of each `probe_ledger` row as written, by vehicle id.
  var ledger: [String: Int]?
  /// The engine revision up to which typical weeks were written (`Persisted.Typical`); `nil`
  /// when unknown (the next save writes every week it has).
  var typical: UInt64?
  /// `PRAGMA data_version` after the last write: it changes when another connection
  /// commits, after which the hashes above no longer describe the file.
  var dataVersion: Int64?
}

extension SQLiteTrafficStore: FlowPersistence {
  /// Replaces the stored flow state in one transaction.
  ///
  /// Rows are compared (by a 64-bit hash) with what this store wrote last and only changed
  /// rows are written, unless another connection has committed to the file since (then every
  /// row is rewritten). The hash is SipHash of the row's bytes: two different rows colliding,
  /// which would skip a write, has a chance of about 2^-64.
  ///
  /// - Parameter state: from `FlowState.persisted(now:incidents:)`.
  /// - Throws: `TrafficStoreError.operationFailed` when the write fails; the file keeps the
  ///   previous state then.
  /// - Complexity: O(a·c) to encode a segments of c contributions each, plus O(w log n) for
  ///   w changed rows.
  package func saveFlow(_ state: FlowState.Persisted) throws(TrafficStoreError) {
    try checkWritable()
    let header = FlowStateCoder.header(state)
    var rows: [(id: Int, data: Data)] = []
    rows.reserveCapacity(state.segments.count + state.observations.count)
    var segments = state.segments[...]
    var observations = state.observations[...]
    while !segments.isEmpty || !observations.isEmpty {
      let id = min(
        segments.first?.segmentID ?? .max, observations.first?.segmentID ?? .max)
      let aggregates = segments.first?.segmentID == id ? segments.popFirst() : nil
      let observation = observations.first?.segmentID == id ? observations.popFirst() : nil
      rows.append((id, FlowStateCoder.segment(aggregates, observation)))
    }
    var segmentHashes: [Int: Int] = [:]
    segmentHashes.reserveCapacity(rows.count)
    for row in rows {
      var hasher = Hasher()
      row.data.withUnsafeBytes { hasher.combine(bytes: $0) }
      segmentHashes[row.id] = hasher.finalize()
    }
    let latestRows: [(id: Int, values: [SQLiteValue], hash: Int)] = state.latest.map { latest in
      var hasher = Hasher()
      hasher.combine(latest)
      return (
        latest.segmentID,
        [
          .integer(Int64(latest.segmentID)), .real(latest.speedInMetersPerSecond),
          .real(latest.speedUncappedInMetersPerSecond),
          .real(latest.freeFlowSpeedInMetersPerSecond), .real(latest.jamFactor),
          .real(latest.confidence), .text(latest.traversability.rawValue),
          latest.jamTendency.map { .text($0.rawValue) } ?? .null,
          .real(state.savedAt.timeIntervalSince1970),
        ],
        hasher.finalize()
      )
    }
    let latestHashes = Dictionary(latestRows.map { ($0.id, $0.hash) }) { first, _ in first }
    let typicalRevision = state.typical.reduce(0) { max($0, $1.revision) }
    var ledgerRows: [(vehicleID: String, data: Data, hash: Int)] = []
    ledgerRows.reserveCapacity(state.ledger.count)
    for entry in state.ledger {
      let data = FlowStateCoder.ledger(entry.spans)
      var hasher = Hasher()
      data.withUnsafeBytes { hasher.combine(bytes: $0) }
      ledgerRows.append((entry.vehicleID, data, hasher.finalize()))
    }
    let ledgerHashes = Dictionary(ledgerRows.map { ($0.vehicleID, $0.hash) }) { first, _ in first }
    try withConnection { connection throws(TrafficStoreError) in
      try flowWrites.withLock { writes throws(TrafficStoreError) in
        let version = try connection.integer("PRAGMA data_version")
        let known = writes.dataVersion == version ? writes : FlowWrites()
        writes = FlowWrites()
        try connection.transaction { () throws(TrafficStoreError) in
          try connection.run(
            """
            INSERT OR REPLACE INTO flow_state (id, saved_at, segment_count, header)
            VALUES (1, ?, ?, ?)
            """,
            [
              .real(state.savedAt.timeIntervalSince1970), .integer(Int64(state.segmentCount)),
              .blob(header),
            ])
          if known.segments == nil { try connection.run("DELETE FROM flow_segments") }
          for (id, _) in known.segments ?? [:] where segmentHashes[id] == nil {
            try connection.run(
              "DELETE FROM flow_segments WHERE segment_id = ?", [.integer(Int64(id))])
          }
          for row in rows where known.segments?[row.id] != segmentHashes[row.id] {
            try connection.run(
              "INSERT OR REPLACE INTO flow_segments (segment_id, state) VALUES (?, ?)",
              [.integer(Int64(row.id)), .blob(row.data)])
          }
          if known.latest == nil { try connection.run("DELETE FROM flow_latest") }
          for (id, _) in known.latest ?? [:] where latestHashes[id] == nil {
            try connection.run(
              "DELETE FROM flow_latest WHERE segment_id = ?", [.integer(Int64(id))])
          }
          for row in latestRows where known.latest?[row.id] != row.hash {
            try connection.run(
              "INSERT OR REPLACE INTO flow_latest VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row.values)
          }
          if known.ledger == nil { try connection.run("DELETE FROM probe_ledger") }
          for (vehicleID, _) in known.ledger ?? [:] where ledgerHashes[vehicleID] == nil {
            try connection.run(
              "DELETE FROM probe_ledger WHERE vehicle_id = ?", [.text(vehicleID)])
          }
          for row in ledgerRows where known.ledger?[row.vehicleID] != row.hash {
            try connection.run(
              "INSERT OR REPLACE INTO probe_ledger (vehicle_id, spans) VALUES (?, ?)",
              [.text(row.vehicleID), .blob(row.data)])
          }
          // Weeks are only ever added to or replaced: rows of segments this engine has no
          // week for (written by another process) stay.
          for week in state.typical where known.typical.map({ week.revision > $0 }) ?? true {
            try connection.run(
              "INSERT OR REPLACE INTO typical_speeds (segment_id, bins) VALUES (?, ?)",
              [.integer(Int64(week.segmentID)), .blob(FlowStateCoder.typicalWeek(week.entries))])
          }
        }
        writes = FlowWrites(
          segments: segmentHashes, latest: latestHashes, ledger: ledgerHashes,
          typical: max(typicalRevision, known.typical ?? 0),
          dataVersion: try connection.integer("PRAGMA data_version"))
      }
    }
  }

  /// The stored flow state, or `nil` when none was saved since the network was.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` naming the file and the segment when a
  ///   row is damaged.
  /// - Complexity: O(a·c) for a segments of c contributions each.
  package func loadFlow() throws(TrafficStoreError) -> FlowState.Persisted? {
    typealias Rows = (
      header: [UInt8], segments: [(Int, [UInt8])], latest: [FlowState.Persisted.Latest],
      typical: [FlowState.Persisted.Typical], ledger: [FlowState.Persisted.Ledger]
    )
    let path = self.path
    // On the second connection: a start-up restores the flow while the incidents load on
    // the first (`TrafficEngine.Loading.inBackground`).
    let stored = try withReader { connection throws(TrafficStoreError) -> Rows? in
      var header: [UInt8]?
      try connection.query("SELECT header FROM flow_state WHERE id = 1") {
        row throws(TrafficStoreError) in header = row.bytes(0)
      }
      guard let header else { return nil }
      var segments: [(Int, [UInt8])] = []
      try connection.query("SELECT segment_id, state FROM flow_segments ORDER BY segment_id") {
        row throws(TrafficStoreError) in segments.append((Int(row.integer(0)), row.bytes(1)))
      }
      var latest: [FlowState.Persisted.Latest] = []
      try connection.query(
        """
        SELECT segment_id, speed, speed_uncapped, free_flow, jam_factor, confidence,
          traversability, jam_tendency
        FROM flow_latest ORDER BY segment_id
        """
      ) { row throws(TrafficStoreError) in
        let id = Int(row.integer(0))
        guard let traversability = Traversability(rawValue: row.text(6)),
          row.isNull(7) || JamTendency(rawValue: row.text(7)) != nil
        else {
          throw .operationFailed("the latest flow of segment \(id) in \(path) is damaged")
        }
        latest.append(
          FlowState.Persisted.Latest(
            segmentID: id, speedInMetersPerSecond: row.real(1),
            speedUncappedInMetersPerSecond: row.real(2),
            freeFlowSpeedInMetersPerSecond: row.real(3),
            jamFactor: row.real(4), confidence: row.real(5), traversability: traversability,
            jamTendency: row.isNull(7) ? nil : JamTendency(rawValue: row.text(7))))
      }
      // Weeks are decoded as they are read: a region's store holds hundreds of thousands.
      var typical: [FlowState.Persisted.Typical] = []
      try connection.query("SELECT segment_id, bins FROM typical_speeds ORDER BY segment_id") {
        row throws(TrafficStoreError) in
        let id = Int(row.integer(0))
        let name = "the typical week of segment \(id) in \(path)"
        do {
          typical.append(
            FlowState.Persisted.Typical(
              segmentID: id, week: try FlowStateCoder.typicalWeek(row.bytes(1)[...], name: name)))
        } catch {
          throw .operationFailed("\(error)")
        }
      }
      var ledger: [FlowState.Persisted.Ledger] = []
      try connection.query(
        "SELECT vehicle_id, spans FROM probe_ledger ORDER BY vehicle_id COLLATE BINARY"
      ) { row throws(TrafficStoreError) in
        let vehicleID = row.text(0)
        let name = "the probe ledger of vehicle \(vehicleID.debugDescription) in \(path)"
        do {
          ledger.append(
            FlowState.Persisted.Ledger(
              vehicleID: vehicleID,
              spans: try FlowStateCoder.ledger(row.bytes(1)[...], name: name)))
        } catch {
          throw .operationFailed("\(error)")
        }
      }
      return (header, segments, latest, typical, ledger)
    }
    guard let stored else { return nil }
    do {
      let header = try FlowStateCoder.header(stored.header, name: "the flow state in \(path)")
      var segments: [FlowState.Persisted.Segment] = []
      var observations: [FlowState.Persisted.Observation] = []
      for (id, bytes) in stored.segments {
        let (aggregates, observation) = try FlowStateCoder.segment(
          bytes, id: id, name: "the flow state of segment \(id) in \(path)")
        if let aggregates { segments.append(aggregates) }
        if let observation { observations.append(observation) }
      }
      for week in stored.typical where week.segmentID < 0 || week.segmentID >= header.segmentCount {
        throw TrafficStoreError.operationFailed(
          "the typical week of segment \(week.segmentID) in \(path) names no segment of the "
            + "network")
      }
      return FlowState.Persisted(
        savedAt: header.savedAt, segmentCount: header.segmentCount,
        historyBucketInSeconds: header.historyBucketInSeconds,
        latestProbeTime: header.latestProbeTime, segments: segments, observations: observations,
        latest: stored.latest, typical: stored.typical,
        // Swift orders strings by their characters, SQLite's BINARY by UTF-8 bytes.
        ledger: stored.ledger.sorted { $0.vehicleID < $1.vehicleID })
    } catch let error as TrafficStoreError {
      throw error
    } catch {
      throw .operationFailed("\(error)")
    }
  }

  /// Deletes the stored flow state (inside the caller's transaction).
  static func deleteFlow(in connection: SQLiteConnection) throws(TrafficStoreError) {
    try connection.run("DELETE FROM flow_state")
    try connection.run("DELETE FROM flow_segments")
    try connection.run("DELETE FROM flow_latest")
    try connection.run("DELETE FROM typical_speeds")
    try connection.run("DELETE FROM probe_ledger")
  }
}
