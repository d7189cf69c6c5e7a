import Codec
import Foundation
import Roads

/// Travel speeds per directed segment over a sliding window, from consecutive matched
/// probes, and the per-segment history that free flow is learned from.
///
/// Each pair of consecutive matched points of a vehicle contributes, to every segment on
/// the route between them, the meters driven on it and the time spent there (the pair's
/// time shared in proportion to each piece's travel time at the speed limit; time the
/// vehicle stood still at a point counts on that point's segment at 0 m). A segment's speed
/// is then Σ meters / Σ seconds over the window: the distance-weighted harmonic mean of the
/// vehicles' speeds, i.e. the space-mean speed that loop detectors and SUMO's edge data
/// report. Summing before dividing also cancels most of the GPS noise of single positions,
/// whose errors telescope along a vehicle's trace.
///
/// Estimates reach up to every vehicle's latest probe: the positions map matching has not
/// decided yet count provisionally (``setPending(_:)``), so that a read at any moment sees
/// the last seconds of traffic and a queue with the drive of its vehicles up to it.
///
/// Outliers: a pair implying more than ``FlowConfiguration/maxPlausibleSpeedInMetersPerSecond``
/// is dropped (a matching error); per segment, a vehicle faster than
/// ``FlowConfiguration/outlierFactor`` × max(speed limit, the segment's 95th percentile of
/// history) is left out.
struct SpeedAggregator: Sendable {
  struct Contribution: Sendable {
    var time: Date
    var vehicleID: String
    var meters: Double
    var seconds: Double
  }

  struct SegmentState: Sendable {
    var contributions: [Contribution] = []
    /// Meters and seconds of the history buckets still open, by bucket index.
    var openBuckets: [Int: (meters: Double, seconds: Double)] = [:]
    /// The newest bucket moved into the history; later data for it is not history.
    var lastClosedBucket = Int.min
    /// Speeds of past buckets, oldest first, at most ``FlowConfiguration/historyCapacity``.
    var history: [Double] = []
    var learnedFreeFlow: Double?
    var percentile95: Double?
    /// Seconds stood still (0 m contributions) among `contributions`.
    var standingSeconds = 0.0
    /// Vehicles found parked while the traffic passed, and when they stood (see
    /// `judgeParked`); their standing there stays out of the history.
    var parkedStands: [String: (from: Date, to: Date)] = [:]
  }

  /// A segment's speed over the window.
  struct Estimate: Hashable, Sendable {
    var speedInMetersPerSecond: Double
    var vehicles: Int
    /// Speeds over the older and the newer half of the window, when both have data.
    var olderSpeed: Double?
    var newerSpeed: Double?
    /// The sample variance of the counted vehicles' log speeds (each vehicle's meters over
    /// its seconds), with two or more.
    var logSpeedVariance: Double? = nil
  }

  let network: RoadNetwork
  var configuration: FlowConfiguration
  /// Set through ``restore(segments:latestTime:)`` (by `FlowState+Persistence.swift`).
  private(set) var segments: [Int: SegmentState] = [:]
  /// When each segment's state next has contributions to drop or a bucket to close
  /// (seconds since 1970), so that ``prune(now:)`` visits only those states instead of all
  /// of them (at region size, hundreds of thousands, on every probe batch and every
  /// rebuild of the flow view). `scheduled` holds each segment's earliest live entry;
  /// other heap entries for it are stale and skipped.
  private var due = Heap<CostedItem>()
  private var scheduled: [Int: Double] = [:]
  /// A vehicle's last matched point: where, when, and its reported speed.
  typealias Anchor = (position: RoadPosition, time: Date, speed: Double?)
  private var lastPoints: [String: Anchor] = [:]
  /// The latest time of any contribution (settable for restoring).
  var latestTime: Date?
  /// The typical weeks, learned from every closed bucket (of any age) and from feed
  /// observations (see `FlowPipeline`).
  var typical: TypicalSpeeds

  /// Replaces the segment states (restoring a saved flow state).
  mutating func restore(segments: [Int: SegmentState], latestTime: Date?) {
    self.segments = segments
    self.latestTime = latestTime
    due = Heap<CostedItem>()
    scheduled = [:]
    for (segment, state) in segments { schedule(segment, state, after: -.infinity) }
  }

