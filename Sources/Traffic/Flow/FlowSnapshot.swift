import Foundation
import Roads

/// The live values of flow at one moment: what every flow query reads. Immutable; the
/// engine builds the next one and swaps it in.
///
/// Values, per directed segment:
/// - `speedUncapped`: the window's space-mean speed from probes (see ``SpeedAggregator``),
///   blended with fresh feed observations, and fused with the segment's typical speed at the
///   snapshot's time when it has one (a Kalman update on log speed: see
///   `FlowPipeline.fuse`); without live evidence, the typical speed, else the free flow.
/// - `speed`: `speedUncapped` capped at the segment's speed limit.
/// - `freeFlow`: the 85th percentile of the segment's own history bucket speeds once it has
///   enough of them, else the speed limit.
/// - `jamFactor` (see ``FlowSnapshot/jamFactor(speed:freeFlow:)``): `10 × (1 − speed /
///   freeFlow)`, clamped to 0...9.9; exactly 10 only when the road is closed or blocked.
/// - `confidence`: with live evidence fused with a typical speed, `0.7 + 0.3 × gain` (the
///   share of the answer the evidence carries); live evidence alone `0.7 + 0.3 × min(1,
///   vehicles / 10)` (0.73...1); at least 0.8 with a fresh feed observation; without live data 0.6...0.7 from a typical speed (see
///   ``TypicalSpeeds/confidence(samples:)``), 0.6 when only free flow is learned (both
///   historical); 0.5 from the speed limit only.
/// - `jamTendency`: from the jam factors of the older and newer halves of the window.
package struct FlowSnapshot: Sendable {
  /// Live values of the segments with current probe or feed data.
  package struct Live: Hashable, Sendable {
    package var speedUncapped: Double
    package var confidence: Double
    package var tendency: JamTendency?
    package var blocked: Bool
  }

  package var live: [Int: Live] = [:]
  /// Learned free flows.
  package var freeFlow: [Int: Double] = [:]
  /// Segments closed by road-closure incidents.
  package var closed: Set<Int> = []
  /// Turns closed by incidents whose junctions are closed (`junctionsTraversability`): a
  /// closed junction of an incident's stretch cannot be used to enter or leave the
  /// stretch. Keyed by ``turnKey(from:to:)``; empty almost always.
  package var closedTurns: Set<UInt64> = []
  /// The part of ``closed`` that long-term closures close (closures of more than a day,
  /// which HERE's planning mode and `longTermClosuresOnly` routes still avoid; see
  /// `FlowPipeline.isLongTerm(_:at:)`).
  package var longTermClosed: Set<Int> = []
  /// The part of ``closedTurns`` that long-term closures close.
  package var longTermClosedTurns: Set<UInt64> = []

  /// The key of the turn from one segment into the next.
  @inline(__always) package static func turnKey(from: Int, to: Int) -> UInt64 {
    UInt64(UInt32(truncatingIfNeeded: from)) << 32 | UInt64(UInt32(truncatingIfNeeded: to))
  }
  /// The time of the newest data, HERE v7's `sourceUpdated`.
  package var sourceUpdated: Date?
  /// When the snapshot was built.
  package var builtAt: Date = .distantPast
  /// The incident snapshot the closures were computed from (its update time and count).
  package var incidentsKey: IncidentsKey?
  /// The typical weeks, when the snapshot was built by a flow pipeline.
  package var typical: TypicalSpeeds?
  /// The bin of the typical week at `builtAt` (or at the time asked for).
  package var typicalBin = 0
  /// The day (since 1970) the snapshot was built: a typical bin's lone sample of this day
  /// or the day before is not typical yet.
  package var typicalToday = 0

  package struct IncidentsKey: Hashable, Sendable {
    var updatedAt: Date?
    var count: Int
  }

  /// An empty snapshot: every segment at free flow.
  package init() {}

  /// HERE's jam factor from speed and free flow: `10 × (1 − speed / freeFlow)` clamped to
  /// 0...9.9 (10 is kept for blocked roads).
  package static func jamFactor(speed: Double, freeFlow: Double) -> Double {
    guard freeFlow > 0, speed.isFinite else { return 0 }
    let value = 10 * (1 - speed / freeFlow)
    return min(max(value, 0), 9.9)
  }

  /// The speed a road whose probes stood still for the whole window is driven at, m/s:
  /// a queue that has not moved yet, not a closure (routes and traffic along a route).
  package static let crawlSpeedInMetersPerSecond = 0.5

  /// The confidence of a real-time value from `vehicles` probe vehicles: 0.73...1.
  package static func realTimeConfidence(vehicles: Int) -> Double {
    0.7 + 0.3 * min(1, Double(max(vehicles, 1)) / 10)
  }

  /// The flow of one segment.
  package func flow(of segment: RoadSegment) -> TrafficFlow {
    let limit = segment.speedLimitInMetersPerSecond
    let learned = freeFlow[segment.id]
    let free = learned ?? limit
    var speedUncapped = free
    var confidence = learned == nil ? 0.5 : 0.6
    var tendency: JamTendency?
    var jam = 0.0
    var traversability = Traversability.open
    if live[segment.id] == nil,
      let typical = typical?.typical(segment.id, atBin: typicalBin, today: typicalToday)
    {
      speedUncapped = typical.speed
      confidence = TypicalSpeeds.confidence(samples: typical.samples)
      jam = FlowSnapshot.jamFactor(speed: speedUncapped, freeFlow: free)
    }
    if let live = live[segment.id] {
      speedUncapped = live.speedUncapped
      confidence = live.confidence
      tendency = live.tendency
      jam = FlowSnapshot.jamFactor(speed: speedUncapped, freeFlow: free)
      if live.blocked {
        jam = 10
        speedUncapped = 0
        traversability = .closed
      }
    }
    if closed.contains(segment.id) {
      jam = 10
      speedUncapped = 0
      traversability = .closed
      confidence = max(confidence, 0.8)
    }
    return TrafficFlow(
      location: segment.geometry, lengthInMeters: segment.lengthInMeters,
      roadName: segment.name ?? segment.ref, functionalClass: segment.functionalClass,
      speedInMetersPerSecond: min(speedUncapped, limit > 0 ? limit : speedUncapped),
      speedUncappedInMetersPerSecond: speedUncapped, freeFlowSpeedInMetersPerSecond: free,
      jamFactor: jam, confidence: confidence, traversability: traversability,
      jamTendency: tendency, segmentID: segment.id, sourceID: segment.sourceID)
  }
}
