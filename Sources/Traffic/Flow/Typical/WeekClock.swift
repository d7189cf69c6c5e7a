import Foundation

/// Maps times to the bins of a typical week in one time zone: local weekday × five-minute
/// slot of the local day, Monday 00:00–00:05 being bin 0. Daylight saving time is handled by
/// the zone's rules (`TimeZone.secondsFromGMT(for:)`): a jam at 08:00 local time falls in
/// the 08:00 bin in summer and in winter.
package struct WeekClock: Hashable, Sendable {
  /// The zone bins are counted in.
  package let timeZone: TimeZone

  /// A clock for `timeZone`.
  package init(timeZone: TimeZone) { self.timeZone = timeZone }

  /// The bin of a time.
  ///
  /// - Complexity: O(1) (one lookup of the zone's offset).
  package func bin(for time: Date) -> Int {
    bin(for: time, offset: timeZone.secondsFromGMT(for: time))
  }

  /// The bin of a time whose zone offset is known (seconds east of UTC).
  package func bin(for time: Date, offset: Int) -> Int {
    let local = time.timeIntervalSince1970 + Double(offset)
    guard local.isFinite, abs(local) < 1e15 else { return 0 }
    // 1970-01-01 was a Thursday: day 3 of a week starting on Monday.
    let slot = Int((local / 300).rounded(.down))
    let week = 2016
    let value = (slot + 3 * 288) % week
    return value < 0 ? value + week : value
  }
}

/// A cache of a zone's offset by quarter hour of UTC (every transition of every zone in use
/// falls on a quarter hour of UTC), so that a stream of times in order costs one zone lookup
/// per quarter hour rather than one per time.
package struct WeekClockCache: Sendable {
  package let clock: WeekClock
  private var quarter = Int.min
  private var offset = 0

  /// A cache over `clock`.
  package init(clock: WeekClock) { self.clock = clock }

  /// The bin of a time.
  package mutating func bin(for time: Date) -> Int {
    let seconds = time.timeIntervalSince1970
    guard seconds.isFinite, abs(seconds) < 1e15 else { return 0 }
    let quarter = Int((seconds / 900).rounded(.down))
    if quarter != self.quarter {
      self.quarter = quarter
      offset = clock.timeZone.secondsFromGMT(
        for: Date(timeIntervalSince1970: Double(quarter) * 900))
    }
    return clock.bin(for: time, offset: offset)
  }
}