  /// Schedules the next prune of a segment's state: when its oldest contribution leaves the
  /// window or its earliest open bucket is final, whichever comes first; never at or before
  /// `now` (so that one prune cannot loop on a state it just handled).
  private mutating func schedule(_ segment: Int, _ state: SegmentState, after now: Double) {
    schedule(segment, at: Self.dueTime(of: state, configuration), after: now)
  }

  /// When a state next has a contribution leaving the window or a bucket to close
  /// (infinity: never).
  private static func dueTime(
    of state: SegmentState, _ configuration: FlowConfiguration
  ) -> Double {
    var time = Double.infinity
    if let oldest = state.contributions.first {
      time = oldest.time.timeIntervalSince1970 + configuration.windowInSeconds
    }
    if let first = state.openBuckets.keys.min() {
      // Final once `bucketIndex(now - 120)` passes it (see `prune`).
      time = min(time, Double(first + 1) * configuration.historyBucketInSeconds + 120)
    }
    return time
  }

  private mutating func schedule(_ segment: Int, at dueTime: Double, after now: Double) {
    guard dueTime.isFinite else { return }
    let time = max(dueTime, now.nextUp)
    if let current = scheduled[segment], current <= time { return }
    scheduled[segment] = time
    due.insert(CostedItem(cost: time, item: segment))
  }

  init(network: RoadNetwork, configuration: FlowConfiguration, timeZone: TimeZone) {
    self.network = network
    self.configuration = configuration
    typical = TypicalSpeeds(
      clock: WeekClock(timeZone: timeZone), memory: configuration.typicalMemoryInSamples)
  }

  /// Adds a matched point: the travel from the vehicle's previous matched point.
  ///
  /// With `counting` off the point only becomes the vehicle's last one (a replayed batch
  /// whose travel the restored aggregates hold already).
  mutating func add(_ point: MatchedPoint, counting: Bool = true) {
    let previous = lastPoints[point.vehicleID]
    lastPoints[point.vehicleID] = (
      point.position, point.probe.time, point.probe.speedInMetersPerSecond
    )
    guard counting else { return }
    for (segment, contribution) in contributions(of: point, after: previous) {
      record(segment, contribution)
    }
  }

  /// What a matched point adds: the travel from the vehicle's previous matched point
  /// (`previous`), then the time the vehicle stood at the point.
  func contributions(
    of point: MatchedPoint, after previous: Anchor?
  ) -> [(segment: Int, contribution: Contribution)] {
    var output: [(segment: Int, contribution: Contribution)] = []
    travel(from: previous, to: point, into: &output)
    // Time the vehicle then stood here (stationary probes) counts at 0 m/s.
    if let until = point.standingUntil, until > point.probe.time {
      let segment = point.standingPosition?.segmentID ?? point.position.segmentID
      output.append(
        (
          segment,
          Contribution(
            time: until, vehicleID: point.vehicleID, meters: 0,
            seconds: until.timeIntervalSince(point.probe.time))
        ))
    }
    return output
  }

