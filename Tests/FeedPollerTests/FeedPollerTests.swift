import Foundation
import Testing
import Traffic
import TrafficFeeds
import TrafficServer
import TrafficTestSupport

@Suite(.serialized) struct FeedPollerTests {
  static func engine() throws -> TrafficEngine { try TrafficEngine(store: InMemoryTrafficStore()) }

  static let ownFixtures = Fixtures.repositoryRoot.appendingPathComponent(
    "Tests/TrafficFeedsTests/Fixtures")

  @Test func parsesTheCommandLineForm() throws {
    let feed = try FeedPoller.Feed.parse("datex2:https://example.org/situations.xml@30")
    #expect(feed.format == .datex2)
    #expect(feed.url.absoluteString == "https://example.org/situations.xml")
    #expect(feed.intervalInSeconds == 30)
    #expect(try FeedPoller.Feed.parse("auto:http://h/x").format == nil)
    #expect(try FeedPoller.Feed.parse("auto:http://h/x").intervalInSeconds == 60)
    #expect(throws: FeedError.self) { try FeedPoller.Feed.parse("gtfs:http://h/x") }
    #expect(throws: FeedError.self) { try FeedPoller.Feed.parse("datex2:ftp://h/x") }
    #expect(throws: FeedError.self) { try FeedPoller.Feed.parse("datex2:http://h/x@0") }
    #expect(throws: FeedError.self) { try FeedPoller.Feed.parse("nocolon") }
    // Past a week (1e20 s overflowed the sleep and crashed the server at its first fetch),
    // and a URL without a host.
    #expect(try FeedPoller.Feed.parse("datex2:http://h/x@604800").intervalInSeconds == 604_800)
    for text in [
      "datex2:http://h/x@604801", "datex2:http://h/x@99999999999999999999", "wzdx:http://",
    ] {
      #expect(throws: FeedError.self, "\(text)") { try FeedPoller.Feed.parse(text) }
    }
  }

  @Test func pollsAV7ServerAndAsksConditionally() async throws {
    // The source: a traffic server whose /v7/incidents is a HERE v7 feed with an ETag.
    let sourceStore = InMemoryTrafficStore()
    let data = try Data(
      contentsOf: Self.ownFixtures.appendingPathComponent("here-v7/incidents.json"))
    let decoded = try HEREv7Decoder.decode(data, options: FeedOptions(sourceName: "seed"))
    try sourceStore.apply(IncidentBatch(upserts: decoded.incidents))
    let server = try TrafficServer(
      engine: try TrafficEngine(store: sourceStore),
      configuration: ServerConfiguration(port: 0, accessLog: .none))
    try server.start()
    defer { server.stop() }
    let port = try #require(server.port)
    let url = try #require(
      URL(
        string:
          "http://127.0.0.1:\(port)/v7/incidents?in=bbox:12.9,53.7,13.2,54.0&earliestStartTime=2024-01-01T00:00:00Z&latestEndTime=2024-12-31T00:00:00Z"
      ))

    let engine = try Self.engine()
    let poller = FeedPoller(
      feeds: [FeedPoller.Feed(format: .hereV7, url: url, intervalInSeconds: 30, name: "upstream")],
      engine: engine)
    #expect(await poller.poll("upstream") == 30)
    var status = try #require(poller.status.first)
    #expect(status.lastError == nil)
    #expect(status.incidentCount == 2)
    #expect(status.lastReport?.added == 2)
    #expect(status.etag != nil)
    #expect(engine.incidentCount == 2)
    // Unchanged upstream: a 304, nothing ingested again.
    #expect(await poller.poll("upstream") == 30)
    status = try #require(poller.status.first)
    #expect(status.fetches == 2)
    #expect(status.lastError == nil)
    #expect(status.lastReport?.added == 2, "the 304 left the last report as it was")
    #expect(engine.incidentCount == 2)
  }

  @Test func failuresBackOffExponentiallyAndRecover() async throws {
    let engine = try Self.engine()
    let broken = try #require(URL(string: "http://127.0.0.1:1/feed.json"))
    let poller = FeedPoller(
      feeds: [FeedPoller.Feed(format: .waze, url: broken, intervalInSeconds: 10, name: "broken")],
      engine: engine, timeoutInSeconds: 5)
    #expect(await poller.poll("broken") == 20)
    #expect(await poller.poll("broken") == 40)
    let status = try #require(poller.status.first)
    #expect(status.consecutiveFailures == 2)
    #expect(status.lastError?.contains("fetch failed") == true)
    #expect(status.lastSuccess == nil)
  }

  @Test func aDocumentOfTheWrongKindIsAnErrorThatNamesTheFeed() async throws {
    let engine = try Self.engine()
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("junk-\(UUID()).json")
    try Data("{\"nothing\": true}".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let poller = FeedPoller(
      feeds: [FeedPoller.Feed(format: nil, url: file, name: "junk")], engine: engine)
    await poller.poll("junk")
    let status = try #require(poller.status.first)
    #expect(status.lastError?.contains("not a recognised feed format") == true)
    #expect(status.lastError?.contains(file.path) == true)
  }

  @Test func aBrokenFeedDoesNotHoldUpTheOthers() async throws {
    let engine = try Self.engine()
    let good = Self.ownFixtures.appendingPathComponent("wzdx/feed_v42.geojson")
    let slow = try #require(URL(string: "http://10.255.255.1/never"))  // unroutable: times out
    let poller = FeedPoller(
      feeds: [
        FeedPoller.Feed(format: nil, url: slow, name: "slow"),
        FeedPoller.Feed(format: nil, url: good, name: "good"),
      ], engine: engine, timeoutInSeconds: 20)
    poller.start()
    defer { poller.stop() }
    let deadline = ContinuousClock.now + .seconds(10)
    while engine.incidentCount == 0, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(engine.incidentCount == 3)
    #expect(poller.status.first { $0.feed.name == "good" }?.lastSuccess != nil)
  }
}

@Suite struct PolledFeedStatusTests {
  @Test func theServerReportsPolledFeedsWithoutSecrets() async throws {
    let engine = try TrafficEngine(store: InMemoryTrafficStore())
    let good = FeedPollerTests.ownFixtures.appendingPathComponent("wzdx/feed_v42.geojson")
    let secret = try #require(URL(string: "http://user:pw@127.0.0.1:1/feed?apiKey=s3cret"))
    let poller = FeedPoller(
      feeds: [
        FeedPoller.Feed(format: nil, url: good, name: "good"),
        FeedPoller.Feed(format: .waze, url: secret, name: "secret"),
      ], engine: engine, timeoutInSeconds: 5)
    await poller.poll("good")
    await poller.poll("secret")
    let server = try TrafficServer(
      engine: engine, configuration: ServerConfiguration(accessLog: .none), poller: poller)
    let response = server.handle(HTTPRequest(method: "GET", target: "/v1/feeds"))
    let text = String(decoding: response.body, as: UTF8.self)
    #expect(response.status == 200)
    let object = try #require(
      try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    let polled = try #require(object["polled"] as? [[String: Any]])
    #expect(polled.map { $0["name"] as? String } == ["good", "secret"])
    #expect(polled[0]["incidents"] as? Int == 3)
    #expect(polled[0]["lastError"] is NSNull)
    #expect(polled[1]["consecutiveFailures"] as? Int == 1)
    #expect(!text.contains("s3cret") && !text.contains("pw@"))
  }
}
