import Dispatch
import Foundation
import Roads
import Synchronization
import Traffic

/// The routing hierarchy customised with the segments' seconds at a table's departure: the
/// weights of the bucket search of large travel-time tables (``BucketTable``).
final class TableWeights: Sendable {
  /// The bounds whose hierarchy was customised (their identity keys the weights).
  let bounds: RoutingBounds
  /// The flow snapshot whose speeds were taken in.
  let builtAt: Date
  /// The departure the segments' seconds are of, and its minute (since 1970).
  let departure: Date
  let minute: Int
  let usesTraffic: Bool
  let closures: TravelTimes.Closures
  /// The avoided features, whose segments took ∞ (none: the plain weights).
  let avoided: Set<RoadFeature>
  let metric: BoundHierarchy.Metric
  /// When the customisation finished (monotonic seconds) and how long it took.
  let finishedUptime: Double
  let buildSeconds: Double

  /// Customises `bounds`' hierarchy with each segment's seconds under `times` at its
  /// departure (the live picture then, closures applied; ∞ for a segment not driven, the
  /// excluded ones of avoided features included).
  init(times: TravelTimes, bounds: RoutingBounds, departure: Date) {
    let started = ProcessInfo.processInfo.systemUptime
    self.bounds = bounds
    builtAt = times.view.flow.builtAt
    self.departure = departure
    minute = Self.minute(of: departure)
    usesTraffic = times.usesTraffic
    closures = times.closures
    avoided = times.excluded?.features ?? []
    let records = times.segments.records
    let count = records.count
    // Every segment's speed read on every core (hash lookups of the flow's tables).
    let seconds = [Double](unsafeUninitializedCapacity: count) { buffer, written in
      let base = SendableAddress(pointer: buffer.baseAddress)
      let chunk = 16_384
      DispatchQueue.concurrentPerform(iterations: (count + chunk - 1) / chunk) { part in
        guard let pointer = base.pointer else { return }
        for id in part * chunk..<min(count, (part + 1) * chunk) {
          pointer[id] = times.seconds(id, meters: records[id].length) ?? .infinity
        }
      }
      written = count
    }
    metric = bounds.hierarchy.customised(network: times.view.network, seconds: seconds)
    finishedUptime = ProcessInfo.processInfo.systemUptime
    buildSeconds = finishedUptime - started
  }

  static func minute(of date: Date) -> Int {
    Int((date.timeIntervalSince1970 / 60).rounded(.down))
  }

  /// Whether these are the weights of `times` (same bounds, flow snapshot, departure minute
  /// and options).
  func fits(_ times: TravelTimes, bounds: RoutingBounds, departure: Date) -> Bool {
    self.bounds === bounds && builtAt == times.view.flow.builtAt
      && minute == Self.minute(of: departure) && usesTraffic == times.usesTraffic
      && closures == times.closures && avoided == times.excluded?.features ?? []
  }

  /// Whether these weights may answer for `times` while its own are customised: same bounds
  /// and options, a snapshot and departure at most ``RoutingEngine/tableWeightsTolerance``
  /// away.
  func isCloseEnough(_ times: TravelTimes, bounds: RoutingBounds, departure: Date) -> Bool {
    let tolerance = RoutingEngine.tableWeightsTolerance
    return self.bounds === bounds && usesTraffic == times.usesTraffic
      && closures == times.closures && avoided == times.excluded?.features ?? []
      && abs(times.view.flow.builtAt.timeIntervalSince(builtAt)) <= tolerance
      && abs(departure.timeIntervalSince(self.departure)) <= tolerance
  }

  private struct SendableAddress: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Double>?
  }
}

extension RoutingEngine {
  /// The latest table weights of each set of avoided features (none: the plain weights,
  /// which requests without avoidance alone read and which a set's weights never replace),
  /// and the sets whose customisation is under way.
  struct TableWeightsState {
    var weights: [Set<RoadFeature>: TableWeights] = [:]
    var building: Set<Set<RoadFeature>> = []

