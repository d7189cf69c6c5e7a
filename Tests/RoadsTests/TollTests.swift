import Codec
import Foundation
import Geo
import Testing

@testable import Roads

/// Toll roads (``RoadSegment/isToll``): read from OpenStreetMap per direction as OSRM's car
/// profile reads them, stored with the network, and absent from networks stored before.
@Suite struct TollTests {
  static let xml = """
    <osm>
    <node id="1" lat="47.10" lon="9.50"/><node id="2" lat="47.11" lon="9.50"/>
    <node id="3" lat="47.12" lon="9.50"/><node id="4" lat="47.13" lon="9.50"/>
    <node id="5" lat="47.14" lon="9.50"/>
    <way id="10"><nd ref="1"/><nd ref="2"/><tag k="highway" v="primary"/>
      <tag k="toll" v="yes"/></way>
    <way id="11"><nd ref="2"/><nd ref="3"/><tag k="highway" v="primary"/>
      <tag k="toll" v="no"/></way>
    <way id="12"><nd ref="3"/><nd ref="4"/><tag k="highway" v="primary"/>
      <tag k="toll:forward" v="yes"/></way>
    <way id="13"><nd ref="4"/><nd ref="5"/><tag k="highway" v="motorway"/>
      <tag k="toll" v="yes"/><tag k="toll:backward" v="no"/><tag k="oneway" v="no"/></way>
    <way id="14"><nd ref="5"/><nd ref="1"/><tag k="highway" v="secondary"/>
      <tag k="toll" v="snowmobile"/></way>
    </osm>
    """

  @Test("toll=yes marks both directions; toll:forward and toll:backward override it")
  func importMarksTolls() throws {
    let network = try OSMImporter.importNetwork(xml: Data(Self.xml.utf8), name: "toll.osm")
    let tolls = network.segments.map { ($0.sourceID, $0.isReversed, $0.isToll) }
    let expected: [(String, Bool, Bool)] = [
      ("10", false, true), ("10", true, true), ("11", false, false), ("11", true, false),
      ("12", false, true), ("12", true, false), ("13", false, true), ("13", true, false),
      ("14", false, false), ("14", true, false),
    ]
    #expect(tolls.count == expected.count)
    for (found, wanted) in zip(tolls, expected) {
      #expect(found == wanted, "\(found) is not \(wanted)")
    }
    // Stored and read back.
    let decoded = try RoadNetwork(binaryChunks: network.binaryChunks(), name: "toll")
    #expect(decoded.segments.map(\.isToll) == network.segments.map(\.isToll))
  }

  /// A segment chunk as the format before tolls writes it (by hand, from the layout on
  /// ``RoadNetwork/binaryChunks(elementsPerChunk:)``): one two-way road of two segments.
  static func chunksWrittenBeforeTolls() -> [Data] {
    var nodes = BinaryWriter(capacity: 64)
    nodes.raw(RoadNetwork.chunkMagic)
    nodes.byte(0)
    nodes.count(0)
    nodes.count(2)
    nodes.count(2)
    nodes.string("a")
    nodes.string("b")
    for (k, latitude) in [47.10, 47.11].enumerated() {
      nodes.count(k)
      nodes.byte(0)
      nodes.double(latitude)
      nodes.double(9.5)
    }
    var segments = BinaryWriter(capacity: 128)
    segments.raw(RoadNetwork.chunkMagic)
    segments.byte(1)
    segments.count(0)
    segments.count(2)
    segments.count(4)
    // The strings in the order of first use: source id, name, class, speed limit source.
    for string in ["7", "Autobahn", "motorway", "posted"] { segments.string(string) }
    let length = 1_111.95
    for (from, to) in [(0, 1), (1, 0)] {
      // Flags: name 1, opposite 16, and for the second the geometry of the first reversed.
      segments.varint(from == 0 ? 1 | 16 : 1 | 8 | 16 | 32)
      segments.count(0)
      segments.count(from)
      segments.count(to)
      segments.double(length)
      segments.count(1)
      segments.count(2)
      segments.double(33)
      segments.count(3)
      segments.count(to)
      if from == 0 {
        segments.count(2)
        for latitude in [47.10, 47.11] {
          segments.double(latitude)
          segments.double(9.5)
        }
      }
    }
    return [nodes.data, segments.data]
  }

  @Test("a network stored before tolls loads, with no toll known")
  func oldNetworkLoads() throws {
    let network = try RoadNetwork(binaryChunks: Self.chunksWrittenBeforeTolls(), name: "old")
    #expect(network.segments.count == 2)
    #expect(network.segments.map(\.roadClass) == [.motorway, .motorway])
    #expect(network.segments.map(\.name) == ["Autobahn", "Autobahn"])
    #expect(network.segments.allSatisfy { !$0.isToll })
    // Written again, a toll-free network is the same bytes as before.
    #expect(network.binaryChunks() == Self.chunksWrittenBeforeTolls())
  }
}
