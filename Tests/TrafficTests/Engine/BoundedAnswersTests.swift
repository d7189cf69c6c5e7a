import Foundation
import Testing

@testable import Traffic

/// An answer never holds more than `TrafficQueryLimits.maxResults` incidents: a query that
/// matches more is refused (413) before anything is sorted or encoded, unless it asks for
/// at most that many with `limit`.
@Suite struct BoundedAnswersTests {
  typealias F = EngineFixtures

  static func engine(maxResults: Int) throws -> TrafficEngine {
    let incidents = try (0..<5).map { try F.incident("b\($0)", [(52.5 + Double($0) * 1e-4, 13.4)]) }
    return try F.engine(incidents, limits: TrafficQueryLimits(maxResults: maxResults))
  }

  @Test func aQueryMatchingMoreThanTheBoundIsRefusedWithTheCount() async throws {
    let engine = try Self.engine(maxResults: 3)
    let area = try F.circle(52.5, 13.4, 500)
    let error = await queryError { _ = try await engine.queryForIncidents(inside: area) }
    guard case .httpError(let status, let detail)? = error else {
      Issue.record("expected a 413, got \(String(describing: error))")
      return
    }
    #expect(status == 413)
    #expect(detail.contains("5 incidents match, more than the 3 one answer holds"))
    // Within the bound by its limit, or by its filters: answered.
    var limited = TrafficIncidentsQueryOptions()
    limited.limit = 3
    #expect(try await engine.queryForIncidents(inside: area, queryOptions: limited).count == 3)
    #expect(try await engine.queryForIncidents(inside: F.circle(52.5, 13.4, 15)).count == 2)
    // At the bound exactly: answered whole.
    let exact = try Self.engine(maxResults: 5)
    #expect(try await exact.queryForIncidents(inside: area).count == 5)
    // The default bound is 10 000; `.unlimited` has none.
    #expect(TrafficQueryLimits.here.maxResults == 10_000)
    #expect(TrafficQueryLimits.unlimited.maxResults == .max)
  }
}
