import Codec
import Foundation
import Testing

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate written; it and the two obsolete forms read.
@Suite struct HTTPDateTests {
  /// RFC 9110's example: Sunday, 6 November 1994, 08:49:37 UTC.
  static let example = Date(timeIntervalSince1970: 784_111_777)

  @Test func writesIMFFixdateInWholeSeconds() {
    #expect(HTTPDate.format(Self.example) == "Sun, 06 Nov 1994 08:49:37 GMT")
    #expect(
      HTTPDate.format(Self.example.addingTimeInterval(0.999)) == "Sun, 06 Nov 1994 08:49:37 GMT")
    #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
    #expect(
      HTTPDate.format(Date(timeIntervalSince1970: 1_709_164_800)) == "Thu, 29 Feb 2024 00:00:00 GMT"
    )
  }

  @Test func readsTheThreeForms() {
    for text in [
      "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
      "Sun Nov  6 08:49:37 1994",
    ] {
      #expect(HTTPDate.parse(text) == Self.example, "\(text)")
    }
    #expect(
      HTTPDate.parse(HTTPDate.format(Date(timeIntervalSince1970: 1_800_000_000)))
        == Date(timeIntervalSince1970: 1_800_000_000))
  }

  @Test func refusesWhatIsNoHTTPDate() {
    for text in [
      "", "yesterday", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 32 Nov 1994 08:49:37 GMT",
      "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "2026-12-01T08:00:00Z",
      "Sun, 06 Nov 1994 08:49 GMT",
    ] {
      #expect(HTTPDate.parse(text) == nil, "\(text)")
    }
  }
}
