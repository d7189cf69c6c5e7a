import Foundation
import Synchronization
import Traffic

/// The JSON body of a stored incident: every field through `TrafficIncident`'s `Codable`
/// conformance, so that a stored incident decodes equal to the one written.
///
/// Dates keep Foundation's default encoding (a `Double` of seconds since 2001), which JSON
/// carries exactly; the integer time columns beside the body exist only for indexing.
struct IncidentCoder {
  private let encoder = JSONEncoder()
  private let decoder = JSONDecoder()

  /// The body of `incident`.
  ///
  /// - Throws: `TrafficStoreError.invalidBatch` naming the incident when it cannot be
  ///   encoded (a non-finite number in its details).
  func encode(_ incident: TrafficIncident) throws(TrafficStoreError) -> Data {
    do {
      return try encoder.encode(incident)
    } catch {
      throw .invalidBatch("incident \(incident.originalId) cannot be stored: \(error)")
    }
  }

  /// The incident in `body`.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` naming the incident and the file when the
  ///   body is damaged.
  func decode(
    _ body: Data, originalId: String, path: String
  ) throws(TrafficStoreError)
    -> TrafficIncident
  {
    do {
      return try decoder.decode(TrafficIncident.self, from: body)
    } catch {
      throw .operationFailed(
        "the stored incident \(originalId) in \(path) cannot be read: \(error)")
    }
  }

  /// Decodes many bodies on all cores, keeping their order.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` for the first damaged body found.
  /// - Complexity: O(n) work split across `ProcessInfo.activeProcessorCount` threads.
  static func decodeConcurrently(
    _ rows: [(originalId: String, body: Data)], path: String
  ) throws(TrafficStoreError) -> [TrafficIncident] {
    let chunkSize = 4_096
    let chunkCount = (rows.count + chunkSize - 1) / chunkSize
    guard chunkCount > 1 else {
      let coder = IncidentCoder()
      var incidents: [TrafficIncident] = []
      incidents.reserveCapacity(rows.count)
      for row in rows {
        incidents.append(try coder.decode(row.body, originalId: row.originalId, path: path))
      }
      return incidents
    }
    let chunks = Mutex([Int: Result<[TrafficIncident], TrafficStoreError>]())
    DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
      let coder = IncidentCoder()
      let range = chunk * chunkSize..<min(rows.count, (chunk + 1) * chunkSize)
      let result = Result { () throws(TrafficStoreError) -> [TrafficIncident] in
        var incidents: [TrafficIncident] = []
        incidents.reserveCapacity(range.count)
        for row in rows[range] {
          incidents.append(try coder.decode(row.body, originalId: row.originalId, path: path))
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
        throw .operationFailed("decoding part \(chunk) of the incidents in \(path) did not run")
      }
      incidents += try result.get()
    }
    return incidents
  }

  /// Milliseconds since 1970 UTC, rounded down and clamped to `Int64`, for the indexed time
  /// columns.
  ///
  /// The mapping never decreases, so `a < b` implies `milliseconds(a) <= milliseconds(b)`:
  /// a query on the column finds every candidate, and only rows equal to the bound need the
  /// exact test on the body.
  static func milliseconds(_ date: Date) -> Int64 {
    let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
    if value.isNaN { return 0 }
    if value <= -9.2e18 { return -9_200_000_000_000_000_000 }
    if value >= 9.2e18 { return 9_200_000_000_000_000_000 }
    return Int64(value)
  }
}
