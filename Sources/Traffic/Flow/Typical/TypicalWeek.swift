/// One directed segment's typical week: the space-mean speed of each of the week's 2,016
/// five-minute bins (Monday 00:00 local time is bin 0), learned from the speeds of past
/// five-minute periods, with how many periods each bin has seen.
///
/// Each bin holds the harmonic mean of its samples' speeds (the mean of their paces,
/// seconds per meter), recency weighted: a new sample counts `1 / min(n + 1, memory)`, so a
/// bin averages its first `memory` samples equally and then follows an exponential moving
/// average that forgets old weeks (the engine's default memory is 8 samples, two months of
/// one sample a week).
///
/// A bin whose only sample is less than a day or two old is not typical yet: it is the
/// recent past, which live data answers for, and lookups pass it over (see
/// ``typical(atBin:today:enough:)``).
///
/// Storage: only the bins with samples, in ascending order, one `UInt32` each — bits 0–10
/// the bin, 11–14 the sample count (saturating at 15), 15–19 the day of the last sample
/// (days since 1970 modulo 32), 20–31 the speed in steps of 0.05 m/s (at most 204.75 m/s,
/// so the quantisation error is at most 0.025 m/s). A segment driven at every time of the
/// week holds 2,016 entries (8,064 bytes); one driven at a few hours holds a few dozen. Up
/// to two bins live inside the value itself, without an allocation: a region whose probes
/// touch most segments at a few moments a week holds hundreds of thousands of such weeks.
package struct TypicalWeek: Hashable, Sendable {
  /// Five-minute bins per day.
  package static let binsPerDay = 288
  /// Five-minute bins per week.
  package static let binCount = 2016
  /// The largest sample count a bin records.
  package static let maximumSamples = 15
  /// The largest speed a bin holds, m/s.
  package static let maximumSpeed = 204.75

  /// Up to two packed bins, ascending, while `spill` is empty.
  private var first: UInt32 = 0
  private var second: UInt32 = 0
  private var inlineCount: UInt8 = 0
  /// Every packed bin, ascending, once there are more than two (then the inline ones are
  /// unused): a week has one form for each content, so that `==` compares contents.
  private var spill: [UInt32] = []

  /// An empty week.
  package init() {}

  /// The packed bins, ascending by bin.
  package var entries: [UInt32] {
    if !spill.isEmpty { return spill }
    switch inlineCount {
    case 0: return []
    case 1: return [first]
    default: return [first, second]
    }
  }

  /// The packed bin at a position.
  @inline(__always) private func entry(_ index: Int) -> UInt32 {
    if !spill.isEmpty { return spill[index] }
    return index == 0 ? first : second
  }

  /// Replaces the packed bin at a position.
  @inline(__always) private mutating func setEntry(_ index: Int, _ value: UInt32) {
    if !spill.isEmpty {
      spill[index] = value
    } else if index == 0 {
      first = value
    } else {
      second = value
    }
  }

  /// Inserts a packed bin at a position.
  private mutating func insertEntry(_ value: UInt32, at index: Int) {
    if !spill.isEmpty {
      spill.insert(value, at: index)
      return
    }
    switch (inlineCount, index) {
    case (0, _): first = value
    case (1, 0): (first, second) = (value, first)
    case (1, _): second = value
    default:
      var all = [first, second]
      all.insert(value, at: index)
      spill = all
      (first, second, inlineCount) = (0, 0, 0)
      return
    }
    inlineCount += 1
  }

  /// A week from packed entries, checked.
  ///
  /// - Throws: `TypicalWeekError` when an entry names a bin outside the week, bins are not
  ///   ascending, or a bin has no samples or no speed.
  package init(entries: [UInt32]) throws(TypicalWeekError) {
    var previous = -1
    for entry in entries {
      let bin = TypicalWeek.bin(of: entry)
      guard bin < TypicalWeek.binCount, bin > previous else {
        throw TypicalWeekError(detail: "bin \(bin) is outside the week or out of order")
      }
      guard TypicalWeek.samples(of: entry) > 0, TypicalWeek.steps(of: entry) > 0 else {
        throw TypicalWeekError(detail: "bin \(bin) has no samples or no speed")
      }
      previous = bin
    }
    if entries.count > 2 {
      spill = entries
    } else {
      inlineCount = UInt8(entries.count)
      if let value = entries.first { first = value }
      if entries.count == 2 { second = entries[1] }
    }
  }

  /// Whether no bin has a sample.
  package var isEmpty: Bool { count == 0 }

  /// The bins with samples.
  package var count: Int { spill.isEmpty ? Int(inlineCount) : spill.count }

  /// The fastest speed of any bin, m/s (0 for an empty week).
  package var fastest: Double {
    var fastest = 0.0
    for index in 0..<count { fastest = max(fastest, TypicalWeek.speed(of: entry(index))) }
    return fastest
  }

  // MARK: Learning

  /// Adds one period's speed to a bin.
  ///
  /// - Parameters:
  ///   - speed: The period's space-mean speed, m/s (clamped to 0.05...204.75).
  ///   - bin: The week's bin, 0..<2016 (wrapped into the week otherwise).
  ///   - day: The period's day, days since 1970 (any day of the same residue modulo 32).
  ///   - memory: The sample count after which older samples fade (1...16).
  /// - Complexity: O(log b) to find the bin, O(b) to insert a new one, for b bins held.
  package mutating func add(speed: Double, bin: Int, day: Int, memory: Int) {
    guard speed.isFinite else { return }
    let bin = TypicalWeek.wrapped(bin)
    let speed = min(max(speed, 0.05), TypicalWeek.maximumSpeed)
    let index = position(of: bin)
    if index < count, TypicalWeek.bin(of: entry(index)) == bin {
      let old = entry(index)
      let samples = TypicalWeek.samples(of: old)
      let weight = 1 / Double(min(samples + 1, max(memory, 1)))
      let pace = 1 / TypicalWeek.speed(of: old)
      let updated = pace + (1 / speed - pace) * weight
      setEntry(
        index,
        TypicalWeek.pack(
          bin: bin, samples: min(samples + 1, TypicalWeek.maximumSamples), day: day,
          speed: 1 / updated))
    } else {
      insertEntry(TypicalWeek.pack(bin: bin, samples: 1, day: day, speed: speed), at: index)
    }
  }

  // MARK: Reading

  /// A bin's own speed, sample count and day of its last sample (modulo 32), `nil` when it
  /// has none.
  package func value(atBin bin: Int) -> (speed: Double, samples: Int, day: Int)? {
    let bin = TypicalWeek.wrapped(bin)
    let found: UInt32
    if spill.count == TypicalWeek.binCount {
      found = spill[bin]
    } else {
      let index = position(of: bin)
      guard index < count, TypicalWeek.bin(of: entry(index)) == bin else { return nil }
      found = entry(index)
    }
    return (
      TypicalWeek.speed(of: found), TypicalWeek.samples(of: found), TypicalWeek.day(of: found)
    )
  }

  /// Whether a bin's value is typical as of `today` (days since 1970): it has two samples
  /// or more, or its one sample is older than yesterday.
  @inline(__always) package static func isTypical(samples: Int, day: Int, today: Int) -> Bool {
    samples >= 2 || (today - day) & 31 > 1
  }

  /// The typical speed at a bin, borrowing when the bin has few samples of its own.
  ///
  /// Bins whose one sample is from `today` or yesterday (days since 1970) are passed over. A
  /// bin with at least `enough` samples (by default ``matureSamples``, 8: the engine's
  /// default memory, two months of one sample a week) answers alone. Otherwise its samples
  /// are pooled (as paces, weighted by samples × a weight) with the bins up to
  /// ``borrowingReach`` (an hour) either side on the same day (weight
  /// `1 / (1 + distance in bins)`), then, while that pool rests on fewer than `enough`
  /// samples, with the same time on the other days of its kind (Monday–Friday, or
  /// Saturday–Sunday; 0.25) and of the other kind (0.05). `samples` is the pooled weight, a
  /// measure of how much the answer rests on.
  ///
  /// A young week's bins are each a few periods of a few vehicles; the hour around them
  /// says more of the usual speed than they alone do (measured with `make accuracy`: flow
  /// within 15 % up 0.6–3.2 points on every network and probe rate, docs/performance.md).
  ///
  /// - Returns: `nil` when no bin within reach has a sample.
  /// - Complexity: O(log b) to find the bin and the first of its hour, then one step per bin
  ///   held within the hour, and O(log b) per other day looked at (at most 6).
  package func typical(
    atBin bin: Int, today: Int, enough: Int = TypicalWeek.matureSamples
  ) -> (speed: Double, samples: Double)? {
    let bin = TypicalWeek.wrapped(bin)
    guard !isEmpty else { return nil }
    if let own = value(atBin: bin), own.samples >= enough {
      return (own.speed, Double(own.samples))
    }
    var weight = 0.0, paces = 0.0
    @inline(__always) func pool(_ entry: UInt32, _ factor: Double) {
      let samples = TypicalWeek.samples(of: entry)
      guard
        TypicalWeek.isTypical(samples: samples, day: TypicalWeek.day(of: entry), today: today)
      else { return }
      let w = factor * Double(samples)
      weight += w
      paces += w / TypicalWeek.speed(of: entry)
    }
    let day = bin / TypicalWeek.binsPerDay
    let dayStart = day * TypicalWeek.binsPerDay
    // The bins held within the reach, on the same day, in one ascending walk.
    let low = max(dayStart, bin - TypicalWeek.borrowingReach)
    let high = min(dayStart + TypicalWeek.binsPerDay - 1, bin + TypicalWeek.borrowingReach)
    var index = position(of: low)
    while index < count {
      let entry = entry(index)
      let other = TypicalWeek.bin(of: entry)
      if other > high { break }
      pool(entry, 1 / Double(1 + abs(other - bin)))
      index += 1
    }
    if weight < Double(enough) {
      let weekend = day >= 5
      let slot = bin - dayStart
      for otherDay in 0..<7 where otherDay != day {
        let other = otherDay * TypicalWeek.binsPerDay + slot
        let index = position(of: other)
        guard index < count, TypicalWeek.bin(of: entry(index)) == other else { continue }
        pool(entry(index), (otherDay >= 5) == weekend ? 0.25 : 0.05)
      }
    }
    guard weight > 0 else { return nil }
    return (weight / paces, weight)
  }

  /// The samples from which a bin answers alone (lookups' default).
  package static let matureSamples = 8
  /// How far either side a bin with fewer samples borrows on its day, bins (an hour).
  package static let borrowingReach = 12

  // MARK: Packing

  /// The bin of a packed entry.
  @inline(__always) package static func bin(of entry: UInt32) -> Int { Int(entry & 0x7FF) }
  /// The sample count of a packed entry.
  @inline(__always) package static func samples(of entry: UInt32) -> Int {
    Int((entry >> 11) & 0xF)
  }
  /// The day of the last sample of a packed entry, days since 1970 modulo 32.
  @inline(__always) package static func day(of entry: UInt32) -> Int { Int((entry >> 15) & 0x1F) }
  /// The speed of a packed entry, in steps of 0.05 m/s.
  @inline(__always) static func steps(of entry: UInt32) -> Int { Int(entry >> 20) }
  /// The speed of a packed entry, m/s.
  @inline(__always) package static func speed(of entry: UInt32) -> Double {
    Double(entry >> 20) * 0.05
  }

  /// Packs a bin.
  package static func pack(bin: Int, samples: Int, day: Int, speed: Double) -> UInt32 {
    let steps = UInt32(min(max((speed * 20).rounded(), 1), 4_095))
    let count = UInt32(min(max(samples, 1), maximumSamples))
    return steps << 20 | UInt32(day & 31) << 15 | count << 11 | UInt32(wrapped(bin))
  }

  /// A bin index brought into the week.
  @inline(__always) static func wrapped(_ bin: Int) -> Int {
    let value = bin % binCount
    return value < 0 ? value + binCount : value
  }

  /// Where `bin` is or would be inserted.
  private func position(of bin: Int) -> Int {
    if spill.count == TypicalWeek.binCount { return bin }
    var low = 0, high = count
    while low < high {
      let middle = (low + high) / 2
      if TypicalWeek.bin(of: entry(middle)) < bin { low = middle + 1 } else { high = middle }
    }
    return low
  }
}

/// A typical week that cannot be read (a damaged store row or profile file).
package struct TypicalWeekError: Error, CustomStringConvertible, Sendable {
  package var detail: String
  package var description: String { "invalid typical week: \(detail)" }
}
