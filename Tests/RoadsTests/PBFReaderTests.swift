import Codec
import Foundation
import Geo
import Roads
import Testing
import TrafficTestSupport

@Suite struct PBFReaderTests {
  /// A two-block PBF: header, then one PrimitiveBlock with dense nodes and two ways.
  static var headerBlock: [UInt8] {
    var header = ProtobufWriter()
    header.bytesField(4, Array("OsmSchema-V0.6".utf8))
    header.bytesField(4, Array("DenseNodes".utf8))
    return ProtobufWriter.block(type: "OSMHeader", content: header.bytes)
  }

  static func handMadePBF(granularity: Int? = nil) -> [UInt8] {

    var strings = ProtobufWriter()
    for s in ["", "highway", "primary", "name", "Landstrasse", "footway", "oneway", "yes"] {
      strings.bytesField(1, Array(s.utf8))
    }
    var dense = ProtobufWriter()
    let scale = Double(granularity ?? 100)
    func raw(_ degrees: Double) -> Int64 { Int64((degrees * 1e9 / scale).rounded()) }
    dense.packedSigned(1, deltaCoded: [1, 2, 3, 4])
    dense.packedSigned(8, deltaCoded: [47.0, 47.0, 47.001, 46.999].map(raw))
    dense.packedSigned(9, deltaCoded: [9.5, 9.501, 9.501, 9.501].map(raw))
    var nodesGroup = ProtobufWriter()
    nodesGroup.bytesField(2, dense.bytes)

    var road = ProtobufWriter()
    road.varintField(1, 10)
    road.packedUnsigned(2, [1, 3])
    road.packedUnsigned(3, [2, 4])
    road.packedSigned(8, deltaCoded: [1, 2, 3])
    var path = ProtobufWriter()
    path.varintField(1, 11)
    path.packedUnsigned(2, [1, 6])
    path.packedUnsigned(3, [5, 7])
    path.packedSigned(8, deltaCoded: [2, 4])
    var oneway = ProtobufWriter()
    oneway.varintField(1, 12)
    oneway.packedUnsigned(2, [1, 6])
    oneway.packedUnsigned(3, [2, 7])
    oneway.packedSigned(8, deltaCoded: [4, 2])
    var waysGroup = ProtobufWriter()
    waysGroup.bytesField(3, road.bytes)
    waysGroup.bytesField(3, path.bytes)
    waysGroup.bytesField(3, oneway.bytes)

    var block = ProtobufWriter()
    block.bytesField(1, strings.bytes)
    block.bytesField(2, nodesGroup.bytes)
    block.bytesField(2, waysGroup.bytes)
    if let granularity { block.varintField(17, UInt64(granularity)) }
    return headerBlock + ProtobufWriter.block(type: "OSMData", content: block.bytes)
  }

  func write(_ bytes: [UInt8], name: String = "test.osm.pbf") throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("roads-\(UUID().uuidString)-\(name)")
    try Data(bytes).write(to: url)
    return url
  }

  @Test("A hand-made PBF gives exact segments", arguments: [nil, 1000] as [Int?])
  func handMade(granularity: Int?) throws {
    let url = try write(Self.handMadePBF(granularity: granularity))
    defer { try? FileManager.default.removeItem(at: url) }
    let network = try OSMImporter.importNetwork(from: url)
    let rows = network.segments.map {
      "\(network.nodes[$0.fromNode].sourceID)->\(network.nodes[$0.toNode].sourceID) \($0.sourceID)"
    }
    // Way 10 (1-2-3) splits at node 2, shared with the one-way way 12 (4->2); way 11 is a footway.
    #expect(rows == ["1->2 10", "2->1 10", "2->3 10", "3->2 10", "4->2 12"])
    #expect(network.segments[0].name == "Landstrasse")
    let node3 = try #require(network.nodes.first { $0.sourceID == "3" })
    #expect(abs(node3.coordinates.latitude - 47.001) < 1e-9)
    #expect(abs(node3.coordinates.longitude - 9.501) < 1e-9)
  }

  func expectMalformed(
    _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String? {
    let url = try write(bytes)
    defer { try? FileManager.default.removeItem(at: url) }
    do {
      _ = try OSMImporter.importNetwork(from: url)
      Issue.record("expected an error", sourceLocation: sourceLocation)
      return nil
    } catch {
      guard case .malformed(let file, let position, _) = error else {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        return nil
      }
      #expect(file == url.lastPathComponent, sourceLocation: sourceLocation)
      return position
    }
  }

  @Test("Every truncation of a hand-made PBF throws a located error, never traps")
  func everyTruncation() throws {
    let bytes = Self.handMadePBF()
    // A file cut right after its header block is a valid, empty file.
    let cuts = (1..<bytes.count).filter { $0 != Self.headerBlock.count }
    for cut in cuts {
      let position = try expectMalformed(Array(bytes[..<cut]))
      #expect(position?.contains("byte") == true)
    }
  }

  @Test("Random byte corruption never traps")
  func corruption() throws {
    let bytes = Self.handMadePBF()
    var generator = SeededGenerator(seed: 7)
    for _ in 0..<300 {
      var corrupt = bytes
      for _ in 0..<Int.random(in: 1...4, using: &generator) {
        let i = Int.random(in: 0..<corrupt.count, using: &generator)
        corrupt[i] = UInt8.random(in: 0...255, using: &generator)
      }
      let url = try write(corrupt)
      defer { try? FileManager.default.removeItem(at: url) }
      // Either a network (the change was harmless) or a RoadsError; both are fine, a trap is not.
      _ = try? OSMImporter.importNetwork(from: url)
    }
  }

  @Test("Oversized headers and blobs are refused before reading them")
  func sizeCaps() throws {
    let position = try expectMalformed([0x00, 0x01, 0x00, 0x01] + [UInt8](repeating: 0, count: 8))
    #expect(position == "block 0 at byte 0")
    var header = ProtobufWriter()
    header.bytesField(1, Array("OSMData".utf8))
    header.varintField(3, 33 * 1024 * 1024)
    let n = header.bytes.count
    let position2 = try expectMalformed([0, 0, 0, UInt8(n)] + header.bytes)
    #expect(position2 == "block 0 at byte 0")
  }

  @Test("Unsupported required features and compressions are named")
  func unsupported() throws {
    var header = ProtobufWriter()
    header.bytesField(4, Array("OsmSchema-V0.7".utf8))
    let url = try write(ProtobufWriter.block(type: "OSMHeader", content: header.bytes))
    defer { try? FileManager.default.removeItem(at: url) }
    #expect(
      throws: RoadsError.unsupported(
        file: url.lastPathComponent, reason: "required feature OsmSchema-V0.7")
    ) { try OSMImporter.importNetwork(from: url) }
  }

  @Test(
    "Truncated and corrupted copies of the Liechtenstein PBF fail with located errors")
  func realFileDamage() throws {
    let base = RoadsFixtures.liechtenstein
    let bytes = [UInt8](try Data(contentsOf: base.appendingPathExtension("osm.pbf")))
    for cut in [3, 100, 1000, bytes.count / 2, bytes.count - 1] {
      let position = try expectMalformed(Array(bytes[..<cut]))
      #expect(position?.hasPrefix("block") == true)
    }
    var corrupt = bytes
    for i in stride(from: 40_000, to: 40_064, by: 1) { corrupt[i] ^= 0x5A }
    let position = try expectMalformed(corrupt)
    #expect(position?.hasPrefix("block") == true)
  }
}
