import Geo

/// An immutable road network: junction nodes, directed segments between them, and a spatial
/// index over the segments.
///
/// Build one with ``OSMImporter`` (OpenStreetMap XML, bzip2 XML, or PBF), ``SUMONetworkImporter``
/// (SUMO `.net.xml`), or ``init(nodes:segments:)`` from values you made. Route on it with
/// ``RoutingGraph``.
///
/// Memory: a segment costs about 200 bytes plus 32 bytes per geometry vertex; a two-way road
/// stores its geometry once per direction, so that each direction reads in travel order
/// without copying.
public struct RoadNetwork: Sendable {
  /// The nodes; `nodes[i].id == i`.
  public let nodes: [RoadNode]
  /// The directed segments; `segments[i].id == i`.
  public let segments: [RoadSegment]
  /// Segment bounding boxes (x = longitude, y = latitude) -> segment id.
  let index: RTree<Int>
  /// The source ids of the nodes between each segment's ends, for networks imported from
  /// OpenStreetMap by this version (`nil` for SUMO networks, networks made from values, and
  /// networks stored before these ids were kept).
  public let segmentNodeIDs: SegmentNodeIDs?
  /// The turns the source allows at each segment's end, for networks whose source says
  /// (SUMO's lane connections); `nil` where every turn but the way back is allowed.
  public let turns: SegmentTurns?

  /// Creates a network and indexes its segments.
  ///
  /// - Parameters:
  ///   - nodes: nodes whose `id` equals their position.
  ///   - segments: segments whose `id` equals their position, joining existing nodes, and
  ///     whose `oppositeID` (if any) names a segment joining the same nodes the other way.
  /// - Throws: ``RoadsError/invalidArgument(_:)`` when an id or reference is inconsistent.
  /// - Complexity: O(n log n) for n segments (R-tree bulk load).
  public init(nodes: [RoadNode], segments: [RoadSegment]) throws(RoadsError) {
    try self.init(nodes: nodes, segments: segments, segmentNodeIDs: nil)
  }

  /// Creates a network, checked as ``init(nodes:segments:)``, with the interior node ids of
  /// its segments (ignored unless they cover every segment).
  package init(
    nodes: [RoadNode], segments: [RoadSegment], segmentNodeIDs: SegmentNodeIDs?,
    turns: SegmentTurns? = nil
  ) throws(RoadsError) {
    for (i, node) in nodes.enumerated() where node.id != i {
      throw .invalidArgument("node at position \(i) has id \(node.id)")
    }
    for (i, segment) in segments.enumerated() {
      guard segment.id == i else {
        throw .invalidArgument("segment at position \(i) has id \(segment.id)")
      }
      guard nodes.indices.contains(segment.fromNode), nodes.indices.contains(segment.toNode)
      else {
        throw .invalidArgument("segment \(i) joins a node that does not exist")
      }
      if let opposite = segment.oppositeID {
        guard segments.indices.contains(opposite),
          segments[opposite].fromNode == segment.toNode,
          segments[opposite].toNode == segment.fromNode
        else {
          throw .invalidArgument("segment \(i) names \(opposite) as opposite, which is not")
        }
      }
    }
    if let turns {
      guard turns.segmentCount == segments.count else {
        throw .invalidArgument(
          "turns cover \(turns.segmentCount) of \(segments.count) segments")
      }
      for segment in segments {
        for next in turns[segment.id] {
          guard segments.indices.contains(Int(next)),
            segments[Int(next)].fromNode == segment.toNode
          else {
            throw .invalidArgument(
              "segment \(segment.id) turns into \(next), which does not leave its end")
          }
        }
      }
    }
    self.init(
      uncheckedNodes: nodes, segments: segments, segmentNodeIDs: segmentNodeIDs, turns: turns)
  }

  /// Creates a network from values the importers have made consistent.
  init(
    uncheckedNodes nodes: [RoadNode], segments: [RoadSegment],
    segmentNodeIDs: SegmentNodeIDs? = nil, turns: SegmentTurns? = nil
  ) {
    self.nodes = nodes
    self.segments = segments
    self.segmentNodeIDs = segmentNodeIDs?.segmentCount == segments.count ? segmentNodeIDs : nil
    self.turns = turns?.segmentCount == segments.count ? turns : nil
    self.index = RTree(
      segments.map { segment in
        let box = segment.geometry.boundingBox
        // A segment across the antimeridian (west > east) takes the whole width of its
        // latitudes: the box west...east would be inverted and meet no query (its probes
        // never matched). Such segments are few; the exact distance sorts them out.
        return (
          box.crossesAntimeridian
            ? RTreeBox(uncheckedMinX: -180, minY: box.south, maxX: 180, maxY: box.north)
            : RTreeBox(
              uncheckedMinX: box.west, minY: box.south, maxX: box.east, maxY: box.north),
          segment.id
        )
      })
  }

  /// Sum of all segment lengths, meters (a two-way road counts once per direction).
  public var totalLengthInMeters: Double {
    segments.reduce(0) { $0 + $1.lengthInMeters }
  }

  /// A segment near a point, with the point of the segment closest to it.
  public struct Candidate: Hashable, Sendable {
    /// The segment's id.
    public let segmentID: Int
    /// The nearest point of the segment's geometry, its distance, and its offset along the
    /// segment from its start (``GeoPolyline/ClosestPoint/distanceAlongInMeters``).
    public let closestPoint: GeoPolyline.ClosestPoint

