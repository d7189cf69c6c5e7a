import Foundation
import TrafficTestSupport

/// What one today at one probe rate gave.
struct AccuracyOutcome {
  /// Edge-intervals judged, and how many of each estimate were within 15 % of SUMO.
  struct FlowCounts {
    var judged = 0
    var ours = 0
    var raw = 0
    var typical = 0
    /// The fleet's exact mean speeds where it drove (else the typical week).
    var sampled = 0
    /// An oracle's pick between the two sources: the typical week or the fleet's exact mean,
    /// whichever is within 15 % (knowing SUMO's speed). What a reader of the same evidence
    /// that always knew which source to trust would reach.
    var either = 0
    /// By our confidence band (0: ≤ 0.7, 1: 0.7–0.8, 2: 0.8–0.9, 3: 0.9–1): judged, within.
    var bands = Array(repeating: (judged: 0, within: 0), count: 4)

    mutating func add(ours: Bool, raw: Bool, typical: Bool, sampled: Bool, confidence: Double) {
      judged += 1
      if sampled { self.sampled += 1 }
      if sampled || typical { either += 1 }
      if ours { self.ours += 1 }
      if raw { self.raw += 1 }
      if typical { self.typical += 1 }
      let band = confidence <= 0.7 ? 0 : confidence <= 0.8 ? 1 : confidence <= 0.9 ? 2 : 3
      bands[band].judged += 1
      if ours { bands[band].within += 1 }
    }

    static func share(_ count: Int, _ total: Int) -> Double {
      total == 0 ? .nan : Double(count) / Double(total)
    }
  }

  /// Relative errors of one trip's estimates.
  struct TripErrors {
    var ours: Double
    /// Ours, signed (positive: we said longer).
    var signed: Double
    /// Our picture at departure on the trip's own route.
    var onOwnRoute: Double
    var free: Double
    var clairvoyant: Double
    var lastRuns: Double
    /// Ours against our own route as SUMO's vehicles drove its edges around the times we
    /// would have (`nan` where an edge of it had no run): the estimate without the
    /// difference of routes.
    var onOurRoute: Double
    /// Our route as driven against SUMO's time on the trip's route, signed (negative: our
    /// route was faster as driven).
    var routeGain: Double
  }

  var flow = FlowCounts()
  var trips: [TripErrors] = []
  var unrouted = 0
  /// The routed trips to drive on our routes, and what their drives gave.
  var plans: [TestDrives.Plan] = []
  var testDrives = TestDrives.Outcome()

  /// Trips whose free-flow time is off by more than 40 %.
  var congested: [TripErrors] { trips.filter { $0.free > 0.4 } }

  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
  }

  static func percent(_ value: Double) -> String {
    value.isNaN ? "–" : String(format: "%.1f", value * 100)
  }

  /// The standard error of the median of `values`: the spread of the medians of 400
  /// resamples drawn with replacement (a fixed seed, so runs repeat), `nan` below 3 values.
  static func medianStandardError(_ values: [Double]) -> Double {
    guard values.count >= 3 else { return .nan }
    var generator = SeededGenerator(seed: 52)
    var medians: [Double] = []
    for _ in 0..<400 {
      medians.append(
        median(
          values.indices.map { _ in values[Int.random(in: 0..<values.count, using: &generator)] }))
    }
    let mean = medians.reduce(0, +) / Double(medians.count)
    return (medians.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(medians.count - 1))
      .squareRoot()
  }

  /// A median error in bold with its standard error: "**12.3 %** ± 1.4".
  static func boldMedian(_ values: [Double]) -> String {
    let error = medianStandardError(values)
    return "**\(percent(median(values))) %**" + (error.isNaN ? "" : " ± \(percent(error))")
  }

  var line: String {
    let f = flow
    let c = congested
    return "flow within 15 %: ours \(Self.percent(FlowCounts.share(f.ours, f.judged))) %, raw "
      + "\(Self.percent(FlowCounts.share(f.raw, f.judged))) %, typical "
      + "\(Self.percent(FlowCounts.share(f.typical, f.judged))) %, fleet's exact "
      + "\(Self.percent(FlowCounts.share(f.sampled, f.judged))) %, either (oracle) "
      + "\(Self.percent(FlowCounts.share(f.either, f.judged))) % of \(f.judged); ETA all "
      + "\(Self.percent(Self.median(trips.map(\.ours)))) % (free "
      + "\(Self.percent(Self.median(trips.map(\.free)))) %) of \(trips.count); congested "
      + "\(Self.percent(Self.median(c.map(\.ours)))) % (free \(Self.percent(Self.median(c.map(\.free)))) %, "
      + "clairvoyant \(Self.percent(Self.median(c.map(\.clairvoyant)))) %, probes' last runs "
      + "\(Self.percent(Self.median(c.map(\.lastRuns)))) %, signed "
      + "\(Self.percent(Self.median(c.map(\.signed)))) %, ours on own route "
      + "\(Self.percent(Self.median(c.map(\.onOwnRoute).filter { !$0.isNaN }))) %, ours against "
      + "our route as driven \(Self.percent(Self.median(c.map(\.onOurRoute).filter { !$0.isNaN }))) % "
      + "of \(c.filter { !$0.onOurRoute.isNaN }.count), our route as driven against theirs "
      + "\(Self.percent(Self.median(c.map(\.routeGain).filter { !$0.isNaN }))) %) of \(c.count); bands "
      + f.bands.map { "\(Self.percent(FlowCounts.share($0.within, $0.judged)))/\($0.judged)" }
      .joined(separator: " ")
  }
}

