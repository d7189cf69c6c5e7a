import Codec
import Foundation
import Geo

/// Hidden-Markov-model map matching: places GPS probes on the segments of a ``RoadNetwork``
/// (Newson & Krumm 2009, "Hidden Markov Map Matching Through Noise and Sparseness").
///
/// Each probe's candidates are the segments within ``MapMatchingOptions/searchRadiusInMeters``
/// (found in the network's R-tree). A candidate's emission log-probability is Gaussian in
/// its distance from the probe (sigma: the probe's accuracy, else
/// ``MapMatchingOptions/gpsSigmaInMeters``), plus a Gaussian penalty on the angle between
/// the probe's heading and the segment's bearing when the vehicle moves — which also
/// separates the two directions of a road and keeps one-way streets one way. A transition's
/// log-probability is exponential in |great-circle distance − route distance| (scale
/// ``MapMatchingOptions/transitionBetaInMeters``), route distances coming from bounded
/// one-to-many Dijkstra searches over the segment graph (U-turns only at dead ends, as in
/// ``RoutingGraph``). The Viterbi algorithm then picks the most likely sequence.
///
/// The matcher itself is immutable and shareable; ``StreamingMapMatcher`` runs it
/// incrementally over probe streams, and ``match(_:vehicleID:)`` matches one whole trace.
public struct MapMatcher: Sendable {
  /// The network matched to.
  public let network: RoadNetwork
  /// The matching parameters.
  public let options: MapMatchingOptions
  /// The turn successors and vertex offsets of the network, shared by matchers on it.
  package let graph: MatchingGraph

  /// Prepares matching on a network: the turn graph and per-vertex offsets.
  ///
  /// - Parameters:
  ///   - network: the road network.
  ///   - options: the matching parameters.
  /// - Throws: ``RoadsError/invalidArgument(_:)`` for options out of range.
  /// - Complexity: O(m + v) for m segments of v vertices in total.
  public init(
    network: RoadNetwork, options: MapMatchingOptions = MapMatchingOptions()
  )
    throws(RoadsError)
  {
    try options.validate()
    self.init(network: network, validatedOptions: options)
  }

  /// Prepares matching with options already validated (``MapMatchingOptions/validate()``).
  package init(network: RoadNetwork, validatedOptions options: MapMatchingOptions) {
    self.init(graph: MatchingGraph(network: network), network: network, validatedOptions: options)
  }

  /// Matching on a network whose `graph` is already built (shared with other matchers).
  package init(
    graph: MatchingGraph, network: RoadNetwork, validatedOptions options: MapMatchingOptions
  ) {
    self.network = network
    self.options = options
    self.graph = graph
  }

  /// A segment near a probe, with the emission log-probability of the probe being there.
  struct Candidate: Sendable {
    var segmentID: Int
    var offsetInMeters: Double
    var distanceInMeters: Double
    var coordinates: GeoCoordinates
    /// Bearing of the segment at the candidate, degrees clockwise from north.
    var bearing: Double
    var emission: Double
  }

  /// The candidates of a probe: segments within the search radius, nearest first, at most
  /// ``MapMatchingOptions/maxCandidates``.
  ///
  /// Distances are measured in a local plane centred on the probe (below 0.1 % error within
  /// the radius); offsets along segments use the geodesic vertex offsets.
  ///
  /// - Complexity: O(log n + k·v) for k segments whose boxes meet the search box.
  func candidates(for probe: ProbePoint) -> [Candidate] {
    let sigma = probe.accuracyInMeters.map { min(max($0, 1), 100) } ?? options.gpsSigmaInMeters
    let radius = max(options.searchRadiusInMeters, min(3 * sigma, 200))
    let center = probe.coordinates
    let box = GeoBox(
      uncheckedWest: center.longitude, south: center.latitude, east: center.longitude,
      north: center.latitude
    ).expandedUnchecked(byMeters: radius)
    let plane = LocalPlane(origin: center)
    var found: [Candidate] = []
    let useHeading: Bool = {
      guard let heading = probe.headingInDegrees, heading.isFinite else { return false }
      guard let speed = probe.speedInMetersPerSecond else { return true }
      return speed >= options.minimumSpeedForHeadingInMetersPerSecond
    }()
    for query in RTreeBox.covering(box) {
      network.index.visit(intersecting: query) { id, _ in
        let vertices = network.segments[id].geometry.vertices
        var best = (distance: Double.infinity, index: 0, t: 0.0, dx: 0.0, dy: 0.0)
        var previous = plane.project(vertices[0])
        for i in 1..<vertices.count {
          let next = plane.project(vertices[i])
          let dx = next.x - previous.x, dy = next.y - previous.y
          let squared = dx * dx + dy * dy
          let t = squared > 0 ? min(1, max(0, -(previous.x * dx + previous.y * dy) / squared)) : 0
          let px = previous.x + t * dx, py = previous.y + t * dy
          let distance = (px * px + py * py).squareRoot()
          if distance < best.distance { best = (distance, i - 1, t, dx, dy) }
          previous = next
        }
        guard best.distance <= radius else { return true }
        let start = graph.alongStarts[id] + best.index
        let offset =
          graph.along[start] + best.t * (graph.along[start + 1] - graph.along[start])
        let a = vertices[best.index], b = vertices[best.index + 1]
        let point =
          best.t <= 0
          ? a
          : best.t >= 1
            ? b
            : GeoCoordinates(
              uncheckedLatitude: a.latitude + best.t * (b.latitude - a.latitude),
              longitude: a.longitude + best.t * (b.longitude - a.longitude), altitude: nil)
        var bearing = atan2(best.dx, best.dy) * 180 / .pi
        if bearing < 0 { bearing += 360 }
        var emission = -0.5 * (best.distance / sigma) * (best.distance / sigma)
        if useHeading, let heading = probe.headingInDegrees {
          let difference = MapMatcher.angleBetween(heading, bearing)
          let z = difference / options.headingSigmaInDegrees
          emission -= 0.5 * z * z
        }
        found.append(
          Candidate(
            segmentID: id,
            offsetInMeters: min(max(offset, 0), graph.along[graph.alongStarts[id + 1] - 1]),
            distanceInMeters: best.distance, coordinates: point, bearing: bearing,
            emission: emission))
        return true
      }
    }
    found.sort { ($0.emission, $1.segmentID) > ($1.emission, $0.segmentID) }
    if found.count > options.maxCandidates { found.removeSubrange(options.maxCandidates...) }
    return found
  }

