import Foundation
import Roads

extension FlowState {
  /// What the flow pipeline needs to restart with the current picture, as plain values a
  /// store can keep: per segment the probe contributions inside the aggregation window, the
  /// open history buckets and the history that free flow is learned from; the feed
  /// observations still alive; and, for readers of the store, the latest published flow.
  ///
  /// Typical weeks are kept whole: they are the long-term memory of the flow. So is the
  /// probe ledger (which times each vehicle reported, `ProbeLedger`), so that a probe sent
  /// again after a restart is still a duplicate.
  ///
  /// Not kept: the map matcher's pending vehicle traces (positions not decided yet, at most
  /// the fixed lag of each vehicle's last probes) and each vehicle's last matched point. A
  /// vehicle driving across a restart therefore starts a new trace: the travel between its
  /// last probe before and its first probe after is not counted, and positions still pending
  /// at the save are lost. Call `TrafficEngine.flushProbes()` before a planned shutdown's
  /// save to decide them. A store with a shared probe log (PostgreSQL) rebuilds them
  /// instead: it reads again the batches the state holds, without counting them
  /// (`TrafficEngine.ingestShared(counting: false)`).
  package struct Persisted: Hashable, Sendable, Codable {
    /// When the state was taken.
    package var savedAt: Date
    /// The number of segments of the network the state was taken on; it is refused on a
    /// network of another size.
    package var segmentCount: Int
    /// The length of the history buckets `openBuckets` are numbered in, seconds.
    package var historyBucketInSeconds: Double
    /// The time of the newest probe contribution, if any.
    package var latestProbeTime: Date?
    /// Aggregates of the segments holding any, by ascending segment id.
    package var segments: [Segment]
    /// Feed observations still alive, by ascending segment id.
    package var observations: [Observation]
    /// The latest flow of the segments with live values or a closure, by ascending segment
    /// id. Restoring does not read it (the values are recomputed from the aggregates); it is
    /// there for readers of the store.
    package var latest: [Latest]
    /// The typical weeks of the segments holding one, by ascending segment id.
    package var typical: [Typical]
    /// The times each vehicle reported (the probe ledger), by ascending vehicle id.
    package var ledger: [Ledger]

    /// Creates a state.
    package init(
      savedAt: Date, segmentCount: Int, historyBucketInSeconds: Double, latestProbeTime: Date?,
      segments: [Segment], observations: [Observation], latest: [Latest],
      typical: [Typical] = [], ledger: [Ledger] = []
    ) {
      self.ledger = ledger
      self.savedAt = savedAt
      self.segmentCount = segmentCount
      self.historyBucketInSeconds = historyBucketInSeconds
      self.latestProbeTime = latestProbeTime
      self.segments = segments
      self.observations = observations
      self.latest = latest
      self.typical = typical
    }
  }
}

extension FlowState.Persisted {
  /// One segment's aggregates.
  package struct Segment: Hashable, Sendable, Codable {
    /// The segment's id in the network.
    package var segmentID: Int
    /// Probe contributions inside the window, oldest first.
    package var contributions: [Contribution]
    /// History buckets still collecting, by ascending index.
    package var openBuckets: [Bucket]
    /// The newest bucket already moved into the history, if any.
    package var lastClosedBucket: Int?
    /// Space-mean speeds of past buckets, oldest first, meters per second.
    package var historyInMetersPerSecond: [Double]
    /// Free flow learned from the history, meters per second.
    package var learnedFreeFlowInMetersPerSecond: Double?
    /// The 95th percentile of the history, meters per second (the outlier ceiling).
    package var percentile95InMetersPerSecond: Double?

    /// Creates a segment's aggregates.
    package init(
      segmentID: Int, contributions: [Contribution], openBuckets: [Bucket],
      lastClosedBucket: Int?, historyInMetersPerSecond: [Double],
      learnedFreeFlowInMetersPerSecond: Double?, percentile95InMetersPerSecond: Double?
    ) {
      self.segmentID = segmentID
      self.contributions = contributions
      self.openBuckets = openBuckets
      self.lastClosedBucket = lastClosedBucket
      self.historyInMetersPerSecond = historyInMetersPerSecond
      self.learnedFreeFlowInMetersPerSecond = learnedFreeFlowInMetersPerSecond
      self.percentile95InMetersPerSecond = percentile95InMetersPerSecond
    }
  }

