import Foundation
import Geo
import Roads
import Testing
import TrafficTestSupport
import Zlib

@Suite struct SUMONetworkImporterTests {
  @Test("The hand-written network: kept edges, coordinates, speeds, opposites")
  func smallNetwork() throws {
    let network = try SUMONetworkImporter.importNetwork(from: RoadsFixtures.url("small.net.xml"))
    #expect(network.segments.map(\.sourceID) == ["e1", "-e1", "e2"])
    #expect(network.nodes.map(\.sourceID) == ["A", "B", "C"])
    // References from PROJ (see the fixture's comment).
    let expected = [
      (47.1341424841, 9.5155929719), (47.1341305837, 9.5182301658),
      (47.1359302201, 9.5182476501),
    ]
    for (node, (lat, lon)) in zip(network.nodes, expected) {
      #expect(abs(node.coordinates.latitude - lat) < 1e-9)
      #expect(abs(node.coordinates.longitude - lon) < 1e-9)
    }
    let e1 = network.segments[0]
    #expect(e1.speedLimitInMetersPerSecond == 16.67)
    #expect(e1.laneCount == 2 && e1.roadClass == .primary && e1.name == "Landstrasse")
    #expect(e1.geometry.vertices.count == 3)
    #expect(e1.oppositeID == 1 && network.segments[1].oppositeID == 0)
    #expect(network.segments[1].isReversed)
    // e2 has no edge shape: its geometry is the mean of its two lanes (x = 298).
    let e2 = network.segments[2]
    #expect(e2.roadClass == .tertiary && e2.oppositeID == nil)
    #expect(abs(e2.geometry.vertices[1].latitude - 47.1350305213) < 1e-9)
    #expect(abs(e2.geometry.vertices[1].longitude - 9.5182125353) < 1e-9)
    #expect(abs(e2.lengthInMeters - 200) < 0.2)
  }