  /// The absolute difference of two bearings, 0...180 degrees.
  static func angleBetween(_ a: Double, _ b: Double) -> Double {
    let difference = abs((a - b).truncatingRemainder(dividingBy: 360))
    return difference > 180 ? 360 - difference : difference
  }

  /// Matches one complete trace of a vehicle (probes in time order).
  ///
  /// - Parameters:
  ///   - probes: the vehicle's probes, oldest first.
  ///   - vehicleID: the vehicle's identifier, copied into the results.
  /// - Returns: the matched points, in time order; probes without candidates, too close to
  ///   their predecessor, or out of time order are left out.
  /// - Complexity: O(n·k·s log s) for n probes, k candidates each, and s segments reached by
  ///   each bounded route search.
  public func match(_ probes: [ProbePoint], vehicleID: String = "") -> [MatchedPoint] {
    var scratch = RouteScratch(segmentCount: network.segments.count)
    var track = VehicleTrack()
    var output: [MatchedPoint] = []
    for probe in probes {
      track.add(probe, vehicleID: vehicleID, matcher: self, scratch: &scratch, into: &output)
    }
    track.flush(
      vehicleID: vehicleID, network: network, sigma: options.gpsSigmaInMeters, into: &output)
    return output
  }
}

/// Reusable labels for the bounded route searches of map matching: arrays over all segments,
/// reset only where a search touched them.
struct RouteScratch: Sendable {
  var cost: [Double]
  var parent: [Int32]
  var touched: [Int32] = []
  var heap = Heap<CostedItem>()
  /// For each segment, the position in the current target list + 1 (0: not a target).
  var targetSlot: [Int32]

  init(segmentCount: Int) {
    cost = [Double](repeating: .infinity, count: segmentCount)
    parent = [Int32](repeating: -1, count: segmentCount)
    targetSlot = [Int32](repeating: 0, count: segmentCount)
  }

  mutating func reset() {
    for segment in touched {
      cost[Int(segment)] = .infinity
      parent[Int(segment)] = -1
    }
    touched.removeAll(keepingCapacity: true)
    heap = Heap<CostedItem>()
  }
}

extension MapMatcher {
  /// Route distances from the end of `source` to the start of each target segment: a
  /// Dijkstra search over segments (costs in meters, labels = cost to a segment's end)
  /// bounded by `limit`.
  ///
  /// - Returns: for each target segment, the cost to its start and the segment before it
  ///   on the shortest route (`nil` when beyond `limit` or unreachable). The labels stay in
  ///   `scratch` for ``path(from:to:scratch:)`` until the caller resets it.
  func searchToStarts(
    from source: Int, targets: [Int], limit: Double, scratch: inout RouteScratch
  ) -> [(cost: Double, predecessor: Int)?] {
    var results = [(cost: Double, predecessor: Int)?](repeating: nil, count: targets.count)
    for (i, target) in targets.enumerated() { scratch.targetSlot[target] = Int32(i + 1) }
    defer { for target in targets { scratch.targetSlot[target] = 0 } }
    var open = targets.count
    scratch.cost[source] = 0
    scratch.touched.append(Int32(source))
    scratch.heap.insert(CostedItem(cost: 0, item: source))
    while let entry = scratch.heap.popFirst() {
      let cost = entry.cost, segment = entry.item
      guard cost <= limit else { break }
      guard cost == scratch.cost[segment] else { continue }
      let range = Int(graph.successorOffsets[segment])..<Int(graph.successorOffsets[segment + 1])
      for k in range {
        let next = Int(graph.successors[k])
        let slot = Int(scratch.targetSlot[next])
        if slot > 0, cost < results[slot - 1]?.cost ?? .infinity {
          if results[slot - 1] == nil { open -= 1 }
          results[slot - 1] = (cost, segment)
        }
        let total = cost + network.segments[next].lengthInMeters
        if total < scratch.cost[next], total <= limit {
          if scratch.cost[next] == .infinity { scratch.touched.append(Int32(next)) }
          scratch.cost[next] = total
          scratch.parent[next] = Int32(segment)
          scratch.heap.insert(CostedItem(cost: total, item: next))
        }
      }
      // Labels only grow: once every target has a route, none gets a cheaper one.
      if open == 0 { break }
    }
    return results
  }

  /// The segments from `source` to `last` (both included) along the parents of the search
  /// that is still in `scratch`.
  func path(from source: Int, to last: Int, scratch: RouteScratch) -> [Int] {
    var path: [Int] = []
    var current = last
    while current >= 0 {
      path.append(current)
      if current == source { break }
      current = Int(scratch.parent[current])
    }
    return path.reversed()
  }
}