  /// Meters one vehicle drove on a segment and the seconds it took, at a time.
  package struct Contribution: Hashable, Sendable, Codable {
    /// When the vehicle was there (its later probe).
    package var time: Date
    /// The probe vehicle.
    package var vehicleID: String
    /// Meters driven on the segment (0 for time stood still).
    package var meters: Double
    /// Seconds spent.
    package var seconds: Double

    /// Creates a contribution.
    package init(time: Date, vehicleID: String, meters: Double, seconds: Double) {
      self.time = time
      self.vehicleID = vehicleID
      self.meters = meters
      self.seconds = seconds
    }
  }

  /// The sums of a history bucket still collecting.
  package struct Bucket: Hashable, Sendable, Codable {
    /// `floor(seconds since 1970 / historyBucketInSeconds)`.
    package var index: Int
    /// Meters driven in the bucket.
    package var meters: Double
    /// Seconds spent.
    package var seconds: Double

    /// Creates a bucket.
    package init(index: Int, meters: Double, seconds: Double) {
      self.index = index
      self.meters = meters
      self.seconds = seconds
    }
  }

  /// A segment's typical week (see `TypicalWeek`) and its revision in the engine that saved
  /// it, so that a store rewrites only the weeks that changed since its last save.
  package struct Typical: Hashable, Sendable, Codable {
    /// The segment.
    package var segmentID: Int
    /// The week.
    package var week: TypicalWeek
    /// The revision of the week's last change (`TypicalSpeeds.Profile.revision`).
    package var revision: UInt64

    /// The week's packed bins (`TypicalWeek.entries`).
    package var entries: [UInt32] { week.entries }

    /// Creates a typical week.
    package init(segmentID: Int, week: TypicalWeek, revision: UInt64 = 0) {
      self.segmentID = segmentID
      self.week = week
      self.revision = revision
    }

    /// Equal when the segment and the bins are: the revision is bookkeeping of the engine
    /// that saved it, not content (a state read back from a store has none).
    package static func == (left: Typical, right: Typical) -> Bool {
      left.segmentID == right.segmentID && left.week == right.week
    }

    /// Hashes the segment and the bins.
    package func hash(into hasher: inout Hasher) {
      hasher.combine(segmentID)
      hasher.combine(week)
    }

    private enum CodingKeys: String, CodingKey {
      case segmentID, entries, revision
    }

    /// Encodes the segment, the packed bins and the revision.
    package func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(segmentID, forKey: .segmentID)
      try container.encode(week.entries, forKey: .entries)
      try container.encode(revision, forKey: .revision)
    }

