import Codec
import Foundation
import Geo
import Roads
import Synchronization
import Traffic

/// Where a waypoint meets the road network: a segment and the meters from its start.
struct Snap: Hashable, Sendable {
  var segmentID: Int
  var offsetInMeters: Double
  var point: GeoCoordinates
  var distanceInMeters: Double
}

/// The seconds each segment takes under the options, read from one routing view.
///
/// Time-dependent (`usesTraffic`): a segment entered `t` seconds after now is driven at
/// its live speed while `t` is within ``liveHorizon`` (15 minutes), at its typical speed for
/// the time of the week it is entered from ``typicalHorizon`` (an hour) on, and in between
/// at a blend of the two (paces weighted linearly); a segment without a typical week
/// counts its free flow as typical. Without traffic: free flow (learned, else the limit).
struct TravelTimes {
  /// Live speeds count fully this long after now, seconds.
  static let liveHorizon = 900.0
  /// Live speeds no longer count this long after now, seconds.
  static let typicalHorizon = 3_600.0

  /// Which closures a route leaves out.
  enum Closures: Sendable {
    /// None: closed roads are driven at free flow.
    case ignored
    /// Those of long-term closures (more than a day; HERE's planning mode).
    case longTerm
    /// All: closure incidents, closed junctions and feeds' blockages.
    case all
  }

  let view: RoutingView
  /// Whether live and typical speeds count (else free-flow speeds).
  let usesTraffic: Bool
  /// Which closed segments and turns are left out.
  let closures: Closures
  /// Whether every open segment is driven at 1 m/s, so that a search minimises meters
  /// (`RouteOptions.RoutingMode.short`); durations come from times without it.
  var measuresDistance = false
  /// Seconds from the view's now to the departure (negative for a departure in the past).
  let departureOffset: Double
  /// The typical week's bin of the departure and the seconds into it.
  let departureBin: Int
  let departurePhase: Double
  /// Extra factors for segments an earlier route used (alternatives).
  var penalties: [Int: Double] = [:]
  /// Seconds from the departure to the start of the leg being searched.
  var legStart = 0.0
  /// The segments never driven (``RouteOptions/avoidedFeatures``); `nil`: none.
  var excluded: ExcludedSegments?
  /// The segments' lengths, limits and caps (with ``RoutingBounds``, their bound speeds, which
  /// must never be exceeded for the bounds to hold).
  let segments: SegmentTable

  init(
    view: RoutingView, departure: Date, usesTraffic: Bool, closures: Closures,
    segments: SegmentTable? = nil
  ) {
    self.view = view
    self.segments = segments ?? SegmentTable(network: view.network)
    self.usesTraffic = usesTraffic
    self.closures = closures
    departureOffset = departure.timeIntervalSince(view.now)
    if let clock = view.flow.typical?.clock {
      departureBin = clock.bin(for: departure)
      let offset = clock.timeZone.secondsFromGMT(for: departure)
      let local = departure.timeIntervalSince1970 + Double(offset)
      departurePhase = local - (local / 300).rounded(.down) * 300
    } else {
      departureBin = 0
      departurePhase = 0
    }
  }

  /// Seconds to drive `meters` of a segment entered `elapsed` seconds after the leg's
  /// start, `nil` when it is closed and closures are avoided.
  func seconds(_ segmentID: Int, meters: Double, after elapsed: Double = 0) -> Double? {
    guard let speed = speed(segmentID, after: elapsed) else { return nil }
    if penalties.isEmpty { return meters / speed }
    return meters / speed * (penalties[segmentID] ?? 1)
  }

  /// Whether the turn from `segment` into `next` is closed (a closed junction of an
  /// incident's stretch) and such closures are avoided.
  @inline(__always) func isTurnClosed(from segment: Int, to next: Int) -> Bool {
    let turns: Set<UInt64>
    switch closures {
    case .ignored: return false
    case .longTerm: turns = view.flow.longTermClosedTurns
    case .all: turns = view.flow.closedTurns
    }
    return !turns.isEmpty && turns.contains(FlowSnapshot.turnKey(from: segment, to: next))
  }

