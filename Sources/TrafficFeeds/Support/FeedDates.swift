import Codec
import Foundation
import Traffic

/// Date parsing shared by the decoders: feeds write times in ISO 8601 / RFC 3339 with or
/// without fractional seconds and offsets, or as Unix time.
package enum FeedDates {
  /// Parses an ISO 8601 / RFC 3339 date-time: `2025-08-07T13:45:00Z`, with fractional seconds
  /// (any number of digits), `+hh:mm` / `+hhmm` / `Z` offsets; a missing offset is read as
  /// UTC. A bare date (`2025-08-07`) is midnight UTC.
  ///
  /// - Returns: `nil` when the text is not such a date.
  /// - Complexity: O(n) in the length of the text.
  package static func parseISO8601(_ text: String) -> Date? {
    RFC3339.parse(text.trimmingWhitespace, lenient: true)
  }

  /// Unix time in seconds, or in milliseconds when the value is too large to be seconds
  /// (Waze writes milliseconds).
  ///
  /// - Returns: `nil` for values that are not finite or outside years 1970...2200.
  package static func fromUnixTime(_ value: Double) -> Date? {
    guard value.isFinite, value >= 0 else { return nil }
    let seconds = value > 10_000_000_000 ? value / 1000 : value
    guard seconds < 7_258_118_400 else { return nil }  // 2200-01-01
    return Date(timeIntervalSince1970: seconds)
  }
}
