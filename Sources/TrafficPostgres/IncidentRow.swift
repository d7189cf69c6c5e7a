import Foundation
import Synchronization
import Traffic

/// The columns of one stored incident, computed before a transaction opens: its JSON body
/// (`jsonb`), its geometry (hex EWKB) and its indexed times.
///
/// The body carries every field through `TrafficIncident`'s `Codable` conformance, so a stored
/// incident decodes equal to the one written; the other columns exist for indexes and for
/// SQL users (e.g. QGIS reading `incidents.geom`).
struct IncidentRow {
  let incident: TrafficIncident
  let body: Data
  let geometry: String

  /// Encodes `incident`.
  ///
  /// - Throws: `TrafficStoreError.invalidBatch` naming the incident when it cannot be
  ///   encoded (a non-finite number) or holds a NUL character, which `jsonb` refuses.
  init(_ incident: TrafficIncident, encoder: JSONEncoder) throws(TrafficStoreError) {
    self.incident = incident
    do {
      body = try encoder.encode(incident)
    } catch {
      throw .invalidBatch("incident \(incident.originalId) cannot be stored: \(error)")
    }
    if body.range(of: Data("\\u0000".utf8)) != nil || incident.originalId.utf8.contains(0) {
      throw .invalidBatch(
        "incident \(incident.originalId) cannot be stored: PostgreSQL text and jsonb cannot "
          + "hold a NUL character")
    }
    geometry = IncidentGeometry.extendedWKBHex(incident.location.allPolylines)
  }

  /// The start time column: milliseconds since 1970 UTC, rounded down.
  var startMilliseconds: String? { incident.startTime.map { String(IncidentRow.milliseconds($0)) } }

  /// The end time column: milliseconds since 1970 UTC, rounded down.
  var endMilliseconds: String? { incident.endTime.map { String(IncidentRow.milliseconds($0)) } }

  /// Milliseconds since 1970 UTC, rounded down and clamped to `Int64`.
  ///
  /// The mapping never decreases, so `a < b` implies `milliseconds(a) <= milliseconds(b)`: a
  /// query on the column finds every candidate, and only rows equal to the bound need the
  /// exact test on the body.
  static func milliseconds(_ date: Date) -> Int64 {
    let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
    if value.isNaN { return 0 }
    if value <= -9.2e18 { return -9_200_000_000_000_000_000 }
    if value >= 9.2e18 { return 9_200_000_000_000_000_000 }
    return Int64(value)
  }
}

/// Decoding stored bodies.
enum IncidentBody {
  /// The incident in `body`.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` naming the incident and the database when
  ///   the body is damaged.
  static func decode(
    _ body: Data, originalId: String, decoder: JSONDecoder, database: String
  ) throws(TrafficStoreError) -> TrafficIncident {
    do {
      return try decoder.decode(TrafficIncident.self, from: body)
    } catch {
      throw .operationFailed(
        "the stored incident \(originalId) in \(database) cannot be read: \(error)")
    }
  }

  /// Decodes many bodies on all cores, keeping their order.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` for the first damaged body found.
  /// - Complexity: O(n) work split across `ProcessInfo.activeProcessorCount` threads.
  static func decodeConcurrently(
    _ rows: [(originalId: String, body: Data)], database: String
  ) throws(TrafficStoreError) -> [TrafficIncident] {
    let chunkSize = 4_096
    let chunkCount = (rows.count + chunkSize - 1) / chunkSize
    let chunks = Mutex([Int: Result<[TrafficIncident], TrafficStoreError>]())
    DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
      let decoder = JSONDecoder()
      let range = chunk * chunkSize..<min(rows.count, (chunk + 1) * chunkSize)
      let result = Result { () throws(TrafficStoreError) -> [TrafficIncident] in
        var incidents: [TrafficIncident] = []
        incidents.reserveCapacity(range.count)
        for row in rows[range] {
          incidents.append(
            try decode(row.body, originalId: row.originalId, decoder: decoder, database: database))
        }
        return incidents
      }
      chunks.withLock { $0[chunk] = result }
    }
    let decoded = chunks.withLock { $0 }
    var incidents: [TrafficIncident] = []
    incidents.reserveCapacity(rows.count)
    for chunk in 0..<chunkCount {
      // concurrentPerform runs every iteration before returning; a gap would be a bug here.
      guard let result = decoded[chunk] else {
        throw .operationFailed("decoding part \(chunk) of the incidents did not run")
      }
      incidents += try result.get()
    }
    return incidents
  }
}