/// The harness's table.
struct AccuracyReport {
  struct Row {
    var network: String
    var kind: String
    var today: String
    /// The probe share, and whether the loops' feed was read too.
    var probes: String
    var outcome: AccuracyOutcome
  }

  var rows: [Row] = []
  var seconds = 0.0

  /// One Markdown table: a row per network, today and probe rate.
  var markdown: String {
    var lines = [
      "| network | today | probes | flow within 15 %: ours | raw window | typical week | the fleet's exact means | either, an oracle's pick | edge-intervals | ETA median error, all trips: ours | free flow | congested trips: ours | free flow | clairvoyant | probes' last runs | congested trips | test drives, all: ours | free flow | congested test drives: ours | free flow | clairvoyant | probes' last runs | congested drives | drives' total time against the trips' own | flow within 15 % by confidence ≤0.7 / 0.7–0.8 / 0.8–0.9 / >0.9 |",
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    let p = AccuracyOutcome.percent
    let m = AccuracyOutcome.median
    for row in rows {
      let f = row.outcome.flow
      let trips = row.outcome.trips
      let c = row.outcome.congested
      let share = AccuracyOutcome.FlowCounts.share
      let bands = f.bands.map { band in
        band.judged == 0 ? "–" : "\(p(share(band.within, band.judged))) (\(band.judged))"
      }.joined(separator: " / ")
      lines.append(
        "| \(row.network) | \(row.today) | \(row.probes) | **\(p(share(f.ours, f.judged))) %** | "
          + "\(p(share(f.raw, f.judged))) % | \(p(share(f.typical, f.judged))) % | "
          + "\(p(share(f.sampled, f.judged))) % | \(p(share(f.either, f.judged))) % | \(f.judged) | "
          + "\(p(m(trips.map(\.ours)))) % | \(p(m(trips.map(\.free)))) % | "
          + "\(AccuracyOutcome.boldMedian(c.map(\.ours))) | \(p(m(c.map(\.free)))) % | "
          + "\(p(m(c.map(\.clairvoyant)))) % | \(p(m(c.map(\.lastRuns)))) % | \(c.count) of "
          + "\(trips.count) | "
          + row.outcome.testDrives.cells.map { $0 + " | " }.joined() + "\(bands) |")
    }
    lines.append("")
    lines.append(
      "Published whole-trip ETA references (mean absolute percentage errors of real trips, not "
        + "these scenarios): SIGSPATIAL GISCUP 2021 (DiDi, Shenzhen) best 11.97 %; Woodard et al. "
        + "2017 (100,000+ phone GPS trips) 10.1 %; a free-flow router against measured times at "
        + "3 am 21 %.")
    return lines.joined(separator: "\n") + "\n"
  }
}