  /// Whether an incident closes the segment and such closures are avoided.
  @inline(__always) private func isClosedByIncident(_ segmentID: Int) -> Bool {
    let closed: Set<Int>
    switch closures {
    case .ignored: return false
    case .longTerm: closed = view.flow.longTermClosed
    case .all: closed = view.flow.closed
    }
    return !closed.isEmpty && closed.contains(segmentID)
  }

  /// How much live speeds count at `t` seconds after now: 1 up to ``liveHorizon``, 0 from
  /// ``typicalHorizon``, linear between.
  static func liveWeight(_ t: Double) -> Double {
    if t <= liveHorizon { return 1 }
    if t >= typicalHorizon { return 0 }
    return (typicalHorizon - t) / (typicalHorizon - liveHorizon)
  }

  /// The speed a segment entered `elapsed` seconds after the leg's start is driven at, m/s;
  /// `nil` when closed (and closures are avoided), not open to cars, or excluded.
  ///
  /// Read straight from the snapshot's tables (a search asks for thousands of segments);
  /// at the snapshot's own time the same values as its `TrafficFlow`, up to the segment's
  /// cap.
  func speed(_ segmentID: Int, after elapsed: Double = 0) -> Double? {
    let record = segments.records[segmentID]
    // A car route never takes a road closed to cars (a bus or delivery road): cap 0.
    guard record.cap > 0, excluded?.contains(segmentID) != true,
      let speed = uncappedSpeed(segmentID, limit: record.limit, after: elapsed)
    else { return nil }
    return measuresDistance ? 1 : min(speed, Double(record.cap))
  }

  private func uncappedSpeed(_ segmentID: Int, limit: Double, after elapsed: Double) -> Double? {
    let flow = view.flow
    // The tables are looked up only when they hold anything (most are empty most of the
    // time, and a lookup hashes even then).
    let free = flow.freeFlow.isEmpty ? limit : flow.freeFlow[segmentID] ?? limit
    let fallback = free > 0 ? free : (limit > 0 ? limit : nil)
    // Closed and avoided: left out. A feed's blockage (jam factor 10) is live traffic, so
    // it counts only when all closures do.
    if isClosedByIncident(segmentID) { return nil }
    let live = flow.live.isEmpty ? nil : flow.live[segmentID]
    guard usesTraffic else {
      if closures == .all, live?.blocked == true { return nil }
      return fallback
    }
    let since = legStart + elapsed
    let weight = TravelTimes.liveWeight(departureOffset + since)
    // Live data alone decides: the typical week need not be looked up.
    if let live, weight >= 1, !live.blocked {
      let moving = max(live.speedUncapped, FlowSnapshot.crawlSpeedInMetersPerSecond)
      if moving > 0 { return moving }
    }
    var typical = free
    if let known = flow.typical?.typical(
      segmentID, atBin: departureBin + Int((departurePhase + max(0, since)) / 300),
      today: flow.typicalToday)
    {
      typical = known.speed
    }
    var speed = typical
    var closed = false
    if let live, weight > 0 {
      // A standstill of the probes is a queue that has not moved within the window, not a
      // closure: it is driven at a crawl (a blocked road, jam factor 10, is closed).
      let moving = max(live.speedUncapped, FlowSnapshot.crawlSpeedInMetersPerSecond)
      if live.blocked {
        // A blockage counts while live data decides (the first half hour).
        if weight >= 0.5 { closed = true }
      } else if weight >= 1 || typical <= 0 {
        speed = moving
      } else {
        speed = 1 / (weight / moving + (1 - weight) / typical)
      }
    }
    if closed {
      if closures == .all { return nil }
      return fallback
    }
    return speed > 0 ? speed : fallback
  }

  /// Seconds to drive `meters` of a segment at its typical speed for the time of the week
  /// it is entered, `elapsed` seconds after the departure; `nil` when it has no typical week.
  func typicalSeconds(_ segmentID: Int, meters: Double, after elapsed: Double) -> Double? {
    guard
      let known = view.flow.typical?.typical(
        segmentID, atBin: departureBin + Int((departurePhase + max(0, elapsed)) / 300),
        today: view.flow.typicalToday), known.speed > 0
    else { return nil }
    return meters / known.speed
  }
}

