import Foundation
import Geo
import Testing
import TrafficTestSupport

@testable import Roads

@Suite struct RoadNetworkCodingTests {
  /// A network using every field: names and refs present and absent, lanes, altitudes on
  /// every vertex, on some and on none, two-way roads whose directions are (and one whose
  /// are not) each other's reverse, a reversed one-way, every road class and speed source,
  /// toll roads.
  static func everyFeatureNetwork() throws -> RoadNetwork {
    let points: [(Double, Double, Double?)] = [
      (47.10, 9.50, nil), (47.11, 9.51, 455.5), (47.12, 9.49, -0.0), (47.13, 9.52, nil),
      (-33.9, 151.2, 12), (47.14, 9.53, nil),
    ]
    let nodes = try points.enumerated().map { i, point in
      RoadNode(
        id: i, sourceID: "node \(i) ü",
        coordinates: try GeoCoordinates(latitude: point.0, longitude: point.1, altitude: point.2))
    }
    func line(_ a: Int, _ b: Int, via: [(Double, Double, Double?)] = []) throws -> GeoPolyline {
      let middle = try via.map {
        try GeoCoordinates(latitude: $0.0, longitude: $0.1, altitude: $0.2)
      }
      return try GeoPolyline(
        vertices: [nodes[a].coordinates] + middle + [nodes[b].coordinates])
    }
    let classes = RoadClass.allCases
    let sources: [SpeedLimitSource] = [.posted, .implicit, .unlimited, .roadClassDefault]
    var segments: [RoadSegment] = []
    func add(
      _ a: Int, _ b: Int, geometry: GeoPolyline, name: String?, ref: String?, lanes: Int?,
      reversed: Bool = false, opposite: Int? = nil, cars: Bool = true, roundabout: Bool = false
    ) {
      let id = segments.count
      segments.append(
        RoadSegment(
          id: id, sourceID: "\(1000 + id / 2)", fromNode: a, toNode: b, geometry: geometry,
          name: name, ref: ref, roadClass: classes[id % classes.count],
          speedLimit: SpeedLimit(
            metersPerSecond: 13.888888888888889 + Double(id) / 7,
            source: sources[id % sources.count]),
          laneCount: lanes, isReversed: reversed, oppositeID: opposite, isOpenToCars: cars,
          isRoundabout: roundabout, isToll: id % 3 == 1))
    }
    let curve = try line(0, 1, via: [(47.101, 9.503, 440), (47.105, 9.507, nil)])
    add(0, 1, geometry: curve, name: "Landstrasse", ref: "11", lanes: 2, opposite: 1)
    add(
      1, 0, geometry: try GeoPolyline(vertices: curve.vertices.reversed()), name: "Landstrasse",
      ref: "11", lanes: 1, reversed: true, opposite: 0)
    // A two-way road whose directions were digitised apart (not each other's reverse).
    add(1, 2, geometry: try line(1, 2), name: nil, ref: "A 13", lanes: nil, opposite: 3)
    add(
      2, 1, geometry: try line(2, 1, via: [(47.115, 9.4999, nil)]), name: nil, ref: "A 13",
      lanes: 3, reversed: true, opposite: 2)
    add(2, 3, geometry: try line(2, 3), name: "Ein Weg", ref: nil, lanes: nil, cars: false)
    add(3, 5, geometry: try line(3, 5), name: "", ref: nil, lanes: 0, reversed: true)
    add(
      4, 4, geometry: try line(4, 4, via: [(-33.91, 151.21, 3)]), name: "Loop", ref: nil, lanes: 4,
      roundabout: true)
    for k in 0..<classes.count {
      add(
        k % 2 == 0 ? 3 : 5, k % 2 == 0 ? 5 : 3,
        geometry: k % 2 == 0 ? try line(3, 5) : try line(5, 3), name: "road \(k)", ref: nil,
        lanes: k)
    }
    return try RoadNetwork(nodes: nodes, segments: segments)
  }

