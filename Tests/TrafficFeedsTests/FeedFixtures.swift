import Foundation
import Testing
import Traffic
import TrafficFeeds
import TrafficTestSupport

/// A file of this suite's own fixtures.
func ownFixture(_ format: String, _ name: String) throws -> Data {
  try Data(
    contentsOf: Fixtures.repositoryRoot.appendingPathComponent(
      "Tests/TrafficFeedsTests/Fixtures/\(format)/\(name)"))
}

/// A UTC date from ISO 8601 text known to be valid.
func utc(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Date {
  try #require(ISO8601DateFormatter().date(from: text), sourceLocation: sourceLocation)
}

/// The coordinates of a polyline's vertices as (latitude, longitude) pairs.
func pairs(_ polyline: GeoPolyline) -> [[Double]] {
  polyline.vertices.map { [$0.latitude, $0.longitude] }
}

/// Whether `date` lies within a millisecond of `expected` (times with fractions of a second).
func isNear(_ date: Date?, _ expected: Date) -> Bool {
  guard let date else { return false }
  return abs(date.timeIntervalSince(expected)) < 0.001
}
