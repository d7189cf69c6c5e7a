import Geo

/// Collects the kept ways of an OpenStreetMap file and the coordinates of their nodes, then
/// splits the ways at junctions into directed segments.
///
/// Memory model: way node references are kept in one flat `[Int64]` (8 bytes per
/// reference) with per-way attributes; node coordinates are kept only for the nodes the
/// kept ways reference, in arrays parallel to their sorted ids (24 bytes per node). A
/// 500 MB country PBF has in the order of 20 million road-node references, so the import
/// needs well under 2 GB before the network itself is built.
struct OSMNetworkBuilder {
  private var wayIDs: [Int64] = []
  private var wayAttributes: [OSMWayAttributes] = []
  /// `refs[refStarts[w]..<refStarts[w + 1]]` are the node ids of way `w`.
  private var refs: [Int64] = []
  private var refStarts: [Int] = [0]

  /// Sorted unique ids of the nodes the kept ways reference (valid after `finishWays()`).
  private(set) var nodeIDs: [Int64] = []
  private var latitudes: [Double] = []
  private var longitudes: [Double] = []

  var wayCount: Int { wayIDs.count }

  /// Nodes whose coordinates were out of range and were left out (readers count them).
  var invalidNodes = 0
  /// Road ways of fewer than two node references, left out.
  private var shortWays = 0

  /// Adds a way if its tags make it a road for motor traffic.
  mutating func addWay(
    id: Int64, nodeIDs wayRefs: some Collection<Int64>, tags: [String: String],
    options: OSMImportOptions
  ) {
    guard let attributes = OSMWayProfile.attributes(tags, options: options) else { return }
    guard wayRefs.count >= 2 else {
      shortWays += 1
      return
    }
    wayIDs.append(id)
    wayAttributes.append(attributes)
    refs.append(contentsOf: wayRefs)
    refStarts.append(refs.count)
  }

  /// Freezes the set of needed nodes; call after the last way and before `setCoordinates`.
  mutating func finishWays() {
    var ids = refs
    ids.sort()
    var unique: [Int64] = []
    unique.reserveCapacity(ids.count / 2)
    for id in ids where unique.last != id { unique.append(id) }
    nodeIDs = unique
    latitudes = [Double](repeating: .nan, count: unique.count)
    longitudes = [Double](repeating: .nan, count: unique.count)
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
      let attributes = wayAttributes[w]
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
            isReversed: false, oppositeID: backwardID, isRoundabout: attributes.isRoundabout))
      }
      if let backwardID {
        interior.append(between.reversed())
        segments.append(
          RoadSegment(
            id: backwardID, sourceID: sourceID, fromNode: to, toNode: from,
            geometry: GeoPolyline(uncheckedVertices: vertices.reversed()), name: attributes.name,
            ref: attributes.ref, roadClass: attributes.roadClass,
            speedLimit: attributes.backwardSpeed, laneCount: attributes.backwardLanes,
            isReversed: true, oppositeID: forwardID, isRoundabout: attributes.isRoundabout))
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

/// What an OpenStreetMap import kept and left out, for telling the user about clipped
/// extracts and bad data.
public struct OSMImportReport: Hashable, Sendable, CustomStringConvertible {
  /// Ways whose tags make them roads for motor traffic.
  public var roadWays = 0
  /// Road ways imported only in part: some of their nodes are missing from the file (an
  /// extract clipped at its border) or had invalid coordinates; the complete stretches
  /// between such nodes are kept.
  public var clippedWays = 0
  /// Road ways that gave no segment at all: fewer than two of their nodes are present, or
  /// no two present nodes are consecutive.
  public var droppedWays = 0
  /// Way node references whose node the file lacks or gave invalid coordinates.
  public var missingNodeReferences = 0
  /// Nodes left out for coordinates outside -90...90, -180...180.
  public var invalidNodes = 0

  /// An empty report.
  public init() {}

  /// One line: ways kept, clipped and dropped, and bad nodes.
  public var description: String {
    var parts = ["\(roadWays) road ways"]
    if clippedWays > 0 { parts.append("\(clippedWays) clipped (nodes missing from the file)") }
    if droppedWays > 0 { parts.append("\(droppedWays) dropped (fewer than 2 nodes present)") }
    if missingNodeReferences > 0 {
      parts.append("\(missingNodeReferences) references to missing nodes")
    }
    if invalidNodes > 0 { parts.append("\(invalidNodes) nodes with invalid coordinates left out") }
    return parts.joined(separator: ", ")
  }
}
