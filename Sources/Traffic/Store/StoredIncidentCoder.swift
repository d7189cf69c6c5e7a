import Dispatch
import Foundation
import Synchronization

/// The JSON body under which the persistent stores (SQLite, PostgreSQL) keep an incident:
/// every field in `TrafficIncident`'s `Codable` form, so that a stored incident decodes
/// equal to the one written. `StoredIncidentWriter` and `StoredIncidentReader` handle the
/// common bodies fast; `JSONEncoder` and `JSONDecoder` the rest.
///
/// Dates keep Foundation's default encoding (a `Double` of seconds since 2001), which JSON
/// carries exactly; the stores' integer time columns exist only for indexing
/// (`milliseconds(_:)`). One coder is used from one thread at a time.
package struct StoredIncidentCoder {
  private let encoder = JSONEncoder()
  private let decoder = JSONDecoder()
  private let shared = StoredIncidentReader.SharedValues()

  /// Creates a coder.
  package init() {}

  /// The body of `incident`.
  ///
  /// - Throws: `TrafficStoreError.invalidBatch` naming the incident when it cannot be
  ///   encoded (a non-finite number in its details).
  package func encode(_ incident: TrafficIncident) throws(TrafficStoreError) -> Data {
    // The fast writer writes what the fast reader reads; it leaves the rest to `JSONEncoder`.
    if let body = StoredIncidentWriter.body(of: incident) { return body }
    do {
      return try encoder.encode(incident)
    } catch {
      throw .invalidBatch("incident \(incident.originalId) cannot be stored: \(error)")
    }
  }

  /// The incident in `body`.
  ///
  /// - Parameters:
  ///   - body: A stored body.
  ///   - originalId: The incident's original id, for the error.
  ///   - store: The file or database, for the error.
  /// - Throws: `TrafficStoreError.operationFailed` naming the incident and the store when the
  ///   body is damaged.
  package func decode(
    _ body: Data, originalId: String, store: String
  ) throws(TrafficStoreError) -> TrafficIncident {
    // The fast reader takes what the stores write; it leaves the rest, and every error, to
    // `JSONDecoder`.
    if let incident = StoredIncidentReader.incident(in: body, sharing: shared) {
      return incident
    }
    do {
      return try decoder.decode(TrafficIncident.self, from: body)
    } catch {
      throw .operationFailed(
        "the stored incident \(originalId) in \(store) cannot be read: \(error)")
    }
  }

  /// Decodes many bodies on all cores, keeping their order (start-up reads every body).
  ///
  /// - Throws: `TrafficStoreError.operationFailed` for the first damaged body found.
  /// - Complexity: O(n) work split across `ProcessInfo.activeProcessorCount` threads.
  package static func decodeConcurrently(
    _ rows: [(originalId: String, body: Data)], store: String
  ) throws(TrafficStoreError) -> [TrafficIncident] {
    let chunkSize = 4_096
    let chunkCount = (rows.count + chunkSize - 1) / chunkSize
    @Sendable func decodeChunk(_ range: Range<Int>) throws(TrafficStoreError) -> [TrafficIncident] {
      let coder = StoredIncidentCoder()
      var incidents: [TrafficIncident] = []
      incidents.reserveCapacity(range.count)
      for row in rows[range] {
        incidents.append(try coder.decode(row.body, originalId: row.originalId, store: store))
      }
      return incidents
    }
    guard chunkCount > 1 else { return try decodeChunk(0..<rows.count) }
    let chunks = Mutex([Int: Result<[TrafficIncident], TrafficStoreError>]())
    DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
      let range = chunk * chunkSize..<min(rows.count, (chunk + 1) * chunkSize)
      let result = Result { () throws(TrafficStoreError) in try decodeChunk(range) }
      chunks.withLock { $0[chunk] = result }
    }
    let decoded = chunks.withLock { $0 }
    var incidents: [TrafficIncident] = []
    incidents.reserveCapacity(rows.count)
    for chunk in 0..<chunkCount {
      // concurrentPerform runs every iteration before returning; a gap would be a bug here.
      guard let result = decoded[chunk] else {
        throw .operationFailed("decoding part \(chunk) of the incidents in \(store) did not run")
      }
      incidents += try result.get()
    }
    return incidents
  }

  /// Milliseconds since 1970 UTC, rounded down and clamped to `Int64`, for the indexed time
  /// columns.
  ///
  /// The mapping never decreases, so `a < b` implies `milliseconds(a) <= milliseconds(b)`: a
  /// query on the column finds every candidate, and only rows equal to the bound need the
  /// exact test on the body.
  package static func milliseconds(_ date: Date) -> Int64 {
    let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
    if value.isNaN { return 0 }
    if value <= -9.2e18 { return -9_200_000_000_000_000_000 }
    if value >= 9.2e18 { return 9_200_000_000_000_000_000 }
    return Int64(value)
  }
}
