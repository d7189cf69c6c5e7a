import Foundation
import Testing
import Traffic
import TrafficFeeds

@testable import TrafficServer

/// Keys with scopes: readers read, writers write their own sources only, a polled feed's
/// source only by a key that names it.
@Suite struct ScopedKeysTests {
  static let keys = """
    # one reader, two writers of one source each, one key with everything
    reader read
    alpha write:alpha probes
    beta  write:beta,wzdx:*   # a comment after the scopes
    admin                     # no scopes: every one
    """

  static func server(poller: FeedPoller? = nil) throws -> TrafficServer {
    var configuration = ServerFixtures.quiet()
    configuration.accept(try ServerConfiguration.apiKeys(fromText: keys, origin: "test keys"))
    return try TrafficServer(
      engine: try ServerFixtures.engine(), configuration: configuration, poller: poller)
  }

  static func push(
    _ server: TrafficServer, source: String, key: String, ids: [String],
    latitude: Double = 52.52, fullRefresh: Bool = false
  ) -> HTTPResponse {
    server.handle(
      ServerFixtures.post(
        "/v1/feeds/open511?source=\(source)&fullRefresh=\(fullRefresh)&apiKey=\(key)",
        FeedIngestTests.open511(ids, latitude: latitude)))
  }

  @Test func theKeysFileGivesEachKeyItsScopes() throws {
    let keys = try ServerConfiguration.apiKeys(fromText: Self.keys, origin: "test keys")
    #expect(keys["reader"] == APIKeyScope(canRead: true))
    #expect(keys["alpha"] == APIKeyScope(canPushProbes: true, sources: ["alpha"]))
    #expect(keys["beta"] == APIKeyScope(sources: ["beta", "wzdx:*"]))
    #expect(keys["admin"] == .full)
    #expect(keys.count == 4)
    for (text, mentions) in [
      ("k1 read\nk2 wrote:x\n", "test keys, line 2: \"wrote:x\" is not a scope"),
      ("k1 write:\n", "line 1: write grant \"\" must be a source name"),
      ("k1 write:a*b\n", "line 1: write grant \"a*b\""),
      ("k1 read\nk1 write:x\n", "line 2: the key is given twice"),
      ("# nothing\n\n", "test keys holds no key"),
    ] {
      #expect {
        try ServerConfiguration.apiKeys(fromText: text, origin: "test keys")
      } throws: { error in
        "\(error)".contains(mentions)
      }
    }
  }

  @Test func readersReadAndWritersWriteTheirOwnSourcesOnly() throws {
    let server = try Self.server()
    let query = "/v7/incidents?in=circle:52.52,13.41;r=5000"
    #expect(server.handle(ServerFixtures.get(query + "&apiKey=reader")).status == 200)
    #expect(server.handle(ServerFixtures.get(query + "&apiKey=admin")).status == 200)
    #expect(server.handle(ServerFixtures.get(query + "&apiKey=nobody")).status == 401)
    // A writer without read does not query.
    let writerReads = server.handle(ServerFixtures.get(query + "&apiKey=alpha"))
    ServerFixtures.expectError(writerReads, status: 403, code: "httpError")
    #expect(writerReads.bodyText.contains("may not query"))
    // A reader does not push; a writer pushes its own source, not another's.
    let readerPushes = Self.push(server, source: "alpha", key: "reader", ids: ["r1"])
    #expect(readerPushes.status == 403)
    #expect(readerPushes.bodyText.contains("may not push feeds"))
    #expect(Self.push(server, source: "alpha", key: "alpha", ids: ["a1"]).status == 200)
    #expect(Self.push(server, source: "beta", key: "beta", ids: ["b1"]).status == 200)
    #expect(Self.push(server, source: "wzdx:anyone", key: "beta", ids: ["w1"]).status == 200)
    let other = Self.push(server, source: "beta", key: "alpha", ids: ["a2"])
    #expect(other.status == 403)
    #expect(other.bodyText.contains("may not write source \\\"beta\\\""))
    // Without ?source= the document's own name (the format's here) is the source checked.
    let unnamed = server.handle(
      ServerFixtures.post("/v1/feeds/open511?apiKey=alpha", FeedIngestTests.open511(["a3"])))
    #expect(unnamed.status == 403)
    // Probes need their scope.
    let probe = "vehicle,time,lat,lon\nv1,2026-01-01T00:00:00Z,52.52,13.41\n"
    #expect(server.handle(ServerFixtures.post("/v1/probes?apiKey=beta", probe)).status == 403)
    #expect(server.handle(ServerFixtures.post("/v1/probes?apiKey=alpha", probe)).status != 403)
  }

  @Test func aKeyScopedToOneSourceCannotChangeEndOrHideAnother() async throws {
    let server = try Self.server()
    #expect(Self.push(server, source: "beta", key: "beta", ids: ["e1", "e2"]).status == 200)
    let before = try await server.engine.queryForIncidents(
      inside: GeoCircle(
        center: GeoCoordinates(latitude: 52.52, longitude: 13.41), radiusInMeters: 500))
    // alpha reuses beta's ids far away, with a full refresh of its own source: its own
    // incidents appear, beta's stay as they were, and nothing of beta ends.
    let answer = Self.push(
      server, source: "alpha", key: "alpha", ids: ["e1", "e2"], latitude: 48.0,
      fullRefresh: true)
    #expect(answer.status == 200)
    let counts = try ServerFixtures.object(answer.body)
    #expect(counts["added"] as? Int == 2)
    #expect(counts["ended"] as? Int == 0)
    #expect(
      Self.push(server, source: "alpha", key: "alpha", ids: [], fullRefresh: true).status == 200)
    let after = try await server.engine.queryForIncidents(
      inside: GeoCircle(
        center: GeoCoordinates(latitude: 52.52, longitude: 13.41), radiusInMeters: 500))
    #expect(after == before)
    #expect(after.allSatisfy { $0.sources.map(\.feed) == ["beta"] })
  }

  @Test func anAddressSendingWrongKeysWaitsWhateverKeyItSendsThen() throws {
    let server = try Self.server()
    func get(_ key: String, from address: String) -> HTTPResponse {
      server.handle(
        HTTPRequest(
          target: "/v7/incidents?in=circle:52.52,13.41;r=500&apiKey=\(key)",
          remoteAddress: address))
    }
    for attempt in 0..<20 {
      #expect(get("guess\(attempt)", from: "10.0.0.9").status == 401)
    }
    let throttled = get("guess20", from: "10.0.0.9")
    ServerFixtures.expectError(
      throttled, status: 429, code: "tooManyRequests",
      mentions: "missing or unknown API key came from this address; try again in 1 s")
    #expect(throttled.headers["Retry-After"] == "1")
    // No oracle: the right key from that address waits too; another address is served.
    #expect(get("reader", from: "10.0.0.9").status == 429)
    #expect(get("reader", from: "10.0.0.10").status == 200)
  }

  @Test func aPolledFeedsSourceIsWrittenOnlyByAKeyThatNamesIt() throws {
    let engine = try ServerFixtures.engine()
    let feed = FeedPoller.Feed(
      format: .open511, url: try #require(URL(string: "http://127.0.0.1:9/events")),
      name: "city")
    let poller = FeedPoller(feeds: [feed], engine: engine)
    var configuration = ServerFixtures.quiet()
    configuration.accept(
      try ServerConfiguration.apiKeys(
        fromText: "any write:*\nnamed write:city\n", origin: "test keys"))
    let server = try TrafficServer(engine: engine, configuration: configuration, poller: poller)
    let refused = Self.push(server, source: "city", key: "any", ids: ["c1"], fullRefresh: true)
    #expect(refused.status == 403)
    #expect(refused.bodyText.contains("is a feed this server polls"))
    #expect(Self.push(server, source: "city", key: "named", ids: ["c1"]).status == 200)
    #expect(Self.push(server, source: "elsewhere", key: "any", ids: ["x1"]).status == 200)
  }
}
