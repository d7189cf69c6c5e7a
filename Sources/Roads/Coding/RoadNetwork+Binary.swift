import Codec
import Foundation
import Geo
import Synchronization

/// A compact binary form of a road network, for storing it and loading it back fast.
///
/// The network is cut into self-contained chunks of at most `elementsPerChunk` nodes or
/// segments, each with its own string table, so that chunks fit comfortably in a database
/// row and decode on all cores. Every value round-trips exactly: ids, source ids, names,
/// refs, road classes, speed limits and their sources, lane counts, opposite links, the
/// reversal flag, geometry with altitudes (doubles are stored as their bit patterns), and
/// the segment lengths (stored, not recomputed, which also saves a geodesic computation per
/// vertex on loading).
///
/// Chunk layout (little endian; see ``BinaryWriter`` for varints and strings):
///
/// ```
/// magic "RNC" + format version 1 | kind (0 nodes, 1 segments) | first id | count
/// string table: count, strings    | records
/// node:    source id (string #) | flags (1: altitude) | latitude | longitude | [altitude]
/// segment: flags | source id # | from node | to node | length | [name #] | [ref #]
///          | road class # | speed limit m/s | speed limit source # | [lanes] | [opposite]
///          | [vertex count | vertices: [altitude flag] latitude longitude [altitude]]
///          | [interior node id count | ids as zigzag varint deltas, the first from 0]
///          | [turn count | successor segment ids as zigzag varint deltas from 0]
///          | [each turn's lane mask, varint]
/// ```
///
/// Segment flags: 1 name, 2 ref, 4 lanes, 8 reversed, 16 opposite, 32 geometry is the
/// reverse of the opposite segment's (which comes earlier in the same chunk; a two-way road
/// then stores its vertices once), bits 6-7 altitudes (0 none, 1 every vertex, 2 some:
/// a flag byte per vertex), 256 interior node ids follow (``RoadNetwork/segmentNodeIDs``:
/// set on every segment of a network that has them, on none of one that has not), 2048 the
/// segment's turns follow (``RoadNetwork/turns``: likewise on every segment or none), 4096
/// their lanes follow (``SegmentTurns/lanes(from:to:)``: on every segment with turns or
/// none), 8192 a toll is paid on it (``RoadSegment/isToll``; data written before tolls were
/// stored has none). Enumerations are stored by their raw value through the string
/// table, so adding or reordering cases never changes the meaning of stored data.
extension RoadNetwork {
  /// The first bytes of every chunk: "RNC" and the format version.
  static let chunkMagic: [UInt8] = [0x52, 0x4E, 0x43, 0x01]

  private enum ChunkKind: UInt8 {
    case nodes = 0
    case segments = 1
  }

  private enum SegmentFlag {
    static let name: UInt64 = 1
    static let ref: UInt64 = 2
    static let lanes: UInt64 = 4
    static let reversed: UInt64 = 8
    static let opposite: UInt64 = 16
    static let reverseOfOpposite: UInt64 = 32
    static let altitudeShift: UInt64 = 6
    static let interiorIDs: UInt64 = 256
    /// Closed to passenger cars (``RoadSegment/isOpenToCars`` is false).
    static let closedToCars: UInt64 = 512
    /// Part of a roundabout (``RoadSegment/isRoundabout``).
    static let roundabout: UInt64 = 1024
    /// The segment's turns follow (``RoadNetwork/turns``).
    static let turns: UInt64 = 2048
    /// The lanes of the segment's turns follow them (``SegmentTurns/laneMasks(of:)``).
    static let turnLanes: UInt64 = 4096
    /// A toll road (``RoadSegment/isToll``).
    static let toll: UInt64 = 8192
    /// Every flag this version knows.
    static let known: UInt64 =
      63 | 3 << altitudeShift | interiorIDs | closedToCars | roundabout | turns | turnLanes
      | toll
  }

