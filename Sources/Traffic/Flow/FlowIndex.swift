import Foundation
import Roads

/// The static part of flow: the road network's segments indexed once by geometry, and a
/// matcher that places polylines (routes, feed observations) on them.
package struct FlowIndex: Sendable {
  /// The network.
  package let network: RoadNetwork
  /// Segment bounding boxes -> segment id.
  private let tree: RTree<Int32>
  /// Places densified polylines on the network (no stationary skipping; headings from the
  /// polyline's own bearing).
  let polylineMatcher: MapMatcher

  /// A driven stretch of one segment.
  package struct Piece: Hashable, Sendable {
    /// The segment.
    package var segmentID: Int
    /// Where on the segment the stretch starts and ends, meters from its start.
    package var startOffsetInMeters: Double
    package var endOffsetInMeters: Double

    package var lengthInMeters: Double { endOffsetInMeters - startOffsetInMeters }

    package init(segmentID: Int, startOffsetInMeters: Double, endOffsetInMeters: Double) {
      self.segmentID = segmentID
      self.startOffsetInMeters = startOffsetInMeters
      self.endOffsetInMeters = endOffsetInMeters
    }
  }

  /// Indexes the network; `graph` holds its matching tables (built once per network and
  /// shared with the flow pipeline's matcher).
  ///
  /// - Complexity: O(n log n) for n segments.
  package init(network: RoadNetwork, graph: MatchingGraph) {
    self.network = network
    var entries: [(box: RTreeBox, payload: Int32)] = []
    entries.reserveCapacity(network.segments.count)
    for segment in network.segments {
      for box in RTreeBox.covering(segment.geometry.boundingBox) {
        entries.append((box, Int32(segment.id)))
      }
    }
    tree = RTree(entries)
    var options = MapMatchingOptions()
    options.searchRadiusInMeters = 30
    options.minimumSpacingInMeters = 0
    options.headingSigmaInDegrees = 45
    options.maxCandidates = 8
    options.maxTimeGapInSeconds = 1e9
    options.decisionLag = 32
    polylineMatcher = MapMatcher(graph: graph, network: network, validatedOptions: options)
  }

  /// The segments whose geometry meets `area` (an R-tree search on boxes, then the exact
  /// test of `GeoArea.intersects`), ascending by id.
  ///
  /// - Complexity: O(log n + k·v) for k candidate segments of v vertices.
  package func segments(meeting area: some GeoArea) -> [Int] {
    var candidates: [Int32] = []
    for box in RTreeBox.covering(area.boundingBox) {
      tree.visit(intersecting: box) { payload, _ in
        candidates.append(payload)
        return true
      }
    }
    candidates.sort()
    var result: [Int] = []
    var previous: Int32 = -1
    for candidate in candidates where candidate != previous {
      previous = candidate
      if area.intersects(network.segments[Int(candidate)].geometry) {
        result.append(Int(candidate))
      }
    }
    return result
  }

  /// The segments whose boxes meet a box, ascending by id.
  package func segments(inBox box: GeoBox) -> [Int] {
    var candidates: Set<Int32> = []
    for query in RTreeBox.covering(box) {
      tree.visit(intersecting: query) { payload, _ in
        candidates.insert(payload)
        return true
      }
    }
    return candidates.map(Int.init).sorted()
  }

  /// The stretches of segments a polyline drives along, in its order: the polyline is
  /// sampled every 15 m and map matched (headings from its own bearing). Parts away from
  /// the network are left out.
  ///
  /// - Complexity: O(p·k·s log s) for p samples (length / 15 m), k candidates each, s
  ///   segments reached per route search.
  package func pieces(along polyline: GeoPolyline) -> [Piece] {
    let samples = FlowIndex.samples(along: polyline, spacingInMeters: 15)
    let matched = polylineMatcher.match(samples)
    var pieces: [Piece] = []
    for point in matched {
      let segment = point.position.segmentID
      let offset = point.position.offsetInMeters
      guard !point.startsTrace, var last = pieces.last,
        point.pathFromPrevious.first == last.segmentID
      else {
        pieces.append(
          Piece(segmentID: segment, startOffsetInMeters: offset, endOffsetInMeters: offset))
        continue
      }
      let path = point.pathFromPrevious
      if path.count <= 1 {
        last.endOffsetInMeters = max(last.endOffsetInMeters, offset)
        pieces[pieces.count - 1] = last
        continue
      }
      last.endOffsetInMeters = network.segments[last.segmentID].lengthInMeters
      pieces[pieces.count - 1] = last
      for middle in path.dropFirst().dropLast() {
        pieces.append(
          Piece(
            segmentID: middle, startOffsetInMeters: 0,
            endOffsetInMeters: network.segments[middle].lengthInMeters))
      }
      pieces.append(Piece(segmentID: segment, startOffsetInMeters: 0, endOffsetInMeters: offset))
    }
    return pieces.filter { $0.lengthInMeters > 0 }
  }

  /// Points every `spacingInMeters` along a polyline (its vertices included), one second
  /// apart, each heading along the polyline.
  static func samples(along polyline: GeoPolyline, spacingInMeters: Double) -> [ProbePoint] {
    var points: [ProbePoint] = []
    let vertices = polyline.vertices
    var time = Date(timeIntervalSince1970: 0)
    for i in 1..<vertices.count {
      let a = vertices[i - 1], b = vertices[i]
      let length = a.distance(to: b)
      guard length > 0 else { continue }
      let bearing = a.bearing(to: b)
      let steps = max(1, Int((length / spacingInMeters).rounded(.up)))
      for step in 0..<steps {
        let point = GeoPolyline.interpolate(
          a, b, fraction: Double(step) / Double(steps), length: length)
        points.append(ProbePoint(coordinates: point, time: time, headingInDegrees: bearing))
        time += 1
      }
    }
    if let last = vertices.last {
      let heading = points.last?.headingInDegrees
      points.append(ProbePoint(coordinates: last, time: time, headingInDegrees: heading))
    }
    return points
  }
}
