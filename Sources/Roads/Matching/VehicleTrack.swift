import Foundation
import Geo

/// What the matcher did with one probe.
public enum ProbeMatchOutcome: Hashable, Sendable {
  /// The probe joined its vehicle's trace; its position is decided a few probes later.
  case accepted
  /// The probe lay within ``MapMatchingOptions/minimumSpacingInMeters`` of the vehicle's
  /// last kept probe and was skipped (a stopped or crawling vehicle).
  case skippedStationary
  /// No segment lies within the search radius.
  case noCandidates
  /// The vehicle already reported this time (the same probe sent again).
  case duplicate
  /// The probe is earlier than the vehicle's latest probe.
  case outOfOrder
}

/// The Viterbi lattice of one vehicle's undecided probes (at most
/// ``MapMatchingOptions/decisionLag`` + 1 columns): the bounded, incremental part of HMM
/// map matching.
///
/// When the window is full, the oldest column is decided from the currently most likely
/// state (fixed-lag decision) and the candidates that do not descend from the decided state
/// are pruned, so that later decisions stay consistent with it.
struct VehicleTrack: Sendable {
  /// How far GPS noise typically moves a stopped vehicle across a junction, meters.
  static let junctionNoiseInMeters = 5.0

  struct Column: Sendable {
    var probe: ProbePoint
    var candidates: [MapMatcher.Candidate]
    /// Log-probability of the best sequence ending in each candidate.
    var scores: [Double]
    /// The candidate of the previous column on that sequence; -1 at a trace start.
    var parents: [Int]
    /// Segments driven from the parent candidate.
    var paths: [[Int]]
    /// Meters driven from the parent candidate.
    var routeDistances: [Double]
    /// The time of the latest probe skipped as stationary while this was the last column.
    var standingUntil: Date? = nil
    /// How long the vehicle stood at the previous column's probe, seconds.
    var standingBefore: Double = 0
  }

  var columns: [Column] = []
  /// The time of the vehicle's latest probe, kept or not.
  var lastSeen: Date?
  /// The times of the vehicle's latest probes (at most `recentTimesCapacity`, ascending),
  /// to tell a probe sent again from one that arrives out of order.
  var recentTimes: [Date] = []
  static let recentTimesCapacity = 256

  /// Adds a probe, appending any positions decided by it to `output`.
  @discardableResult
  mutating func add(
    _ probe: ProbePoint, vehicleID: String, matcher: MapMatcher, scratch: inout RouteScratch,
    into output: inout [MatchedPoint]
  ) -> ProbeMatchOutcome {
    let options = matcher.options
    if let lastSeen {
      guard probe.time > lastSeen else {
        return recentTimes.contains(probe.time) ? .duplicate : .outOfOrder
      }
      if probe.time.timeIntervalSince(lastSeen) > options.maxTimeGapInSeconds {
        flush(vehicleID: vehicleID, into: &output)
      }
    }
    lastSeen = probe.time
    if recentTimes.count == Self.recentTimesCapacity { recentTimes.removeFirst() }
    recentTimes.append(probe.time)
    if let previous = columns.last?.probe {
      let moved = previous.coordinates.fastDistance(to: probe.coordinates)
      // A stopped vehicle's positions are GPS noise around one place: they tell nothing
      // and could only pull the match off the road.
      let stopped =
        (probe.speedInMetersPerSecond ?? .infinity) < options.stationarySpeedInMetersPerSecond
        && moved < 4 * options.gpsSigmaInMeters
      if moved < options.minimumSpacingInMeters || stopped {
        columns[columns.count - 1].standingUntil = probe.time
        return .skippedStationary
      }
    }
    let candidates = matcher.candidates(for: probe)
    guard !candidates.isEmpty else { return .noCandidates }
    if let previous = columns.last,
      let next = VehicleTrack.step(
        from: previous, to: probe, candidates: candidates, matcher: matcher, scratch: &scratch)
    {
      columns.append(next)
      if columns.count > options.decisionLag { commitOldest(vehicleID: vehicleID, into: &output) }
    } else {
      // A first probe, or no route joins the previous candidates to these: a new trace.
      flush(vehicleID: vehicleID, into: &output)
      columns = [
        Column(
          probe: probe, candidates: candidates, scores: candidates.map(\.emission),
          parents: Array(repeating: -1, count: candidates.count),
          paths: Array(repeating: [], count: candidates.count),
          routeDistances: Array(repeating: 0, count: candidates.count))
      ]
    }
    return .accepted
  }