  /// The network as binary chunks: first the node chunks, then the segment chunks.
  ///
  /// - Parameter elementsPerChunk: the most nodes or segments in one chunk (at least 1).
  /// - Parameter tolls: whether toll roads are marked (`false`: the bytes of a network stored
  ///   before tolls were, for fingerprints that must not change with them).
  /// - Returns: the chunks, to be given back to ``init(binaryChunks:name:)`` in this order.
  /// - Complexity: O(n + s·v) for n nodes and s segments of v vertices, chunks encoded on
  ///   all cores.
  public func binaryChunks(elementsPerChunk: Int = 32_768, tolls: Bool = true) -> [Data] {
    let size = max(1, elementsPerChunk)
    var jobs: [(kind: ChunkKind, range: Range<Int>)] = []
    for start in stride(from: 0, to: nodes.count, by: size) {
      jobs.append((.nodes, start..<min(nodes.count, start + size)))
    }
    for start in stride(from: 0, to: segments.count, by: size) {
      jobs.append((.segments, start..<min(segments.count, start + size)))
    }
    let chunks = Mutex([Data](repeating: Data(), count: jobs.count))
    DispatchQueue.concurrentPerform(iterations: jobs.count) { [jobs] k in
      let job = jobs[k]
      let chunk =
        job.kind == .nodes ? encodeNodes(job.range) : encodeSegments(job.range, tolls: tolls)
      chunks.withLock { $0[k] = chunk }
    }
    return chunks.withLock { $0 }
  }

  /// Strings of one chunk, each stored once.
  private struct StringTable {
    var indexes: [String: Int] = [:]
    var strings: [String] = []

    mutating func index(_ string: String) -> Int {
      if let known = indexes[string] { return known }
      indexes[string] = strings.count
      strings.append(string)
      return strings.count - 1
    }
  }

  private static func chunk(
    _ kind: ChunkKind, _ range: Range<Int>, _ table: StringTable, _ records: BinaryWriter
  ) -> Data {
    var writer = BinaryWriter(capacity: records.bytes.count + 16 * table.strings.count + 16)
    writer.raw(chunkMagic)
    writer.byte(kind.rawValue)
    writer.count(range.lowerBound)
    writer.count(range.count)
    writer.count(table.strings.count)
    for string in table.strings { writer.string(string) }
    writer.raw(records.bytes)
    return writer.data
  }

  private func encodeNodes(_ range: Range<Int>) -> Data {
    var table = StringTable()
    var records = BinaryWriter(capacity: range.count * 20)
    for node in nodes[range] {
      records.count(table.index(node.sourceID))
      let coordinates = node.coordinates
      records.byte(coordinates.altitude == nil ? 0 : 1)
      records.double(coordinates.latitude)
      records.double(coordinates.longitude)
      if let altitude = coordinates.altitude { records.double(altitude) }
    }
    return Self.chunk(.nodes, range, table, records)
  }

  private func encodeSegments(_ range: Range<Int>, tolls: Bool) -> Data {
    var table = StringTable()
    var records = BinaryWriter(capacity: range.count * 64)
    for segment in segments[range] {
      let vertices = segment.geometry.vertices
      let withAltitude = vertices.reduce(0) { $0 + ($1.altitude == nil ? 0 : 1) }
      let altitudeMode: UInt64 =
        withAltitude == 0 ? 0 : withAltitude == vertices.count ? 1 : 2
      var reverseOfOpposite = false
      if let opposite = segment.oppositeID, opposite < segment.id, range.contains(opposite) {
        reverseOfOpposite = segments[opposite].geometry.vertices.reversed().elementsEqual(vertices)
      }
      var flags = altitudeMode << SegmentFlag.altitudeShift
      if segment.name != nil { flags |= SegmentFlag.name }
      if segment.ref != nil { flags |= SegmentFlag.ref }
      if segment.laneCount != nil { flags |= SegmentFlag.lanes }
      if segment.isReversed { flags |= SegmentFlag.reversed }
      if segment.oppositeID != nil { flags |= SegmentFlag.opposite }
      if reverseOfOpposite { flags |= SegmentFlag.reverseOfOpposite }
      if segmentNodeIDs != nil { flags |= SegmentFlag.interiorIDs }
      if !segment.isOpenToCars { flags |= SegmentFlag.closedToCars }
      if segment.isRoundabout { flags |= SegmentFlag.roundabout }
      if tolls, segment.isToll { flags |= SegmentFlag.toll }
      if turns != nil { flags |= SegmentFlag.turns }
      if turns?.knowsLanes == true { flags |= SegmentFlag.turnLanes }
      records.varint(flags)
      records.count(table.index(segment.sourceID))
      records.count(segment.fromNode)
      records.count(segment.toNode)
      records.double(segment.lengthInMeters)
      if let name = segment.name { records.count(table.index(name)) }
      if let ref = segment.ref { records.count(table.index(ref)) }
      records.count(table.index(segment.roadClass.rawValue))
      records.double(segment.speedLimitInMetersPerSecond)
      records.count(table.index(segment.speedLimitSource.rawValue))
      if let lanes = segment.laneCount { records.signedVarint(Int64(lanes)) }
      if let opposite = segment.oppositeID { records.count(opposite) }
      if !reverseOfOpposite {
        records.count(vertices.count)
        for vertex in vertices {
          if altitudeMode == 2 { records.byte(vertex.altitude == nil ? 0 : 1) }
          records.double(vertex.latitude)
          records.double(vertex.longitude)
          if altitudeMode != 0, let altitude = vertex.altitude { records.double(altitude) }
        }
      }
      if let ids = segmentNodeIDs?[segment.id] { Self.writeDeltas(ids, to: &records) }
      if let next = turns?[segment.id] {
        Self.writeDeltas(next.lazy.map { Int64($0) }, to: &records)
        if let masks = turns?.laneMasks(of: segment.id) {
          for mask in masks { records.varint(UInt64(mask)) }
        }
      }
    }
    return Self.chunk(.segments, range, table, records)
  }

