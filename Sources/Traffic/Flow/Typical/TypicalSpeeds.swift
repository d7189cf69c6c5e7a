import Foundation

/// The typical weeks of a network's directed segments (see ``TypicalWeek``), in one local
/// time zone, with a revision per segment so that stores write only what changed.
///
/// A value type: the flow pipeline learns into its copy, and every published
/// ``FlowSnapshot`` reads the copy it was built with (copy-on-write: a snapshot costs
/// nothing until the pipeline next learns).
package struct TypicalSpeeds: Sendable {
  /// One segment's week and the revision of its last change.
  package struct Profile: Hashable, Sendable {
    package var week: TypicalWeek
    package var revision: UInt64
  }

  /// The weeks of the segments with samples, by segment id.
  package private(set) var profiles: [Int: Profile] = [:]
  /// Incremented by every change; a segment's `revision` is the value after its last one.
  package private(set) var revision: UInt64 = 0
  /// At least the fastest speed any bin holds (a bound for routing's A* heuristic: a bin's
  /// mean never exceeds the fastest sample it saw), m/s.
  package private(set) var fastest = 0.0
  /// The clock bins are counted in.
  package let clock: WeekClock
  /// Samples after which a bin's older samples fade (see ``TypicalWeek/add(speed:bin:memory:)``).
  package let memory: Int
  private var cache: WeekClockCache

  /// Empty profiles counted in `clock`.
  package init(clock: WeekClock, memory: Int) {
    self.clock = clock
    self.memory = max(memory, 1)
    cache = WeekClockCache(clock: clock)
  }

  /// Segments with a profile.
  package var count: Int { profiles.count }

  /// Bins with samples, over all segments.
  package var binCount: Int { profiles.values.reduce(0) { $0 + $1.week.count } }

  /// Learns one period's speed of a segment at a time.
  ///
  /// - Complexity: O(b) for the b bins of the segment (O(log b) when the bin exists).
  package mutating func add(segment: Int, speed: Double, at time: Date) {
    guard speed.isFinite, speed > 0 else { return }
    let bin = cache.bin(for: time)
    revision &+= 1
    let revision = self.revision
    let memory = self.memory
    let day = TypicalSpeeds.day(of: time)
    // Mutated in place through the default subscript: the week is not copied.
    profiles[segment, default: Profile(week: TypicalWeek(), revision: revision)].week.add(
      speed: speed, bin: bin, day: day, memory: memory)
    profiles[segment]?.revision = revision
    fastest = max(fastest, min(speed, TypicalWeek.maximumSpeed) + 0.05)
  }

  /// Replaces (or, with an empty week, removes) a segment's week, as an import or a restore
  /// does.
  package mutating func set(segment: Int, week: TypicalWeek) {
    revision &+= 1
    profiles[segment] = week.isEmpty ? nil : Profile(week: week, revision: revision)
    fastest = max(fastest, week.fastest)
  }

  /// Replaces every week (restoring a saved state); the revision keeps counting up, so a
  /// store's record of what it wrote stays valid.
  package mutating func replace(with weeks: [(Int, TypicalWeek)]) {
    profiles = [:]
    profiles.reserveCapacity(weeks.count)
    fastest = 0
    for (segment, week) in weeks where !week.isEmpty {
      profiles[segment] = Profile(week: week, revision: revision)
      fastest = max(fastest, week.fastest)
    }
  }

  /// Takes over the weeks of `other` (counted in the same zone), as changes.
  package mutating func adopt(_ other: TypicalSpeeds) {
    for (segment, profile) in other.profiles { set(segment: segment, week: profile.week) }
  }

  /// A segment's week, if it has one.
  package func week(_ segment: Int) -> TypicalWeek? { profiles[segment]?.week }

  /// A segment's typical speed at a bin as of the day `today` and the samples it rests on
  /// (see ``TypicalWeek/typical(atBin:today:enough:)``).
  package func typical(
    _ segment: Int, atBin bin: Int, today: Int
  ) -> (speed: Double, samples: Double)? {
    profiles[segment]?.week.typical(atBin: bin, today: today)
  }

  /// Days since 1970 (UTC) of a time.
  package static func day(of time: Date) -> Int {
    let days = (time.timeIntervalSince1970 / 86_400).rounded(.down)
    return days.isFinite && abs(days) < 1e12 ? Int(days) : 0
  }

  /// The confidence of a typical value resting on `samples`: 0.6...0.7 — HERE's historical
  /// band (0.5...0.7), above a learned free flow alone (0.6) once there is more than one.
  package static func confidence(samples: Double) -> Double {
    0.6 + 0.1 * min(1, max(samples, 0) / 8)
  }
}