  @Test(
    "an edge whose lanes admit buses or delivery vans but no passenger car is kept, closed to cars")
  func edgesClosedToCars() throws {
    #expect(
      try SUMONetworkImporter.importNetwork(from: RoadsFixtures.url("small.net.xml")).segments
        .allSatisfy(\.isOpenToCars))
    let text = try String(contentsOf: RoadsFixtures.url("small.net.xml"), encoding: .utf8)
      .replacingOccurrences(of: "disallow=\"pedestrian bicycle\"", with: "allow=\"bus delivery\"")
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("delivery-\(UUID().uuidString).net.xml")
    try text.write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    let network = try SUMONetworkImporter.importNetwork(from: file)
    #expect(network.segments.map(\.sourceID) == ["e1", "-e1", "e2"])
    #expect(network.segments.map(\.isOpenToCars) == [true, true, false])
  }

  @Test("the edges a <roundabout> lists are roundabout segments")
  func roundaboutEdges() throws {
    #expect(
      try SUMONetworkImporter.importNetwork(from: RoadsFixtures.url("small.net.xml")).segments
        .allSatisfy { !$0.isRoundabout })
    let text = try String(contentsOf: RoadsFixtures.url("small.net.xml"), encoding: .utf8)
      .replacingOccurrences(
        of: "</net>", with: "    <roundabout nodes=\"A B\" edges=\"e1 e2\"/>\n</net>")
    let network = try SUMONetworkImporter.importNetwork(xml: Data(text.utf8), name: "r.net.xml")
    #expect(network.segments.map(\.isRoundabout) == [true, false, true])
  }

  @Test("the lane connections are the turns; without any, every turn but the way back")
  func connectionsAreTurns() throws {
    let plain = try SUMONetworkImporter.importNetwork(from: RoadsFixtures.url("small.net.xml"))
    #expect(plain.turns == nil)
    #expect(RoutingGraph(network: plain).successors(of: 0) == [2])
    // e1 goes on to e2 and turns back (its left lane) into -e1; its link into the footway is
    // no road's.
    let text = try String(contentsOf: RoadsFixtures.url("small.net.xml"), encoding: .utf8)
      .replacingOccurrences(
        of: "</net>",
        with: """
              <connection from="e1" to="e2" fromLane="0" toLane="0" via=":B_0_0" dir="r" state="M"/>
              <connection from="e1" to="-e1" fromLane="1" toLane="0" dir="t" state="M"/>
              <connection from="e1" to="ped" fromLane="0" toLane="0" dir="r" state="M"/>
              <connection from=":B_0" to="e2" fromLane="0" toLane="0" dir="r" state="M"/>
          </net>
          """)
    let network = try SUMONetworkImporter.importNetwork(xml: Data(text.utf8), name: "t.net.xml")
    let turns = try #require(network.turns)
    #expect(turns.segmentCount == 3)
    #expect(Array(turns[0]) == [1, 2])
    #expect(turns[1].isEmpty && turns[2].isEmpty)
    #expect(RoutingGraph(network: network).successors(of: 0) == [1, 2])
    #expect(RoutingGraph(network: network).successors(of: 1).isEmpty)
    // Each turn keeps the lanes it leaves from, counted from the left: e1's right turn into
    // e2 (segment 2) leaves from lane 0 (SUMO's rightmost, the second from the left), the
    // U-turn into -e1 (segment 1) from lane 1 (the leftmost).
    #expect(turns.knowsLanes)
    #expect(turns.lanes(from: 0, to: 2) == 0b10)
    #expect(turns.lanes(from: 0, to: 1) == 0b01)
    #expect(turns.lanes(from: 0, to: 0) == nil)
    // The stored form keeps them.
    let decoded = try RoadNetwork(
      binaryChunks: network.binaryChunks(elementsPerChunk: 2), name: "t")
    #expect(decoded.turns == network.turns)
    #expect(decoded.turns?.lanes(from: 0, to: 2) == 0b10)
    // Where traffic keeps left, SUMO's lane 0 is the leftmost.
    let left = try SUMONetworkImporter.importNetwork(
      xml: Data(text.replacingOccurrences(of: "<net ", with: "<net lefthand=\"true\" ").utf8),
      name: "l.net.xml")
    #expect(left.turns?.lanes(from: 0, to: 2) == 0b01)
    #expect(left.turns?.lanes(from: 0, to: 1) == 0b10)
  }

  @Test("Braunschweig's turns are its connections: a dead end leads only back")
  func braunschweigTurns() throws {
    try DebianFile.braunschweigNetwork.require()
    let network = try SUMONetworkImporter.importNetwork(from: DebianFile.braunschweigNetwork.url)
    let turns = try #require(network.turns)
    // Every turn is a connection of the file between two imported edges (read here with
    // Foundation's string search, not the importer's parser).
    let text = try String(contentsOf: DebianFile.braunschweigNetwork.url, encoding: .utf8)
    var connected = Set<String>()
    for line in text.split(separator: "\n") where line.contains("<connection ") {
      func value(_ name: String) -> String? {
        guard let start = line.range(of: " \(name)=\"") else { return nil }
        return line[start.upperBound...].split(separator: "\"").first.map(String.init)
      }
      if let from = value("from"), let to = value("to") { connected.insert("\(from)>\(to)") }
    }
    var count = 0
    for segment in network.segments {
      for next in turns[segment.id] {
        #expect(connected.contains("\(segment.sourceID)>\(network.segments[Int(next)].sourceID)"))
        count += 1
      }
    }
    #expect(count > network.segments.count)
    let deadEnd = try #require(network.segments.first { $0.sourceID == "-7782975#0" })
    #expect(turns[deadEnd.id].map { network.segments[Int($0)].sourceID } == ["7782975#0"])
    // The stored form keeps them.
    let decoded = try RoadNetwork(
      binaryChunks: network.binaryChunks(elementsPerChunk: 100), name: "bs")
    #expect(decoded.turns == network.turns)
    #expect(decoded.segments == network.segments)
  }

  @Test("A network that is not geo-referenced is refused")
  func notGeoReferenced() throws {
    let text = try String(contentsOf: RoadsFixtures.url("small.net.xml"), encoding: .utf8)
      .replacingOccurrences(
        of: "+proj=utm +zone=32 +ellps=WGS84 +datum=WGS84 +units=m +no_defs", with: "!")
    #expect {
      try SUMONetworkImporter.importNetwork(xml: Data(text.utf8), name: "x.net.xml")
    } throws: { error in
      guard case .unsupported(let file, let reason) = error as? RoadsError else { return false }
      return file == "x.net.xml"
        && reason.hasPrefix("the network is not geo-referenced (<location projParameter=\"!\">)")
    }
    let lambert = text.replacingOccurrences(
      of: "projParameter=\"!\"", with: "projParameter=\"+proj=lcc +lat_1=49\"")
    #expect(throws: RoadsError.self) {
      try SUMONetworkImporter.importNetwork(xml: Data(lambert.utf8), name: "x.net.xml")
    }
  }

  @Test(
    "SUMO's A10KW network imports near its declared geographic boundary",
  )
  func a10kw() throws {
    let url = URL(fileURLWithPath: try DebianFile.a10kwNetwork.require())
    let network = try SUMONetworkImporter.importNetwork(from: url)
    print(
      "A10KW: \(network.nodes.count) nodes, \(network.segments.count) segments, "
        + "\(network.totalLengthInMeters / 1000) km")
    // origBoundary="13.576712,52.291597,13.630952,52.319872" in the file's <location>.
    for node in network.nodes {
      #expect((52.2906...52.3209).contains(node.coordinates.latitude))
      #expect((13.5757...13.6320).contains(node.coordinates.longitude))
    }
    #expect(network.segments.count > 100)
    #expect(network.segments.contains { $0.roadClass == .motorway && $0.functionalClass == 1 })
    #expect(Set(network.segments.map(\.sourceID)).count == network.segments.count)
  }
}