  /// Decodes a network from the chunks of ``binaryChunks(elementsPerChunk:)``, checking it
  /// as ``init(nodes:segments:)`` does and indexing its segments.
  ///
  /// Chunks decode concurrently on all cores; the R-tree bulk load then runs on one.
  ///
  /// - Parameters:
  ///   - chunks: the chunks, node chunks first, each kind in id order.
  ///   - name: what the data is (a file name), for error messages.
  /// - Throws: ``RoadsError/malformed(file:position:reason:)`` naming the chunk and byte
  ///   offset for damaged or foreign data, a chunk out of order, a coordinate out of range,
  ///   or a network whose ids or links are inconsistent.
  /// - Complexity: O(n + s·v) to decode, then O(s log s) for the R-tree.
  public init(binaryChunks chunks: [Data], name: String) throws(RoadsError) {
    let decoded = Mutex([Result<DecodedChunk, RoadsError>?](repeating: nil, count: chunks.count))
    DispatchQueue.concurrentPerform(iterations: chunks.count) { k in
      let result = Result { () throws(RoadsError) -> DecodedChunk in
        var reader = BinaryReader(chunks[k], name: "chunk \(k) of the road network in \(name)")
        do throws(BinaryDataError) {
          return try RoadNetwork.decodeChunk(&reader)
        } catch { throw RoadsError(error) }
      }
      decoded.withLock { $0[k] = result }
    }
    let results = decoded.withLock { $0 }
    // Room for all of them at once: growing the arrays chunk by chunk copied a region's two
    // million segments several times over, into fresh pages (half of opening its store).
    var nodeCount = 0
    var segmentCount = 0
    for case .success(let chunk)? in results {
      switch chunk {
      case .nodes(_, let values): nodeCount += values.count
      case .segments(_, let values, _, _): segmentCount += values.count
      }
    }
    var nodes: [RoadNode] = []
    nodes.reserveCapacity(nodeCount)
    var segments: [RoadSegment] = []
    segments.reserveCapacity(segmentCount)
    var interior = SegmentNodeIDs()
    var segmentsWithIDs = 0
    var turns = SegmentTurns()
    var segmentsWithTurns = 0
    for (k, result) in results.enumerated() {
      guard let result else {
        throw .malformed(file: name, position: "chunk \(k)", reason: "the chunk was not decoded")
      }
      switch try result.get() {
      case .nodes(let first, let values):
        guard first == nodes.count, segments.isEmpty else {
          throw .malformed(
            file: name, position: "chunk \(k)",
            reason: "node chunk starting at \(first) where \(nodes.count) was expected")
        }
        nodes += values
      case .segments(let first, let values, let ids, let chunkTurns):
        guard first == segments.count else {
          throw .malformed(
            file: name, position: "chunk \(k)",
            reason: "segment chunk starting at \(first) where \(segments.count) was expected")
        }
        segments += values
        if let ids {
          segmentsWithIDs += values.count
          for index in 0..<ids.segmentCount { interior.append(ids[index]) }
        }
        if let chunkTurns {
          segmentsWithTurns += values.count
          for index in 0..<chunkTurns.segmentCount {
            let next = chunkTurns[index].map { Int($0) }
            if let masks = chunkTurns.laneMasks(of: index) {
              turns.append(zip(next, masks).map { (segment: $0, lanes: $1) })
            } else {
              turns.append(next)
            }
          }
        }
      }
    }
    guard segmentsWithIDs == 0 || segmentsWithIDs == segments.count else {
      throw .malformed(
        file: name, position: nil,
        reason: "\(segmentsWithIDs) of \(segments.count) segments carry interior node ids")
    }
    guard segmentsWithTurns == 0 || segmentsWithTurns == segments.count else {
      throw .malformed(
        file: name, position: nil,
        reason: "\(segmentsWithTurns) of \(segments.count) segments carry turns")
    }
    do {
      try self.init(
        nodes: nodes, segments: segments,
        segmentNodeIDs: segmentsWithIDs == 0 ? nil : interior,
        turns: segmentsWithTurns == 0 ? nil : turns)
    } catch {
      throw .malformed(file: name, position: nil, reason: error.description)
    }
  }

