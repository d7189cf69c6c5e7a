import Foundation
import Testing
import TrafficTestSupport

@testable import TrafficFeeds

/// The fuzz seed corpus (`Tests/TrafficFeedsTests/Fuzz/<format>/`, what `make fuzz` starts
/// from) stays valid: every seed is recognised as its format and decodes, so the fuzzer
/// starts from inputs that reach deep into each decoder.
@Suite struct FuzzSeedTests {
  @Test(arguments: FeedFormat.allCases)
  func everySeedIsADocumentOfItsFormat(format: FeedFormat) throws {
    let folder = Fixtures.repositoryRoot.appendingPathComponent(
      "Tests/TrafficFeedsTests/Fuzz/\(format.rawValue)")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    #expect(names.count >= 3)
    var incidents = 0
    for name in names {
      let data = try Data(contentsOf: folder.appendingPathComponent(name))
      #expect(FeedFormat.detect(data) == format, "\(name)")
      let document = try format.decoder.decode(data, options: FeedOptions(sourceName: "seed"))
      incidents += document.incidents.count
    }
    #expect(incidents > 0)
  }
}