  /// One Viterbi step: the best predecessor of each new candidate; `nil` when no
  /// transition is possible (the trace breaks).
  static func step(
    from previous: Column, to probe: ProbePoint, candidates: [MapMatcher.Candidate],
    matcher: MapMatcher, scratch: inout RouteScratch
  ) -> Column? {
    let options = matcher.options
    let segments = matcher.network.segments
    let greatCircle = previous.probe.coordinates.fastDistance(to: probe.coordinates)
    let seconds = probe.time.timeIntervalSince(previous.probe.time)
    let slack = 2 * options.searchRadiusInMeters
    let limit = min(
      options.routeDistanceFactor * greatCircle + slack,
      options.maxSpeedInMetersPerSecond * seconds + slack)
    let beta = options.transitionBetaInMeters

    var scores = [Double](repeating: -.infinity, count: candidates.count)
    var parents = [Int](repeating: -1, count: candidates.count)
    var paths = [[Int]](repeating: [], count: candidates.count)
    var distances = [Double](repeating: 0, count: candidates.count)
    var targetSegments: [Int] = []
    for candidate in candidates where !targetSegments.contains(candidate.segmentID) {
      targetSegments.append(candidate.segmentID)
    }
    var sourceSegments: [Int] = []
    for (i, candidate) in previous.candidates.enumerated()
    where previous.scores[i] > -.infinity && !sourceSegments.contains(candidate.segmentID) {
      sourceSegments.append(candidate.segmentID)
    }
    for source in sourceSegments {
      let found = matcher.searchToStarts(
        from: source, targets: targetSegments, limit: limit, scratch: &scratch)
      let sourceLength = segments[source].lengthInMeters
      for (i, from) in previous.candidates.enumerated()
      where from.segmentID == source && previous.scores[i] > -.infinity {
        for (j, to) in candidates.enumerated() {
          // On the same segment, moving back means standing still (the GPS noise moved);
          // going round a loop is the other reading, and the closer to the great-circle
          // distance wins.
          var route = Double.infinity
          var viaSearch: (cost: Double, predecessor: Int)?
          if to.segmentID == source {
            route = max(0, to.offsetInMeters - from.offsetInMeters)
          }
          if to.segmentID != source || to.offsetInMeters < from.offsetInMeters,
            let slot = targetSegments.firstIndex(of: to.segmentID), let reached = found[slot]
          {
            let around = sourceLength - from.offsetInMeters + reached.cost + to.offsetInMeters
            if abs(greatCircle - around) < abs(greatCircle - route) {
              route = around
              viaSearch = reached
            }
          }
          guard route <= limit else { continue }
          let score =
            previous.scores[i] - abs(greatCircle - route) / beta + to.emission
          guard score > scores[j] else { continue }
          scores[j] = score
          parents[j] = i
          distances[j] = route
          if let viaSearch {
            paths[j] =
              matcher.path(from: source, to: viaSearch.predecessor, scratch: scratch)
              + [to.segmentID]
          } else {
            paths[j] = [source]
          }
        }
      }
      scratch.reset()
    }
    guard let best = scores.max(), best > -.infinity else { return nil }
    // Keep the numbers near 0 over long traces.
    for j in scores.indices where scores[j] > -.infinity { scores[j] -= best }
    return Column(
      probe: probe, candidates: candidates, scores: scores, parents: parents, paths: paths,
      routeDistances: distances,
      standingBefore: previous.standingUntil.map { $0.timeIntervalSince(previous.probe.time) } ?? 0)
  }

