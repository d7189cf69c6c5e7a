import Foundation

/// HTTP dates (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate) written,
/// that and the two obsolete forms (RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime
/// `Sun Nov  6 08:49:37 1994`) read, as a recipient must.
package enum HTTPDate {
  private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
  private static let months = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

  /// `date` as an IMF-fixdate, the whole seconds (rounded down).
  package static func format(_ date: Date) -> String {
    let seconds = Int(date.timeIntervalSince1970.rounded(.down))
    let days = Int((Double(seconds) / 86_400).rounded(.down))
    let secondOfDay = seconds - days * 86_400
    let (year, month, day) = RFC3339.civil(fromDays: days)
    let weekday = weekdays[((days % 7) + 7) % 7]
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(weekday), \(two(day)) \(months[month - 1]) \(year) "
      + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
  }

  /// The date of an HTTP-date in any of its three forms, or `nil` when `text` is none.
  package static func parse(_ text: String) -> Date? {
    let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    var day: Int?
    var month: Int?
    var year: Int?
    var time: String?
    if parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT" {
      // IMF-fixdate.
      (day, month, year, time) = (Int(parts[1]), monthNumber(parts[2]), Int(parts[3]), parts[4])
    } else if parts.count == 4, parts[0].hasSuffix(","), parts[3] == "GMT" {
      // RFC 850: two-digit years of 70 and later are 19xx (RFC 9110 says to read a year
      // that seems more than 50 years ahead as the past century's).
      let pieces = parts[1].split(separator: "-").map(String.init)
      guard pieces.count == 3, pieces[2].count == 2, let short = Int(pieces[2]) else { return nil }
      (day, month, year, time) = (
        Int(pieces[0]), monthNumber(pieces[1]), short >= 70 ? 1900 + short : 2000 + short, parts[2]
      )
    } else if parts.count == 5 {
      // asctime.
      (day, month, year, time) = (Int(parts[2]), monthNumber(parts[1]), Int(parts[4]), parts[3])
    } else {
      return nil
    }
    guard let day, let month, let year, let time, (1...31).contains(day), year >= 1900,
      year <= 9999
    else { return nil }
    let clock = time.split(separator: ":").map { Int($0) }
    guard clock.count == 3, let hour = clock[0], let minute = clock[1], let second = clock[2],
      (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
    else { return nil }
    let days = RFC3339.daysFromCivil(year: year, month: month, day: day)
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59)
    return Date(timeIntervalSince1970: TimeInterval(seconds))
  }

  private static func monthNumber(_ name: String) -> Int? {
    months.firstIndex(of: name).map { $0 + 1 }
  }
}
