import Codec
import Foundation
import Roads
import Synchronization

/// The flow side of a `TrafficEngine`: the static index, the probe pipeline (matching and
/// aggregation) behind a mutex, and the published snapshot that queries read.
package final class FlowState: Sendable {
  /// Segment geometry, indexed once.
  package let index: FlowIndex
  /// Internal (not private) so that `FlowState+Persistence.swift` can save and restore it.
  let pipeline: Mutex<FlowPipeline>
  let published = Mutex(FlowSnapshot())
  /// When the state was last saved to the store (see `FlowState+Persistence.swift`).
  let lastPersisted = Mutex<Date?>(nil)
  /// Whether evidence was ingested since the last save began (what a periodic save of an
  /// idle server still owes the store).
  let hasUnsavedIngest = Mutex(false)
  /// Held while a batch is passed on or marked in a shared log and ingested, and while a
  /// state is taken with the store's place in that log: a saved state holds a batch exactly
  /// when its place says so. Never held around a save's write or another lock's wait.
  let positionGate = Mutex(())
  /// The network's own time zone (`RoadNetwork.localTimeZone`), for configurations that
  /// name none.
  let networkTimeZone: TimeZone
  /// The closures of another time than now (`snapshot(at:now:incidents:)`), for the last
  /// minute asked, and the junction turns of its incidents.
  let laterClosures = Mutex<LaterClosures>(LaterClosures())

  struct LaterClosures {
    var last: (key: FlowSnapshot.IncidentsKey, minute: Int, closures: FlowPipeline.Closures)?
    var junctionTurns: [String: [UInt64]] = [:]
  }

  /// Creates the flow state of a network with the default configuration.
  package init(network: RoadNetwork) {
    // One set of matching tables for the index's matcher and the pipeline's.
    let graph = MatchingGraph(network: network)
    index = FlowIndex(network: network, graph: graph)
    networkTimeZone = network.localTimeZone
    pipeline = Mutex(
      FlowPipeline(
        network: network, configuration: FlowConfiguration(), graph: graph,
        timeZone: networkTimeZone))
  }

  /// The configuration in use.
  package var configuration: FlowConfiguration { pipeline.withLock { $0.configuration } }

  /// Replaces the configuration; probes and observations received so far are dropped, the
  /// typical weeks learned are kept (unless the time zone changes), and so is the probe
  /// ledger (which times each vehicle reported).
  package func configure(_ configuration: FlowConfiguration) throws(TrafficEngineError) {
    try configuration.validate()
    let network = index.network
    let graph = index.polylineMatcher.graph
    let zone = configuration.timeZone ?? networkTimeZone
    pipeline.withLock {
      let typical = $0.aggregator.typical
      // What was ingested stays ingested: a probe sent again is still a duplicate.
      let ledger = $0.stream.ledgerEntries
      $0 = FlowPipeline(
        network: network, configuration: configuration, graph: graph, timeZone: zone)
      if typical.clock.timeZone == zone { $0.aggregator.typical.adopt(typical) }
      $0.stream.restoreLedger(ledger)
    }
    published.withLock { $0 = FlowSnapshot() }
  }

  /// The snapshot to read at `now`: the published one, rebuilt first when it is older than
  /// the refresh interval or the incidents changed.
  package func snapshot(now: Date, incidents: IncidentIndex) -> FlowSnapshot {
    let current = published.withLock { $0 }
    let key = FlowSnapshot.IncidentsKey(updatedAt: incidents.updatedAt, count: incidents.count)
    let refresh = pipeline.withLock { $0.configuration.refreshIntervalInSeconds }
    if abs(now.timeIntervalSince(current.builtAt)) <= refresh, current.incidentsKey == key {
      return current
    }
    return rebuild(now: now, incidents: incidents) { snapshot in
      // Readers that waited for the pipeline while another one rebuilt take its snapshot.
      abs(now.timeIntervalSince(snapshot.builtAt)) <= refresh && snapshot.incidentsKey == key
    }
  }

  /// The picture at `time` as seen at `now`: the current snapshot when `time` lies within
  /// the live window of `now`; else the typical picture of that time — no live values,
  /// each segment at its typical speed for the weekday and time of day of `time`, and the
  /// road closures of the incidents active at `time`.
  ///
  /// - Complexity: O(1) beyond ``snapshot(now:incidents:)`` for a time within the window;
  ///   else O(c) for the c closure incidents.
  package func snapshot(at time: Date, now: Date, incidents: IncidentIndex) -> FlowSnapshot {
    var snapshot = self.snapshot(now: now, incidents: incidents)
    let configuration = self.configuration
    guard abs(time.timeIntervalSince(now)) > configuration.windowInSeconds else {
      return snapshot
    }
    snapshot.live = [:]
    snapshot.typicalBin = snapshot.typical?.clock.bin(for: time) ?? 0
    // The closures of that time, kept for the minute (routes and queries of one departure
    // ask again and again; a region holds a million incidents to scan).
    let key = FlowSnapshot.IncidentsKey(updatedAt: incidents.updatedAt, count: incidents.count)
    let minute = Int((time.timeIntervalSince1970 / 60).rounded(.down))
    let index = self.index
    let closures = laterClosures.withLock { later in
      if let cached = later.last, cached.key == key, cached.minute == minute {
        return cached.closures
      }
      let closures = FlowPipeline.closures(
        incidents: incidents, now: time, index: index,
        distance: configuration.closureMatchDistanceInMeters, junctionTurns: &later.junctionTurns)
      later.last = (key, minute, closures)
      return closures
    }
    closures.apply(to: &snapshot)
    snapshot.builtAt = time
    return snapshot
  }

  /// Builds and publishes the snapshot at `now`, unless the one published meanwhile is
  /// `current` enough (checked under the pipeline's lock, so concurrent readers after a batch
  /// build once).
  @discardableResult
  private func rebuild(
    now: Date, incidents: IncidentIndex,
    current: (FlowSnapshot) -> Bool = { _ in false }
  ) -> FlowSnapshot {
    let index = self.index
    return pipeline.withLock { pipeline in
      let latest = published.withLock { $0 }
      if current(latest) { return latest }
      let next = pipeline.snapshot(now: now, incidents: incidents, index: index)
      published.withLock { $0 = next }
      return next
    }
  }

  /// Matches and aggregates a batch of probes; the next read publishes new values (batches
  /// come far more often than reads in a busy feed, and a build reads every vehicle's
  /// undecided positions).
  ///
  /// With `counting` off the batch only rebuilds the vehicles' traces: the positions it
  /// decides become each vehicle's last point, and add nothing (a restored state holds
  /// what they added when the batch was first ingested).
  package func ingest(
    _ probes: [Probe], now: Date, counting: Bool = true, progress: ProgressReporter? = nil
  ) -> ProbeIngestReport {
    let report = pipeline.withLock {
      $0.ingest(probes, now: now, counting: counting, progress: progress)
    }
    invalidate()
    return report
  }

  /// Decides every vehicle's pending positions (the end of an import); the next read
  /// publishes new values.
  package func flush(now: Date, counting: Bool = true) -> Int {
    let decided = pipeline.withLock { $0.flush(now: now, counting: counting) }
    invalidate()
    return decided
  }

  /// Makes the next ``snapshot(now:incidents:)`` rebuild.
  private func invalidate() {
    published.withLock { $0.builtAt = .distantPast }
  }

  /// Matches feed observations to segments, then publishes new values.
  package func ingest(
    _ observations: [FlowObservation], now: Date, incidents: IncidentIndex
  ) -> Int {
    let index = self.index
    var matched: [(Int, FlowPipeline.Observed)] = []
    for observation in observations {
      for piece in index.pieces(along: observation.polyline) {
        let length = index.network.segments[piece.segmentID].lengthInMeters
        // A segment counts as observed when the observation covers most of it (or 30 m).
        guard piece.lengthInMeters >= min(30, 0.5 * length) else { continue }
        matched.append(
          (
            piece.segmentID,
            FlowPipeline.Observed(
              time: observation.time, speed: observation.speedInMetersPerSecond,
              jamFactor: observation.jamFactor, freeFlow: observation.freeFlowSpeedInMetersPerSecond
            )
          ))
      }
    }
    pipeline.withLock { pipeline in
      for (segment, observed) in matched {
        // The typical week learns each observation once: the same one again (a feed polled
        // twice, a document pushed again) teaches nothing new.
        if pipeline.typicalObservationTimes[segment] != observed.time {
          pipeline.typicalObservationTimes[segment] = observed.time
          let free =
            observed.freeFlow ?? index.network.segments[segment].speedLimitInMetersPerSecond
          let speed =
            observed.speed ?? observed.jamFactor.map { $0 < 10 ? free * (1 - $0 / 10) : 0 }
          if let speed, speed > 0 {
            pipeline.aggregator.typical.add(segment: segment, speed: speed, at: observed.time)
          }
        }
        if let existing = pipeline.observations[segment], existing.time > observed.time {
          continue
        }
        pipeline.observations[segment] = observed
      }
    }
    rebuild(now: now, incidents: incidents)
    return Set(matched.map(\.0)).count
  }
}

