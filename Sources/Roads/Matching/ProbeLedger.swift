import Foundation

/// The times each vehicle has reported, so that a probe sent again — in a later batch, by
/// another process or another node — is told from a new one, in memory bounded by the spans
/// of time the vehicles drove rather than by their probes.
///
/// The rule (documented for users in docs/api.md, "Probes"):
/// - Times are compared to the millisecond.
/// - A vehicle's ingested probes form spans: probes at most
///   ``gapInMilliseconds`` apart (the matcher's `maxTimeGapInSeconds`) belong to one span.
/// - A span whose probes lie on a regular grid (every gap the same: 1 s or 5 s data) is kept
///   as its first time, last time and step; any other span keeps each time exactly (offsets
///   from its first, 4 bytes a probe).
/// - A probe at a time its vehicle already reported is a **duplicate**.
/// - A probe strictly inside one of its vehicle's spans at a time not reported is **out of
///   order**: it would add a second reading of a trip already counted (a 1 Hz recording after
///   a 5 s one of the same trip, a late probe between two the vehicle sent).
/// - Any other probe is **new**, later or earlier than the vehicle's latest probe (an earlier
///   trip, an older history file): it is recorded, extending or joining the spans it lies
///   within ``gapInMilliseconds`` of.
///
/// Spans whose last probe is older than a horizon are dropped by ``prune(before:)``.
package struct ProbeLedger: Sendable {
  /// What ``record(_:at:batch:)`` decided for a probe.
  package enum Verdict: Equatable, Sendable {
    /// A time not seen, outside the vehicle's spans: recorded. `firstOfBatch` is set for the
    /// vehicle's first new probe of the batch (for counting the batch's vehicles).
    case new(firstOfBatch: Bool)
    /// The vehicle already reported this time.
    case duplicate
    /// Inside a span of the vehicle, at a time it did not report.
    case inside
  }

  /// One vehicle's spans, ascending and disjoint, and the batch of its latest new probe.
  package struct Vehicle: Sendable {
    package var spans: [LedgerSpan] = []
    var batch: UInt64 = 0
  }

  /// The largest gap, milliseconds, between two probes of one span.
  package let gapInMilliseconds: Int64
  private(set) var vehicles: [String: Vehicle] = [:]

  /// An empty ledger joining probes at most `gapInSeconds` apart into one span.
  package init(gapInSeconds: Double) {
    gapInMilliseconds = Int64((gapInSeconds * 1000).rounded())
  }

  /// The number of vehicles with spans.
  package var vehicleCount: Int { vehicles.count }

  /// A time as milliseconds since 1970, as the ledger compares them.
  package static func milliseconds(_ time: Date) -> Int64 {
    let value = (time.timeIntervalSince1970 * 1000).rounded()
    // Probe times are checked by the decoders; the clamp only keeps a wild one from trapping.
    return Int64(max(-9e15, min(9e15, value.isFinite ? value : 0)))
  }

  /// Decides what a probe of `vehicleID` at `time` is and records it when it is new.
  ///
  /// - Parameters:
  ///   - vehicleID: The vehicle.
  ///   - time: The probe's time.
  ///   - batch: The number of the batch the probe is of (for ``Verdict/new(firstOfBatch:)``).
  /// - Complexity: O(1) for a probe later than the vehicle's spans on a regular grid or
  ///   extending them; O(log s) to find one of s spans; O(n) for the n times of spans joined.
  package mutating func record(_ vehicleID: String, at time: Date, batch: UInt64) -> Verdict {
    let ms = Self.milliseconds(time)
    let gap = gapInMilliseconds
    return Self.update(&vehicles[vehicleID, default: Vehicle()], ms, gap: gap, batch: batch)
  }

  private static func update(
    _ vehicle: inout Vehicle, _ ms: Int64, gap: Int64, batch: UInt64
  )
    -> Verdict
  {
    if let seen = place(ms, in: &vehicle.spans, gap: gap) { return seen }
    let first = vehicle.batch != batch
    vehicle.batch = batch
    return .new(firstOfBatch: first)
  }

  /// Records `ms` in `spans`, or answers why not.
  private static func place(_ ms: Int64, in spans: inout [LedgerSpan], gap: Int64) -> Verdict? {
    // The usual case: a probe after the vehicle's latest.
    if let last = spans.last, ms > last.last {
      if ms - last.last <= gap, last.canExtend(to: ms) {
        spans[spans.count - 1].append(ms)
      } else {
        spans.append(LedgerSpan(ms))
      }
    } else if spans.isEmpty {
      spans.append(LedgerSpan(ms))
    } else {
      // The first span starting after `ms`.
      var low = 0
      var high = spans.count
      while low < high {
        let middle = (low + high) / 2
        if spans[middle].first > ms { high = middle } else { low = middle + 1 }
      }
      let next = low
      if next > 0, ms <= spans[next - 1].last {
        return spans[next - 1].contains(ms) ? .duplicate : .inside
      }
      let joinsPrevious =
        next > 0 && ms - spans[next - 1].last <= gap && spans[next - 1].canExtend(to: ms)
      let joinsNext =
        next < spans.count && spans[next].first - ms <= gap && spans[next].canExtend(to: ms)
      switch (joinsPrevious, joinsNext) {
      case (true, true) where spans[next].last - spans[next - 1].first < LedgerSpan.maxLength:
        let times = spans[next - 1].times + [ms] + spans[next].times
        spans.replaceSubrange((next - 1)...next, with: [LedgerSpan(times: times)])
      case (true, _):
        spans[next - 1].append(ms)
      case (false, true):
        spans[next] = LedgerSpan(times: [ms] + spans[next].times)
      case (false, false):
        spans.insert(LedgerSpan(ms), at: next)
      }
    }
    return nil
  }

  /// Drops the spans whose last probe is before `cutoff`, and the vehicles left without any.
  ///
  /// - Complexity: O(v + s) for v vehicles and s spans.
  package mutating func prune(before cutoff: Date) {
    let ms = Self.milliseconds(cutoff)
    var emptied: [String] = []
    for key in vehicles.keys {
      guard let first = vehicles[key]?.spans.first, first.last < ms else { continue }
      vehicles[key]?.spans.removeAll { $0.last < ms }
      if vehicles[key]?.spans.isEmpty ?? false { emptied.append(key) }
    }
    for key in emptied { vehicles[key] = nil }
  }

  /// Every vehicle's spans, in no particular order.
  package var entries: [(vehicleID: String, spans: [LedgerSpan])] {
    vehicles.map { ($0.key, $0.value.spans) }
  }

  /// Replaces a vehicle's spans (restoring a saved ledger); none forgets the vehicle.
  ///
  /// - Parameter spans: Ascending, disjoint spans (as ``entries`` gives them).
  package mutating func set(_ vehicleID: String, spans: [LedgerSpan]) {
    vehicles[vehicleID] = spans.isEmpty ? nil : Vehicle(spans: spans)
  }

  /// Forgets every vehicle.
  package mutating func removeAll() { vehicles.removeAll() }
}
