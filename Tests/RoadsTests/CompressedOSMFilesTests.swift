import Foundation
import Roads
import Testing
import TrafficTestSupport
import Zlib

/// PBF blobs compressed with LZ4 or Zstandard (what osmium writes with
/// `pbf_compression=lz4|zstd`) and bzip2 XML read through libbz2, each against an
/// independent reference: the same extract written by other compressors (Debian's
/// python3-lz4 and python3-zstandard, Python's bz2) must give the very network the zlib PBF
/// gives.
@Suite struct CompressedOSMFilesTests {
  static let python = DebianFile("/usr/bin/python3", package: "python3")
  static let script = RoadsFixtures.url("recompress_pbf.py")
  /// The network of the zlib PBF and of the one-stream bzip2 XML, in the binary network
  /// coding: equal bytes are equal networks.
  static let reference = try? encoded(
    OSMImporter.importNetwork(
      from: Fixtures.liechtenstein(), options: OSMImportOptions(countryCode: "LI")))
  static let referenceXML = try? encoded(
    OSMImporter.importNetwork(
      from: Fixtures.liechtenstein("osm.bz2"), options: OSMImportOptions(countryCode: "LI")))

  static func encoded(_ network: RoadNetwork) -> [Data] { network.binaryChunks() }

  /// A scratch file, removed by the caller.
  static func scratch(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent(
      "compressed-\(UUID().uuidString)-\(name)")
  }

  /// Runs Debian's python3 with `arguments`; fails the test with its output otherwise.
  static func runPython(_ arguments: [String]) throws {
    let result = try ChildProcess.run(python.url, arguments)
    try #require(result.status == 0, "python3 \(arguments): \(result.output)")
  }

  @Test(arguments: ["lz4", "zstd", "raw"])
  func pbfBlobsOfEveryCompressionGiveTheSameNetwork(compression: String) throws {
    let reference = try #require(Self.reference)
    let url = Self.scratch("li-\(compression).osm.pbf")
    defer { try? FileManager.default.removeItem(at: url) }
    try Self.runPython([
      Self.script.path, Fixtures.liechtenstein().path, url.path, compression,
    ])
    let network = try OSMImporter.importNetwork(
      from: url, options: OSMImportOptions(countryCode: "LI"))
    #expect(Self.encoded(network) == reference)
  }

  @Test(arguments: ["lz4", "zstd"])
  func aCorruptBlobIsALocatedError(compression: String) throws {
    let url = Self.scratch("bad-\(compression).osm.pbf")
    defer { try? FileManager.default.removeItem(at: url) }
    try Self.runPython([
      Self.script.path, Fixtures.liechtenstein().path, url.path, compression,
    ])
    var bytes = [UInt8](try Data(contentsOf: url))
    if compression == "zstd" {
      // Neither format checksums its blocks, so damaged literals may still decode; a
      // Zstandard frame whose magic number is damaged never does: the second block's.
      let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
      let frames = (0..<(bytes.count - 4)).filter { Array(bytes[$0..<($0 + 4)]) == magic }
      let second = try #require(frames.dropFirst().first)
      bytes[second] ^= 0xFF
    } else {
      // Well inside the second block's compressed data.
      for index in 2_000..<2_040 { bytes[index] ^= 0xA5 }
    }
    try Data(bytes).write(to: url)
    #expect {
      try OSMImporter.importNetwork(from: url)
    } throws: { error in
      guard case RoadsError.malformed(let file, let position, _) = error else { return false }
      return file == url.lastPathComponent && position?.hasPrefix("block") == true
    }
  }

  @Test func gzipIsToldByItsContentWhateverTheName() throws {
    // A SUMO network in gzip under any name imports as under `.net.xml.gz`.
    let sumo = try Data(contentsOf: RoadsFixtures.url("small.net.xml"))
    let renamed = Self.scratch("network.bin")
    defer { try? FileManager.default.removeItem(at: renamed) }
    try Gzip.compress(sumo).write(to: renamed)
    let loaded = try NetworkFile.load(renamed)
    #expect(loaded.report == nil && !loaded.network.segments.isEmpty)
    // OpenStreetMap XML in gzip is named as such (it was "not valid UTF-8").
    let osm = try Data(contentsOf: RoadsFixtures.url("roundabout.osm"))
    for name in ["extract.osm.gz", "extract.bin"] {
      let file = Self.scratch(name)
      defer { try? FileManager.default.removeItem(at: file) }
      try Gzip.compress(osm).write(to: file)
      #expect {
        _ = try NetworkFile.load(file)
      } throws: { error in
        "\(error)".contains("OpenStreetMap XML compressed with gzip")
      }
    }
  }

  @Test func bzip2OfSeveralStreamsReadsLikeOne() throws {
    let reference = try #require(Self.referenceXML)
    // The XML, recompressed as two bzip2 streams one after the other (as pbzip2 writes).
    let url = Self.scratch("li-two-streams.osm.bz2")
    defer { try? FileManager.default.removeItem(at: url) }
    try Self.runPython([
      "-c",
      """
      import bz2, sys
      xml = bz2.open(sys.argv[1]).read()
      half = len(xml) // 2
      open(sys.argv[2], "wb").write(bz2.compress(xml[:half]) + bz2.compress(xml[half:]))
      """,
      Fixtures.liechtenstein("osm.bz2").path, url.path,
    ])
    let network = try OSMImporter.importNetwork(
      from: url, options: OSMImportOptions(countryCode: "LI"))
    #expect(Self.encoded(network) == reference)
  }

  @Test(arguments: [
    ("plain text, not bzip2", "not bzip2 data"),
    ("", "empty"),
  ])
  func aFileThatIsNotBzip2SaysSo(content: String, message: String) throws {
    let url = Self.scratch("not.osm.bz2")
    defer { try? FileManager.default.removeItem(at: url) }
    try Data(content.utf8).write(to: url)
    #expect {
      try OSMImporter.importNetwork(from: url)
    } throws: { error in
      "\(error)".contains(message) && "\(error)".contains(url.lastPathComponent)
    }
  }
}