  /// The meters and seconds of the travel from `previous` to `point`, by segment.
  private func travel(
    from previous: Anchor?, to point: MatchedPoint,
    into output: inout [(segment: Int, contribution: Contribution)]
  ) {
    func add(_ segment: Int, _ time: Date, _ meters: Double, _ seconds: Double) {
      output.append(
        (
          segment,
          Contribution(time: time, vehicleID: point.vehicleID, meters: meters, seconds: seconds)
        ))
    }
    guard let previous, let route = point.routeDistanceFromPreviousInMeters,
      let first = point.pathFromPrevious.first, first == previous.position.segmentID
    else { return }
    // The standing part of the interval was recorded with the previous point.
    let seconds =
      point.probe.time.timeIntervalSince(previous.time) - max(0, point.secondsStoppedAtPrevious)
    guard seconds > 0, route / seconds <= configuration.maxPlausibleSpeedInMetersPerSecond
    else { return }
    var pieces: [(segment: Int, meters: Double)] = []
    let path = point.pathFromPrevious
    if path.count == 1 {
      pieces.append((first, max(0, route)))
    } else {
      for (k, segment) in path.enumerated() {
        let length = network.segments[segment].lengthInMeters
        if k > 0 {
          // The way across the junction between two segments that do not touch (a SUMO
          // network's edges end at the junction's border): driven, but on neither segment.
          let gap = network.junctionGap(from: path[k - 1], to: segment)
          if gap > 0 { pieces.append((-1 - segment, gap)) }
        }
        let meters: Double
        if k == 0 {
          meters = length - previous.position.offsetInMeters
        } else if k == path.count - 1 {
          meters = point.position.offsetInMeters
        } else {
          meters = length
        }
        pieces.append((segment, max(0, meters)))
      }
    }
    let total = pieces.reduce(0) { $0 + $1.meters }
    if total <= 0 {
      // Standing still: all the time was spent where the vehicle is.
      add(point.position.segmentID, point.probe.time, 0, seconds)
      return
    }
    // With the speeds the vehicle reported at both ends, the time is shared as a vehicle
    // whose speed changes evenly between them drives the pieces (scaled to the distance
    // driven): one braking for a junction spends its slow seconds on the short segment
    // before it, not on the long one it came from.
    if pieces.count > 1,
      let shares = Self.kinematicShares(
        pieces.map(\.meters), seconds: seconds, from: previous.speed,
        to: point.probe.speedInMetersPerSecond)
    {
      for (piece, share) in zip(pieces, shares) where piece.meters > 0 && piece.segment >= 0 {
        add(piece.segment, point.probe.time, piece.meters, share)
      }
      return
    }
    // Otherwise it is shared by free-flow travel time (meters / speed limit), so that a slow
    // ramp or street driven together with a fast road in one interval gets the larger share.
    // A junction's way (segment -1 - the segment after it) takes its share at the speed
    // limit of the segment after it, and counts on no segment.
    func weight(_ piece: (segment: Int, meters: Double)) -> Double {
      let segment = piece.segment >= 0 ? piece.segment : -1 - piece.segment
      return piece.meters / max(network.segments[segment].speedLimitInMetersPerSecond, 1)
    }
    let totalWeight = pieces.reduce(0) { $0 + weight($1) }
    for piece in pieces where piece.meters > 0 && piece.segment >= 0 {
      add(piece.segment, point.probe.time, piece.meters, seconds * weight(piece) / totalWeight)
    }
  }

  /// The seconds spent on each of consecutive stretches of `meters`, driven in `seconds`
  /// by a vehicle whose speed changes evenly from `start` to `end` (both scaled by the one
  /// factor that makes the distance come out right); `nil` without both speeds, or when
  /// they are too far from the distance driven (a factor outside 0.5...2) to say anything.
  static func kinematicShares(
    _ meters: [Double], seconds: Double, from start: Double?, to end: Double?
  ) -> [Double]? {
    guard let start, let end, start >= 0, end >= 0, seconds > 0 else { return nil }
    let distance = meters.reduce(0, +)
    let implied = (start + end) / 2 * seconds
    guard distance > 0, implied > 0 else { return nil }
    let scale = distance / implied
    guard scale >= 0.5, scale <= 2 else { return nil }
    let u0 = start * scale
    let a = (end - start) * scale / seconds
    func time(at d: Double) -> Double {
      let t: Double
      if abs(a) < 1e-9 {
        t = d / u0
      } else {
        t = (-u0 + max(0, u0 * u0 + 2 * a * d).squareRoot()) / a
      }
      return min(max(t, 0), seconds)
    }
    var shares: [Double] = []
    shares.reserveCapacity(meters.count)
    var covered = 0.0
    var before = 0.0
    for (k, piece) in meters.enumerated() {
      covered += piece
      let after = k == meters.count - 1 ? seconds : time(at: covered)
      shares.append(max(0, after - before))
      before = after
    }
    return shares
  }

  private mutating func record(_ segment: Int, _ contribution: Contribution) {
    // A bucket already closed opens again for late data: it then counts in the typical
    // week once more, but not in the history (see `closeBucket`).
    let bucket = bucketIndex(contribution.time)
    // Changed in place: taking the state out and putting it back moved the neighbours of
    // its slot in the table, and the table of a region's segments is large.
    let dueTime = Self.add(
      contribution, bucket: bucket, to: &segments[segment, default: SegmentState()],
      configuration)
    schedule(segment, at: dueTime, after: -.infinity)
    if latestTime.map({ contribution.time > $0 }) ?? true { latestTime = contribution.time }
  }

  /// Adds a contribution to a state; returns the state's next due time.
  private static func add(
    _ contribution: Contribution, bucket: Int, to state: inout SegmentState,
    _ configuration: FlowConfiguration
  ) -> Double {
    state.openBuckets[bucket, default: (0, 0)].meters += contribution.meters
    state.openBuckets[bucket, default: (0, 0)].seconds += contribution.seconds
    if contribution.meters == 0 { state.standingSeconds += contribution.seconds }
    state.contributions.append(contribution)
    return dueTime(of: state, configuration)
  }