@Suite struct SUMONetworkVariantsTests {
  static let small = RoadsFixtures.url("small.net.xml")

  func temporaryFile(_ name: String, _ data: Data) throws -> URL {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("sumo-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent(name)
    try data.write(to: url)
    return url
  }

  @Test("A gzip'd .net.xml.gz imports as the plain file does")
  func gzip() throws {
    let plain = try SUMONetworkImporter.importNetwork(from: RoadsFixtures.url("small.net.xml"))
    let url = try temporaryFile(
      "small.net.xml.gz", Gzip.compress(try Data(contentsOf: RoadsFixtures.url("small.net.xml"))))
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let packed = try SUMONetworkImporter.importNetwork(from: url)
    #expect(packed.segments.map(\.sourceID) == plain.segments.map(\.sourceID))
    #expect(packed.nodes.map(\.coordinates) == plain.nodes.map(\.coordinates))
    let cut = try temporaryFile(
      "cut.net.xml.gz",
      Gzip.compress(try Data(contentsOf: RoadsFixtures.url("small.net.xml"))).prefix(300))
    defer { try? FileManager.default.removeItem(at: cut.deletingLastPathComponent()) }
    #expect(
      throws: RoadsError.malformed(
        file: "cut.net.xml.gz", position: "gzip data", reason: "the compressed data is truncated")
    ) { try SUMONetworkImporter.importNetwork(from: cut) }
  }

  @Test("A truncated file names where it ends; a rail-only network has no road")
  func truncatedAndRailOnly() throws {
    let text = try String(contentsOf: RoadsFixtures.url("small.net.xml"), encoding: .utf8)
    let cut = String(text[..<(try #require(text.range(of: "<junction"))).lowerBound])
    #expect {
      try SUMONetworkImporter.importNetwork(xml: Data(cut.utf8), name: "cut.net.xml")
    } throws: { error in
      // Streamed, as files are: the parser itself reports the end inside an element.
      "\(error)".hasPrefix("malformed cut.net.xml at line ")
        && "\(error)".contains("it is truncated")
    }
    var rail = text
    for (from, to) in [
      ("<lane id=\"e1_", "<lane allow=\"rail\" id=\"e1_"),
      ("<lane id=\"-e1_", "<lane allow=\"rail tram\" id=\"-e1_"),
      ("disallow=\"pedestrian bicycle\"", "disallow=\"all\""),
    ] {
      rail = rail.replacingOccurrences(of: from, with: to)
    }
    #expect {
      try SUMONetworkImporter.importNetwork(xml: Data(rail.utf8), name: "rail.net.xml")
    } throws: { error in
      "\(error)".contains("no edge is open to motor vehicles")
    }
  }
}