  private enum DecodedChunk: Sendable {
    case nodes(first: Int, [RoadNode])
    case segments(first: Int, [RoadSegment], SegmentNodeIDs?, SegmentTurns?)
  }

  /// Ids (and so counts) are kept below 2^48 so that `first + count` cannot overflow.
  private static let idLimit = 1 << 48

  /// Writes a list of ids as its count and zigzag varint deltas, the first from 0.
  private static func writeDeltas(
    _ ids: some Collection<Int64>, to records: inout BinaryWriter
  ) {
    records.count(ids.count)
    var previous: Int64 = 0
    for id in ids {
      records.signedVarint(id &- previous)
      previous = id
    }
  }

  /// Reads a list written by ``writeDeltas(_:to:)``; `what` names it in errors.
  private static func readDeltas(
    _ reader: inout BinaryReader, _ what: String
  ) throws(BinaryDataError) -> [Int64] {
    let count = try reader.count(bytesPerItem: 1, what)
    var ids: [Int64] = []
    ids.reserveCapacity(count)
    var previous: Int64 = 0
    for _ in 0..<count {
      previous = previous &+ (try reader.signedVarint())
      ids.append(previous)
    }
    return ids
  }

  private static func decodeChunk(
    _ reader: inout BinaryReader
  ) throws(BinaryDataError) -> DecodedChunk {
    guard try reader.raw(4).elementsEqual(chunkMagic) else {
      throw reader.failure("not a road network chunk of format version 1")
    }
    guard let kind = ChunkKind(rawValue: try reader.byte()) else {
      throw reader.failure("unknown chunk kind")
    }
    let first = try reader.integer(atMost: idLimit, "first id")
    let count = try reader.count(bytesPerItem: 1, "records")
    let stringCount = try reader.count(bytesPerItem: 1, "strings")
    var strings: [String] = []
    strings.reserveCapacity(stringCount)
    for _ in 0..<stringCount { strings.append(try reader.string()) }
    func string(_ reader: inout BinaryReader) throws(BinaryDataError) -> String {
      let index = try reader.integer(atMost: strings.count - 1, "string number")
      return strings[index]
    }
    func coordinates(
      _ reader: inout BinaryReader, altitude: Bool
    ) throws(BinaryDataError) -> GeoCoordinates {
      let latitude = try reader.double(), longitude = try reader.double()
      let height = altitude ? try reader.double() : nil
      do {
        return try GeoCoordinates(latitude: latitude, longitude: longitude, altitude: height)
      } catch {
        throw reader.failure("\(error)")
      }
    }
    switch kind {
    case .nodes:
      var nodes: [RoadNode] = []
      nodes.reserveCapacity(count)
      for id in first..<first + count {
        let sourceID = try string(&reader)
        let flags = try reader.byte()
        guard flags <= 1 else { throw reader.failure("unknown node flags \(flags)") }
        nodes.append(
          RoadNode(
            id: id, sourceID: sourceID,
            coordinates: try coordinates(&reader, altitude: flags == 1)))
      }
      guard reader.isAtEnd else { throw reader.failure("data after the last node") }
      return .nodes(first: first, nodes)
    case .segments:
      var segments: [RoadSegment] = []
      segments.reserveCapacity(count)
      var interior = SegmentNodeIDs()
      var withIDs = 0
      var turns = SegmentTurns()
      var withTurns = 0
      for id in first..<first + count {
        let flags = try reader.varint()
        guard flags & ~SegmentFlag.known == 0, flags >> SegmentFlag.altitudeShift & 3 != 3 else {
          throw reader.failure("unknown segment flags \(flags)")
        }
        let sourceID = try string(&reader)
        let fromNode = try reader.integer(atMost: idLimit, "from node")
        let toNode = try reader.integer(atMost: idLimit, "to node")
        let length = try reader.finiteDouble("length")
        let name = flags & SegmentFlag.name != 0 ? try string(&reader) : nil
        let ref = flags & SegmentFlag.ref != 0 ? try string(&reader) : nil
        let className = try string(&reader)
        guard let roadClass = RoadClass(rawValue: className) else {
          throw reader.failure("unknown road class \"\(className)\"")
        }
        let speed = try reader.finiteDouble("speed limit")
        let sourceName = try string(&reader)
        guard let speedSource = SpeedLimitSource(rawValue: sourceName) else {
          throw reader.failure("unknown speed limit source \"\(sourceName)\"")
        }
        var lanes: Int?
        if flags & SegmentFlag.lanes != 0 {
          let value = try reader.signedVarint()
          guard value > -(1 << 31), value < 1 << 31 else {
            throw reader.failure("lane count \(value)")
          }
          lanes = Int(value)
        }
        let opposite =
          flags & SegmentFlag.opposite != 0
          ? try reader.integer(atMost: idLimit, "opposite segment") : nil
        let geometry: GeoPolyline
        if flags & SegmentFlag.reverseOfOpposite != 0 {
          guard let opposite, opposite >= first, opposite < id else {
            throw reader.failure("segment \(id) reverses a segment not before it in its chunk")
          }
          geometry = GeoPolyline(
            uncheckedVertices: segments[opposite - first].geometry.vertices.reversed())
        } else {
          let altitudeMode = (flags >> SegmentFlag.altitudeShift) & 3
          let vertexCount = try reader.count(bytesPerItem: 16, "vertices")
          guard vertexCount >= 2 else {
            throw reader.failure("segment \(id) has \(vertexCount) vertices")
          }
          var vertices: [GeoCoordinates] = []
          vertices.reserveCapacity(vertexCount)
          for _ in 0..<vertexCount {
            let altitude: Bool
            switch altitudeMode {
            case 0: altitude = false
            case 1: altitude = true
            default:
              let flag = try reader.byte()
              guard flag <= 1 else { throw reader.failure("unknown vertex flag \(flag)") }
              altitude = flag == 1
            }
            vertices.append(try coordinates(&reader, altitude: altitude))
          }
          geometry = GeoPolyline(uncheckedVertices: vertices)
        }
        if flags & SegmentFlag.interiorIDs != 0 {
          interior.append(try readDeltas(&reader, "interior node ids"))
          withIDs += 1
        }
        if flags & SegmentFlag.turns != 0 {
          let next = try readDeltas(&reader, "turns")
          if let wrong = next.first(where: { $0 < 0 || $0 >= Int64(idLimit) }) {
            throw reader.failure("segment \(id) turns into segment \(wrong)")
          }
          if flags & SegmentFlag.turnLanes != 0 {
            var entries: [(segment: Int, lanes: SegmentTurns.Lanes)] = []
            entries.reserveCapacity(next.count)
            for successor in next {
              let mask = try reader.varint()
              guard mask <= UInt64(SegmentTurns.everyLane) else {
                throw reader.failure("segment \(id) has the turn lanes \(mask)")
              }
              entries.append((Int(successor), SegmentTurns.Lanes(mask)))
            }
            turns.append(entries)
          } else {
            turns.append(next.map { Int($0) })
          }
          withTurns += 1
        } else if flags & SegmentFlag.turnLanes != 0 {
          throw reader.failure("segment \(id) has turn lanes without turns")
        }
        segments.append(
          RoadSegment(
            id: id, sourceID: sourceID, fromNode: fromNode, toNode: toNode, geometry: geometry,
            lengthInMeters: length, name: name, ref: ref, roadClass: roadClass,
            speedLimitInMetersPerSecond: speed, speedLimitSource: speedSource, laneCount: lanes,
            isReversed: flags & SegmentFlag.reversed != 0, oppositeID: opposite,
            isOpenToCars: flags & SegmentFlag.closedToCars == 0,
            isRoundabout: flags & SegmentFlag.roundabout != 0,
            isToll: flags & SegmentFlag.toll != 0))
      }
      guard reader.isAtEnd else { throw reader.failure("data after the last segment") }
      guard withIDs == 0 || withIDs == count else {
        throw reader.failure("\(withIDs) of \(count) segments carry interior node ids")
      }
      guard withTurns == 0 || withTurns == count else {
        throw reader.failure("\(withTurns) of \(count) segments carry turns")
      }
      return .segments(
        first: first, segments, withIDs == 0 ? nil : interior, withTurns == 0 ? nil : turns)
    }
  }
}