  func bucketIndex(_ time: Date) -> Int {
    let value = (time.timeIntervalSince1970 / configuration.historyBucketInSeconds).rounded(.down)
    return value.isFinite && abs(value) < 1e15 ? Int(value) : 0
  }

  /// Adds a finished bucket's speed to the segment's typical week and, unless it came
  /// after a later bucket (late or historical data) or stood below the crawl speed, to the
  /// history; relearns free flow. A queue standing all day (a ramp locked up, a road shut
  /// by its traffic) says nothing of the segment's free flow: learned from it, the free flow
  /// of such a ramp was 0.03 m/s, and every jam factor and free-flow time there with it.
  private mutating func closeBucket(
    _ bucket: Int, of segment: Int, _ state: inout SegmentState
  ) {
    guard let sums = state.openBuckets.removeValue(forKey: bucket) else { return }
    let isNewest = bucket > state.lastClosedBucket
    state.lastClosedBucket = max(state.lastClosedBucket, bucket)
    guard sums.seconds > 0, sums.meters > 0 else { return }
    let length = configuration.historyBucketInSeconds
    typical.add(
      segment: segment, speed: sums.meters / sums.seconds,
      at: Date(timeIntervalSince1970: (Double(bucket) + 0.5) * length))
    guard isNewest, sums.meters / sums.seconds >= FlowSnapshot.crawlSpeedInMetersPerSecond
    else { return }
    state.history.append(sums.meters / sums.seconds)
    if state.history.count > configuration.historyCapacity {
      state.history.removeFirst(state.history.count - configuration.historyCapacity)
    }
    guard state.history.count >= configuration.minimumHistoryBuckets else { return }
    let sorted = state.history.sorted()
    state.learnedFreeFlow = SpeedAggregator.percentile(sorted, configuration.freeFlowPercentile)
    state.percentile95 = SpeedAggregator.percentile(sorted, 0.95)
  }

