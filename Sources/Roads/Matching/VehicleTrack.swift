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
  /// The vehicle already reported this time (the same probe sent again), in this batch or
  /// an earlier one (see ``ProbeLedger``).
  case duplicate
  /// The probe lies inside a span of time its vehicle already reported, at a time it did not
  /// report (see ``ProbeLedger``): it cannot be placed on a trace already matched.
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
    /// The sums of the latitude and longitude differences from this column's probe of the
    /// probes skipped as stationary while this was the last column (longitudes wrapped to
    /// ±180°), and their number.
    var skipped = (latitude: 0.0, longitude: 0.0, count: 0)

    /// The mean of the probe and the probes skipped after it, when any was skipped.
    var standingMean: GeoCoordinates? {
      guard skipped.count > 0 else { return nil }
      let n = Double(skipped.count + 1)
      var longitude = probe.coordinates.longitude + skipped.longitude / n
      if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
      return GeoCoordinates(
        uncheckedLatitude: probe.coordinates.latitude + skipped.latitude / n,
        longitude: longitude, altitude: nil)
    }
  }

  var columns: [Column] = []
  /// The time of the vehicle's latest probe, kept or not.
  var lastSeen: Date?

  /// Adds a probe, appending any positions decided by it to `output`.
  @discardableResult
  mutating func add(
    _ probe: ProbePoint, vehicleID: String, matcher: MapMatcher, scratch: inout RouteScratch,
    into output: inout [MatchedPoint]
  ) -> ProbeMatchOutcome {
    let options = matcher.options
    if let lastSeen {
      // The stream's ledger sends repeats and earlier probes elsewhere; this only guards.
      guard probe.time > lastSeen else { return probe.time == lastSeen ? .duplicate : .outOfOrder }
      if probe.time.timeIntervalSince(lastSeen) > options.maxTimeGapInSeconds {
        flush(
          vehicleID: vehicleID, network: matcher.network, sigma: options.gpsSigmaInMeters,
          into: &output)
      }
    }
    lastSeen = probe.time
    if let previous = columns.last?.probe {
      let moved = previous.coordinates.fastDistance(to: probe.coordinates)
      // A stopped vehicle's positions are GPS noise around one place: they tell nothing
      // and could only pull the match off the road. Once it has stood a while, that place
      // is known better from the mean of its positions than from the first one: measured
      // from the mean, a single noisy position rarely reads as moving off.
      let place = columns[columns.count - 1].standingMean.map {
        $0.fastDistance(to: probe.coordinates)
      }
      let stopped =
        (probe.speedInMetersPerSecond ?? .infinity) < options.stationarySpeedInMetersPerSecond
        && (place ?? moved) < 4 * options.gpsSigmaInMeters
      if moved < options.minimumSpacingInMeters || stopped {
        columns[columns.count - 1].standingUntil = probe.time
        var east = probe.coordinates.longitude - previous.coordinates.longitude
        if east > 180 { east -= 360 } else if east < -180 { east += 360 }
        columns[columns.count - 1].skipped.latitude +=
          probe.coordinates.latitude - previous.coordinates.latitude
        columns[columns.count - 1].skipped.longitude += east
        columns[columns.count - 1].skipped.count += 1
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
      if columns.count > options.decisionLag {
        commitOldest(vehicleID: vehicleID, matcher: matcher, into: &output)
      }
    } else {
      // A first probe, or no route joins the previous candidates to these: a new trace.
      flush(
        vehicleID: vehicleID, network: matcher.network, sigma: options.gpsSigmaInMeters,
        into: &output)
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
  mutating func commitOldest(
    vehicleID: String, matcher: MapMatcher, into output: inout [MatchedPoint]
  ) {
    guard let last = columns.last, let best = VehicleTrack.argmax(last.scores) else { return }
    var state = best
    for c in stride(from: columns.count - 1, to: 0, by: -1) { state = columns[c].parents[state] }
    output.append(
      VehicleTrack.point(
        columns[0], state, vehicleID: vehicleID, network: matcher.network,
        sigma: matcher.options.gpsSigmaInMeters))
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
  mutating func flush(
    vehicleID: String, network: RoadNetwork, sigma: Double, into output: inout [MatchedPoint]
  ) {
    output += undecided(vehicleID: vehicleID, network: network, sigma: sigma)
    columns.removeAll()
  }

  /// The undecided columns' positions along the currently most likely sequence, oldest
  /// first: what ``flush(vehicleID:network:sigma:into:)`` would decide now, without deciding
  /// it.
  func undecided(vehicleID: String, network: RoadNetwork, sigma: Double) -> [MatchedPoint] {
    guard let last = columns.last, var state = VehicleTrack.argmax(last.scores) else { return [] }
    var states = [Int](repeating: 0, count: columns.count)
    for c in stride(from: columns.count - 1, through: 0, by: -1) {
      states[c] = state
      state = columns[c].parents[state]
    }
    return columns.indices.map {
      VehicleTrack.point(
        columns[$0], states[$0], vehicleID: vehicleID, network: network, sigma: sigma)
    }
  }

  /// Where the vehicle stands now, when it has stood still since its last kept probe: the
  /// standing position of the currently most likely candidate of the last column (not yet
  /// decided), and since when and until when it stood there.
  func standing(
    network: RoadNetwork, sigma: Double
  ) -> (position: RoadPosition, since: Date, until: Date)? {
    guard let last = columns.last, let until = last.standingUntil,
      let best = VehicleTrack.argmax(last.scores),
      let position = VehicleTrack.standingPosition(
        last, best, network: network, sigma: sigma)
    else { return nil }
    return (position, last.probe.time, until)
  }

  /// Where the vehicle of a column stood while its probes were skipped as stationary: the
  /// mean of the column's probe and the skipped ones (GPS noise shrinks with their number)
  /// projected onto the candidate's segment. Queues stand before junctions: when that mean
  /// lies within its noise (2 σ / √n) of the start of the segment entered last, the vehicle
  /// stands at the end of the segment before it. `nil` when no probe was skipped.
  static func standingPosition(
    _ column: Column, _ state: Int, network: RoadNetwork, sigma: Double
  ) -> RoadPosition? {
    guard let mean = column.standingMean else { return nil }
    let candidate = column.candidates[state]
    let n = Double(column.skipped.count + 1)
    let segment = network.segments[candidate.segmentID]
    let along = segment.geometry.closestPoint(to: mean).distanceAlongInMeters
    let path = column.parents[state] < 0 ? [] : column.paths[state]
    let noise = 2 * (column.probe.accuracyInMeters ?? sigma) / n.squareRoot()
    if along < noise, path.count >= 2 {
      let before = path[path.count - 2]
      return RoadPosition(
        segmentID: before, offsetInMeters: network.segments[before].lengthInMeters)
    }
    return RoadPosition(segmentID: candidate.segmentID, offsetInMeters: along)
  }

  static func argmax(_ scores: [Double]) -> Int? {
    var best: Int?
    for j in scores.indices where scores[j] > -.infinity {
      if best.map({ scores[j] > scores[$0] }) ?? true { best = j }
    }
    return best
  }

  static func point(
    _ column: Column, _ state: Int, vehicleID: String, network: RoadNetwork, sigma: Double
  ) -> MatchedPoint {
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
      standingUntil: column.standingUntil,
      standingPosition: standingPosition(column, state, network: network, sigma: sigma))
  }
}
