import Geo

/// Collects the kept ways of an OpenStreetMap file and the coordinates of their nodes, then
/// splits the ways at junctions into directed segments.
///
/// Deleted objects and several versions of one object (history files) follow
/// ``OSMVersions``: of the definitions of a way or node the highest version is the object,
/// and when that one is deleted the object is absent. A way's versions are matched at
/// `finishWays()`: every road version is kept until then, and a version that is no road (or
/// is deleted) is kept, as a mark that removes the road, only when a road version of its id
/// came before it (history files list an object's versions in order).
///
/// Memory model: way node references are kept in one flat `[Int64]` (8 bytes per
/// reference) with per-way attributes; node coordinates are kept only for the nodes the
/// kept ways reference, in arrays parallel to their sorted ids (32 bytes per node with the
/// version). A 500 MB country PBF has in the order of 20 million road-node references, so
/// the import needs well under 2 GB before the network itself is built.
struct OSMNetworkBuilder {
  private var wayIDs: [Int64] = []
  /// Each way's version, 0 when the file gives none.
  private var wayVersions: [Int64] = []
  /// `nil`: a version that is deleted or no road, which removes the road versions before it.
  private var wayAttributes: [OSMWayAttributes?] = []
  /// `refs[refStarts[w]..<refStarts[w + 1]]` are the node ids of way `w`.
  private var refs: [Int64] = []
  private var refStarts: [Int] = [0]
  /// The ids of `wayIDs`, once they come out of ascending order (else a binary search finds
  /// an id).
  private var unorderedWayIDs: Set<Int64>?

  /// Sorted unique ids of the nodes the kept ways reference (valid after `finishWays()`).
  private(set) var nodeIDs: [Int64] = []
  private var latitudes: [Double] = []
  private var longitudes: [Double] = []
  /// The version of the definition of each needed node kept so far (`offerNode`), 0
  /// without one, `unseen` before any.
  private var nodeVersions: [Int64] = []
  private static let unseen = Int64.min
  /// The needed nodes defined twice without versions that tell which is current.
  private var duplicatedNodes = Set<Int>()

  var wayCount: Int { wayIDs.count }

  /// Nodes whose coordinates were out of range and were left out (readers count them).
  var invalidNodes = 0
  /// Needed nodes defined twice without versions that tell which is current, counted by a
  /// reader that keeps the definitions itself (XML).
  var duplicateNodes = 0
  /// Road ways of fewer than two node references, left out.
  private var shortWays = 0
  /// Road ways defined twice without versions that tell which is current.
  private var duplicateWays = 0

  /// Adds a way if its tags make it a road for motor traffic and it is not deleted; a
  /// deleted or non-road version of a road way added before is kept to remove it.
  ///
  /// - Parameter version: the way's version (`nil` or 0 when the file gives none).
  mutating func addWay(
    id: Int64, version: Int64? = nil, deleted: Bool = false,
    nodeIDs wayRefs: some Collection<Int64>, tags: [String: String], options: OSMImportOptions
  ) {
    let attributes = deleted ? nil : OSMWayProfile.attributes(tags, options: options)
    guard attributes != nil || hasWay(id) else { return }
    if let last = wayIDs.last, id < last, unorderedWayIDs == nil {
      unorderedWayIDs = Set(wayIDs)
    }
    unorderedWayIDs?.insert(id)
    wayIDs.append(id)
    wayVersions.append(OSMVersions.normalized(version))
    wayAttributes.append(attributes)
    if attributes != nil { refs.append(contentsOf: wayRefs) }
    refStarts.append(refs.count)
  }

  /// Whether a way of this id was added.
  private func hasWay(_ id: Int64) -> Bool {
    guard let last = wayIDs.last else { return false }
    if id == last { return true }
    if let unorderedWayIDs { return unorderedWayIDs.contains(id) }
    guard id < last else { return false }
    var low = 0
    var high = wayIDs.count
    while low < high {
      let mid = (low + high) / 2
      if wayIDs[mid] < id { low = mid + 1 } else { high = mid }
    }
    return wayIDs[low] == id
  }