/// The mutable probe pipeline: streaming matcher, aggregator, feed observations, closures.
struct FlowPipeline: Sendable {
  struct Observed: Sendable {
    var time: Date
    var speed: Double?
    var jamFactor: Double?
    var freeFlow: Double?
  }

  let configuration: FlowConfiguration
  /// The vehicles' traces, matched on every core.
  var stream: ShardedStreamingMatcher
  var aggregator: SpeedAggregator
  var observations: [Int: Observed] = [:]
  /// The time of the last feed observation each segment's typical week learned.
  var typicalObservationTimes: [Int: Date] = [:]
  var closures: (key: FlowSnapshot.IncidentsKey, minute: Int, closures: FlowPipeline.Closures)?
  /// The turns each active incident with closed junctions closes, by version id.
  var junctionTurns: [String: [UInt64]] = [:]
  /// When the probe ledger was last pruned (`FlowPipeline+Ledger.swift`).
  var ledgerPrunedAt: Date?

  init(
    network: RoadNetwork, configuration: FlowConfiguration, graph: MatchingGraph,
    timeZone: TimeZone
  ) {
    self.configuration = configuration
    stream = ShardedStreamingMatcher(
      matcher: MapMatcher(
        graph: graph, network: network, validatedOptions: configuration.matching))
    aggregator = SpeedAggregator(
      network: network, configuration: configuration, timeZone: timeZone)
  }

