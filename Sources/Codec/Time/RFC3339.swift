import Foundation

/// RFC 3339 date-times as the v7 API writes them (`2019-12-03T23:00:00Z`), formatted and
/// parsed without `DateFormatter` or `Calendar`, which are far too slow for the server's
/// hot path.
///
/// Civil dates are converted with Howard Hinnant's `days_from_civil` / `civil_from_days`
/// algorithms ("chrono-Compatible Low-Level Date Algorithms", 2013), valid for the
/// proleptic Gregorian calendar.
package enum RFC3339 {
  /// Formats `date` in UTC: `yyyy-MM-ddTHH:mm:ssZ`, with milliseconds (`.123Z`) when the
  /// date is not a whole second. Years outside 0...9999 are clamped to that range.
  ///
  /// - Complexity: O(1).
  @inlinable
  package static func format(_ date: Date) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(24)
    append(date, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Formats `date` as the local time of a place `offsetSeconds` east of UTC, with that
  /// offset (`2019-06-24T01:23:45+02:00`; `Z` for an offset of 0), as HERE Routing v8
  /// writes the time at each place of a route. The offset is rounded to whole minutes.
  ///
  /// - Complexity: O(1).
  @inlinable
  package static func format(_ date: Date, offsetSeconds: Int) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(30)
    append(date, offsetSeconds: offsetSeconds, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends `format(date)` to `bytes`.
  @inlinable
  package static func append(_ date: Date, to bytes: inout [UInt8]) {
    append(date, offsetSeconds: 0, to: &bytes)
  }

  /// Appends `format(date, offsetSeconds:)` to `bytes`.
  @inlinable
  package static func append(_ date: Date, offsetSeconds: Int, to bytes: inout [UInt8]) {
    // RFC 3339 offsets are whole minutes, at most a day.
    let minutes = max(-1439, min(1439, Int((Double(offsetSeconds) / 60).rounded())))
    let interval = date.timeIntervalSince1970 + Double(minutes * 60)
    // 0000-01-01 ... 9999-12-31T23:59:59.999
    let clamped = min(max(interval.isFinite ? interval : 0, -62_167_219_200), 253_402_300_799.999)
    var seconds = clamped.rounded(.down)
    var milliseconds = Int(((clamped - seconds) * 1000).rounded())
    if milliseconds == 1000 {
      seconds += 1
      milliseconds = 0
    }
    let whole = Int(seconds)
    let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
    let secondOfDay = whole - days * 86_400
    let (year, month, day) = civil(fromDays: days)
    func digits(_ value: Int, _ count: Int) {
      var divisor = 1
      for _ in 1..<count { divisor *= 10 }
      var value = value
      while divisor > 0 {
        bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / divisor))
        value %= divisor
        divisor /= 10
      }
    }
    digits(year, 4)
    bytes.append(UInt8(ascii: "-"))
    digits(month, 2)
    bytes.append(UInt8(ascii: "-"))
    digits(day, 2)
    bytes.append(UInt8(ascii: "T"))
    digits(secondOfDay / 3600, 2)
    bytes.append(UInt8(ascii: ":"))
    digits(secondOfDay / 60 % 60, 2)
    bytes.append(UInt8(ascii: ":"))
    digits(secondOfDay % 60, 2)
    if milliseconds > 0 {
      bytes.append(UInt8(ascii: "."))
      digits(milliseconds, 3)
    }
    if minutes == 0 {
      bytes.append(UInt8(ascii: "Z"))
    } else {
      bytes.append(minutes < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
      digits(abs(minutes) / 60, 2)
      bytes.append(UInt8(ascii: ":"))
      digits(abs(minutes) % 60, 2)
    }
  }

  /// Parses an RFC 3339 date-time as the standard requires it: with seconds and an offset
  /// (`Z`, `z` or `±hh:mm`; `T`, `t` or a space between date and time; any fraction). A
  /// time without an offset is local time of an unknown place, which RFC 3339 does not
  /// allow and HERE refuses; query parameters and command-line options use this.
  ///
  /// - Parameter text: The date-time.
  /// - Returns: `nil` when the text is not such a date-time.
  /// - Complexity: O(n) in the length of the text.
  @inlinable
  package static func parseWithOffset(_ text: String) -> Date? {
    hasOffset(text) ? parse(text) : nil
  }

  /// Whether a date-time ends in an offset: `Z`, `z` or `±hh:mm`.
  ///
  /// - Complexity: O(1).
  @inlinable
  package static func hasOffset(_ text: String) -> Bool {
    let bytes = Array(text.utf8.suffix(6))
    guard let last = bytes.last else { return false }
    if last == UInt8(ascii: "Z") || last == UInt8(ascii: "z") { return true }
    guard bytes.count == 6 else { return false }
    func digit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
    return (bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-")) && digit(bytes[1])
      && digit(bytes[2]) && bytes[3] == UInt8(ascii: ":") && digit(bytes[4]) && digit(bytes[5])
  }

  /// Parses an RFC 3339 date-time (`T` or `t` or a space between date and time, optional
  /// fraction of any length, `Z` or `±hh:mm` offset; a missing offset is read as UTC).
  ///
  /// - Parameters:
  ///   - text: The date-time.
  ///   - lenient: Also accept the ISO 8601 forms feeds write: a bare date (midnight UTC),
  ///     no seconds, a `,` before the fraction, `±hhmm` and `±hh` offsets.
  /// - Returns: `nil` when the text is not such a date-time.
  /// - Complexity: O(n) in the length of the text.
  @inlinable
  package static func parse(_ text: String, lenient: Bool = false) -> Date? {
    let bytes = Array(text.utf8)
    var index = 0
    func number(_ count: Int) -> Int? {
      guard index + count <= bytes.count else { return nil }
      var value = 0
      for _ in 0..<count {
        let byte = bytes[index]
        guard byte >= 48, byte <= 57 else { return nil }
        value = value * 10 + Int(byte - 48)
        index += 1
      }
      return value
    }
    func expect(_ byte: UInt8) -> Bool {
      guard index < bytes.count, bytes[index] == byte else { return false }
      index += 1
      return true
    }
    guard let year = number(4), expect(45), let month = number(2), expect(45),
      let day = number(2), (1...12).contains(month), (1...daysIn(month, year)).contains(day)
    else { return nil }
    if lenient, index == bytes.count {
      return Date(
        timeIntervalSince1970: Double(daysFromCivil(year: year, month: month, day: day) * 86_400))
    }
    guard expect(84) || expect(116) || expect(32),
      let hour = number(2), expect(58), let minute = number(2), hour < 24, minute < 60
    else { return nil }
    var second = 0
    if expect(58) {
      guard let value = number(2), value <= 60 else { return nil }
      second = value
    } else if !lenient {
      return nil
    }
    var fraction = 0.0
    if expect(46) || (lenient && expect(44)) {
      // Digits beyond the 15th are below a double's resolution at today's dates.
      var numerator = 0
      var denominator = 1
      var count = 0
      while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
        if count < 15 {
          numerator = numerator * 10 + Int(bytes[index] - 48)
          denominator *= 10
        }
        index += 1
        count += 1
      }
      guard count > 0 else { return nil }
      fraction = Double(numerator) / Double(denominator)
    }
    var offset = 0
    if expect(90) || expect(122) {
    } else if index < bytes.count, bytes[index] == 43 || bytes[index] == 45 {
      let sign = bytes[index] == 45 ? -1 : 1
      index += 1
      guard let hours = number(2), hours < 24 else { return nil }
      var minutes = 0
      if expect(58) || (lenient && index < bytes.count) {
        guard let value = number(2), value < 60 else { return nil }
        minutes = value
      } else if !lenient {
        return nil
      }
      offset = sign * (hours * 3600 + minutes * 60)
    }
    guard index == bytes.count else { return nil }
    let days = daysFromCivil(year: year, month: month, day: day)
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
    // Whole seconds and the fraction are added separately so that whole-second times are
    // exact and `format` → `parse` round-trips milliseconds.
    return Date(timeIntervalSince1970: Double(seconds) + fraction)
  }

  @usableFromInline
  static func daysIn(_ month: Int, _ year: Int) -> Int {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's `days_from_civil`).
  @inlinable
  package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The proleptic Gregorian date of a day count since 1970-01-01 (Hinnant's
  /// `civil_from_days`).
  @inlinable
  package static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
