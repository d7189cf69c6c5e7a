import Codec
import Roads
import Traffic

extension RouteSearch {
  /// What a one-to-many search found for one target: the least seconds and the meters of
  /// the way that takes them.
  struct Reached: Hashable, Sendable {
    var seconds: Double
    var meters: Double
  }

  /// The fastest way from one of `sources` to each target (one of its snaps), or `nil` for a
  /// target out of reach: a time-dependent Dijkstra over the segments (each driven at its
  /// speed at the time it is reached; the turn rules and closures of `fastest`) that stops
  /// once every target is settled.
  ///
  /// The partial first and last segments count as in `fastest`: a target further along a
  /// source's own segment is reached on it; the way across a junction that a network leaves
  /// out of its segments takes time at the next segment's speed and counts its meters, as a
  /// route's duration and length do.
  ///
  /// - Parameters:
  ///   - targets: The snaps of each target.
  ///   - junctionGaps: Whether the network has ways across junctions (else they are not
  ///     looked up: 0 everywhere).
  static func fastestToEach(
    from sources: [Snap], to targets: [[Snap]], times: TravelTimes, junctionGaps: Bool = true,
    scratch: SearchScratch
  ) -> [Reached?] {
    let network = times.view.network
    let graph = times.view.graph
    scratch.reset()
    // The arrays are taken out of the scratch object for the search, as in `fastest`.
    var cost: [Double] = []
    var meters: [Double] = []
    var touched: [Int32] = []
    swap(&cost, &scratch.cost)
    swap(&meters, &scratch.meters)
    swap(&touched, &scratch.touched)
    defer {
      scratch.lastReachedCount = touched.count
      swap(&cost, &scratch.cost)
      swap(&meters, &scratch.meters)
      swap(&touched, &scratch.touched)
      scratch.reset()
    }
    var best = [Reached?](repeating: nil, count: targets.count)
    // The targets waiting on each segment: which one, and the meters from the segment's
    // start (open segments only when closures are avoided).
    var waiting: [Int: [(target: Int, offset: Double)]] = [:]
    var reachable = Set<Int>()
    for (index, snaps) in targets.enumerated() {
      for snap in snaps where times.speed(snap.segmentID) != nil {
        waiting[snap.segmentID, default: []].append((index, snap.offsetInMeters))
        reachable.insert(index)
      }
    }
    // No target on an open road: nothing to search for.
    guard !reachable.isEmpty else { return best }
    // The least seconds within which every target that may be reached has been: ∞ until
    // each has a way.
    var settledBelow = Double.infinity
    func offer(_ target: Int, seconds: Double, meters: Double) {
      guard seconds < best[target]?.seconds ?? .infinity else { return }
      best[target] = Reached(seconds: seconds, meters: meters)
      var worst = 0.0
      for index in reachable {
        guard let known = best[index] else { return }
        worst = max(worst, known.seconds)
      }
      settledBelow = worst
    }
    let records = times.segments.records
    var heap = Heap<Entry>()
    for source in sources {
      let length = records[source.segmentID].length
      for (target, offset) in waiting[source.segmentID] ?? [] where offset >= source.offsetInMeters
      {
        if let seconds = times.seconds(source.segmentID, meters: offset - source.offsetInMeters) {
          offer(target, seconds: seconds, meters: offset - source.offsetInMeters)
        }
      }
      guard
        let seconds = times.seconds(
          source.segmentID, meters: max(0, length - source.offsetInMeters)),
        seconds < cost[source.segmentID]
      else { continue }
      if cost[source.segmentID] == .infinity { touched.append(Int32(source.segmentID)) }
      cost[source.segmentID] = seconds
      meters[source.segmentID] = max(0, length - source.offsetInMeters)
      heap.insert(Entry(key: seconds, reached: seconds, segment: Int32(source.segmentID)))
    }

    while let entry = heap.popFirst() {
      if entry.key >= settledBelow { break }
      let segment = Int(entry.segment)
      let reached = cost[segment]
      // A stale entry: the segment was reached more cheaply since.
      guard entry.reached <= reached else { continue }
      let driven = meters[segment]
      let range =
        Int(graph.successorOffsets[segment])..<Int(graph.successorOffsets[segment + 1])
      for k in range {
        let next = Int(graph.successors[k])
        if times.isTurnClosed(from: segment, to: next) { continue }
        let gap = junctionGaps ? network.junctionGap(from: segment, to: next) : 0
        if let here = waiting[next] {
          for (target, offset) in here {
            guard let seconds = times.seconds(next, meters: offset + gap, after: reached)
            else { continue }
            offer(target, seconds: reached + seconds, meters: driven + gap + offset)
          }
        }
        let length = records[next].length
        guard let seconds = times.seconds(next, meters: length + gap, after: reached)
        else { continue }
        let total = reached + seconds
        guard total < cost[next] else { continue }
        if cost[next] == .infinity { touched.append(Int32(next)) }
        cost[next] = total
        meters[next] = driven + gap + length
        heap.insert(Entry(key: total, reached: total, segment: Int32(next)))
      }
    }
    return best
  }
}
