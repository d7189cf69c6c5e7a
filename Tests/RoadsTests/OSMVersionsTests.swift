import Foundation
import Geo
import Roads
import Testing

/// Deleted objects, history files (several versions of one object) and objects defined
/// twice, in OpenStreetMap XML and PBF.
@Suite struct OSMVersionsTests {
  /// `from->to way` for each segment, by OpenStreetMap ids.
  static func rows(_ network: RoadNetwork) -> [String] {
    network.segments.map {
      "\(network.nodes[$0.fromNode].sourceID)->\(network.nodes[$0.toNode].sourceID) \($0.sourceID)"
    }
  }

  static func importXML(_ body: String) throws -> (network: RoadNetwork, report: OSMImportReport) {
    try OSMImporter.importNetworkReporting(
      xml: Data("<?xml version=\"1.0\"?>\n<osm version=\"0.6\">\n\(body)\n</osm>".utf8),
      name: "test.osm")
  }

  static func coordinates(of id: String, in network: RoadNetwork) -> GeoCoordinates? {
    network.nodes.first { $0.sourceID == id }?.coordinates
  }

  @Test("visible=\"false\" and JOSM's action=\"delete\" ways and nodes are not imported")
  func deletedObjects() throws {
    // As QA's JOSM file: -201 is kept, -202 (action=delete) and 55 (visible=false, a
    // motorway) are not; node -104 is deleted too.
    let (network, report) = try Self.importXML(
      """
      <node id="-101" action="modify" visible="true" lat="47.1" lon="9.5"/>
      <node id="-102" action="modify" visible="true" lat="47.1" lon="9.502"/>
      <node id="-103" action="modify" visible="true" lat="47.1" lon="9.504"/>
      <node id="-104" action="delete" visible="true" lat="47.2" lon="9.6"/>
      <node id="-105" visible="true" lat="47.1" lon="9.506"/>
      <way id="-201" action="modify" visible="true">
        <nd ref="-101"/><nd ref="-102"/><nd ref="-103"/><tag k="highway" v="secondary"/>
      </way>
      <way id="-202" action="delete" visible="true">
        <nd ref="-102"/><nd ref="-104"/><tag k="highway" v="secondary"/>
      </way>
      <way id="55" version="3" visible="false">
        <nd ref="-101"/><nd ref="-103"/><tag k="highway" v="motorway"/>
      </way>
      <way id="56" version="2">
        <nd ref="-103"/><nd ref="-104"/><nd ref="-105"/><tag k="highway" v="residential"/>
      </way>
      """)
    // Way 56 runs through the deleted node -104: no two of its present nodes are
    // consecutive, so it is dropped.
    #expect(Self.rows(network) == ["-101->-103 -201", "-103->-101 -201"])
    #expect(network.segments.allSatisfy { $0.roadClass == .secondary })
    #expect(report.roadWays == 2)
    #expect(report.droppedWays == 1)
    #expect(report.missingNodeReferences == 1)
    #expect(report.duplicateNodes == 0 && report.duplicateWays == 0)
  }

  /// A node or way of a test file; `version` nil: none written.
  struct Node {
    var id: Int64
    var version: Int?
    var visible = true
    var latitude: Double
    var longitude: Double
  }

  struct Way {
    var id: Int64
    var version: Int?
    var visible = true
    var refs: [Int64]
    var highway: String
  }

  /// QA's history file: way 100 in three versions (the last deleted), way 101 a footway
  /// that became a road, node 2 moved, node 3 deleted (its last position kept, as osmium
  /// writes it); and way 102, whose current version runs to the deleted node.
  static let historyNodes = [
    Node(id: 1, version: 1, latitude: 47.1, longitude: 9.5),
    Node(id: 2, version: 1, latitude: 47.1, longitude: 9.502),
    Node(id: 2, version: 2, latitude: 47.3, longitude: 9.7),
    Node(id: 3, version: 1, latitude: 47.1, longitude: 9.504),
    Node(id: 3, version: 2, visible: false, latitude: 47.1, longitude: 9.504),
    Node(id: 4, version: 1, latitude: 47.102, longitude: 9.5),
    Node(id: 5, version: 1, latitude: 47.102, longitude: 9.502),
  ]
  static let historyWays = [
    Way(id: 100, version: 1, refs: [1, 2, 3], highway: "primary"),
    Way(id: 100, version: 2, refs: [1, 2], highway: "primary"),
    Way(id: 100, version: 3, visible: false, refs: [1, 2], highway: "primary"),
    Way(id: 101, version: 1, refs: [4, 5], highway: "footway"),
    Way(id: 101, version: 2, refs: [4, 5], highway: "residential"),
    Way(id: 102, version: 1, refs: [2, 3], highway: "tertiary"),
    Way(id: 102, version: 2, refs: [5, 2, 3], highway: "tertiary"),
  ]