    /// Decodes what `encode(to:)` wrote, checking the bins.
    package init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      segmentID = try container.decode(Int.self, forKey: .segmentID)
      revision = try container.decodeIfPresent(UInt64.self, forKey: .revision) ?? 0
      let entries = try container.decode([UInt32].self, forKey: .entries)
      do { week = try TypicalWeek(entries: entries) } catch {
        throw DecodingError.dataCorruptedError(
          forKey: .entries, in: container, debugDescription: error.description)
      }
    }
  }

  /// A feed observation matched to a segment.
  package struct Observation: Hashable, Sendable, Codable {
    /// The segment.
    package var segmentID: Int
    /// When it was observed.
    package var time: Date
    /// The observed speed, meters per second.
    package var speedInMetersPerSecond: Double?
    /// The observed jam factor, 0...10.
    package var jamFactor: Double?
    /// The feed's free flow speed, meters per second.
    package var freeFlowSpeedInMetersPerSecond: Double?

    /// Creates an observation.
    package init(
      segmentID: Int, time: Date, speedInMetersPerSecond: Double?, jamFactor: Double?,
      freeFlowSpeedInMetersPerSecond: Double?
    ) {
      self.segmentID = segmentID
      self.time = time
      self.speedInMetersPerSecond = speedInMetersPerSecond
      self.jamFactor = jamFactor
      self.freeFlowSpeedInMetersPerSecond = freeFlowSpeedInMetersPerSecond
    }
  }

  /// The flow a segment had when the state was taken (as `TrafficFlow` reports it).
  package struct Latest: Hashable, Sendable, Codable {
    /// The segment.
    package var segmentID: Int
    /// Speed capped at the limit, meters per second.
    package var speedInMetersPerSecond: Double
    /// Speed, meters per second.
    package var speedUncappedInMetersPerSecond: Double
    /// Free flow, meters per second.
    package var freeFlowSpeedInMetersPerSecond: Double
    /// Jam factor 0...10.
    package var jamFactor: Double
    /// Confidence 0...1.
    package var confidence: Double
    /// Open or closed.
    package var traversability: Traversability
    /// The trend, when known.
    package var jamTendency: JamTendency?

    /// Creates a segment's latest flow.
    package init(
      segmentID: Int, speedInMetersPerSecond: Double, speedUncappedInMetersPerSecond: Double,
      freeFlowSpeedInMetersPerSecond: Double, jamFactor: Double, confidence: Double,
      traversability: Traversability, jamTendency: JamTendency?
    ) {
      self.segmentID = segmentID
      self.speedInMetersPerSecond = speedInMetersPerSecond
      self.speedUncappedInMetersPerSecond = speedUncappedInMetersPerSecond
      self.freeFlowSpeedInMetersPerSecond = freeFlowSpeedInMetersPerSecond
      self.jamFactor = jamFactor
      self.confidence = confidence
      self.traversability = traversability
      self.jamTendency = jamTendency
    }

    /// The latest flow of a flow value.
    package init(_ flow: TrafficFlow) {
      self.init(
        segmentID: flow.segmentID, speedInMetersPerSecond: flow.speedInMetersPerSecond,
        speedUncappedInMetersPerSecond: flow.speedUncappedInMetersPerSecond,
        freeFlowSpeedInMetersPerSecond: flow.freeFlowSpeedInMetersPerSecond,
        jamFactor: flow.jamFactor, confidence: flow.confidence,
        traversability: flow.traversability, jamTendency: flow.jamTendency)
    }
  }
}

