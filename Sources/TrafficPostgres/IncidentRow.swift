import Foundation
import Traffic

/// The columns of one stored incident, computed before a transaction opens: its JSON body
/// (`jsonb`), its geometry (hex EWKB) and its indexed times.
///
/// The body is `StoredIncidentCoder`'s, as in SQLite; the other columns exist for indexes
/// and for SQL users (e.g. QGIS reading `incidents.geom`).
struct IncidentRow {
  let incident: TrafficIncident
  let body: Data
  let geometry: String

  /// Encodes `incident`.
  ///
  /// - Throws: `TrafficStoreError.invalidBatch` naming the incident when it cannot be
  ///   encoded (a non-finite number) or holds a NUL character, which `jsonb` refuses.
  init(_ incident: TrafficIncident, coder: StoredIncidentCoder) throws(TrafficStoreError) {
    self.incident = incident
    body = try coder.encode(incident)
    if body.range(of: Data("\\u0000".utf8)) != nil || incident.originalId.utf8.contains(0) {
      throw .invalidBatch(
        "incident \(incident.originalId) cannot be stored: PostgreSQL text and jsonb cannot "
          + "hold a NUL character")
    }
    geometry = IncidentGeometry.extendedWKBHex(incident.location.allPolylines)
  }

  /// The start time column: milliseconds since 1970 UTC, rounded down.
  var startMilliseconds: String? {
    incident.startTime.map { String(StoredIncidentCoder.milliseconds($0)) }
  }

  /// The entry time column: seconds since 2001 UTC, as the body holds it.
  var entrySeconds: String? {
    incident.entryTime.map { String($0.timeIntervalSinceReferenceDate) }
  }

  /// The end time column: milliseconds since 1970 UTC, rounded down.
  var endMilliseconds: String? {
    incident.endTime.map { String(StoredIncidentCoder.milliseconds($0)) }
  }
}
