import Foundation
import Testing
import TrafficTestSupport

@testable import TrafficFeeds

@Suite struct XMLEncodingCheckTests {
  @Test func anElementNameOfInvalidUTF8IsRefusedNotTrapped() throws {
    // Found by `make fuzz`: Foundation's XMLParser traps on such a name.
    let url = Fixtures.repositoryRoot.appendingPathComponent(
      "Tests/TrafficFeedsTests/Fixtures/datex2/bad-invalid-utf8-element-name.xml")
    let data = try Data(contentsOf: url)
    #expect(throws: FeedError.self) {
      try DATEXIIDecoder.decode(data, options: FeedOptions(sourceName: "t"))
    }
    do {
      _ = try DATEXIIDecoder.decode(data, options: FeedOptions(sourceName: "t"))
    } catch {
      #expect(error.reason.contains("not valid UTF-8"))
      #expect(error.location == "byte 433")
    }
  }

  @Test(arguments: [
    ([0x61, 0x62], nil),
    ([0xC3, 0xA9], nil),
    ([0xE2, 0x82, 0xAC], nil),
    ([0xF0, 0x9F, 0x9A, 0x97], nil),
    ([0x61, 0xFF], 1),
    ([0xC0, 0x80], 0),
    ([0xE0, 0x80, 0x80], 0),
    ([0xED, 0xA0, 0x80], 0),
    ([0xF4, 0x90, 0x80, 0x80], 0),
    ([0x61, 0xE2, 0x82], 1),
  ] as [([UInt8], Int?)])
  func findsTheFirstInvalidSequence(bytes: [UInt8], offset: Int?) {
    #expect(XMLEncodingCheck.firstInvalidUTF8Offset(Data(bytes)) == offset)
  }

  @Test func aDeclaredLatin1DocumentIsLeftToTheParser() {
    let latin1 = Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>".utf8) + Data([0xE9])
    #expect(XMLEncodingCheck.firstInvalidUTF8Offset(latin1) == nil)
  }
}
