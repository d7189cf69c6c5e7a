import Foundation
import Testing
import TrafficTestSupport

/// A public clone has no `../shared` beside it: nothing the product, its benchmarks, CI or
/// docs use may live there, and tests reach it only through `Fixtures.shared` (an optional:
/// extra coverage where present). `make test` in a copy of the repository placed where
/// `../shared` does not exist is the other half of the proof (or
/// `TRAFFIC_TESTS_WITHOUT_SHARED=1 swift test` here).
@Suite struct SelfContainedRepositoryTests {
  /// The files of `folder` (recursively) whose text names `needle`, as paths from the root.
  static func files(under folder: String, naming needle: String) -> [String] {
    let root = Fixtures.repositoryRoot
    let base = root.appendingPathComponent(folder)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: base.path, isDirectory: &isDirectory) else {
      return []
    }
    let urls: [URL]
    if isDirectory.boolValue {
      let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
      urls = (walker?.allObjects as? [URL]) ?? []
    } else {
      urls = [base]
    }
    return urls.compactMap { url in
      guard let data = try? Data(contentsOf: url), data.count < 4_000_000,
        String(decoding: data, as: UTF8.self).contains(needle)
      else { return nil }
      return String(url.path.dropFirst(root.path.count + 1))
    }.sorted()
  }

  @Test func nothingButTestsKnowsOfSharedAndTheyOnlyThroughFixtures() {
    for folder in [
      "Sources", "Plugins", "Examples", "bench", ".ci", "Makefile", "README.md", "docs",
      "Package.swift",
    ] {
      #expect(Self.files(under: folder, naming: "../shared").isEmpty, "\(folder)")
    }
    // The one place that builds the path; suites say `Fixtures.shared` and name the folder
    // only in comments and in the README of their fixtures.
    let builders = Self.files(under: "Tests", naming: "\"shared/fixtures\"")
    #expect(builders == ["Tests/TrafficTestSupport/Fixtures.swift"])
  }

  @Test func theShippedSamplesAreThereWithTheirNotice() throws {
    let notice = try String(
      contentsOf: Fixtures.sample("NOTICE"), encoding: .utf8)
    for file in ["osm/liechtenstein-2013-08-03.osm.pbf", "osm/liechtenstein-2013-08-03.osm.bz2"] {
      #expect(FileManager.default.fileExists(atPath: Fixtures.sample(file).path))
      #expect(notice.contains(file))
    }
    #expect(notice.contains("Open Database License"))
    let samples = try FileManager.default.contentsOfDirectory(
      atPath: Fixtures.sample("wzdx").path)
    #expect(samples.count == 11)
    for name in samples { #expect(notice.contains("wzdx/\(name)"), "\(name) lacks a notice") }
  }
}
