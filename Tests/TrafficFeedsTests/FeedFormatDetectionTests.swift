import Foundation
import Testing
import TrafficTestSupport

@testable import TrafficFeeds

@Suite struct FeedFormatDetectionTests {
  /// Every file of the shared fixtures, by the format its folder says it is.
  @Test(.enabled(if: Fixtures.shared != nil, "needs ../shared/fixtures"))
  func recognisesEverySharedFixture() throws {
    let root = try #require(Fixtures.shared)
    let expected: [String: FeedFormat] = [
      "datex2": .datex2, "wzdx": .wzdx, "open511": .open511, "waze": .waze,
    ]
    var checked = 0
    for (folder, format) in expected {
      let directory = root.appendingPathComponent(folder)
      for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        #expect(FeedFormat.detect(data) == format, "\(folder)/\(name)")
        checked += 1
      }
    }
    #expect(checked >= 40)
  }

  /// The project's own fixtures, one folder per format.
  @Test func recognisesOwnFixtures() throws {
    let root = Fixtures.repositoryRoot.appendingPathComponent("Tests/TrafficFeedsTests/Fixtures")
    var checked = Set<FeedFormat>()
    for format in FeedFormat.allCases {
      let directory = root.appendingPathComponent(format.rawValue)
      guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else {
        continue
      }
      for name in names.sorted() where !name.hasPrefix(".") && !name.contains("bad") {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        #expect(FeedFormat.detect(data) == format, "\(format)/\(name)")
        checked.insert(format)
      }
    }
    #expect(checked == Set(FeedFormat.allCases))
  }

  @Test(arguments: ["", "{}", "[]", "<html><body>nope</body></html>", "hello", "{\"results\": 3}"])
  func recognisesNothingInOtherDocuments(text: String) {
    #expect(FeedFormat.detect(Data(text.utf8)) == nil)
  }
}