  mutating func ingest(
    _ probes: [Probe], now: Date, counting: Bool = true, progress: ProgressReporter? = nil
  ) -> ProbeIngestReport {
    var report = ProbeIngestReport()
    // A batch read again only to rebuild traces is in the restored ledger already.
    stream.beginBatch(checksLedger: counting)
    // Per vehicle the matcher needs time order; a stable sort keeps equal times as sent.
    let order = probes.indices.sorted { (probes[$0].time, $0) < (probes[$1].time, $1) }
    // In parts, so that decided positions go on to the aggregator as they come rather than
    // piling up for the whole batch (an import of a million probes held all of them, and
    // growing that array was a third of the import's time, in fresh pages).
    let part = 8_192
    var start = 0
    while start < order.count {
      let items = order[start..<min(order.count, start + part)].map {
        ShardedStreamingMatcher.Item(point: probes[$0].point, vehicleID: probes[$0].vehicleID)
      }
      start += items.count
      let result = stream.add(items)
      for outcome in result.outcomes {
        switch outcome {
        case .accepted: report.accepted += 1
        case .skippedStationary: report.skippedStationary += 1
        case .noCandidates: report.unmatched += 1
        case .duplicate: report.duplicates += 1
        case .outOfOrder: report.outOfOrder += 1
        }
      }
      for point in result.decided { aggregator.add(point, counting: counting) }
      report.decided += result.decided.count
      report.vehicles += result.vehicles
      progress?.update(done: Int64(start))
    }
    stream.expire(now: now) { expired in
      for point in expired { aggregator.add(point, counting: counting) }
      report.decided += expired.count
    }
    aggregator.prune(now: now)
    pruneLedgerIfDue(now: now)
    return report
  }

  mutating func flush(now: Date, counting: Bool = true) -> Int {
    var decided = 0
    stream.flushAll { points in
      for point in points { aggregator.add(point, counting: counting) }
      decided += points.count
    }
    aggregator.prune(now: now)
    return decided
  }