  /// The value at fraction `p` of sorted values (nearest rank).
  static func percentile(_ sorted: [Double], _ p: Double) -> Double? {
    guard !sorted.isEmpty else { return nil }
    let rank = Int((p * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
  }

  /// Drops contributions older than the window, closes finished history buckets and
  /// forgets vehicles idle for longer than the matcher's timeout.
  ///
  /// - Complexity: O(k log n) for the k segment states due (see `due`), not O(n).
  mutating func prune(now: Date) {
    let cutoff = now.addingTimeInterval(-configuration.windowInSeconds)
    // A bucket is final once map matching has decided its last probes (a minute or two).
    let finished = bucketIndex(now.addingTimeInterval(-120))
    let nowValue = now.timeIntervalSince1970
    while let time = due.first?.cost, time <= nowValue, let segment = due.popFirst()?.item {
      guard scheduled[segment] == time else { continue }
      scheduled[segment] = nil
      guard var state = segments.removeValue(forKey: segment) else { continue }
      if state.standingSeconds >= Self.standingSecondsToWeigh {
        judgeParked(segment, &state, now: now)
      }
      if let oldest = state.contributions.first, oldest.time <= cutoff {
        if !state.parkedStands.isEmpty { state.takeParkedOut(bucketIndex) { $0.time <= cutoff } }
        state.contributions.removeAll { $0.time <= cutoff }
        if state.standingSeconds > 0 || !state.parkedStands.isEmpty {
          state.recountStanding(after: cutoff)
        }
      }
      for bucket in state.openBuckets.keys.sorted() where bucket < finished {
        if !state.parkedStands.isEmpty {
          state.takeParkedOut(bucketIndex) { bucketIndex($0.time) == bucket }
        }
        closeBucket(bucket, of: segment, &state)
      }
      if !state.contributions.isEmpty || !state.history.isEmpty || !state.openBuckets.isEmpty {
        schedule(segment, state, after: nowValue)
        segments[segment] = state
      }
    }
    let idle = now.addingTimeInterval(-configuration.matching.vehicleTimeoutInSeconds)
    if lastPoints.values.contains(where: { $0.time < idle }) {
      lastPoints = lastPoints.filter { $0.value.time >= idle }
    }
  }

  /// The learned free flow of a segment, when it has enough history.
  func learnedFreeFlow(_ segment: Int) -> Double? { segments[segment]?.learnedFreeFlow }

  /// The contributions of the positions map matching has not decided yet, by segment (set
  /// before estimating, cleared after; they count in estimates but not in the history).
  var pending: [Int: [Contribution]] = [:]

  /// Sets ``pending`` from the matcher's undecided positions, each vehicle's continuing
  /// from its last decided one, so that estimates reach up to the latest probes: without
  /// them the last ``MapMatchingOptions/decisionLag`` probes of every vehicle would be
  /// missing, and of a vehicle that stopped in a queue the drive up to the queue (its
  /// positions stay undecided while it stands) while the standing counted.
  ///
  /// - Parameter points: the undecided positions, each vehicle's in time order.
  mutating func setPending(_ points: [MatchedPoint]) {
    pending = [:]
    var previous: [String: Anchor] = [:]
    for point in points {
      let before = previous[point.vehicleID] ?? lastPoints[point.vehicleID]
      previous[point.vehicleID] = (
        point.position, point.probe.time, point.probe.speedInMetersPerSecond
      )
      for (segment, contribution) in contributions(of: point, after: before) {
        pending[segment, default: []].append(contribution)
      }
    }
  }

  /// The segment's speed over the window ending at `now`, or `nil` without enough data.
  func estimate(_ segment: Int, now: Date) -> Estimate? {
    var state = segments[segment] ?? SegmentState()
    if let pending = pending[segment] { state.contributions += pending }
    guard !state.contributions.isEmpty else { return nil }
    let start = now.addingTimeInterval(-configuration.windowInSeconds)
    let middle = now.addingTimeInterval(-configuration.windowInSeconds / 2)
    let (byVehicle, standingSeconds) = Self.vehicleSums(state.contributions, from: start, to: now)
    let limit = network.segments[segment].speedLimitInMetersPerSecond
    let ceiling = min(
      configuration.outlierFactor * max(limit, state.percentile95 ?? 0),
      configuration.maxPlausibleSpeedInMetersPerSecond)
    // Only a segment where vehicles stood that long in all has one to weigh (most have none).
    let parked =
      standingSeconds < Self.standingSecondsToWeigh
      ? [:]
      : Self.overtakenWhileStanding(
        state.contributions, from: start, to: now, byVehicle: byVehicle, limit: limit,
        substantial: substantialMeters(segment))
    var kept: Set<String> = []
    var counted = 0
    var logSum = 0.0, logSquares = 0.0
    // A vehicle counts as a probe of the segment when it drove a good part of it or stood on
    // it; one seen only across a few meters at an end (GPS noise at a junction) still adds
    // its few meters and seconds but is not counted.
    let substantial = substantialMeters(segment)
    for (vehicle, sums) in byVehicle where sums.seconds > 0 {
      guard sums.meters / sums.seconds <= ceiling, parked[vehicle] == nil else { continue }
      kept.insert(vehicle)
      if sums.meters >= substantial || sums.seconds >= 10 {
        counted += 1
        let logSpeed = log(
          max(sums.meters / sums.seconds, FlowSnapshot.crawlSpeedInMetersPerSecond))
        logSum += logSpeed
        logSquares += logSpeed * logSpeed
      }
    }
    guard counted >= configuration.minimumVehicles else { return nil }
    var meters = 0.0, seconds = 0.0
    var older = (meters: 0.0, seconds: 0.0), newer = (meters: 0.0, seconds: 0.0)
    for c in state.contributions where c.time > start && c.time <= now && kept.contains(c.vehicleID)
    {
      meters += c.meters
      seconds += c.seconds
      if c.time <= middle {
        older.meters += c.meters
        older.seconds += c.seconds
      } else {
        newer.meters += c.meters
        newer.seconds += c.seconds
      }
    }
    guard seconds > 0 else { return nil }
    return Estimate(
      speedInMetersPerSecond: meters / seconds, vehicles: counted,
      olderSpeed: older.seconds > 0 ? older.meters / older.seconds : nil,
      newerSpeed: newer.seconds > 0 ? newer.meters / newer.seconds : nil,
      logSpeedVariance: counted >= 2
        ? max(0, (logSquares - logSum * logSum / Double(counted)) / Double(counted - 1)) : nil)
  }

  /// The segments holding contributions.
  var activeSegments: [Int] {
    segments.compactMap { $0.value.contributions.isEmpty ? nil : $0.key }
      + pending.keys
  }

  /// The segments holding a learned free flow.
  var learnedSegments: [(Int, Double)] {
    segments.compactMap { entry in entry.value.learnedFreeFlow.map { (entry.key, $0) } }
  }
}