  static func xml(_ nodes: [Node], _ ways: [Way]) -> String {
    func head(_ id: Int64, _ version: Int?, _ visible: Bool) -> String {
      "id=\"\(id)\"" + (version.map { " version=\"\($0)\"" } ?? "") + " visible=\"\(visible)\""
    }
    let nodeLines = nodes.map {
      "<node \(head($0.id, $0.version, $0.visible)) lat=\"\($0.latitude)\" lon=\"\($0.longitude)\"/>"
    }
    let wayLines = ways.map { way in
      "<way \(head(way.id, way.version, way.visible))>"
        + way.refs.map { "<nd ref=\"\($0)\"/>" }.joined()
        + "<tag k=\"highway\" v=\"\(way.highway)\"/></way>"
    }
    return (nodeLines + wayLines).joined(separator: "\n")
  }

  /// The same as a PBF file: one block of dense nodes (with `DenseInfo` when a node has a
  /// version or is deleted) and ways (each with its `Info`), the header naming
  /// `HistoricalInformation` when `historical`.
  static func pbf(_ nodes: [Node], _ ways: [Way], historical: Bool) -> [UInt8] {
    var header = ProtobufWriter()
    header.bytesField(4, Array("OsmSchema-V0.6".utf8))
    header.bytesField(4, Array("DenseNodes".utf8))
    if historical { header.bytesField(4, Array("HistoricalInformation".utf8)) }
    let strings = ["", "highway"] + Array(Set(ways.map(\.highway))).sorted()
    var table = ProtobufWriter()
    for string in strings { table.bytesField(1, Array(string.utf8)) }
    var dense = ProtobufWriter()
    dense.packedSigned(1, deltaCoded: nodes.map(\.id))
    if nodes.contains(where: { $0.version != nil || !$0.visible }) {
      var info = ProtobufWriter()
      info.packedUnsigned(1, nodes.map { UInt64($0.version ?? 0) })
      info.packedUnsigned(6, nodes.map { $0.visible ? 1 : 0 })
      dense.bytesField(5, info.bytes)
    }
    dense.packedSigned(8, deltaCoded: nodes.map { Int64(($0.latitude * 1e7).rounded()) })
    dense.packedSigned(9, deltaCoded: nodes.map { Int64(($0.longitude * 1e7).rounded()) })
    var nodesGroup = ProtobufWriter()
    nodesGroup.bytesField(2, dense.bytes)
    var waysGroup = ProtobufWriter()
    for way in ways {
      var message = ProtobufWriter()
      message.varintField(1, UInt64(way.id))
      message.packedUnsigned(2, [1])
      message.packedUnsigned(3, [UInt64(strings.firstIndex(of: way.highway) ?? 0)])
      var info = ProtobufWriter()
      if let version = way.version { info.varintField(1, UInt64(version)) }
      if !way.visible { info.varintField(6, 0) }
      message.bytesField(4, info.bytes)
      message.packedSigned(8, deltaCoded: way.refs)
      waysGroup.bytesField(3, message.bytes)
    }
    var block = ProtobufWriter()
    block.bytesField(1, table.bytes)
    block.bytesField(2, nodesGroup.bytes)
    block.bytesField(2, waysGroup.bytes)
    return ProtobufWriter.block(type: "OSMHeader", content: header.bytes)
      + ProtobufWriter.block(type: "OSMData", content: block.bytes)
  }

  /// Imports the nodes and ways written as `format` (`xml`, `pbf`, `history.pbf`: with
  /// `HistoricalInformation`).
  static func importFile(
    _ nodes: [Node], _ ways: [Way], format: String
  ) throws -> (network: RoadNetwork, report: OSMImportReport) {
    guard format != "xml" else { return try importXML(xml(nodes, ways)) }
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("roads-\(UUID().uuidString).osh.pbf")
    try Data(pbf(nodes, ways, historical: format == "history.pbf")).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    return try OSMImporter.importNetworkReporting(from: url)
  }

  @Test(
    "A history file imports the highest version of each object, none of a deleted one",
    arguments: ["xml", "history.pbf", "pbf"])
  func history(format: String) throws {
    let (network, report) = try Self.importFile(
      Self.historyNodes, Self.historyWays, format: format)
    // 100 is deleted; 101's current version is a road; 102 v2 is cut at the deleted node 3.
    #expect(Self.rows(network) == ["4->5 101", "5->4 101", "5->2 102", "2->5 102"])
    let moved = try #require(Self.coordinates(of: "2", in: network))
    #expect(abs(moved.latitude - 47.3) < 1e-9 && abs(moved.longitude - 9.7) < 1e-9)
    #expect(report.roadWays == 2)
    #expect(report.clippedWays == 1)
    #expect(report.missingNodeReferences == 1)
    #expect(report.duplicateNodes == 0 && report.duplicateWays == 0)
  }

