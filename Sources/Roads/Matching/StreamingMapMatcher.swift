import Foundation

/// Incremental map matching of many vehicles' probe streams, with memory bounded per vehicle
/// and in the number of vehicles.
///
/// Each probe is first checked against a ``ProbeLedger`` of the times its vehicle reported:
/// a time reported before is a ``ProbeMatchOutcome/duplicate``, a time inside a span of the
/// vehicle's reported times is ``ProbeMatchOutcome/outOfOrder`` (see the ledger for the
/// rule). A new probe later than its vehicle's latest continues the vehicle's trace; an
/// earlier one (an earlier trip, an older history file) is matched on a trace of its own
/// (a side trace, keyed by the vehicle id, a NUL and a number), so that probes of each
/// trace arrive in time order. A probe's position is decided when
/// ``MapMatchingOptions/decisionLag`` later probes of the vehicle have arrived, when its trace
/// breaks (a time gap, no route), or when the vehicle is flushed by ``expire(now:)`` or
/// ``flushAll()``.
///
/// A value type: keep one per stream and mutate it from one place at a time (for example
/// inside a mutex).
public struct StreamingMapMatcher: Sendable {
  /// The matcher run on each probe.
  public let matcher: MapMatcher
  private var tracks: [String: VehicleTrack] = [:]
  private var scratch: RouteScratch
  /// The times each vehicle reported.
  package private(set) var ledger: ProbeLedger
  /// How many side-trace keys each vehicle with side traces has used.
  private var sideKeys: [String: Int] = [:]
  /// The number of the batch being added (see ``ProbeLedger/record(_:at:batch:)``).
  package var batch: UInt64 = 0
  /// Whether probes are checked against and recorded in the ledger; off while a batch a
  /// restored ledger already holds is read again only to rebuild the vehicles' traces.
  package var checksLedger = true
  /// Vehicles whose first new probe of their batch was added, counted since the stream began.
  package private(set) var vehiclesAdded = 0

  /// Creates an empty stream state.
  ///
  /// - Parameter matcher: the matcher (network and options).
  /// - Complexity: O(m) for the m segments of the network (search labels).
  public init(matcher: MapMatcher) {
    self.matcher = matcher
    scratch = RouteScratch(segmentCount: matcher.network.segments.count)
    ledger = ProbeLedger(gapInSeconds: matcher.options.maxTimeGapInSeconds)
  }

  /// The number of vehicles with state held.
  public var vehicleCount: Int { tracks.count }

  /// Adds one probe of a vehicle.
  ///
  /// - Parameters:
  ///   - probe: the probe.
  ///   - vehicleID: the vehicle's identifier.
  ///   - output: receives the positions this probe lets the matcher decide, of this vehicle
  ///     (and of vehicles evicted when ``MapMatchingOptions/maxVehicles`` is exceeded).
  /// - Returns: what happened to the probe.
  /// - Complexity: O(k·s log s) for k candidates and s segments reached by each bounded
  ///   route search; amortised O(1) for the vehicle table.
  @discardableResult
  public mutating func add(
    _ probe: ProbePoint, vehicleID: String, into output: inout [MatchedPoint]
  ) -> ProbeMatchOutcome {
    if checksLedger {
      switch ledger.record(vehicleID, at: probe.time, batch: batch) {
      case .duplicate: return .duplicate
      case .inside: return .outOfOrder
      case .new(let firstOfBatch): if firstOfBatch { vehiclesAdded += 1 }
      }
    }
    var key = vehicleID
    var track = tracks.removeValue(forKey: vehicleID) ?? VehicleTrack()
    if let seen = track.lastSeen, probe.time <= seen {
      tracks[vehicleID] = track
      key = sideKey(of: vehicleID, before: probe.time)
      track = tracks.removeValue(forKey: key) ?? VehicleTrack()
    }
    let outcome = track.add(
      probe, vehicleID: key, matcher: matcher, scratch: &scratch, into: &output)
    tracks[key] = track
    if tracks.count > matcher.options.maxVehicles { evictLeastRecent(into: &output) }
    return outcome
  }

  /// The trace an earlier probe of a vehicle continues: of the vehicle's side traces, the
  /// one whose latest probe is the latest before `time`, else a new one.
  private mutating func sideKey(of vehicleID: String, before time: Date) -> String {
    var best: (key: String, seen: Date)?
    var free: String?
    for k in 0..<(sideKeys[vehicleID] ?? 0) {
      let key = "\(vehicleID)\u{0}\(k + 1)"
      if let seen = tracks[key]?.lastSeen {
        if seen < time, best.map({ seen > $0.seen }) ?? true { best = (key, seen) }
      } else if free == nil {
        free = key
      }
    }
    if let best { return best.key }
    if let free { return free }
    let k = sideKeys[vehicleID, default: 0]
    sideKeys[vehicleID] = k + 1
    return "\(vehicleID)\u{0}\(k + 1)"
  }

  /// Forgets the ledger's spans whose last probe is before `cutoff`.
  ///
  /// - Complexity: O(v + s) for v vehicles and s spans in the ledger.
  package mutating func pruneLedger(before cutoff: Date) { ledger.prune(before: cutoff) }

