import Foundation
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