  /// Decides the oldest column from the currently most likely state and prunes the states
  /// that do not descend from it.
  mutating func commitOldest(vehicleID: String, into output: inout [MatchedPoint]) {
    guard let last = columns.last, let best = VehicleTrack.argmax(last.scores) else { return }
    var state = best
    for c in stride(from: columns.count - 1, to: 0, by: -1) { state = columns[c].parents[state] }
    output.append(VehicleTrack.point(columns[0], state, vehicleID: vehicleID))
    columns.removeFirst()
    for j in columns[0].scores.indices where columns[0].parents[j] != state {
      columns[0].scores[j] = -.infinity
    }
    for c in columns.indices.dropFirst() {
      for j in columns[c].scores.indices {
        let parent = columns[c].parents[j]
        if parent < 0 || columns[c - 1].scores[parent] == -.infinity {
          columns[c].scores[j] = -.infinity
        }
      }
    }
  }

  /// Decides every undecided column (end of a trace) and empties the window.
  mutating func flush(vehicleID: String, into output: inout [MatchedPoint]) {
    output += undecided(vehicleID: vehicleID)
    columns.removeAll()
  }

  /// The undecided columns' positions along the currently most likely sequence, oldest
  /// first: what ``flush(vehicleID:into:)`` would decide now, without deciding it.
  func undecided(vehicleID: String) -> [MatchedPoint] {
    guard let last = columns.last, var state = VehicleTrack.argmax(last.scores) else { return [] }
    var states = [Int](repeating: 0, count: columns.count)
    for c in stride(from: columns.count - 1, through: 0, by: -1) {
      states[c] = state
      state = columns[c].parents[state]
    }
    return columns.indices.map { VehicleTrack.point(columns[$0], states[$0], vehicleID: vehicleID) }
  }

  /// Where the vehicle stands now, when it has stood still since its last kept probe: the
  /// currently most likely candidate of the last column (not yet decided), and since when
  /// and until when it stood there.
  var standing: (position: RoadPosition, since: Date, until: Date)? {
    guard let last = columns.last, let until = last.standingUntil,
      let best = VehicleTrack.argmax(last.scores)
    else { return nil }
    let candidate = last.candidates[best]
    var position = RoadPosition(
      segmentID: candidate.segmentID, offsetInMeters: candidate.offsetInMeters)
    // Queues stand before junctions: a stop a few meters past the start of the segment
    // entered last is most likely GPS noise around the end of the segment before it.
    let path = last.paths[best]
    if candidate.offsetInMeters < 2 * VehicleTrack.junctionNoiseInMeters, path.count >= 2 {
      position = RoadPosition(segmentID: path[path.count - 2], offsetInMeters: 0)
    }
    return (position, last.probe.time, until)
  }

  static func argmax(_ scores: [Double]) -> Int? {
    var best: Int?
    for j in scores.indices where scores[j] > -.infinity {
      if best.map({ scores[j] > scores[$0] }) ?? true { best = j }
    }
    return best
  }

  static func point(_ column: Column, _ state: Int, vehicleID: String) -> MatchedPoint {
    let candidate = column.candidates[state]
    let isStart = column.parents[state] < 0
    return MatchedPoint(
      vehicleID: vehicleID, probe: column.probe,
      position: RoadPosition(
        segmentID: candidate.segmentID, offsetInMeters: candidate.offsetInMeters),
      coordinates: candidate.coordinates, distanceInMeters: candidate.distanceInMeters,
      pathFromPrevious: isStart ? [] : column.paths[state],
      routeDistanceFromPreviousInMeters: isStart ? nil : column.routeDistances[state],
      secondsStoppedAtPrevious: isStart ? 0 : column.standingBefore,
      standingUntil: column.standingUntil)
  }
}
