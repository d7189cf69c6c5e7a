import Foundation
import Geo
import Roads
import Testing
import TrafficTestSupport

@Suite struct OSMImporterTests {
  typealias Expected = (from: String, to: String, way: String, reversed: Bool)

  func summary(_ network: RoadNetwork) -> [String] {
    network.segments.map {
      "\(network.nodes[$0.fromNode].sourceID)->\(network.nodes[$0.toNode].sourceID) way \($0.sourceID)"
        + ($0.isReversed ? " reversed" : "")
    }
  }

  @Test("A crossing splits both roads; foot, area, no-access and plain tracks are left out")
  func crossing() throws {
    let network = try OSMImporter.importNetwork(from: RoadsFixtures.url("crossing.osm"))
    #expect(
      summary(network) == [
        "1->5 way 100", "5->1 way 100 reversed", "5->2 way 100", "2->5 way 100 reversed",
        "3->5 way 200", "5->4 way 200", "1->3 way 304", "3->1 way 304 reversed",
      ])
    #expect(network.nodes.map(\.sourceID) == ["1", "5", "2", "3", "4"])
    #expect(network.segments[0].oppositeID == 1 && network.segments[1].oppositeID == 0)
    #expect(network.segments[4].oppositeID == nil)
    #expect(network.segments[0].name == "Dorfstrasse")
    #expect(network.segments[4].ref == "28")
    #expect(network.segments[4].roadClass == .primary && network.segments[4].functionalClass == 2)
    #expect(network.segments[0].functionalClass == 5)
    #expect(abs(network.segments[4].speedLimitInMetersPerSecond - 60 / 3.6) < 1e-12)
    // 0.001 degrees of longitude at 47.1 N: the segment length is its geodesic length.
    let expected = network.nodes[0].coordinates.distance(to: network.nodes[1].coordinates)
    #expect(abs(network.segments[0].lengthInMeters - expected) < 1e-9)
    #expect(abs(expected - 76.0) < 1)
    #expect(
      network.segments[1].geometry.vertices == network.segments[0].geometry.vertices.reversed())
  }

  @Test("A roundabout is one-way and split where the approach joins and where it closes")
  func roundabout() throws {
    let network = try OSMImporter.importNetwork(from: RoadsFixtures.url("roundabout.osm"))
    #expect(
      summary(network) == [
        "10->11 way 400", "11->10 way 400", "20->11 way 401", "11->20 way 401 reversed",
      ])
    #expect(network.segments[1].geometry.vertices.count == 4)
    #expect(network.segments.allSatisfy { $0.speedLimitInMetersPerSecond > 0 })
    // The ring's segments are the roundabout, the approach's not.
    #expect(network.segments.map(\.isRoundabout) == [true, true, false, false])
  }

  @Test("maxspeed forms, oneway forms and lanes per direction")
  func maxspeedVariety() throws {
    let network = try OSMImporter.importNetwork(
      from: RoadsFixtures.url("maxspeed.osm"), options: OSMImportOptions(countryCode: "LI"))
    let rows = network.segments.map {
      (
        $0.sourceID, $0.isReversed, ($0.speedLimitInMetersPerSecond * 3.6 * 1000).rounded() / 1000,
        $0.speedLimitSource
      )
    }
    let expected: [(String, Bool, Double, SpeedLimitSource)] = [
      ("1", false, 48.28, .posted),  // 30 mph
      ("2", true, 50, .implicit),  // DE:urban, oneway=-1
      ("3", false, 120, .unlimited),  // none: LI motorway advisory
      ("4", false, 7, .implicit),  // walk
      ("5", false, 80, .roadClassDefault),  // LI rural
      ("6", true, 80, .implicit),  // source:maxspeed=CH:rural, oneway=reverse
      ("7", false, 60, .posted), ("7", true, 40, .posted),
      ("8", false, 120, .roadClassDefault), ("8", true, 120, .roadClassDefault),
    ]
    #expect(rows.count == expected.count)
    for (row, wanted) in zip(rows, expected) {
      #expect(row.0 == wanted.0 && row.1 == wanted.1 && row.2 == wanted.2 && row.3 == wanted.3)
    }
    #expect(network.segments[6].laneCount == 2 && network.segments[7].laneCount == 1)
  }

  @Test("Malformed XML names the line; a node off the globe is left out and counted")
  func malformedXML() throws {
    let xml = "<osm><node id=\"1\" lat=\"91\" lon=\"9\"/></osm>"
    let offGlobe = try OSMImporter.importNetworkReporting(xml: Data(xml.utf8), name: "bad.osm")
    #expect(offGlobe.report.invalidNodes == 1 && offGlobe.network.segments.isEmpty)
    do {
      _ = try OSMImporter.importNetwork(
        xml: Data("<osm><way id=\"x\"></osm>".utf8), name: "bad.osm")
      Issue.record("expected an error")
    } catch {
      guard case .malformed(let file, let position, _) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(file == "bad.osm")
      #expect(position?.hasPrefix("line 1") == true)
    }
  }

  @Test("A missing file is reported with its path")
  func missingFile() {
    #expect(
      throws: RoadsError.unreadable(file: "/nonexistent/x.osm.pbf", reason: "no such readable file")
    ) {
      try OSMImporter.importNetwork(from: URL(fileURLWithPath: "/nonexistent/x.osm.pbf"))
    }
  }

  @Test(
    "Liechtenstein PBF and bzip2 XML give the same network")
  func liechtensteinFormatsAgree() throws {
    let base = RoadsFixtures.liechtenstein
    let options = OSMImportOptions(countryCode: "LI")
    let start = Date()
    let pbf = try OSMImporter.importNetwork(
      from: base.appendingPathExtension("osm.pbf"), options: options)
    let pbfSeconds = Date().timeIntervalSince(start)
    let xmlStart = Date()
    let xml = try OSMImporter.importNetwork(
      from: base.appendingPathExtension("osm.bz2"), options: options)
    let xmlSeconds = Date().timeIntervalSince(xmlStart)
    print(
      "Liechtenstein PBF: \(pbf.nodes.count) nodes, \(pbf.segments.count) segments, "
        + "\(pbf.totalLengthInMeters / 1000) km in \(pbfSeconds) s; bz2: \(xml.nodes.count) "
        + "nodes, \(xml.segments.count) segments, \(xml.totalLengthInMeters / 1000) km in "
        + "\(xmlSeconds) s")
    #expect(pbf.segments.count == xml.segments.count)
    #expect(pbf.nodes.count == xml.nodes.count)
    #expect(
      abs(pbf.totalLengthInMeters - xml.totalLengthInMeters) <= pbf.totalLengthInMeters * 0.001)
    #expect(pbf.segments.map(\.sourceID) == xml.segments.map(\.sourceID))
    // Figures of this 2013 extract (2,318 junction nodes, 5,391 directed segments, 781.5 km).
    #expect(pbf.segments.count == 5391)
    #expect(pbf.nodes.count == 2318)
    #expect(abs(pbf.totalLengthInMeters / 1000 - 781.5) < 0.1)
    // Every segment lies in Liechtenstein's surroundings.
    #expect(
      pbf.nodes.allSatisfy {
        (46.9...47.4).contains($0.coordinates.latitude)
          && (9.3...9.8).contains($0.coordinates.longitude)
      })
  }

  @Test(
    "A truncated bzip2 file fails with an error naming the file")
  func truncatedBzip2() throws {
    let base = RoadsFixtures.liechtenstein
    let bytes = try Data(contentsOf: base.appendingPathExtension("osm.bz2"))
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("roads-\(UUID().uuidString)-cut.osm.bz2")
    try bytes.prefix(bytes.count / 2).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    do {
      _ = try OSMImporter.importNetwork(from: url)
      Issue.record("expected an error")
    } catch {
      guard case .malformed(let file, _, _) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(file == url.lastPathComponent)
    }
  }
}

