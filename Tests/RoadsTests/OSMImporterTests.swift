import Foundation
import Geo
import Roads
import Testing
import TrafficTestSupport

@Suite struct OSMImporterTests {
  static let liechtenstein = Fixtures.shared?.appendingPathComponent("osm/liechtenstein-2013-08-03")

  @Test(
    "Liechtenstein PBF and bzip2 XML give the same network",
    .enabled(if: Fixtures.shared != nil, "needs ../shared/fixtures/osm"))
  func liechtensteinFormatsAgree() throws {
    let base = try #require(Self.liechtenstein)
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
        + "\(pbf.totalLengthInMeters / 1000) km in \(pbfSeconds) s; bz2: \(xml.nodes.count) nodes, "
        + "\(xml.segments.count) segments, \(xml.totalLengthInMeters / 1000) km in \(xmlSeconds) s")
    #expect(pbf.segments.count == xml.segments.count)
    #expect(pbf.nodes.count == xml.nodes.count)
    #expect(abs(pbf.totalLengthInMeters - xml.totalLengthInMeters) <= pbf.totalLengthInMeters * 0.001)
    #expect(pbf.segments.count > 1000)
  }
}