    /// The plain weights.
    var current: TableWeights? { weights[[]] }

    /// Keeps `made`, dropping the oldest weights of other avoided features beyond
    /// ``RoutingEngine/avoidingTableWeightsLimit`` (each a hierarchy's worth of arrays).
    mutating func keep(_ made: TableWeights) {
      weights[made.avoided] = made
      let avoiding = weights.filter { !$0.key.isEmpty }
      if avoiding.count > RoutingEngine.avoidingTableWeightsLimit,
        let oldest = avoiding.min(by: { $0.value.finishedUptime < $1.value.finishedUptime })
      {
        weights[oldest.key] = nil
      }
    }
  }

  /// At most this many sets of avoided features keep their table weights besides the plain
  /// ones.
  static let avoidingTableWeightsLimit = 2

  /// Table weights this close (seconds of flow snapshot and of departure) to a table's own
  /// answer for it on a large network while its own are customised in the background.
  static let tableWeightsTolerance = 300.0

  /// How long the latest table weights took to customise, seconds (`nil`: none yet).
  package var tableWeightsBuildSeconds: Double? {
    tableWeightsState.withLock { $0.current?.buildSeconds }
  }

  /// The weights of a table driven under `times` (departing at `departure`) on `bounds`:
  /// the cached ones when they fit; on a network of up to ``synchronousBoundsLimit``
  /// segments customised now; on a larger one, cached weights close enough
  /// (``TableWeights/isCloseEnough(_:bounds:departure:)``) while the new ones are
  /// customised in the background, else customised now.
  ///
  /// - Parameter backgroundFrom: Networks of more segments than this are customised in the
  ///   background when close-enough weights are cached (tests lower it).
  func tableWeights(
    times: TravelTimes, bounds: RoutingBounds, departure: Date,
    backgroundFrom: Int = synchronousBoundsLimit
  ) -> TableWeights {
    let key = times.excluded?.features ?? []
    let (current, building) = tableWeightsState.withLock {
      ($0.weights[key], $0.building.contains(key))
    }
    if let current, current.fits(times, bounds: bounds, departure: departure) { return current }
    if times.view.network.segments.count > backgroundFrom, let current,
      current.isCloseEnough(times, bounds: bounds, departure: departure)
    {
      if !building { customiseInBackground(times: times, bounds: bounds, departure: departure) }
      return current
    }
    let made = TableWeights(times: times, bounds: bounds, departure: departure)
    tableWeightsState.withLock { $0.keep(made) }
    return made
  }

  private func customiseInBackground(
    times: TravelTimes, bounds: RoutingBounds, departure: Date
  ) {
    let key = times.excluded?.features ?? []
    let starts = tableWeightsState.withLock { state -> Bool in
      state.building.insert(key).inserted
    }
    guard starts else { return }
    DispatchQueue.global(qos: .utility).async {
      let made = TableWeights(times: times, bounds: bounds, departure: departure)
      self.tableWeightsState.withLock { state in
        // Unless weights of a newer snapshot were customised meanwhile (on the query's
        // thread, none being close enough).
        if (state.weights[key]?.builtAt ?? .distantPast) <= made.builtAt { state.keep(made) }
        state.building.remove(key)
      }
    }
  }

