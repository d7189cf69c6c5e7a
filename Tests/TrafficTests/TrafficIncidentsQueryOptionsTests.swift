import Foundation
import Testing
import Traffic

@Suite struct TrafficIncidentsQueryOptionsTests {
  let now = Date(timeIntervalSince1970: 2_000_000)

  /// Active now, ended before now, planned after now, open on both sides.
  func incidents() throws -> [String: TrafficIncident] {
    [
      "active": try TrafficFixtures.incident(start: now - 100, end: now + 100),
      "ended": try TrafficFixtures.incident(start: now - 500, end: now - 200),
      "planned": try TrafficFixtures.incident(start: now + 300, end: now + 600),
      "open": try TrafficFixtures.incident(start: nil, end: nil),
    ]
  }

  func matching(_ options: TrafficIncidentsQueryOptions) throws -> Set<String> {
    Set(try incidents().filter { options.matches($0.value, now: now) }.keys)
  }

  @Test func byDefaultOnlyIncidentsActiveNow() throws {
    #expect(try matching(TrafficIncidentsQueryOptions()) == ["active", "open"])
  }

  @Test func earliestStartTimeInThePastAddsRecentlyEnded() throws {
    let options = TrafficIncidentsQueryOptions(earliestStartTime: now - 300)
    #expect(try matching(options) == ["active", "ended", "open"])
    #expect(options.timeWindow(now: now) == (now - 300)...now)
  }

  @Test func earliestStartTimeInTheFutureAsksAboutThatInstant() throws {
    let options = TrafficIncidentsQueryOptions(earliestStartTime: now + 400)
    #expect(try matching(options) == ["planned", "open"])
  }

  @Test func latestEndTimeInTheFutureAddsPlanned() throws {
    let options = TrafficIncidentsQueryOptions(latestEndTime: now + 400)
    #expect(try matching(options) == ["active", "planned", "open"])
    #expect(options.timeWindow(now: now) == now...(now + 400))
  }

  @Test func latestEndTimeInThePastAsksAboutThatInstant() throws {
    let options = TrafficIncidentsQueryOptions(latestEndTime: now - 300)
    #expect(try matching(options) == ["ended", "open"])
  }

  @Test func bothBoundsGiveTheWindow() throws {
    let all = TrafficIncidentsQueryOptions(
      earliestStartTime: now - 1_000, latestEndTime: now + 1_000)
    #expect(try matching(all) == ["active", "ended", "planned", "open"])
    let narrow = TrafficIncidentsQueryOptions(
      earliestStartTime: now + 150, latestEndTime: now + 250)
    #expect(try matching(narrow) == ["open"])
  }

  @Test func reversedWindowIsInvalidAndMatchesNothing() throws {
    let options = TrafficIncidentsQueryOptions(earliestStartTime: now, latestEndTime: now - 1)
    #expect(options.timeWindow(now: now) == nil)
    #expect(try matching(options).isEmpty)
    #expect {
      try options.validate()
    } throws: { error in
      guard case .invalidFilterOptions(let detail) = error as? TrafficQueryError else {
        return false
      }
      return detail.contains("latestEndTime") && detail.contains("earliestStartTime")
    }
  }

  @Test func emptyFiltersLetEverythingThrough() throws {
    let construction = try TrafficFixtures.incident(
      start: nil, end: nil, type: .construction, impact: .low)
    let accident = try TrafficFixtures.incident(
      start: nil, end: nil, type: .accident, impact: .critical)
    let all = TrafficIncidentsQueryOptions()
    #expect(all.matches(construction, now: now) && all.matches(accident, now: now))
    let types = TrafficIncidentsQueryOptions(typeFilter: [.construction, .roadClosure])
    #expect(types.matches(construction, now: now))
    #expect(!types.matches(accident, now: now))
    let impacts = TrafficIncidentsQueryOptions(impactFilter: [.critical])
    #expect(!impacts.matches(construction, now: now))
    #expect(impacts.matches(accident, now: now))
  }

  @Test func limitAndSorting() throws {
    #expect(throws: TrafficQueryError.invalidParameter("limit 0 must be at least 1")) {
      try TrafficIncidentsQueryOptions(limit: 0).validate()
    }
    try TrafficIncidentsQueryOptions(limit: 1).validate()
    let base = TrafficIncidentsQueryOptions(languageCode: .deDE)
    let origin = try TrafficFixtures.place(52.5, 13.4)
    let sorted = base.sortedByDistance(from: origin)
    #expect(sorted.sortOrigin == origin)
    #expect(sorted.languageCode == .deDE)
    #expect(base.sortOrigin == nil)
    #expect(TrafficIncidentLookupOptions(languageCode: .frFR).languageCode == .frFR)
  }
}