extension FlowState {
  /// The state to save at `now`: what ``restore(_:)`` needs to give the same flow answers.
  ///
  /// Publishes the values of `now` first (as a query would), so that ``Persisted/latest``
  /// is current. Contributions older than the window and expired observations are left out.
  ///
  /// - Parameters:
  ///   - now: the engine's current time.
  ///   - incidents: the incident snapshot (closures).
  /// - Returns: the state.
  /// - Complexity: O(a·c) for a segments holding c contributions each; the lock on the
  ///   pipeline is held only to copy (copy-on-write) its tables.
  package func persisted(now: Date, incidents: IncidentIndex) -> Persisted {
    let snapshot = self.snapshot(now: now, incidents: incidents)
    let (segments, latestTime, observations, configuration, typical, ledger) = pipeline.withLock {
      (
        $0.aggregator.segments, $0.aggregator.latestTime, $0.observations, $0.configuration,
        $0.aggregator.typical, $0.stream.ledgers
      )
    }
    let cutoff = now.addingTimeInterval(-configuration.windowInSeconds)
    var saved: [Persisted.Segment] = []
    saved.reserveCapacity(segments.count)
    for (id, state) in segments {
      let contributions = state.contributions.filter { $0.time > cutoff }
      guard !contributions.isEmpty || !state.openBuckets.isEmpty || !state.history.isEmpty
      else { continue }
      saved.append(
        Persisted.Segment(
          segmentID: id,
          contributions: contributions.map {
            Persisted.Contribution(
              time: $0.time, vehicleID: $0.vehicleID, meters: $0.meters, seconds: $0.seconds)
          },
          openBuckets: state.openBuckets.map {
            Persisted.Bucket(index: $0.key, meters: $0.value.meters, seconds: $0.value.seconds)
          }.sorted { $0.index < $1.index },
          lastClosedBucket: state.lastClosedBucket == .min ? nil : state.lastClosedBucket,
          historyInMetersPerSecond: state.history,
          learnedFreeFlowInMetersPerSecond: state.learnedFreeFlow,
          percentile95InMetersPerSecond: state.percentile95))
    }
    saved.sort { $0.segmentID < $1.segmentID }
    let lifetime = configuration.observationLifetimeInSeconds
    let alive = observations.filter { now.timeIntervalSince($0.value.time) <= lifetime }
    let network = index.network
    let latest = Set(snapshot.live.keys).union(snapshot.closed).sorted().map {
      Persisted.Latest(snapshot.flow(of: network.segments[$0]))
    }
    return Persisted(
      savedAt: now, segmentCount: network.segments.count,
      historyBucketInSeconds: configuration.historyBucketInSeconds, latestProbeTime: latestTime,
      segments: saved,
      observations: alive.map {
        Persisted.Observation(
          segmentID: $0.key, time: $0.value.time, speedInMetersPerSecond: $0.value.speed,
          jamFactor: $0.value.jamFactor, freeFlowSpeedInMetersPerSecond: $0.value.freeFlow)
      }.sorted { $0.segmentID < $1.segmentID },
      latest: latest,
      typical: typical.profiles.map {
        Persisted.Typical(
          segmentID: $0.key, week: $0.value.week, revision: $0.value.revision)
      }.sorted { $0.segmentID < $1.segmentID },
      ledger: ShardedStreamingMatcher.entries(of: ledger).map {
        Persisted.Ledger(vehicleID: $0.vehicleID, spans: $0.spans)
      })
  }

  /// Replaces the probe aggregates, feed observations, typical weeks and probe ledger with a
  /// saved state, so that flow queries answer as they did when it was saved (given the same
  /// time and incidents) and probes ingested before it are duplicates.
  ///
  /// Vehicles being matched keep their traces (at start-up there are none). The state is
  /// checked first and nothing changes when it is refused. Open history buckets counted in
  /// another bucket length than the configuration's are dropped; a history longer than
  /// ``FlowConfiguration/historyCapacity`` keeps its newest buckets.
  ///
  /// - Parameter persisted: a state from ``persisted(now:incidents:)``, possibly read back
  ///   from a store.
  /// - Throws: `TrafficEngineError.invalidConfiguration` when the state belongs to a network
  ///   of another size, names a segment that does not exist (or one twice), or holds a
  ///   negative or non-finite number.
  /// - Complexity: O(a·c) for a segments holding c contributions each.
  package func restore(_ persisted: Persisted) throws(TrafficEngineError) {
    let network = index.network
    guard persisted.segmentCount == network.segments.count else {
      throw .invalidConfiguration(
        "the stored flow state belongs to a network of \(persisted.segmentCount) segments, "
          + "not to this one of \(network.segments.count)")
    }
    try persisted.validate()
    let configuration = self.configuration
    let sameBuckets = persisted.historyBucketInSeconds == configuration.historyBucketInSeconds
    var segments: [Int: SpeedAggregator.SegmentState] = [:]
    segments.reserveCapacity(persisted.segments.count)
    for saved in persisted.segments {
      var state = SpeedAggregator.SegmentState()
      state.contributions = saved.contributions.map {
        SpeedAggregator.Contribution(
          time: $0.time, vehicleID: $0.vehicleID, meters: $0.meters, seconds: $0.seconds)
      }
      state.recountStanding()
      if sameBuckets {
        for bucket in saved.openBuckets {
          state.openBuckets[bucket.index] = (bucket.meters, bucket.seconds)
        }
        state.lastClosedBucket = saved.lastClosedBucket ?? .min
      }
      state.history = Array(saved.historyInMetersPerSecond.suffix(configuration.historyCapacity))
      state.learnedFreeFlow = saved.learnedFreeFlowInMetersPerSecond
      state.percentile95 = saved.percentile95InMetersPerSecond
      segments[saved.segmentID] = state
    }
    let weeks = persisted.typical.map { ($0.segmentID, $0.week) }
    var observations: [Int: FlowPipeline.Observed] = [:]
    for saved in persisted.observations {
      observations[saved.segmentID] = FlowPipeline.Observed(
        time: saved.time, speed: saved.speedInMetersPerSecond, jamFactor: saved.jamFactor,
        freeFlow: saved.freeFlowSpeedInMetersPerSecond)
    }
    pipeline.withLock { pipeline in
      pipeline.aggregator.restore(segments: segments, latestTime: persisted.latestProbeTime)
      pipeline.aggregator.typical.replace(with: weeks)
      pipeline.stream.restoreLedger(persisted.ledger.map { ($0.vehicleID, $0.spans) })
      pipeline.observations = observations
      pipeline.closures = nil
    }
    // The next query rebuilds from the restored aggregates.
    published.withLock { $0 = FlowSnapshot() }
  }