  /// The rows of a table by the bucket search on `weights`: each origin's snaps start at
  /// their segments' ends after the rest of the segment, each destination's are reached at
  /// their segments' starts plus the part before them; a destination further along an
  /// origin's own segment is reached along it.
  func bucketRows(
    sources: [[Snap]], targets: [[Snap]], times: TravelTimes, weights: TableWeights
  ) -> [[RouteSearch.Reached?]] {
    let segments = times.view.network.segments
    let records = times.segments.records
    // The targets' open snaps by segment, for the ways along one segment.
    var waiting: [Int: [(target: Int, offset: Double)]] = [:]
    let targetSeeds = targets.enumerated().map { index, snaps in
      snaps.compactMap { snap -> BucketTable.Seed? in
        guard let seconds = times.seconds(snap.segmentID, meters: snap.offsetInMeters) else {
          return nil
        }
        waiting[snap.segmentID, default: []].append((index, snap.offsetInMeters))
        return BucketTable.Seed(
          node: segments[snap.segmentID].fromNode, seconds: seconds,
          meters: snap.offsetInMeters)
      }
    }
    var direct = [[RouteSearch.Reached?]](
      repeating: [RouteSearch.Reached?](repeating: nil, count: targets.count),
      count: sources.count)
    let sourceSeeds = sources.enumerated().map { index, snaps in
      snaps.compactMap { snap -> BucketTable.Seed? in
        for (target, offset) in waiting[snap.segmentID] ?? [] where offset >= snap.offsetInMeters {
          let meters = offset - snap.offsetInMeters
          guard let seconds = times.seconds(snap.segmentID, meters: meters),
            seconds < direct[index][target]?.seconds ?? .infinity
          else { continue }
          direct[index][target] = RouteSearch.Reached(seconds: seconds, meters: meters)
        }
        let rest = max(0, records[snap.segmentID].length - snap.offsetInMeters)
        guard let seconds = times.seconds(snap.segmentID, meters: rest) else { return nil }
        return BucketTable.Seed(
          node: Int(records[snap.segmentID].toNode), seconds: seconds, meters: rest)
      }
    }
    return BucketTable.table(
      sources: sourceSeeds, targets: targetSeeds, direct: direct,
      hierarchy: weights.bounds.hierarchy, metric: weights.metric)
  }
}

/// How a travel-time matrix searches its cells.
package enum MatrixMethod: Sendable {
  /// The bucket search on large tables (``RoutingEngine/usesBuckets(origins:segments:)``),
  /// the time-dependent search per origin on the others.
  case automatic
  /// One time-dependent search per origin (exact: the routes' times).
  case exact
  /// The bucket search on the hierarchy customised at the departure (once it is built).
  case buckets
}

extension RoutingEngine {
  /// Tables of at least this many origins × network segments use the bucket search. The
  /// time-dependent search per origin settles up to the whole network for each: measured
  /// 0.29 µs per origin and segment on 2 cores (100 x 100 on the 2,161,720-segment region
  /// in 62.8 s, docs/performance.md "Travel-time tables"), so from here on a table would
  /// take over half a second that way. 100 x 100 on Liechtenstein (5,391 segments) stays
  /// exact; any table on the region uses buckets.
  static let bucketTableWork = 2_000_000
  /// From this many origins a bucket table waits for the routing hierarchy being built
  /// rather than search each origin on its own meanwhile: the build took 1.8-3.1 µs per
  /// segment (3.9-6.7 s on the region), the search 0.29 µs per segment and origin.
  static let originsWorthTheHierarchy = 12

  /// Whether a table of `origins` rows on a network of `segments` uses the bucket search.
  static func usesBuckets(origins: Int, segments: Int) -> Bool {
    origins * segments >= bucketTableWork
  }

  /// The bounds of `view` for a bucket table of `origins` rows: as ``bounds(for:)``, but
  /// waiting for the build under way (or starting it now) for a table of at least
  /// ``originsWorthTheHierarchy`` origins.
  func bucketBounds(for view: RoutingView, origins: Int) -> RoutingBounds? {
    if let ready = bounds(for: view) { return ready }
    guard origins >= Self.originsWorthTheHierarchy else { return nil }
    // `bounds(for:)` started the build: it is waited for.
    while true {
      let (current, building) = boundsState.withLock { ($0.current, $0.building) }
      if let current, current.fits(view) { return current }
      guard building else { return bounds(for: view) }
      Thread.sleep(forTimeInterval: 0.02)
    }
  }
}