  /// Keeps of each way id the version that is the way (``OSMVersions/replaces(_:by:)`` in
  /// file order), and of those the roads of two or more nodes; counts the others.
  private mutating func resolveWayVersions() {
    let count = wayIDs.count
    // The ways by id, each id's in file order: the file's own order while ids ascend.
    let order: [Int]? =
      unorderedWayIDs == nil
      ? nil : (0..<count).sorted { (wayIDs[$0], $0) < (wayIDs[$1], $1) }
    func way(_ i: Int) -> Int { order?[i] ?? i }
    var kept = [Bool](repeating: false, count: count)
    var i = 0
    while i < count {
      var winner = way(i)
      var ambiguous = false
      var j = i + 1
      while j < count, wayIDs[way(j)] == wayIDs[winner] {
        let (replaces, tied) = OSMVersions.replaces(wayVersions[winner], by: wayVersions[way(j)])
        // A tie matters while no higher version follows.
        if tied { ambiguous = true } else if replaces { ambiguous = false }
        if replaces { winner = way(j) }
        j += 1
      }
      if ambiguous { duplicateWays += 1 }
      kept[winner] = true
      i = j
    }
    // The ways kept, moved forward in place in file order (no second copy of the
    // references): a way's new place is never after its old one.
    var written = 0
    var refsWritten = 0
    for w in 0..<count where kept[w] && wayAttributes[w] != nil {
      let range = refStarts[w]..<refStarts[w + 1]
      guard range.count >= 2 else {
        shortWays += 1
        continue
      }
      wayIDs[written] = wayIDs[w]
      wayAttributes[written] = wayAttributes[w]
      for r in range {
        refs[refsWritten] = refs[r]
        refsWritten += 1
      }
      written += 1
      // At or before `w + 1`, whose value was read (or is this same one).
      refStarts[written] = refsWritten
    }
    wayIDs.removeSubrange(written...)
    wayAttributes.removeSubrange(written...)
    refs.removeSubrange(refsWritten...)
    refStarts.removeSubrange((written + 1)...)
    wayVersions = []
    unorderedWayIDs = nil
  }

  /// Keeps the current version of each way, then freezes the set of needed nodes; call after
  /// the last way and before `setCoordinates` or `offerNode`.
  mutating func finishWays() {
    resolveWayVersions()
    var ids = refs
    ids.sort()
    var unique: [Int64] = []
    unique.reserveCapacity(ids.count / 2)
    for id in ids where unique.last != id { unique.append(id) }
    nodeIDs = unique
    latitudes = [Double](repeating: .nan, count: unique.count)
    longitudes = [Double](repeating: .nan, count: unique.count)
    nodeVersions = [Int64](repeating: Self.unseen, count: unique.count)
  }

  /// Index of `id` in `nodeIDs`, or `nil`.
  func nodeIndex(of id: Int64) -> Int? {
    var low = 0
    var high = nodeIDs.count
    while low < high {
      let mid = (low + high) / 2
      if nodeIDs[mid] < id { low = mid + 1 } else { high = mid }
    }
    return low < nodeIDs.count && nodeIDs[low] == id ? low : nil
  }

  /// Records the coordinates of a needed node by its index in `nodeIDs`.
  mutating func setCoordinates(index: Int, latitude: Double, longitude: Double) {
    latitudes[index] = latitude
    longitudes[index] = longitude
  }

  /// Offers a definition of a needed node (by its index in `nodeIDs`): it replaces the one
  /// kept so far as ``OSMVersions/replaces(_:by:)`` says, and a deleted one (`nil`
  /// coordinates, also for coordinates off the globe) leaves the node out.
  mutating func offerNode(
    index: Int, coordinates: (latitude: Double, longitude: Double)?, version: Int64?
  ) {
    let version = OSMVersions.normalized(version)
    let kept = nodeVersions[index]
    if kept != Self.unseen {
      let (replaces, ambiguous) = OSMVersions.replaces(kept, by: version)
      if ambiguous {
        duplicatedNodes.insert(index)
      } else if replaces {
        duplicatedNodes.remove(index)
      }
      guard replaces else { return }
    }
    nodeVersions[index] = version
    latitudes[index] = coordinates?.latitude ?? .nan
    longitudes[index] = coordinates?.longitude ?? .nan
  }