    /// Geodesic distance from the query point to the segment, meters.
    public var distanceInMeters: Double { closestPoint.distanceInMeters }
    /// Distance from the segment's start to its nearest point, meters.
    public var offsetInMeters: Double { closestPoint.distanceAlongInMeters }
  }

  /// The segments passing within a distance of a point, nearest first.
  ///
  /// Candidate boxes come from the R-tree (the query box is the point grown by the radius),
  /// then each candidate's true geodesic distance to its geometry is measured with
  /// ``GeoPolyline/closestPoint(to:)``. Both directions of a two-way road are returned.
  ///
  /// - Parameters:
  ///   - coordinates: the query point.
  ///   - radiusInMeters: the search radius, meters.
  /// - Returns: candidates with `distanceInMeters <= radiusInMeters`, sorted by distance,
  ///   then by segment id.
  /// - Throws: ``RoadsError/invalidArgument(_:)`` for a negative or non-finite radius.
  /// - Complexity: O(log n + k·v) for k segments whose boxes meet the query box, each of v
  ///   vertices.
  public func segments(
    near coordinates: GeoCoordinates, withinMeters radiusInMeters: Double
  ) throws(RoadsError) -> [Candidate] {
    guard radiusInMeters.isFinite, radiusInMeters >= 0 else {
      throw .invalidArgument("search radius \(radiusInMeters) must be a finite number >= 0")
    }
    let box = GeoBox(
      uncheckedWest: coordinates.longitude, south: coordinates.latitude,
      east: coordinates.longitude, north: coordinates.latitude
    ).expandedUnchecked(byMeters: radiusInMeters)
    var result: [Candidate] = []
    for query in RTreeBox.covering(box) {
      index.visit(intersecting: query) { id, _ in
        let closest = segments[id].geometry.closestPoint(to: coordinates)
        if closest.distanceInMeters <= radiusInMeters {
          result.append(Candidate(segmentID: id, closestPoint: closest))
        }
        return true
      }
    }
    result.sort {
      ($0.distanceInMeters, $0.segmentID) < ($1.distanceInMeters, $1.segmentID)
    }
    // A segment crossing the antimeridian can be found through both query boxes.
    if result.count > 1 {
      var seen = Set<Int>()
      result = result.filter { seen.insert($0.segmentID).inserted }
    }
    return result
  }

  /// The `count` segments nearest a point among those `isIncluded` accepts, nearest first
  /// (equal distances by segment id), within a distance.
  ///
  /// A best-first search of the R-tree (``RTree/nearest(to:k:maxDistanceInMeters:distance:)``)
  /// up to ``exactNearestRange``; beyond, the segments whose boxes are nearest by the
  /// search's bound (within 0.5 % of the distance). Its cost does not grow with the distance
  /// to the nearest road, where a radius query widened until it finds one measures every
  /// segment within that radius (the whole network, for a point on another continent).
  ///
  /// - Parameters:
  ///   - coordinates: the query point.
  ///   - count: how many segments at most.
  ///   - radiusInMeters: segments farther than this are left out.
  ///   - isIncluded: whether a segment (by id) may be found.
  /// - Returns: candidates sorted by distance, then by segment id.
  /// - Complexity: O(count log n) box steps on typical data, plus the exact distance of
  ///   each segment whose box is nearer than the `count`-th result.
  public func nearestSegments(
    to coordinates: GeoCoordinates, count: Int, withinMeters radiusInMeters: Double = .infinity,
    where isIncluded: (Int) -> Bool = { _ in true }
  ) -> [Candidate] {
    guard !(radiusInMeters < 0) else { return [] }
    func exact(_ id: Int) -> Candidate {
      Candidate(segmentID: id, closestPoint: segments[id].geometry.closestPoint(to: coordinates))
    }
    let found = index.nearest(
      to: coordinates, k: count, maxDistanceInMeters: min(radiusInMeters, Self.exactNearestRange)
    ) { id in
      isIncluded(id) ? segments[id].geometry.closestPoint(to: coordinates).distanceInMeters : .nan
    }
    if !found.isEmpty || radiusInMeters <= Self.exactNearestRange {
      return found.map { exact($0.payload) }
    }
    // Farther from every road than the exact search goes: the nearest by their boxes'
    // bounds, each then measured.
    return index.nearestBoxes(to: coordinates, k: count, maxDistanceInMeters: radiusInMeters) {
      isIncluded($0)
    }.map { exact($0.payload) }.filter { $0.distanceInMeters <= radiusInMeters }.sorted {
      ($0.distanceInMeters, $0.segmentID) < ($1.distanceInMeters, $1.segmentID)
    }
  }

  /// How far ``nearestSegments(to:count:withinMeters:where:)`` finds the truly nearest
  /// segments, meters. Beyond, the search ranks segments by a bound that is up to 0.5 % short
  /// (450 m at this range), and measuring every segment within that margin of the nearest
  /// would cost up to the whole network per query.
  public static let exactNearestRange = 100_000.0

  /// The segments leaving each node, as a compressed adjacency list: the segments leaving
  /// node `n` are `outgoing[offsets[n]..<offsets[n + 1]]`.
  func outgoingAdjacency() -> (offsets: [Int], outgoing: [Int]) {
    var offsets = [Int](repeating: 0, count: nodes.count + 1)
    for segment in segments { offsets[segment.fromNode + 1] += 1 }
    for i in 0..<nodes.count { offsets[i + 1] += offsets[i] }
    var fill = offsets
    var outgoing = [Int](repeating: 0, count: segments.count)
    for segment in segments {
      outgoing[fill[segment.fromNode]] = segment.id
      fill[segment.fromNode] += 1
    }
    return (offsets, outgoing)
  }
}
