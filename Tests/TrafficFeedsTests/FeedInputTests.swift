import Codec
import Foundation
import Testing
import Traffic
import TrafficTestSupport
import Zlib

@testable import TrafficFeeds

/// Decoding from a file (streamed in chunks) must give exactly what decoding the same bytes
/// from memory gives, for every format and every fixture; and streaming must hold up at chunk
/// boundaries.
@Suite struct FeedInputTests {
  static let options = FeedOptions(
    sourceName: "test", now: Date(timeIntervalSince1970: 1_714_557_600))

  /// Every fixture file: the project's own, the shipped public samples, and the shared ones
  /// when present.
  static func fixtureFiles() throws -> [(URL, FeedFormat)] {
    var files: [(URL, FeedFormat)] = []
    var roots = [
      Fixtures.repositoryRoot.appendingPathComponent("Tests/TrafficFeedsTests/Fixtures"),
      Fixtures.sample(""),
    ]
    if let shared = Fixtures.shared { roots.append(shared) }
    let folders: [String: FeedFormat] = [
      "datex2": .datex2, "wzdx": .wzdx, "open511": .open511, "waze": .waze, "here-v7": .hereV7,
      "tomtom": .tomtom,
    ]
    for root in roots {
      for (folder, format) in folders {
        let directory = root.appendingPathComponent(folder)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
        else { continue }
        for name in names.sorted() where !name.hasPrefix("bad") && !name.hasPrefix("invalid") {
          files.append((directory.appendingPathComponent(name), format))
        }
      }
    }
    return files
  }

  @Test("a file decodes exactly as its bytes in memory do")
  func fileEqualsData() throws {
    var checked = Set<FeedFormat>()
    for (url, format) in try Self.fixtureFiles() {
      let data = try Data(contentsOf: url)
      let fromData = Result { () throws(FeedError) in
        try format.decoder.decode(data, options: Self.options)
      }
      let fromFile = Result { () throws(FeedError) in
        try format.decoder.decode(.file(url), options: Self.options)
      }
      switch (fromData, fromFile) {
      case (.success(let expected), .success(let found)):
        #expect(found.incidents == expected.incidents, "\(url.lastPathComponent)")
        #expect(found.problems == expected.problems, "\(url.lastPathComponent)")
        #expect(found.flowObservations == expected.flowObservations)
        #expect(found.publicationTime == expected.publicationTime)
        checked.insert(format)
      case (.failure(let expected), .failure(let found)):
        #expect(found == expected, "\(url.lastPathComponent)")
      default:
        Issue.record("\(url.lastPathComponent): \(fromData) vs \(fromFile)")
      }
    }
    #expect(checked == Set(FeedFormat.allCases))
  }

  @Test("format detection reads only the head of a file")
  func detectsFromFile() throws {
    for (url, format) in try Self.fixtureFiles() {
      #expect(try FeedFormat.detect(.file(url)) == format, "\(url.lastPathComponent)")
    }
  }

  @Test("a missing file is an error naming it, for detection and decoding")
  func missingFile() throws {
    let url = URL(fileURLWithPath: "/nonexistent/feed.json")
    #expect(throws: FeedReadError.self) { _ = try FeedFormat.detect(.file(url)) }
    for format in FeedFormat.allCases {
      do {
        _ = try format.decoder.decode(.file(url), options: Self.options)
        Issue.record("\(format) decoded a missing file")
      } catch {
        #expect(error.reason.contains("/nonexistent/feed.json"), "\(format): \(error)")
      }
    }
  }

  @Test("a gzip-compressed document decodes as the plain one, from a file or from memory")
  func gzipDocuments() throws {
    var checked = Set<FeedFormat>()
    for (url, format) in try Self.fixtureFiles() {
      let plain = try Data(contentsOf: url)
      let compressed = Gzip.compress(plain)
      let gz = FileManager.default.temporaryDirectory.appendingPathComponent(
        "\(UUID().uuidString)-\(url.lastPathComponent).gz")
      try compressed.write(to: gz)
      defer { try? FileManager.default.removeItem(at: gz) }
      guard let expected = try? format.decoder.decode(plain, options: Self.options) else {
        continue
      }
      #expect(try FeedFormat.detect(.file(gz)) == format, "\(url.lastPathComponent)")
      #expect(FeedFormat.detect(compressed) == format, "\(url.lastPathComponent)")
      let fromFile = try format.decoder.decode(.file(gz), options: Self.options)
      let fromMemory = try format.decoder.decode(compressed, options: Self.options)
      #expect(fromFile.incidents == expected.incidents, "\(url.lastPathComponent)")
      #expect(fromMemory.incidents == expected.incidents, "\(url.lastPathComponent)")
      checked.insert(format)
    }
    #expect(checked == Set(FeedFormat.allCases))
  }

  @Test("a truncated or corrupt gzip document is an error naming the compression")
  func brokenGzip() throws {
    let plain = try Data(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent(
        "Tests/TrafficFeedsTests/Fixtures/wzdx/feed_v42.geojson"))
    let compressed = Gzip.compress(plain)
    let truncated = compressed.prefix(compressed.count / 2)
    do {
      _ = try WZDxDecoder.decode(truncated, options: Self.options)
      Issue.record("accepted")
    } catch {
      #expect(error.reason.contains("gzip: the compressed data is truncated"), "\(error)")
    }
    var corrupt = compressed
    corrupt[corrupt.startIndex + 20] ^= 0xFF
    corrupt[corrupt.startIndex + 21] ^= 0xFF
    do {
      _ = try WZDxDecoder.decode(corrupt, options: Self.options)
      Issue.record("accepted")
    } catch {
      #expect(error.reason.contains("gzip"), "\(error)")
    }
  }