  /// Splits the ways into segments: a way is cut at every node that two or more kept way
  /// references share (a junction, or a way that meets itself) and at nodes whose
  /// coordinates the file lacks (extracts cut at a border); way ends are always nodes.
  ///
  /// - Returns: the network and what the import kept and left out.
  /// - Complexity: O(r log n) for r references and n distinct nodes.
  func build() -> (network: RoadNetwork, report: OSMImportReport) {
    var report = OSMImportReport()
    report.roadWays = wayIDs.count + shortWays
    report.droppedWays = shortWays
    report.invalidNodes = invalidNodes
    report.duplicateNodes = duplicateNodes + duplicatedNodes.count
    report.duplicateWays = duplicateWays
    var useCount = [UInt8](repeating: 0, count: nodeIDs.count)
    var refIndex = [Int](repeating: -1, count: refs.count)
    for (i, id) in refs.enumerated() {
      guard let index = nodeIndex(of: id) else { continue }
      refIndex[i] = index
      if useCount[index] < 255 { useCount[index] += 1 }
    }

    var nodes: [RoadNode] = []
    var roadNodeOf = [Int32](repeating: -1, count: nodeIDs.count)
    func roadNode(_ index: Int) -> Int {
      if roadNodeOf[index] >= 0 { return Int(roadNodeOf[index]) }
      let id = nodes.count
      nodes.append(
        RoadNode(
          id: id, sourceID: String(nodeIDs[index]), coordinates: coordinates(index)))
      roadNodeOf[index] = Int32(id)
      return id
    }

    var segments: [RoadSegment] = []
    var interior = SegmentNodeIDs()
    var piece: [Int] = []
    func flush(way w: Int) {
      defer { piece.removeAll(keepingCapacity: true) }
      guard piece.count >= 2 else { return }
      guard let attributes = wayAttributes[w] else { return }
      let from = roadNode(piece[0])
      let to = roadNode(piece[piece.count - 1])
      let vertices = piece.map(coordinates)
      let sourceID = String(wayIDs[w])
      let forwardID = attributes.forward ? segments.count : nil
      let backwardID = attributes.backward ? segments.count + (attributes.forward ? 1 : 0) : nil
      let between = piece.dropFirst().dropLast().map { nodeIDs[$0] }
      if let forwardID {
        interior.append(between)
        segments.append(
          RoadSegment(
            id: forwardID, sourceID: sourceID, fromNode: from, toNode: to,
            geometry: GeoPolyline(uncheckedVertices: vertices), name: attributes.name,
            ref: attributes.ref, roadClass: attributes.roadClass,
            speedLimit: attributes.forwardSpeed, laneCount: attributes.forwardLanes,
            isReversed: false, oppositeID: backwardID, isRoundabout: attributes.isRoundabout,
            isToll: attributes.forwardToll))
      }
      if let backwardID {
        interior.append(between.reversed())
        segments.append(
          RoadSegment(
            id: backwardID, sourceID: sourceID, fromNode: to, toNode: from,
            geometry: GeoPolyline(uncheckedVertices: vertices.reversed()), name: attributes.name,
            ref: attributes.ref, roadClass: attributes.roadClass,
            speedLimit: attributes.backwardSpeed, laneCount: attributes.backwardLanes,
            isReversed: true, oppositeID: forwardID, isRoundabout: attributes.isRoundabout,
            isToll: attributes.backwardToll))
      }
    }

    for w in 0..<wayIDs.count {
      let segmentsBefore = segments.count
      var clipped = false
      for r in refStarts[w]..<refStarts[w + 1] {
        let index = refIndex[r]
        guard index >= 0, !latitudes[index].isNaN else {
          report.missingNodeReferences += 1
          clipped = true
          flush(way: w)
          continue
        }
        if piece.last == index { continue }
        piece.append(index)
        if piece.count >= 2, useCount[index] >= 2 {
          flush(way: w)
          piece.append(index)
        }
      }
      flush(way: w)
      if segments.count == segmentsBefore {
        report.droppedWays += 1
      } else if clipped {
        report.clippedWays += 1
      }
    }
    return (
      RoadNetwork(uncheckedNodes: nodes, segments: segments, segmentNodeIDs: interior), report
    )
  }

  private func coordinates(_ index: Int) -> GeoCoordinates {
    GeoCoordinates(uncheckedLatitude: latitudes[index], longitude: longitudes[index])
  }
}
