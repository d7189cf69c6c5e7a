import Foundation

/// Incremental map matching of many vehicles' probe streams, with memory bounded per vehicle
/// and in the number of vehicles.
///
/// Probes of each vehicle must arrive in time order (later ones for a vehicle are dropped
/// as ``ProbeMatchOutcome/outOfOrder``). A probe's position is decided when
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

  /// Creates an empty stream state.
  ///
  /// - Parameter matcher: the matcher (network and options).
  /// - Complexity: O(m) for the m segments of the network (search labels).
  public init(matcher: MapMatcher) {
    self.matcher = matcher
    scratch = RouteScratch(segmentCount: matcher.network.segments.count)
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
    var track = tracks.removeValue(forKey: vehicleID) ?? VehicleTrack()
    let outcome = track.add(
      probe, vehicleID: vehicleID, matcher: matcher, scratch: &scratch, into: &output)
    tracks[vehicleID] = track
    if tracks.count > matcher.options.maxVehicles { evictLeastRecent(into: &output) }
    return outcome
  }

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