  @Test("PBF: a node or way defined twice without versions is the last one, counted")
  func pbfDuplicates() throws {
    let nodes = [
      Node(id: 4, latitude: 47.102, longitude: 9.5),
      Node(id: 5, latitude: 47.102, longitude: 9.502),
      Node(id: 5, latitude: 47.2, longitude: 9.6),
      Node(id: 6, latitude: 47.102, longitude: 9.504),
    ]
    let ways = [
      Way(id: 101, refs: [4, 5], highway: "primary"),
      Way(id: 101, refs: [4, 5, 6], highway: "tertiary"),
    ]
    for format in ["xml", "pbf"] {
      let (network, report) = try Self.importFile(nodes, ways, format: format)
      #expect(Self.rows(network) == ["4->6 101", "6->4 101"], "\(format)")
      #expect(network.segments.first?.roadClass == .tertiary)
      let node5 = try #require(network.segments.first?.geometry.vertices[1])
      #expect(abs(node5.latitude - 47.2) < 1e-9, "\(format)")
      #expect(report.duplicateNodes == 1 && report.duplicateWays == 1, "\(format)")
    }
  }

  @Test("Versions count whatever their order in the file; a road made a footway is no road")
  func versionsOutOfOrder() throws {
    let (network, report) = try Self.importXML(
      """
      <node id="2" version="2" lat="47.3" lon="9.7"/>
      <node id="1" version="1" lat="47.1" lon="9.5"/>
      <node id="2" version="1" lat="47.1" lon="9.502"/>
      <node id="3" version="1" lat="47.1" lon="9.504"/>
      <way id="7" version="3"><nd ref="1"/><nd ref="2"/><tag k="highway" v="primary"/></way>
      <way id="8" version="1"><nd ref="2"/><nd ref="3"/><tag k="highway" v="primary"/></way>
      <way id="7" version="2"><nd ref="1"/><nd ref="3"/><tag k="highway" v="motorway"/></way>
      <way id="8" version="2"><nd ref="2"/><nd ref="3"/><tag k="highway" v="footway"/></way>
      """)
    #expect(Self.rows(network) == ["1->2 7", "2->1 7"])
    #expect(network.segments[0].roadClass == .primary)
    #expect(Self.coordinates(of: "2", in: network)?.latitude == 47.3)
    #expect(report.roadWays == 1 && report.duplicateNodes == 0 && report.duplicateWays == 0)
  }

  @Test("A node or way defined twice without telling versions: the last one, counted")
  func duplicates() throws {
    // QA's file: node 5 twice, version 1 both times, the second 20 km away; node 6 twice
    // without versions; way 300 twice without versions.
    let (network, report) = try Self.importXML(
      """
      <node id="4" version="1" lat="47.102" lon="9.5"/>
      <node id="5" version="1" lat="47.102" lon="9.502"/>
      <node id="6" lat="47.102" lon="9.504"/>
      <node id="5" version="1" lat="47.2" lon="9.6"/>
      <node id="6" lat="47.103" lon="9.504"/>
      <node id="7" lat="47.2" lon="9.5"/>
      <node id="7" version="3" lat="47.2" lon="9.5"/>
      <node id="7" version="4" lat="47.21" lon="9.5"/>
      <node id="9" lat="47.0" lon="9.0"/>
      <node id="9" lat="47.0" lon="9.0"/>
      <way id="101" version="1">
        <nd ref="4"/><nd ref="5"/><nd ref="6"/><tag k="highway" v="primary"/>
      </way>
      <way id="300"><nd ref="6"/><nd ref="4"/><tag k="highway" v="primary"/></way>
      <way id="300"><nd ref="6"/><nd ref="7"/><tag k="highway" v="tertiary"/></way>
      """)
    #expect(Self.rows(network) == ["4->6 101", "6->4 101", "6->7 300", "7->6 300"])
    #expect(network.segments[2].roadClass == .tertiary)
    let node5 = network.segments[0].geometry.vertices[1]
    #expect(node5.latitude == 47.2 && node5.longitude == 9.6)
    #expect(Self.coordinates(of: "6", in: network)?.latitude == 47.103)
    // Node 7's versions 3 and 4 tell which is current (4), after the tie; node 9 is no
    // road's.
    #expect(Self.coordinates(of: "7", in: network)?.latitude == 47.21)
    #expect(report.duplicateNodes == 2)
    #expect(report.duplicateWays == 1)
    #expect(report.roadWays == 2)
    #expect(report.description.contains("2 nodes defined twice without versions"))
    #expect(report.hasFindings)
  }

  @Test("Different versions of a node are no duplicate: the highest wins, in either order")
  func nodeVersions() throws {
    let definitions = [
      (version: 1, latitude: 47.1001), (version: 2, latitude: 47.3),
    ]
    for order in [definitions, definitions.reversed()] {
      let (network, report) = try Self.importXML(
        """
        <node id="1" version="1" lat="47.1" lon="9.5"/>
        <node id="2" version="\(order[0].version)" lat="\(order[0].latitude)" lon="9.502"/>
        <node id="2" version="\(order[1].version)" lat="\(order[1].latitude)" lon="9.502"/>
        <way id="1" version="1"><nd ref="1"/><nd ref="2"/><tag k="highway" v="primary"/></way>
        """)
      #expect(Self.coordinates(of: "2", in: network)?.latitude == 47.3)
      #expect(report.duplicateNodes == 0)
      #expect(!report.hasFindings)
    }
  }
}