  static func expectEqual(
    _ decoded: RoadNetwork, _ original: RoadNetwork,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(decoded.nodes == original.nodes, sourceLocation: sourceLocation)
    #expect(decoded.segments == original.segments, sourceLocation: sourceLocation)
    // Bit-exact, beyond what == says for doubles (-0.0 == 0.0).
    #expect(bits(decoded) == bits(original), sourceLocation: sourceLocation)
  }

  /// Every double of a network as its bit pattern (a missing altitude as 1, the pattern of
  /// the smallest denormal, which no test altitude has).
  static func bits(_ network: RoadNetwork) -> [UInt64] {
    var result: [UInt64] = []
    func add(_ point: GeoCoordinates) {
      result += [
        point.latitude.bitPattern, point.longitude.bitPattern, point.altitude?.bitPattern ?? 1,
      ]
    }
    for node in network.nodes { add(node.coordinates) }
    for segment in network.segments {
      result += [segment.lengthInMeters.bitPattern, segment.speedLimitInMetersPerSecond.bitPattern]
      for vertex in segment.geometry.vertices { add(vertex) }
    }
    return result
  }

  @Test("A network using every field round-trips exactly", arguments: [1, 2, 3, 32_768])
  func everyFeature(elementsPerChunk: Int) throws {
    let network = try Self.everyFeatureNetwork()
    let chunks = network.binaryChunks(elementsPerChunk: elementsPerChunk)
    let nodeChunks = (network.nodes.count + elementsPerChunk - 1) / elementsPerChunk
    let segmentChunks = (network.segments.count + elementsPerChunk - 1) / elementsPerChunk
    #expect(chunks.count == nodeChunks + segmentChunks)
    let decoded = try RoadNetwork(binaryChunks: chunks, name: "test")
    Self.expectEqual(decoded, network)
    // The spatial index is rebuilt: the same segments are found near a point.
    let point = try GeoCoordinates(latitude: 47.105, longitude: 9.505)
    #expect(
      try decoded.segments(near: point, withinMeters: 3000)
        == network.segments(near: point, withinMeters: 3000))
  }

  @Test("A two-way road whose directions reverse each other stores its vertices once")
  func sharedGeometry() throws {
    let network = try Self.everyFeatureNetwork()
    let oneWayOnly = try RoadNetwork(
      nodes: network.nodes,
      segments: network.segments.map { segment in
        RoadSegment(
          id: segment.id, sourceID: segment.sourceID, fromNode: segment.fromNode,
          toNode: segment.toNode, geometry: segment.geometry, name: segment.name,
          ref: segment.ref, roadClass: segment.roadClass,
          speedLimit: SpeedLimit(
            metersPerSecond: segment.speedLimitInMetersPerSecond,
            source: segment.speedLimitSource),
          laneCount: segment.laneCount, isReversed: segment.isReversed, oppositeID: nil,
          isRoundabout: segment.isRoundabout, isToll: segment.isToll)
      })
    let shared = network.binaryChunks().map(\.count).reduce(0, +)
    let separate = oneWayOnly.binaryChunks().map(\.count).reduce(0, +)
    // Segment 1's four vertices (two with altitude: 4 × 16 + 2 × 8 + 4 flag bytes, plus the
    // vertex count) are not stored; the four opposite ids cost a byte each.
    #expect(separate - shared == 4 * 16 + 2 * 8 + 4 + 1 - 4)
  }

  @Test("A random network round-trips exactly", arguments: [1 as UInt64, 2, 3])
  func random(seed: UInt64) throws {
    let network = try RoutingGraphTests.randomNetwork(seed: seed, nodeCount: 300, roadCount: 700)
    let decoded = try RoadNetwork(
      binaryChunks: network.binaryChunks(elementsPerChunk: 97), name: "random")
    Self.expectEqual(decoded, network)
  }

  @Test(
    "The Liechtenstein network round-trips exactly")
  func liechtenstein() throws {
    let base = RoadsFixtures.liechtenstein
    let network = try OSMImporter.importNetwork(
      from: base.appendingPathExtension("osm.pbf"), options: OSMImportOptions(countryCode: "LI"))
    let start = Date()
    let chunks = network.binaryChunks()
    let encoded = Date()
    let decoded = try RoadNetwork(binaryChunks: chunks, name: "Liechtenstein")
    let end = Date()
    Self.expectEqual(decoded, network)
    // The OpenStreetMap ids of the nodes each segment passes survive too, one per vertex,
    // its end nodes first and last.
    let ids = try #require(network.segmentNodeIDs)
    #expect(decoded.segmentNodeIDs == ids)
    for segment in network.segments {
      let path = try #require(ids.path(of: segment, in: network))
      #expect(path.count == segment.geometry.vertices.count)
      #expect(String(path[path.count - 1]) == network.nodes[segment.toNode].sourceID)
      if let opposite = segment.oppositeID {
        #expect(ids.path(of: network.segments[opposite], in: network) == path.reversed())
      }
    }
    print(
      "Liechtenstein: \(network.segments.count) segments, "
        + "\(chunks.map(\.count).reduce(0, +)) bytes in \(chunks.count) chunks; encoded in "
        + "\(encoded.timeIntervalSince(start)) s, decoded and indexed in "
        + "\(end.timeIntervalSince(encoded)) s")
  }

  @Test("Every truncation of a chunk fails with an error naming the chunk")
  func truncated() throws {
    let chunks = try Self.everyFeatureNetwork().binaryChunks()
    for k in chunks.indices {
      for length in 0..<chunks[k].count {
        var cut = chunks
        cut[k] = chunks[k].prefix(length)
        do {
          _ = try RoadNetwork(binaryChunks: cut, name: "db")
          Issue.record("chunk \(k) cut to \(length) bytes was accepted")
        } catch {
          guard case .malformed(let file, _, _) = error else {
            Issue.record("unexpected \(error)")
            continue
          }
          #expect(file.contains("db"))
        }
      }
    }
  }

  @Test("Random byte damage throws or decodes, never traps")
  func damaged() throws {
    let network = try Self.everyFeatureNetwork()
    let chunks = network.binaryChunks(elementsPerChunk: 4)
    var generator = SeededGenerator(seed: 42)
    var rejected = 0
    for _ in 0..<2_000 {
      var damaged = chunks
      let k = Int.random(in: 0..<chunks.count, using: &generator)
      var bytes = [UInt8](chunks[k])
      for _ in 0..<Int.random(in: 1...3, using: &generator) {
        bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(
          in: 0...255, using: &generator)
      }
      damaged[k] = Data(bytes)
      do {
        let decoded = try RoadNetwork(binaryChunks: damaged, name: "damaged")
        // What decodes is a consistent network (checked by init(nodes:segments:)).
        #expect(decoded.segments.count == network.segments.count)
      } catch {
        rejected += 1
      }
    }
    // Most damage hits a structural byte; some only changes a coordinate or a length.
    #expect(rejected > 500)
  }

  @Test("Chunks out of order, foreign bytes and inconsistent links are refused")
  func inconsistent() throws {
    let network = try Self.everyFeatureNetwork()
    let chunks = network.binaryChunks(elementsPerChunk: 3)
    let nodeChunks = 2
    func reason(_ chunks: [Data]) -> String? {
      do {
        _ = try RoadNetwork(binaryChunks: chunks, name: "db")
        return nil
      } catch {
        guard case .malformed(_, _, let reason) = error else { return "\(error)" }
        return reason
      }
    }
    #expect(reason(Array(chunks.reversed()))?.contains("expected") == true)
    #expect(reason([chunks[1], chunks[0]] + chunks[nodeChunks...])?.contains("expected") == true)
    #expect(reason(chunks + [Data("SQLite format 3".utf8)])?.contains("format version") == true)
    // Without the node chunks every segment joins a node that does not exist.
    #expect(reason(Array(chunks[nodeChunks...]))?.contains("node") == true)
    #expect(try RoadNetwork(binaryChunks: [], name: "empty").segments.isEmpty)
  }
}
