import Foundation

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
    let scalars = Array(text.trimmingCharacters(in: .whitespaces).utf8)
    var index = 0
    func number(_ digits: Int) -> Int? {
      guard index + digits <= scalars.count else { return nil }
      var value = 0
      for _ in 0..<digits {
        let c = scalars[index]
        guard c >= 48, c <= 57 else { return nil }
        value = value * 10 + Int(c - 48)
        index += 1
      }
      return value
    }
    func expect(_ character: UInt8) -> Bool {
      guard index < scalars.count, scalars[index] == character else { return false }
      index += 1
      return true
    }
    guard let year = number(4), expect(45), let month = number(2), expect(45),
      let day = number(2), (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    var components = DateComponents(
      calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(identifier: "UTC"),
      year: year, month: month, day: day, hour: 0, minute: 0, second: 0)
    var fraction = 0.0
    var offsetSeconds = 0
    if index < scalars.count {
      guard expect(84) || expect(116) || expect(32) else { return nil }  // T, t or space
      guard let hour = number(2), expect(58), let minute = number(2), hour <= 24, minute < 60
      else { return nil }
      components.hour = hour
      components.minute = minute
      if expect(58) {
        guard let second = number(2), second <= 60 else { return nil }
        components.second = second
        if expect(46) || expect(44) {
          var scale = 0.1
          var digits = 0
          while index < scalars.count, scalars[index] >= 48, scalars[index] <= 57 {
            fraction += Double(scalars[index] - 48) * scale
            scale /= 10
            index += 1
            digits += 1
          }
          guard digits > 0 else { return nil }
        }
      }
      if index < scalars.count {
        if expect(90) || expect(122) {  // Z or z
        } else if index < scalars.count, scalars[index] == 43 || scalars[index] == 45 {
          let sign = scalars[index] == 45 ? -1 : 1
          index += 1
          guard let hours = number(2), hours <= 23 else { return nil }
          _ = expect(58)
          let minutes = index < scalars.count ? number(2) ?? -1 : 0
          guard (0..<60).contains(minutes) else { return nil }
          offsetSeconds = sign * (hours * 3600 + minutes * 60)
        } else {
          return nil
        }
      }
    }
    guard index == scalars.count, let date = components.date else { return nil }
    return date.addingTimeInterval(fraction - Double(offsetSeconds))
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
