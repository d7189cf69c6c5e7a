import Foundation

/// The times one vehicle reported within one span of a ``ProbeLedger``, in milliseconds
/// since 1970: as a regular grid (first, last, step) when every gap is the same, else
/// exactly, each time as its offset from the first.
package struct LedgerSpan: Hashable, Sendable, Codable {
  /// The earliest time, milliseconds since 1970.
  package private(set) var first: Int64
  /// The latest time, milliseconds since 1970.
  package private(set) var last: Int64
  /// The gap between consecutive times of a regular span, milliseconds; 0 for a span of one
  /// time or an irregular one.
  package private(set) var step: Int64
  /// An irregular span's times as offsets from ``first``, ascending (the first is 0, the
  /// last `last - first`); empty for a regular span or one of one time.
  package private(set) var offsets: [UInt32]

  /// The longest a span may last, milliseconds (its offsets fit in 32 bits: 49 days); a
  /// vehicle reporting longer without a pause gets a new span.
  static let maxLength = Int64(UInt32.max)

  /// A span of one time.
  init(_ time: Int64) {
    first = time
    last = time
    step = 0
    offsets = []
  }

  /// The most compact span of ascending, distinct times lasting less than ``maxLength``.
  init(times: [Int64]) {
    precondition(!times.isEmpty, "a span holds at least one time")
    first = times[0]
    last = times[times.count - 1]
    step = times.count > 1 ? times[1] - times[0] : 0
    offsets = []
    if times.count > 2, zip(times.dropFirst(), times).contains(where: { $0 - $1 != step }) {
      let base = first
      offsets = times.map { UInt32(truncatingIfNeeded: $0 - base) }
      step = 0
    }
  }

  /// A span read back from a store, checked.
  ///
  /// - Throws: a message naming what is inconsistent.
  package init(first: Int64, last: Int64, step: Int64, offsets: [UInt32]) throws(LedgerSpanError) {
    guard last >= first, last - first < Self.maxLength else {
      throw LedgerSpanError("a span from \(first) to \(last) ms")
    }
    if !offsets.isEmpty {
      guard step == 0, offsets.count > 2, offsets[0] == 0,
        Int64(offsets[offsets.count - 1]) == last - first,
        zip(offsets.dropFirst(), offsets).allSatisfy({ $0 > $1 })
      else { throw LedgerSpanError("an irregular span's times are not ascending from 0") }
    } else if step > 0 {
      guard last > first, (last - first) % step == 0 else {
        throw LedgerSpanError("a regular span of step \(step) ms from \(first) to \(last)")
      }
    } else {
      guard step == 0, last == first else {
        throw LedgerSpanError("a span of step \(step) ms from \(first) to \(last)")
      }
    }
    self.first = first
    self.last = last
    self.step = step
    self.offsets = offsets
  }

  /// The number of times.
  package var count: Int {
    if !offsets.isEmpty { return offsets.count }
    return step > 0 ? Int((last - first) / step) + 1 : 1
  }

  /// Every time, ascending.
  ///
  /// - Complexity: O(n) for n times.
  var times: [Int64] {
    if !offsets.isEmpty { return offsets.map { first + Int64($0) } }
    if step > 0 { return Array(stride(from: first, through: last, by: Int(step))) }
    return [first]
  }

  /// Whether the vehicle reported `time`.
  ///
  /// - Complexity: O(1) for a regular span, O(log n) for an irregular one of n times.
  func contains(_ time: Int64) -> Bool {
    guard time >= first, time <= last else { return false }
    if step > 0 { return (time - first) % step == 0 }
    if offsets.isEmpty { return time == first }
    let offset = UInt32(time - first)
    var low = 0
    var high = offsets.count
    while low < high {
      let middle = (low + high) / 2
      if offsets[middle] < offset { low = middle + 1 } else { high = middle }
    }
    return low < offsets.count && offsets[low] == offset
  }

  /// Whether `time` may join the span without it lasting ``maxLength`` or more.
  func canExtend(to time: Int64) -> Bool {
    Swift.max(last, time) - Swift.min(first, time) < Self.maxLength
  }

  /// Adds a time after ``last`` (that ``canExtend(to:)``).
  ///
  /// - Complexity: O(1), except O(n) when a regular span of n times becomes irregular.
  mutating func append(_ time: Int64) {
    if step == 0, offsets.isEmpty {
      step = time - first
    } else if step > 0, time - last != step {
      offsets = times.map { UInt32(truncatingIfNeeded: $0 - first) }
      step = 0
    }
    if !offsets.isEmpty { offsets.append(UInt32(truncatingIfNeeded: time - first)) }
    last = time
  }
}

/// Why a stored ``LedgerSpan`` was refused.
package struct LedgerSpanError: Error, CustomStringConvertible, Sendable {
  /// What is inconsistent.
  package let description: String

  init(_ description: String) { self.description = description }
}
