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
struct TravelTimes {
  let view: RoutingView
  /// Whether live speeds count (else free-flow speeds).
  let usesLiveSpeeds: Bool
  /// Whether closed segments are left out.
  let avoidsClosures: Bool
  /// Extra factors for segments an earlier route used (alternatives).
  var penalties: [Int: Double] = [:]

  /// Seconds to drive `meters` of a segment, `nil` when it is closed and closures are
  /// avoided.
  func seconds(_ segmentID: Int, meters: Double) -> Double? {
    guard let speed = speed(segmentID) else { return nil }
    return meters / speed * (penalties[segmentID] ?? 1)
  }

  /// The speed a segment is driven at, m/s; `nil` when closed (and closures are avoided).
  ///
  /// The same values as the segment's `TrafficFlow` (`FlowSnapshot.flow(of:)`), read
  /// straight from the snapshot's tables: a search asks for thousands of segments.
  func speed(_ segmentID: Int) -> Double? {
    let flow = view.flow
    let limit = view.network.segments[segmentID].speedLimitInMetersPerSecond
    let free = flow.freeFlow[segmentID] ?? limit
    let live = flow.live[segmentID]
    let blocked = live?.blocked == true || flow.closed.contains(segmentID)
    let closed = blocked || (usesLiveSpeeds && (live?.speedUncapped ?? free) <= 0)
    if closed, avoidsClosures { return nil }
    let speed = usesLiveSpeeds && !closed ? (live?.speedUncapped ?? free) : free
    if speed > 0 { return speed }
    return limit > 0 ? limit : nil
  }
}

/// One leg found by the search: the segments driven, from the source offset on the first to
/// the target offset on the last, and its seconds under the options.
struct Leg: Hashable, Sendable {
  var segmentIDs: [Int]
  var startOffsetInMeters: Double
  var endOffsetInMeters: Double
  var seconds: Double
}

/// Reusable per-segment arrays of A* runs, reset through the list of entries touched.
final class SearchScratch: @unchecked Sendable {
  var cost: [Double]
  var parent: [Int32]
  var touched: [Int32] = []

  init(segmentCount: Int) {
    cost = [Double](repeating: .infinity, count: segmentCount)
    parent = [Int32](repeating: -1, count: segmentCount)
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
/// The heuristic is the straight-line distance from a segment's end to the target divided
/// by the fastest speed any segment may be driven at, scaled down by 2 % for the error of the
/// local distance approximation, so it never overestimates and the route found is the
/// fastest.
enum RouteSearch {
  /// The fastest leg from one of `sources` to one of `targets`, or `nil` when none exists.
  static func fastest(
    from sources: [Snap], to targets: [Snap], times: TravelTimes, fastestSpeed: Double,
    scratch: SearchScratch
  ) -> Leg? {
    let network = times.view.network
    let graph = times.view.graph
    let targetPoint = targets[0].point
    let inverseSpeed = 0.98 / max(fastestSpeed, 1)
    scratch.reset()
    defer { scratch.reset() }
    var heap = Heap<CostedItem>()
    var best: Leg?

    func heuristic(_ segmentID: Int) -> Double {
      let end = network.nodes[network.segments[segmentID].toNode].coordinates
      return end.fastDistance(to: targetPoint) * inverseSpeed
    }
    // Targets by segment, with the seconds from the segment's start to the target.
    var targetsBySegment: [Int: [(offset: Double, seconds: Double)]] = [:]
    for target in targets {
      guard let seconds = times.seconds(target.segmentID, meters: target.offsetInMeters) else {
        continue
      }
      targetsBySegment[target.segmentID, default: []].append((target.offsetInMeters, seconds))
    }
    for source in sources {
      let length = network.segments[source.segmentID].lengthInMeters
      // A target further along the same segment.
      for target in targetsBySegment[source.segmentID] ?? []
      where target.offset >= source.offsetInMeters {
        if let seconds = times.seconds(
          source.segmentID, meters: target.offset - source.offsetInMeters),
          seconds < best?.seconds ?? .infinity
        {
          best = Leg(
            segmentIDs: [source.segmentID], startOffsetInMeters: source.offsetInMeters,
            endOffsetInMeters: target.offset, seconds: seconds)
        }
      }
      guard
        let seconds = times.seconds(
          source.segmentID, meters: max(0, length - source.offsetInMeters)),
        seconds < scratch.cost[source.segmentID]
      else { continue }
      if scratch.cost[source.segmentID] == .infinity {
        scratch.touched.append(Int32(source.segmentID))
      }
      scratch.cost[source.segmentID] = seconds
      scratch.parent[source.segmentID] = -1
      heap.insert(CostedItem(cost: seconds + heuristic(source.segmentID), item: source.segmentID))
    }
    var starts: [Int: Double] = [:]
    for source in sources { starts[source.segmentID] = source.offsetInMeters }

    while let entry = heap.popFirst() {
      if let best, entry.cost >= best.seconds { break }
      let segment = entry.item
      let cost = scratch.cost[segment]
      // A stale entry: the segment was reached more cheaply since.
      guard entry.cost <= cost + heuristic(segment) + 1e-9 else { continue }
      let range =
        Int(graph.successorOffsets[segment])..<Int(graph.successorOffsets[segment + 1])
      for k in range {
        let next = Int(graph.successors[k])
        if let waiting = targetsBySegment[next] {
          for target in waiting where cost + target.seconds < best?.seconds ?? .infinity {
            let driven = path(to: segment, scratch: scratch)
            best = Leg(
              segmentIDs: driven + [next], startOffsetInMeters: starts[driven[0]] ?? 0,
              endOffsetInMeters: target.offset, seconds: cost + target.seconds)
          }
        }
        guard let seconds = times.seconds(next, meters: network.segments[next].lengthInMeters)
        else { continue }
        let total = cost + seconds
        guard total < scratch.cost[next] else { continue }
        if scratch.cost[next] == .infinity { scratch.touched.append(Int32(next)) }
        scratch.cost[next] = total
        scratch.parent[next] = Int32(segment)
        heap.insert(CostedItem(cost: total + heuristic(next), item: next))
      }
    }
    return best
  }

  /// The segments from a start to `segment`, in driving order.
  static func path(to segment: Int, scratch: SearchScratch) -> [Int] {
    var path: [Int] = []
    var current = segment
    while current >= 0 {
      path.append(current)
      current = Int(scratch.parent[current])
    }
    return path.reversed()
  }
}