/// One leg found by the search: the segments driven, from the source offset on the first to
/// the target offset on the last, and its seconds under the options.
struct Leg: Hashable, Sendable {
  var segmentIDs: [Int]
  var startOffsetInMeters: Double
  var endOffsetInMeters: Double
  var seconds: Double

  /// The stretches driven: each segment whole but the first (from the start offset) and the
  /// last (to the end offset).
  func pieces(in network: RoadNetwork) -> [FlowIndex.Piece] {
    segmentIDs.enumerated().map { index, segment in
      FlowIndex.Piece(
        segmentID: segment, startOffsetInMeters: index == 0 ? startOffsetInMeters : 0,
        endOffsetInMeters: index == segmentIDs.count - 1
          ? endOffsetInMeters : network.segments[segment].lengthInMeters)
    }
  }
}

/// Reusable per-segment arrays of A* runs, reset through the list of entries touched.
final class SearchScratch: @unchecked Sendable {
  var cost: [Double]
  var parent: [Int32]
  /// Meters driven to each segment's end (one-to-many searches; valid where `cost` is finite,
  /// so never reset).
  var meters: [Double]
  var touched: [Int32] = []
  /// Segments the last search reached (its work, for tests and measurements).
  var lastReachedCount = 0
  /// The hierarchy potentials' arrays, made on first use.
  private var hierarchyScratch: BoundHierarchy.Scratch?

  func hierarchy(nodeCount: Int) -> BoundHierarchy.Scratch {
    if let made = hierarchyScratch, made.potential.count == nodeCount { return made }
    let made = BoundHierarchy.Scratch(nodeCount: nodeCount)
    hierarchyScratch = made
    return made
  }

  init(segmentCount: Int) {
    cost = [Double](repeating: .infinity, count: segmentCount)
    parent = [Int32](repeating: -1, count: segmentCount)
    meters = [Double](repeating: 0, count: segmentCount)
  }

  func reset() {
    for segment in touched {
      cost[Int(segment)] = .infinity
      parent[Int(segment)] = -1
    }
    touched.removeAll(keepingCapacity: true)
  }
}

/// A* over the segments of a network (an edge-based graph, so turns follow the network's
/// turn rules: no U-turn except at a dead end), minimising seconds.
///
/// The heuristic is a lower bound of the seconds left: when the network's ``RoutingBounds``
/// are built, the least seconds from a segment's end to the target at bound speeds, from
/// their contraction hierarchy (∞ proves the target out of reach); before, the straight-line
/// distance to the target divided by the fastest speed any segment may be driven at (scaled
/// down by 2 % for the error of the local distance approximation). Neither overestimates,
/// so the route found is the fastest.
enum RouteSearch {
  /// One queue entry: the segment, the seconds it was reached in and those plus the bound.
  struct Entry: Comparable {
    var key: Double
    var reached: Double
    var segment: Int32
    static func < (a: Entry, b: Entry) -> Bool { a.key < b.key }
  }