  /// Replaces a vehicle's ledger spans (restoring a saved ledger).
  package mutating func setLedger(_ vehicleID: String, spans: [LedgerSpan]) {
    ledger.set(vehicleID, spans: spans)
  }

  /// Forgets every vehicle's ledger.
  package mutating func clearLedger() { ledger.removeAll() }

  /// Flushes and forgets the vehicles whose latest probe is older than
  /// ``MapMatchingOptions/vehicleTimeoutInSeconds`` before `now`.
  ///
  /// - Parameter now: the current time.
  /// - Returns: the positions decided by flushing, vehicle by vehicle in time order.
  /// - Complexity: O(v) for v vehicles held.
  public mutating func expire(now: Date) -> [MatchedPoint] {
    var output: [MatchedPoint] = []
    for vehicleID in idleVehicleIDs(now: now).sorted() {
      flush(vehicleID, forget: true, into: &output)
    }
    forgetIdleSideKeys()
    return output
  }

  /// The vehicles whose latest probe is older than
  /// ``MapMatchingOptions/vehicleTimeoutInSeconds`` before `now`, in no particular order.
  ///
  /// - Complexity: O(v) for v vehicles held.
  package func idleVehicleIDs(now: Date) -> [String] {
    let cutoff = now.addingTimeInterval(-matcher.options.vehicleTimeoutInSeconds)
    return tracks.compactMap { ($0.value.lastSeen ?? .distantPast) < cutoff ? $0.key : nil }
  }

  /// The vehicles held, in no particular order.
  package var vehicleIDs: [String] { Array(tracks.keys) }

  /// Decides a vehicle's undecided positions into `output`, and forgets the vehicle when
  /// `forget` is set (otherwise its next probe starts a new trace).
  ///
  /// - Complexity: O(w) for a window of w probes.
  package mutating func flush(_ vehicleID: String, forget: Bool, into output: inout [MatchedPoint])
  {
    tracks[vehicleID]?.flush(
      vehicleID: vehicleID, network: matcher.network, sigma: matcher.options.gpsSigmaInMeters,
      into: &output)
    if forget { tracks[vehicleID] = nil }
  }

  /// Forgets the side-trace keys of vehicles none of whose side traces is held any more.
  package mutating func forgetIdleSideKeys() {
    guard !sideKeys.isEmpty else { return }
    sideKeys = sideKeys.filter { entry in
      (1...max(1, entry.value)).contains { tracks["\(entry.key)\u{0}\($0)"] != nil }
    }
  }

  /// A vehicle's provisional positions (see ``undecidedPoints``), appended to `output`.
  package func undecided(_ vehicleID: String, into output: inout [MatchedPoint]) {
    if let track = tracks[vehicleID] {
      output += track.undecided(
        vehicleID: vehicleID, network: matcher.network, sigma: matcher.options.gpsSigmaInMeters)
    }
  }

  /// Decides every undecided position of every vehicle (the vehicles' states are kept, so
  /// their next probes continue their traces as new traces).
  ///
  /// - Returns: the positions decided, vehicle by vehicle (in vehicle id order).
  /// - Complexity: O(v·w) for v vehicles and windows of w probes.
  public mutating func flushAll() -> [MatchedPoint] {
    var output: [MatchedPoint] = []
    for vehicleID in tracks.keys.sorted() { flush(vehicleID, forget: false, into: &output) }
    return output
  }

  /// The positions not decided yet, along each vehicle's currently most likely sequence:
  /// what ``flushAll()`` would decide now, without deciding it (later probes may still
  /// change them). For reading flow up to the latest probes while the fixed-lag decisions
  /// trail them by ``MapMatchingOptions/decisionLag`` probes — and a vehicle that stopped
  /// sends no probes that would decide how it got there.
  ///
  /// - Returns: the provisional positions, vehicle by vehicle (in vehicle id order), each
  ///   vehicle's in time order.
  /// - Complexity: O(v·w) for v vehicles and windows of w probes.
  public var undecidedPoints: [MatchedPoint] {
    var output: [MatchedPoint] = []
    for vehicleID in tracks.keys.sorted() { undecided(vehicleID, into: &output) }
    return output
  }

  /// The vehicles standing still now (every probe since their last kept one was skipped as
  /// stationary), with their provisional position and the period they stood there — for
  /// counting queues whose positions are not decided yet.
  ///
  /// - Complexity: O(v) for v vehicles held.
  public var standingVehicles:
    [(vehicleID: String, position: RoadPosition, since: Date, until: Date)]
  {
    tracks.compactMap { entry in
      entry.value.standing(network: matcher.network, sigma: matcher.options.gpsSigmaInMeters)
        .map { (entry.key, $0.position, $0.since, $0.until) }
    }
  }

  private mutating func evictLeastRecent(into output: inout [MatchedPoint]) {
    // Evict an eighth at once so that the sort is amortised over many probes.
    let excess = max(1, tracks.count - matcher.options.maxVehicles * 7 / 8)
    let oldest = tracks.map { ($0.value.lastSeen ?? .distantPast, $0.key) }.sorted { $0 < $1 }
      .prefix(excess)
    for (_, vehicleID) in oldest {
      tracks[vehicleID]?.flush(
        vehicleID: vehicleID, network: matcher.network, sigma: matcher.options.gpsSigmaInMeters,
        into: &output)
      tracks[vehicleID] = nil
    }
  }
}
