import Foundation
import Testing
import TrafficTestSupport

@testable import Traffic

@Suite struct TextCatalogTests {
  static let folder = Fixtures.repositoryRoot.appendingPathComponent(
    "Sources/Traffic/Resources/Localization")

  static func texts(_ tag: String) throws -> [String: String] {
    let data = try Data(contentsOf: folder.appendingPathComponent("\(tag).json"))
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    return object?["texts"] as? [String: String] ?? [:]
  }

  @Test func bundledLanguages() {
    #expect(
      IncidentTextGenerator.shared.supportedLanguages.map(\.identifier) == [
        "de", "en", "en-GB", "es", "fr", "it", "nl", "pl",
      ])
  }

  @Test(arguments: ["de", "es", "fr", "it", "nl", "pl"])
  func everyLanguageHasEveryKeyOfEnglish(tag: String) throws {
    let english = try Self.texts("en")
    let other = try Self.texts(tag)
    #expect(Set(other.keys) == Set(english.keys))
    #expect(other.values.allSatisfy { !$0.isEmpty })
  }

  @Test func everyTypeAndEventKindHasAWording() throws {
    let english = try Self.texts("en")
    for type in TrafficIncidentType.allCases { #expect(english["type.\(type.rawValue)"] != nil) }
    for kind in TrafficEventKind.allCases { #expect(english["event.\(kind.rawValue)"] != nil) }
  }

  @Test func bundledFilesLoadWithoutErrors() {
    #expect(TextCatalogs.bundled.loadErrors == [])
  }

  @Test func brokenFilesAreReportedNotFatal() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "catalog-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let good = folder.appendingPathComponent("xx.json")
    try Data(#"{"language": "xx", "datePattern": "yyyy-MM-dd", "texts": {"a": "b"}}"#.utf8).write(
      to: good)
    let orphan = folder.appendingPathComponent("yy.json")
    try Data(
      #"{"language": "yy", "inherits": "zz", "datePattern": "dd.MM.yyyy", "texts": {}}"#.utf8
    ).write(to: orphan)
    let garbage = folder.appendingPathComponent("bad.json")
    try Data("{".utf8).write(to: garbage)
    let catalogs = TextCatalogs.load(from: [good, orphan, garbage])
    // The orphan keeps its own texts; only the unreadable file is dropped.
    #expect(catalogs.byTag.keys.sorted() == ["xx", "yy"])
    #expect(catalogs.loadErrors.count == 2)
    #expect(catalogs.loadErrors.contains { $0.hasPrefix("bad.json") })
    #expect(catalogs.loadErrors.contains { $0.contains("inherits \"zz\"") })
  }
}