@Suite struct OSMTaggingVariantsTests {
  @Test("oneway=-1, reversible, roundabouts, maxspeed units, access and a clipped extract")
  func variants() throws {
    let (network, report) = try OSMImporter.importNetworkReporting(
      from: RoadsFixtures.url("variants.osm"))
    let rows = network.segments.map {
      "\(network.nodes[$0.fromNode].sourceID)->\(network.nodes[$0.toNode].sourceID) "
        + "\($0.sourceID)\($0.isReversed ? "r" : "") "
        + "\(Int(($0.speedLimitInMetersPerSecond * 3.6).rounded())) \($0.speedLimitSource)"
    }
    // -1: only against the drawing; reversible: dropped; roundabout: one-way; a link without
    // oneway is two-way (OSM wiki); signals: the class default; access=no but
    // motor_vehicle=yes: kept; 506, 507 (no motor access) and 508 (area) are left out.
    #expect(
      rows == [
        "1->2 501r 80 posted", "3->4 503 60 implicit", "4->5 504 120 unlimited",
        "5->4 504r 120 unlimited", "5->2 505 50 roadClassDefault",
        "2->5 505r 50 roadClassDefault", "6->5 509 50 roadClassDefault",
        "5->6 509r 50 roadClassDefault", "8->9 512 50 roadClassDefault",
        "9->8 512r 50 roadClassDefault",
      ])
    // 509 lost node 90 and 512 the invalid node 7: clipped; 510 (no node present) and 511
    // (one node) dropped.
    #expect(report.roadWays == 8)
    #expect(report.clippedWays == 2)
    #expect(report.droppedWays == 2)
    #expect(report.missingNodeReferences == 4)
    #expect(report.invalidNodes == 1)
  }

  @Test("A truncated, a non-XML and a roadless file are refused naming the file and place")
  func badFiles() throws {
    let text = try String(contentsOf: RoadsFixtures.url("variants.osm"), encoding: .utf8)
    let truncated = Data(text.prefix(text.count - 200).utf8)
    #expect {
      try OSMImporter.importNetwork(xml: truncated, name: "cut.osm")
    } throws: { error in
      "\(error)".hasPrefix("malformed cut.osm at line 26")
        && "\(error)".contains("truncated")
    }
    #expect {
      try OSMImporter.importNetwork(xml: Data([0x50, 0x4B, 3, 4, 0, 0]), name: "zip.osm")
    } throws: { error in
      "\(error)" == "malformed zip.osm at line 1, column 1: "
        + "the document is empty or is not XML (XML error 4)"
    }
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("osm-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let roadless = directory.appendingPathComponent("paths.osm")
    try Data(
      """
      <osm version="0.6"><node id="1" lat="47" lon="9"/><node id="2" lat="47" lon="9.1"/>
      <way id="1"><nd ref="1"/><nd ref="2"/><tag k="highway" v="footway"/></way></osm>
      """.utf8
    ).write(to: roadless)
    #expect(
      throws: RoadsError.unsupported(
        file: "paths.osm",
        reason: "no way is a road open to motor vehicles (highway=* with motor access)")
    ) {
      try OSMImporter.importNetwork(from: roadless)
    }
  }
}