  /// The fastest leg from one of `sources` to one of `targets`, or `nil` when none exists.
  static func fastest(
    from sources: [Snap], to targets: [Snap], times: TravelTimes, fastestSpeed: Double,
    bounds: RoutingBounds? = nil, scratch: SearchScratch
  ) -> Leg? {
    let network = times.view.network
    let graph = times.view.graph
    let targetPoint = targets[0].point
    let inverseSpeed = 0.98 / max(fastestSpeed, 1)
    scratch.reset()
    // The arrays are taken out of the scratch object for the search (and put back reset), so
    // that the hot loop indexes local arrays, without the class's exclusivity checks.
    var cost: [Double] = []
    var parent: [Int32] = []
    var touched: [Int32] = []
    swap(&cost, &scratch.cost)
    swap(&parent, &scratch.parent)
    swap(&touched, &scratch.touched)
    defer {
      scratch.lastReachedCount = touched.count
      swap(&cost, &scratch.cost)
      swap(&parent, &scratch.parent)
      swap(&touched, &scratch.touched)
      scratch.reset()
    }
    var heap = Heap<Entry>()
    var best: Leg?

    // Targets by segment, with the meters from the segment's start to the target (open
    // ones only when closures are avoided).
    var targetsBySegment: [Int: [Double]] = [:]
    for target in targets where times.speed(target.segmentID) != nil {
      targetsBySegment[target.segmentID, default: []].append(target.offsetInMeters)
    }
    // Looked up on every relaxation: a scan of a few entries, not a hash.
    let targetSegments = Array(targetsBySegment.keys)
    let targetNodes = Array(Set(targetsBySegment.keys.map { network.segments[$0].fromNode }))
      .sorted()
    let potential = bounds.flatMap { bounds -> BoundHierarchy.Query? in
      guard !targetNodes.isEmpty else { return nil }
      return bounds.potential(
        toward: targetNodes, scratch: scratch.hierarchy(nodeCount: network.nodes.count))
    }
    let records = times.segments.records
    func heuristic(_ segmentID: Int) -> Double {
      let end = Int(records[segmentID].toNode)
      if let potential {
        // The hierarchy sums the same seconds in another order: a billionth is given up
        // for the rounding.
        return potential.seconds(from: end) * (1 - 1e-9)
      }
      return network.nodes[end].coordinates.fastDistance(to: targetPoint) * inverseSpeed
    }
    for source in sources {
      let length = network.segments[source.segmentID].lengthInMeters
      // A target further along the same segment.
      for target in targetsBySegment[source.segmentID] ?? [] where target >= source.offsetInMeters {
        if let seconds = times.seconds(source.segmentID, meters: target - source.offsetInMeters),
          seconds < best?.seconds ?? .infinity
        {
          best = Leg(
            segmentIDs: [source.segmentID], startOffsetInMeters: source.offsetInMeters,
            endOffsetInMeters: target, seconds: seconds)
        }
      }
      guard
        let seconds = times.seconds(
          source.segmentID, meters: max(0, length - source.offsetInMeters)),
        seconds < cost[source.segmentID]
      else { continue }
      if cost[source.segmentID] == .infinity {
        touched.append(Int32(source.segmentID))
      }
      cost[source.segmentID] = seconds
      parent[source.segmentID] = -1
      let rest = heuristic(source.segmentID)
      guard rest.isFinite else { continue }
      heap.insert(Entry(key: seconds + rest, reached: seconds, segment: Int32(source.segmentID)))
    }
    var starts: [Int: Double] = [:]
    for source in sources { starts[source.segmentID] = source.offsetInMeters }

    while let entry = heap.popFirst() {
      if let best, entry.key >= best.seconds { break }
      let segment = Int(entry.segment)
      let reached = cost[segment]
      // A stale entry: the segment was reached more cheaply since.
      guard entry.reached <= reached else { continue }
      let range =
        Int(graph.successorOffsets[segment])..<Int(graph.successorOffsets[segment + 1])
      for k in range {
        let next = Int(graph.successors[k])
        if times.isTurnClosed(from: segment, to: next) { continue }
        if targetSegments.contains(next), let waiting = targetsBySegment[next] {
          for target in waiting {
            guard let seconds = times.seconds(next, meters: target, after: reached),
              reached + seconds < best?.seconds ?? .infinity
            else { continue }
            let driven = path(to: segment, parent: parent)
            best = Leg(
              segmentIDs: driven + [next], startOffsetInMeters: starts[driven[0]] ?? 0,
              endOffsetInMeters: target, seconds: reached + seconds)
          }
        }
        guard
          let seconds = times.seconds(
            next, meters: records[next].length, after: reached)
        else { continue }
        let total = reached + seconds
        guard total < cost[next] else { continue }
        let rest = heuristic(next)
        guard rest.isFinite else { continue }
        if cost[next] == .infinity { touched.append(Int32(next)) }
        cost[next] = total
        parent[next] = Int32(segment)
        heap.insert(Entry(key: total + rest, reached: total, segment: Int32(next)))
      }
    }
    return best
  }

  /// The segments from a start to `segment`, in driving order.
  static func path(to segment: Int, parent: [Int32]) -> [Int] {
    var path: [Int] = []
    var current = segment
    while current >= 0 {
      path.append(current)
      current = Int(parent[current])
    }
    return path.reversed()
  }
}
