import Foundation
import Testing
import Traffic

@testable import TrafficSQLite

@Suite struct FeedStateTests {
  @Test func aFeedStateRoundTripsAndIsReplacedByName() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("feeds.sqlite")
    let store = try SQLiteTrafficStore(path: path)
    #expect(try store.feedState(named: "berlin") == nil)
    var state = FeedPollState(
      name: "berlin", url: "https://example.org/datex.xml", etag: "\"abc\"",
      lastModified: "Wed, 21 Oct 2015 07:28:00 GMT",
      lastFetch: Date(timeIntervalSince1970: 1_800_000_000.25),
      lastSuccess: Date(timeIntervalSince1970: 1_799_999_000.5), lastError: nil, fetchCount: 12,
      errorCount: 1, consecutiveFailures: 0, incidentCount: 340, problemCount: 3)
    try store.saveFeedState(state)
    try store.saveFeedState(FeedPollState(name: "wien", url: "https://example.org/wien"))
    #expect(try store.feedState(named: "berlin") == state)
    state.lastError = "HTTP 503"
    state.etag = nil
    state.errorCount = 2
    state.consecutiveFailures = 1
    try store.saveFeedState(state)
    #expect(try SQLiteTrafficStore(path: path).feedState(named: "berlin") == state)
    #expect(try store.feedStates().map(\.name) == ["berlin", "wien"])
  }
}