  @Test("a file larger than one chunk streams, and a record straddling chunks survives")
  func multiChunkWZDx() throws {
    // About 3 chunks of features, each a LineString with a long description.
    var features: [String] = []
    let padding = String(repeating: "roadworks ", count: 200)
    for index in 0..<1_500 {
      let longitude = -105.0 + Double(index) * 0.0001
      features.append(
        """
        {"id": "wz-\(index)", "type": "Feature", "properties": {"core_details": {
        "event_type": "work-zone", "data_source_id": "s", "road_names": ["I-25"],
        "direction": "northbound", "description": "\(padding)\(index)"},
        "start_date": "2024-05-01T00:00:00Z", "end_date": "2024-06-01T00:00:00Z",
        "vehicle_impact": "some-lanes-closed"},
        "geometry": {"type": "LineString", "coordinates": [[\(longitude), 39.5], [\(longitude + 0.001), 39.51]]}}
        """)
    }
    let text =
      "{\"type\": \"FeatureCollection\", \"features\": [" + features.joined(separator: ",")
      + "], \"feed_info\": {\"update_date\": \"2024-05-01T10:00:00Z\"}}"
    let data = Data(text.utf8)
    #expect(data.count > 2 * FeedInput.chunkBytes)
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "wzdx-\(UUID().uuidString).geojson")
    try data.write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let document = try WZDxDecoder.decode(.file(url), options: Self.options)
    #expect(document.incidents.count == 1_500)
    #expect(document.problems.isEmpty)
    #expect(document.incidents.last?.description.text.hasSuffix("1499") == true)
    // The header after the features still counts.
    #expect(document.publicationTime == RFC3339.parse("2024-05-01T10:00:00Z"))
  }

  /// Writes `head`, then `count` MiB of `filler`, then `tail` to a temporary file.
  static func hugeFile(
    head: String, filler: UInt8, mebibytes count: Int, tail: String
  ) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "huge-\(UUID().uuidString)")
    #expect(FileManager.default.createFile(atPath: url.path, contents: Data(head.utf8)))
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    try handle.seekToEnd()
    let block = Data(repeating: filler, count: 1 << 20)
    for _ in 0..<count { try handle.write(contentsOf: block) }
    try handle.write(contentsOf: Data(tail.utf8))
    return url
  }

  @Test("a 100 MiB JSON record is refused at the record limit, naming the place")
  func hugeJSONRecord() throws {
    let url = try Self.hugeFile(
      head: "{\"features\": [{\"id\": \"", filler: UInt8(ascii: "x"), mebibytes: 100,
      tail: "\"}]}")
    defer { try? FileManager.default.removeItem(at: url) }
    do {
      _ = try WZDxDecoder.decode(.file(url), options: Self.options)
      Issue.record("accepted")
    } catch {
      #expect(error.location == "line 1, column 15 (byte 14)")
      #expect(
        error.reason
          == "not valid JSON: a value is larger than 67108864 bytes, the limit of one record")
    }
  }

  @Test("a 100 MiB XML text is refused at the text limit, naming the line")
  func hugeXMLText() throws {
    let url = try Self.hugeFile(
      head: """
        <d2LogicalModel xmlns="http://datex2.eu/schema/2/2_0"><payloadPublication>
        <situation id="s1"><situationRecord id="r1"><generalPublicComment><comment>
        """, filler: UInt8(ascii: "y"), mebibytes: 100,
      tail:
        "</comment></generalPublicComment></situationRecord></situation></payloadPublication></d2LogicalModel>"
    )
    defer { try? FileManager.default.removeItem(at: url) }
    do {
      _ = try DATEXIIDecoder.decode(.file(url), options: Self.options)
      Issue.record("accepted")
    } catch {
      #expect(error.reason.contains("longer than 4000000 bytes"), "\(error)")
      #expect(error.location?.contains("(line 2, column") == true, "\(error)")
    }
  }

  @Test("a Waze window's time settles jams streamed before it; jams with no time are skipped")
  func wazeWindowAfterJams() throws {
    let text = """
      {"jams": [
        {"uuid": 1, "pubMillis": 1714550000000, "line": [{"x": 8.0, "y": 50.0}, {"x": 8.01, "y": 50.0}],
         "level": 3, "speed": 5.0, "length": 700, "delay": 60, "street": "A5"},
        {"uuid": 2, "line": [{"x": 8.1, "y": 50.1}, {"x": 8.11, "y": 50.1}], "level": 2}
      ],
      "startTimeMillis": 1714557000000, "endTimeMillis": 1714557600000}
      """
    let document = try WazeDecoder.decode(Data(text.utf8), options: Self.options)
    let windowEnd = Date(timeIntervalSince1970: 1_714_557_600)
    #expect(document.flowObservations.map(\.time) == [windowEnd, windowEnd])
    #expect(document.incidents.count == 2)
    #expect(document.publicationTime == windowEnd)

    let untimed = """
      {"jams": [
        {"uuid": 1, "pubMillis": 1714550000000, "line": [{"x": 8.0, "y": 50.0}, {"x": 8.01, "y": 50.0}]},
        {"uuid": 2, "line": [{"x": 8.1, "y": 50.1}, {"x": 8.11, "y": 50.1}]}
      ]}
      """
    let partial = try WazeDecoder.decode(Data(untimed.utf8), options: Self.options)
    #expect(partial.incidents.map(\.originalId) == ["1"])
    #expect(partial.flowObservations.map(\.time) == [Date(timeIntervalSince1970: 1_714_550_000)])
    #expect(
      partial.problems == [
        FeedError(
          format: .waze, location: "jams[1]",
          reason: "no time for the jam (no pubMillis, no window times)", recordId: "2")
      ])
  }
}