  /// How often the engine saves flow to a store that keeps it, by default, seconds.
  package static let defaultPersistenceIntervalInSeconds: TimeInterval = 60
}

extension FlowState.Persisted {
  /// Checks ids and numbers (a state read from a file may be damaged).
  ///
  /// - Throws: `TrafficEngineError.invalidConfiguration` naming the first bad value.
  func validate() throws(TrafficEngineError) {
    func fail(_ detail: String) -> TrafficEngineError {
      .invalidConfiguration("the stored flow state is damaged: \(detail)")
    }
    func check(_ value: Double, _ what: String, segment: Int) throws(TrafficEngineError) {
      guard value.isFinite, value >= 0 else {
        throw fail("segment \(segment) has \(what) \(value)")
      }
    }
    let ids = 0..<segmentCount
    guard historyBucketInSeconds.isFinite, historyBucketInSeconds > 0 else {
      throw fail("history bucket length \(historyBucketInSeconds) s")
    }
    var previous = -1
    for segment in segments {
      let id = segment.segmentID
      guard ids.contains(id), id > previous else {
        throw fail("segment \(id) does not exist or is not in ascending order")
      }
      previous = id
      for contribution in segment.contributions {
        try check(contribution.meters, "a contribution of meters", segment: id)
        try check(contribution.seconds, "a contribution of seconds", segment: id)
        guard contribution.time.timeIntervalSince1970.isFinite else {
          throw fail("segment \(id) has a contribution at no valid time")
        }
      }
      for bucket in segment.openBuckets {
        try check(bucket.meters, "a bucket of meters", segment: id)
        try check(bucket.seconds, "a bucket of seconds", segment: id)
      }
      for speed in segment.historyInMetersPerSecond {
        try check(speed, "a history speed", segment: id)
      }
      if let speed = segment.learnedFreeFlowInMetersPerSecond {
        try check(speed, "a learned free flow", segment: id)
      }
      if let speed = segment.percentile95InMetersPerSecond {
        try check(speed, "a 95th percentile speed", segment: id)
      }
    }
    previous = -1
    for week in typical {
      guard ids.contains(week.segmentID), week.segmentID > previous else {
        throw fail(
          "the typical week of segment \(week.segmentID) does not exist or is not in order")
      }
      previous = week.segmentID
    }
    try validateLedger()
    previous = -1
    for observation in observations {
      let id = observation.segmentID
      guard ids.contains(id), id > previous else {
        throw fail("observed segment \(id) does not exist or is not in ascending order")
      }
      // Observed values are kept as the feed gave them, as ingesting does.
      previous = id
    }
  }
}