  mutating func snapshot(now: Date, incidents: IncidentIndex, index: FlowIndex) -> FlowSnapshot {
    aggregator.prune(now: now)
    aggregator.setPending(stream.undecidedPoints)
    var snapshot = FlowSnapshot()
    snapshot.builtAt = now
    let key = FlowSnapshot.IncidentsKey(updatedAt: incidents.updatedAt, count: incidents.count)
    snapshot.incidentsKey = key
    let minute = Int((now.timeIntervalSince1970 / 60).rounded(.down))
    if let closures, closures.key == key, closures.minute == minute {
      closures.closures.apply(to: &snapshot)
    } else {
      let current = FlowPipeline.closures(
        incidents: incidents, now: now, index: index,
        distance: configuration.closureMatchDistanceInMeters, junctionTurns: &junctionTurns)
      closures = (key, minute, current)
      current.apply(to: &snapshot)
    }
    for (segment, speed) in aggregator.learnedSegments { snapshot.freeFlow[segment] = speed }
    snapshot.typical = aggregator.typical
    snapshot.typicalBin = aggregator.typical.clock.bin(for: now)
    snapshot.typicalToday = TypicalSpeeds.day(of: now)
    let network = index.network
    var segments = Set(aggregator.activeSegments)
    defer { aggregator.pending = [:] }
    let lifetime = configuration.observationLifetimeInSeconds
    observations = observations.filter { now.timeIntervalSince($0.value.time) <= lifetime }
    segments.formUnion(observations.keys)
    var newest = aggregator.latestTime
    for segment in segments {
      let free = snapshot.freeFlow[segment] ?? network.segments[segment].speedLimitInMetersPerSecond
      let estimate = aggregator.estimate(segment, now: now)
      var observedSpeed: Double?
      var blocked = false
      if let observed = observations[segment], observed.time <= now.addingTimeInterval(60) {
        if let jam = observed.jamFactor, jam >= 10 { blocked = true }
        observedSpeed =
          observed.speed
          ?? observed.jamFactor.map { max(0, (observed.freeFlow ?? free) * (1 - $0 / 10)) }
        if newest.map({ observed.time > $0 }) ?? true { newest = observed.time }
      }
      // The live evidence: the probes' space-mean speed, blended with a fresh feed
      // observation (worth `observationWeight` vehicles; weighted harmonic mean, arithmetic
      // when a speed is 0).
      var evidence: (speed: Double, weight: Double)?
      switch (estimate, observedSpeed) {
      case (let estimate?, let observed?):
        let n = Double(estimate.vehicles), w = configuration.observationWeight
        let probe = estimate.speedInMetersPerSecond
        evidence = (
          probe > 0 && observed > 0
            ? (n + w) / (n / probe + w / observed) : (n * probe + w * observed) / (n + w),
          n + w
        )
      case (let estimate?, nil):
        evidence = (estimate.speedInMetersPerSecond, Double(estimate.vehicles))
      case (nil, let observed?):
        evidence = (observed, configuration.observationWeight)
      case (nil, nil):
        evidence = nil
      }
      guard let evidence else {
        if blocked {
          snapshot.live[segment] = FlowSnapshot.Live(
            speedUncapped: 0, confidence: 0.8, tendency: nil, blocked: true)
        }
        continue
      }
      // With a typical week, the evidence is fused with it; without, it stands alone.
      let fused: (speed: Double, confidence: Double) =
        Self.prior(segment, in: snapshot, configuration).map {
          Self.fuse(
            prior: $0, evidence: evidence.speed, weight: evidence.weight,
            disagreement: estimate.flatMap { estimate in
              estimate.logSpeedVariance.map { (estimate.vehicles, $0) }
            }, configuration)
        }
        ?? (
          evidence.speed,
          FlowSnapshot.realTimeConfidence(vehicles: Int(evidence.weight.rounded(.up)))
        )
      var live = FlowSnapshot.Live(
        speedUncapped: fused.speed, confidence: fused.confidence,
        tendency: estimate.flatMap { FlowPipeline.tendency($0, freeFlow: free) },
        blocked: blocked)
      if observedSpeed != nil { live.confidence = max(0.8, live.confidence) }
      snapshot.live[segment] = live
    }
    snapshot.sourceUpdated = newest
    return snapshot
  }

  /// What a segment's speed is expected to be before the live evidence: its typical speed
  /// now, of spread `typicalSpreadInLogSpeed` (widened when the typical rests on few
  /// samples); `nil` without a typical week.
  static func prior(
    _ segment: Int, in snapshot: FlowSnapshot, _ configuration: FlowConfiguration
  ) -> (speed: Double, variance: Double)? {
    let spread = configuration.typicalSpreadInLogSpeed
    guard
      let typical = snapshot.typical?.typical(
        segment, atBin: snapshot.typicalBin, today: snapshot.typicalToday)
    else { return nil }
    return (typical.speed, spread * spread * (1 + 1 / max(typical.samples, 0.25)))
  }

  /// Rising when the jam factor of the newer half of the window exceeds the older half's by
  /// more than one point, falling when it is more than one point lower.
  static func tendency(_ estimate: SpeedAggregator.Estimate, freeFlow: Double) -> JamTendency? {
    guard let older = estimate.olderSpeed, let newer = estimate.newerSpeed else { return nil }
    let change =
      FlowSnapshot.jamFactor(speed: newer, freeFlow: freeFlow)
      - FlowSnapshot.jamFactor(speed: older, freeFlow: freeFlow)
    if change > 1 { return .rising }
    if change < -1 { return .falling }
    return .stable
  }
}
