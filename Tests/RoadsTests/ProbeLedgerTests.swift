import Foundation
import Testing
import TrafficTestSupport

@testable import Roads

/// The probe ledger against a brute-force oracle that keeps every time: a time seen is a
/// duplicate, a time within a run of times at most the gap apart is inside, anything else is
/// new.
@Suite struct ProbeLedgerTests {
  static let gap = 90.0

  /// The oracle: every time recorded, per vehicle, in milliseconds.
  struct Oracle {
    var times: [String: Set<Int64>] = [:]

    mutating func record(_ vehicle: String, _ ms: Int64) -> ProbeLedger.Verdict {
      let seen = times[vehicle, default: []]
      if seen.contains(ms) { return .duplicate }
      // Inside when some run of times at most the gap apart reaches over `ms`: the nearest
      // times before and after are at most the gap apart... through the run between them.
      let sorted = seen.sorted()
      let gap = Int64(ProbeLedgerTests.gap * 1000)
      var start = 0
      for k in sorted.indices {
        if k > 0, sorted[k] - sorted[k - 1] > gap { start = k }
        if sorted[start] < ms, sorted[k] > ms { return .inside }
      }
      times[vehicle, default: []].insert(ms)
      return .new(firstOfBatch: false)
    }
  }

  static func normalized(_ verdict: ProbeLedger.Verdict) -> ProbeLedger.Verdict {
    if case .new = verdict { return .new(firstOfBatch: false) }
    return verdict
  }

  @Test(
    "random times of a few vehicles (regular 1 s and 5 s grids, jitter, repeats, earlier trips) get the oracle's verdict",
    arguments: [1, 2, 3, 4, 5] as [UInt64])
  func randomAgainstOracle(seed: UInt64) {
    var generator = SeededGenerator(seed: seed)
    var ledger = ProbeLedger(gapInSeconds: Self.gap)
    var oracle = Oracle()
    let base: Int64 = 1_800_000_000_000
    var sent: [(String, Int64)] = []
    for round in 0..<60 {
      let vehicle = "v\(Int.random(in: 0..<3, using: &generator))"
      // A trip: a start anywhere in 3 hours, a cadence, a length; sometimes jitter.
      let start = base + Int64.random(in: 0..<10_800, using: &generator) * 1000
      let step = [1000, 5000, 60_000, 95_000].randomElement(using: &generator) ?? 5000
      let jitter = Bool.random(using: &generator)
      var times: [Int64] = []
      for k in 0..<Int.random(in: 1..<40, using: &generator) {
        times.append(
          start + Int64(k * step) + (jitter ? Int64.random(in: 0..<400, using: &generator) : 0))
      }
      // Sometimes a trip sent again, whole or in part.
      if round % 7 == 6, let again = sent.randomElement(using: &generator) {
        times += sent.filter { $0.0 == again.0 }.prefix(10).map(\.1)
      }
      for ms in times {
        let date = Date(timeIntervalSince1970: Double(ms) / 1000)
        let expected = oracle.record(vehicle, ms)
        let verdict = Self.normalized(ledger.record(vehicle, at: date, batch: 1))
        #expect(verdict == expected, "vehicle \(vehicle) at \(ms - base) ms, round \(round)")
        if verdict == expected, case .new = verdict { sent.append((vehicle, ms)) }
      }
    }
    // The spans hold exactly the times recorded, ascending and disjoint.
    for (vehicle, spans) in ledger.entries {
      #expect(spans.flatMap(\.times) == oracle.times[vehicle, default: []].sorted())
      #expect(zip(spans.dropFirst(), spans).allSatisfy { $0.first - $1.last > 90_000 })
    }
  }

  @Test(
    "5 s data is kept as a grid; 1 s data of the same trip is out of order except where it repeats a time"
  )
  func gridAndFinerRecording() {
    var ledger = ProbeLedger(gapInSeconds: Self.gap)
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    for k in 0..<120 {
      #expect(ledger.record("a", at: start + Double(k * 5), batch: 1) == .new(firstOfBatch: k == 0))
    }
    let span = try? #require(ledger.entries.first?.spans.first)
    #expect(span?.step == 5000 && span?.offsets.isEmpty == true && span?.count == 120)
    var verdicts: [ProbeLedger.Verdict] = []
    for second in 0..<20 {
      verdicts.append(ledger.record("a", at: start + Double(second), batch: 2))
    }
    #expect(verdicts.filter { $0 == .duplicate }.count == 4)
    #expect(verdicts.filter { $0 == .inside }.count == 16)
    // An earlier trip, an hour before: new, a span of its own.
    #expect(ledger.record("a", at: start - 3600, batch: 2) == .new(firstOfBatch: true))
    #expect(ledger.entries.first?.spans.count == 2)
    // Pruning forgets the spans that ended before the cutoff.
    ledger.prune(before: start - 60)
    #expect(ledger.entries.first?.spans.count == 1)
    ledger.prune(before: start + 3600)
    #expect(ledger.vehicleCount == 0)
  }

  @Test("a span read back is checked: times out of order or off the grid are refused")
  func storedSpansAreChecked() throws {
    #expect(throws: LedgerSpanError.self) {
      try LedgerSpan(first: 0, last: 7, step: 5, offsets: [])
    }
    #expect(throws: LedgerSpanError.self) {
      try LedgerSpan(first: 0, last: 7, step: 0, offsets: [0, 9, 7])
    }
    #expect(throws: LedgerSpanError.self) {
      try LedgerSpan(first: 5, last: 0, step: 0, offsets: [])
    }
    let span = try LedgerSpan(first: 0, last: 7, step: 0, offsets: [0, 2, 7])
    #expect(span.times == [0, 2, 7])
  }
}
