import Foundation
import Geo
import Testing

@testable import Codec
@testable import Roads

/// Local times at a place (HERE Routing v8 reads a time without an offset as local time at
/// the origin), against Foundation's calendar as the independent reference.
struct PlaceTimeZoneTests {
  static var berlin: GeoCoordinates {
    get throws { try GeoCoordinates(latitude: 52.52, longitude: 13.40) }
  }
  static var newYork: GeoCoordinates {
    get throws { try GeoCoordinates(latitude: 40.71, longitude: -74.01) }
  }

  /// A wall-clock time read as UTC, as `RFC3339.parse` reads a time without an offset.
  static func wall(_ text: String) throws -> Date { try #require(RFC3339.parse(text)) }

  @Test func aPlacesZoneIsTheNearestPrincipalLocations() throws {
    #expect(PlaceTimeZone.at(try Self.berlin)?.identifier == "Europe/Berlin")
    #expect(PlaceTimeZone.at(try Self.newYork)?.identifier == "America/New_York")
  }

  /// Every hour of 2027 at both places, but the hours the clocks skip or repeat, equals
  /// what Foundation's calendar makes of the same wall-clock time.
  @Test func localTimesAgreeWithFoundationsCalendar() throws {
    for point in [try Self.berlin, try Self.newYork] {
      let zone = try #require(PlaceTimeZone.at(point))
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = zone
      var utc = Calendar(identifier: .gregorian)
      utc.timeZone = try #require(TimeZone(identifier: "UTC"))
      let start = try Self.wall("2027-01-01T00:17:00Z")
      for hour in 0..<(365 * 24) {
        let wall = start.addingTimeInterval(Double(hour) * 3600)
        let parts = utc.dateComponents([.year, .month, .day, .hour, .minute], from: wall)
        let reference = try #require(calendar.date(from: parts))
        // Skip the hours at a change of offset, where a wall-clock time names no instant or
        // two.
        let around = [-7200.0, 7200].map { zone.secondsFromGMT(for: reference + $0) }
        guard around[0] == around[1] else { continue }
        #expect(PlaceTimeZone.instant(ofLocalTime: wall, at: point) == reference, "\(parts)")
      }
    }
  }

  @Test func theHoursTheClocksSkipOrRepeat() throws {
    // Berlin, 28 March 2027: 02:00 CET becomes 03:00 CEST; 02:30 does not exist and counts
    // with the offset before (03:30 CEST).
    #expect(
      PlaceTimeZone.instant(ofLocalTime: try Self.wall("2027-03-28T02:30:00Z"), at: try Self.berlin)
        == (try Self.wall("2027-03-28T01:30:00Z")))
    // 31 October 2027: 03:00 CEST becomes 02:00 CET; 02:30 happens twice, the first taken.
    #expect(
      PlaceTimeZone.instant(ofLocalTime: try Self.wall("2027-10-31T02:30:00Z"), at: try Self.berlin)
        == (try Self.wall("2027-10-31T00:30:00Z")))
    #expect(
      PlaceTimeZone.instant(ofLocalTime: try Self.wall("2027-10-31T03:30:00Z"), at: try Self.berlin)
        == (try Self.wall("2027-10-31T02:30:00Z")))
  }

  @Test func datesAreWrittenInTheLocalTimeWithTheOffset() throws {
    let instant = try Self.wall("2027-01-15T07:00:00Z")
    #expect(RFC3339.format(instant, offsetSeconds: 3600) == "2027-01-15T08:00:00+01:00")
    #expect(RFC3339.format(instant, offsetSeconds: -5 * 3600) == "2027-01-15T02:00:00-05:00")
    #expect(RFC3339.format(instant, offsetSeconds: 5 * 3600 + 1800) == "2027-01-15T12:30:00+05:30")
    #expect(
      RFC3339.format(instant, offsetSeconds: -(9 * 3600 + 1800)) == "2027-01-14T21:30:00-09:30")
    #expect(RFC3339.format(instant, offsetSeconds: 0) == "2027-01-15T07:00:00Z")
    #expect(
      RFC3339.format(instant.addingTimeInterval(0.25), offsetSeconds: 3600)
        == "2027-01-15T08:00:00.250+01:00")
    // Local mean times of the past had offsets in seconds; RFC 3339 has whole minutes.
    #expect(RFC3339.format(instant, offsetSeconds: 3208) == "2027-01-15T07:53:00+00:53")
    for offset in stride(from: -14 * 3600, through: 14 * 3600, by: 900) {
      let text = RFC3339.format(instant, offsetSeconds: offset)
      #expect(RFC3339.parse(text) == instant, "\(text)")
    }
  }
}
