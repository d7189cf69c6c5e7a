import Foundation
import Testing
import TrafficTestSupport

@testable import TrafficFeeds

@Suite struct FeedFormatDetectionTests {
  /// The folders of test data: the suite's own fixtures, the public samples shipped under
  /// `Tests/Fixtures`, and `Fixtures.shared` when present.
  static func roots() -> [URL] {
    var roots = [
      Fixtures.repositoryRoot.appendingPathComponent("Tests/TrafficFeedsTests/Fixtures"),
      Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures"),
    ]
    if let shared = Fixtures.shared { roots.append(shared) }
    return roots
  }

  /// Folders of data that is no feed: OpenStreetMap extracts, scripts.
  static let foldersOfNoFeed: Set<String> = ["osm", "publishing"]

  /// Folders left out: schemas name the formats' namespaces and members as their documents do,
  /// so sniffing the first bytes takes some of them for feeds; nothing hands them to `detect`.
  static let foldersOfSchemas: Set<String> = ["schemas", "datex2-v3-schema"]

  /// Files whose format is not their folder's.
  static let exceptions: [String: FeedFormat?] = [
    // A fuzzer's find that crashed the XML parser: no DATEX II namespace or root is left.
    "datex2/bad-invalid-utf8-with-broken-declaration.xml": nil
  ]

  /// Whether `path` (relative to its root) is documentation (READMEs, notices, licences).
  static func isDocumentation(_ path: String) -> Bool {
    let name = (path as NSString).lastPathComponent
    return name.hasSuffix(".md") || name.hasPrefix("NOTICE") || name.hasPrefix("LICENSE")
  }

  /// What `FeedFormat.detect` must say of the file at `path` (relative to its root): the format
  /// its folder is named after, or `nil` in a folder of no feed; `.none` when there is no
  /// expectation for it (a new folder, or a file at the root).
  static func expectedFormat(of path: String) -> FeedFormat?? {
    if let exception = exceptions[path] { return .some(exception) }
    let components = path.split(separator: "/").map(String.init)
    guard components.count > 1 else { return .none }
    if let format = FeedFormat(rawValue: components[0]) { return .some(format) }
    if foldersOfNoFeed.contains(components[0]) { return .some(nil) }
    return .none
  }

  /// The data files under `root` as paths relative to it, sorted: no hidden files, schemas or
  /// documentation.
  static func dataFiles(under root: URL) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { return [] }
    var paths: [String] = []
    while let path = enumerator.nextObject() as? String {
      var isDirectory: ObjCBool = false
      guard !(path as NSString).lastPathComponent.hasPrefix("."),
        !foldersOfSchemas.contains(String(path.prefix { $0 != "/" })),
        !isDocumentation(path),
        FileManager.default.fileExists(
          atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory),
        !isDirectory.boolValue
      else { continue }
      paths.append(path)
    }
    return paths.sorted()
  }

  /// Every fixture file is recognised as the format its folder names, and no other file as a
  /// feed.
  @Test func recognisesEveryFixtureAsItsFolderSays() throws {
    let roots = Self.roots()
    var checked: [Int] = Array(repeating: 0, count: roots.count)
    var formats: [Set<FeedFormat>] = Array(repeating: [], count: roots.count)
    for (index, root) in roots.enumerated() {
      for path in Self.dataFiles(under: root) {
        guard let expected = Self.expectedFormat(of: path) else {
          Issue.record("no expected format for \(root.path)/\(path)")
          continue
        }
        let found = try FeedFormat.detect(FeedInput.file(root.appendingPathComponent(path)))
        #expect(found == expected, "\(root.path)/\(path)")
        checked[index] += 1
        if let expected { formats[index].insert(expected) }
      }
    }
    // The suite's own fixtures have every format; the public samples WZDx feeds (and OSM).
    #expect(formats[0] == Set(FeedFormat.allCases))
    #expect(checked[0] >= 25)
    #expect(formats[1] == [.wzdx])
    #expect(checked[1] >= 10)
    if roots.count > 2 {
      #expect(formats[2] == [.datex2, .wzdx, .open511, .waze])
      #expect(checked[2] >= 40)
    }
  }

  /// XML may come as UTF-16 with its byte-order mark, little- or big-endian, also cut
  /// inside a surrogate pair: recognised all the same.
  @Test func recognisesUTF16XML() throws {
    let text =
      #"<?xml version="1.0" encoding="UTF-16"?><d2:payload xmlns:d2="http://levelC/schema/3/d2Payload" "#
      + #"xmlns:sit="http://levelC/schema/3/situation" xsi:type="sit:SituationPublication" "#
      + #"xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><sit:situation id="a"/> 😀"#
    let littleUnits = try #require(text.data(using: .utf16LittleEndian))
    let bigUnits = try #require(text.data(using: .utf16BigEndian))
    let little = Data([0xFF, 0xFE]) + littleUnits
    let big = Data([0xFE, 0xFF]) + bigUnits
    #expect(FeedFormat.detect(Data(text.utf8)) == .datex2)
    #expect(FeedFormat.detect(little) == .datex2)
    #expect(FeedFormat.detect(big) == .datex2)
    // Cut between the two halves of the emoji's surrogate pair.
    #expect(FeedFormat.detect(little.dropLast(4)) == .datex2)
  }

  /// The XML fixtures of both XML formats, re-encoded as UTF-16 with a byte-order mark
  /// (either order), are recognised and read into the same incidents as in UTF-8 (an
  /// Open511 document in UTF-16 was refused as starting with neither '<' nor '{').
  @Test(arguments: [
    ("datex2", "v2_bilingual_situations.xml"), ("datex2", "v3_situation.xml"),
    ("open511", "events.xml"), ("open511", "real-repentigny-api-tests.xml"),
  ])
  func readsUTF16XMLFixturesAsTheirUTF8(_ folder: String, _ name: String) throws {
    let utf8 = try ownFixture(folder, name)
    var text = try #require(String(data: utf8, encoding: .utf8))
    text = text.replacing(/encoding="[Uu][Tt][Ff]-8"/, with: #"encoding="UTF-16""#)
    let options = FeedOptions(sourceName: folder, now: Date(timeIntervalSince1970: 1.7e9))
    let format = try #require(FeedFormat.detect(utf8))
    let expected = try format.decoder.decode(utf8, options: options)
    #expect(!expected.incidents.isEmpty)
    for (mark, encoding) in [
      ([UInt8(0xFF), 0xFE], String.Encoding.utf16LittleEndian),
      ([UInt8(0xFE), 0xFF], .utf16BigEndian),
    ] {
      let data = Data(mark) + (try #require(text.data(using: encoding)))
      #expect(FeedFormat.detect(data) == format)
      let read = try format.decoder.decode(data, options: options)
      #expect(read.incidents == expected.incidents)
      #expect(read.problems == expected.problems)
    }
  }

  @Test(arguments: ["", "{}", "[]", "<html><body>nope</body></html>", "hello", "{\"results\": 3}"])
  func recognisesNothingInOtherDocuments(text: String) {
    #expect(FeedFormat.detect(Data(text.utf8)) == nil)
  }
}
