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
    // Year 0000 is no year of XML Schema's `dateTime` (nor of the calendar): a time in it
    // would make the DATEX II publication invalid.
    RFC3339.parse(text.trimmingWhitespace, lenient: true).flatMap { $0 < firstYear ? nil : $0 }
  }

  /// 0001-01-01T00:00:00Z, the first instant of year 1.
  static let firstYear = Date(timeIntervalSince1970: -62_135_596_800)

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

  /// The UTC offset written at the end of an ISO 8601 date-time (`Z`, `+hh:mm`, `-hhmm`),
  /// or `nil` when there is none.
  ///
  /// - Complexity: O(n); a time ending in `Z` (most feeds') is told without a copy.
  package static func utcOffsetInSeconds(_ text: String) -> Int? {
    if let last = text.utf8.last, last == UInt8(ascii: "Z") || last == UInt8(ascii: "z") {
      return text.utf8.contains { $0 == UInt8(ascii: "T") || $0 == UInt8(ascii: "t") } ? 0 : nil
    }
    let trimmed = text.trimmingWhitespace
    guard let timeStart = trimmed.firstIndex(where: { $0 == "T" || $0 == "t" }) else {
      return nil
    }
    let time = trimmed[trimmed.index(after: timeStart)...]
    if time.hasSuffix("Z") || time.hasSuffix("z") { return 0 }
    guard let signIndex = time.lastIndex(where: { $0 == "+" || $0 == "-" }) else { return nil }
    let digits = time[time.index(after: signIndex)...].filter(\.isNumber)
    guard digits.count == 4 || digits.count == 2, let value = Int(digits) else { return nil }
    let hours = digits.count == 4 ? value / 100 : value
    let minutes = digits.count == 4 ? value % 100 : 0
    let sign = time[signIndex] == "-" ? -1 : 1
    return sign * (hours * 3600 + minutes * 60)
  }
}
