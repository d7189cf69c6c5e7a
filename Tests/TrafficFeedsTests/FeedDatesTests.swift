import Codec
import Foundation
import Testing

@testable import TrafficFeeds

@Suite struct FeedDatesTests {
  @Test(arguments: [
    ("2025-08-07T13:45:00Z", 1_754_574_300.0),
    ("2025-08-07T13:45:00.250Z", 1_754_574_300.25),
    ("2025-08-07T15:45:00+02:00", 1_754_574_300.0),
    ("2025-08-07T08:45:00-0500", 1_754_574_300.0),
    ("2025-08-07T13:45:00", 1_754_574_300.0),
    ("2025-08-07T13:45Z", 1_754_574_300.0),
    ("2025-08-07", 1_754_524_800.0),
    ("2028-02-20T00:00:00.123456789+00:00", 1_834_617_600.123_456_789),
    ("0001-01-01T00:00:00Z", -62_135_596_800.0),
  ])
  func parsesRFC3339Forms(text: String, unixTime: Double) throws {
    let date = try #require(FeedDates.parseISO8601(text))
    #expect(abs(date.timeIntervalSince1970 - unixTime) < 1e-6)
  }

  @Test(arguments: [
    "", "2025", "2025-13-01", "2025-08-07T25:00:00Z", "2025-08-07T13:45:00+", "yesterday",
    "2025-08-07T13:45:00.Z", "2025-08-07T13:45:00Zjunk",
    // Year 0000 is no year of XML Schema's dateTime: its DATEX II publication was invalid.
    "0000-01-01T00:00:00Z", "0000-12-31T23:59:59Z", "0001-01-01T00:30:00+01:00",
  ])
  func rejectsMalformedDates(text: String) {
    #expect(FeedDates.parseISO8601(text) == nil)
  }

  @Test func readsUnixSecondsAndMilliseconds() {
    #expect(FeedDates.fromUnixTime(1_754_574_300)?.timeIntervalSince1970 == 1_754_574_300)
    #expect(FeedDates.fromUnixTime(1_754_574_300_250)?.timeIntervalSince1970 == 1_754_574_300.25)
    #expect(FeedDates.fromUnixTime(-1) == nil)
    #expect(FeedDates.fromUnixTime(.nan) == nil)
    #expect(FeedDates.fromUnixTime(1e30) == nil)
  }

  /// The offset a time writes, or none (read then as local time where the feed says).
  @Test(
    arguments: [
      ("2025-08-07T13:45:00Z", 0), ("2025-08-07t13:45:00z", 0), ("2025-08-07T13:45:00Z ", 0),
      ("2025-08-07T15:45:00+02:00", 7_200), ("2025-08-07T08:45:00-0500", -18_000),
      ("2025-08-07T13:45:00", nil), ("2025-08-07", nil), ("2025-08-07Z", nil),
    ] as [(String, Int?)])
  func tellsTheOffsetWritten(text: String, offset: Int?) {
    #expect(FeedDates.utcOffsetInSeconds(text) == offset)
  }
}
