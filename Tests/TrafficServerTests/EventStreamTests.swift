import Foundation
import Testing
import Traffic

@testable import TrafficServer

@Suite struct EventStreamTests {
  @Test func streamsChangesInTheAreaAsServerSentEvents() async throws {
    let server = try ServerFixtures.server()
    let response = server.handle(
      ServerFixtures.get("/v7/incidents/stream?in=bbox:13.3,52.4,13.5,52.6"))
    #expect(response.status == 200)
    #expect(response.headers["Content-Type"] == "text/event-stream; charset=utf-8")
    let stream = try #require(response.eventStream)
    defer { stream.finish() }
    let greeting = try #require(await stream.next(timeoutSeconds: 2))
    #expect(String(decoding: greeting, as: UTF8.self).hasPrefix(": traffic incident changes\n"))
    // A change elsewhere is not seen; one inside is.
    _ = server.handle(
      ServerFixtures.post("/v1/feeds/open511", FeedIngestTests.open511(["far"], latitude: 40)))
    _ = server.handle(
      ServerFixtures.post("/v1/feeds/open511?source=x", FeedIngestTests.open511(["near"])))
    let event = String(decoding: try #require(await stream.next(timeoutSeconds: 5)), as: UTF8.self)
    #expect(event.hasPrefix("event: added\nid: 1\ndata: {"))
    #expect(event.contains(#""originalId":"near""#))
    #expect(!event.contains("far"))
    #expect(event.hasSuffix("\n\n"))
    stream.finish()
    #expect(await stream.next(timeoutSeconds: 1) == nil)
  }

  @Test("a reader that falls too far behind is dropped, not buffered forever")
  func slowReadersAreDropped() async throws {
    var configuration = ServerFixtures.quiet()
    configuration.maxEventStreamBacklogBytes = 16 << 10
    let server = try ServerFixtures.server(configuration)
    let response = server.handle(
      ServerFixtures.get("/v7/incidents/stream?in=bbox:13.3,52.4,13.5,52.6"))
    let stream = try #require(response.eventStream)
    defer { stream.finish() }
    let before = EventStream.droppedSlowReaders.load(ordering: .relaxed)
    // Hundreds of changes in the area, never read: each event is a few hundred bytes.
    for batch in 0..<2 {
      let ids = (0..<100).map { "slow-\(batch)-\($0)" }
      _ = server.handle(
        ServerFixtures.post("/v1/feeds/open511?source=s\(batch)", FeedIngestTests.open511(ids)))
    }
    var dropped = false
    for _ in 0..<100 where !dropped {
      try await Task.sleep(for: .milliseconds(50))
      dropped = EventStream.droppedSlowReaders.load(ordering: .relaxed) > before
    }
    #expect(dropped)
    // The stream ends: what was pending is gone, the reader gets its end.
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    let result = buffer.withUnsafeMutableBytes { stream.read(into: $0) }
    #expect(result == .end)
  }

  @Test("one client holds at most its share of event streams")
  func streamsPerClient() throws {
    var configuration = ServerFixtures.quiet()
    configuration.maxEventStreamsPerClient = 3
    let server = try ServerFixtures.server(configuration)
    func open(from address: String) -> HTTPResponse {
      var request = ServerFixtures.get("/v7/incidents/stream?in=bbox:13.3,52.4,13.5,52.6")
      request.remoteAddress = address
      return server.handle(request)
    }
    var streams = try (0..<3).map { _ in try #require(open(from: "192.0.2.1").eventStream) }
    defer { for stream in streams { stream.finish() } }
    // Refused as every 429 is (tooManyRequests, Retry-After): the client may try again
    // once a heartbeat has shown whether a stream it left is gone.
    let refused = open(from: "192.0.2.1")
    ServerFixtures.expectError(
      refused, status: 429, code: "tooManyRequests", mentions: "already holds 3 event streams")
    #expect(
      refused.headers["Retry-After"]
        == String(Int(configuration.heartbeatIntervalSeconds.rounded(.up))))
    // Another client is not affected; a stream closed frees a place.
    let other = try #require(open(from: "192.0.2.2").eventStream)
    other.finish()
    streams.removeFirst().finish()
    let again = try #require(open(from: "192.0.2.1").eventStream)
    streams.append(again)
    let metrics = String(
      decoding: server.handle(ServerFixtures.get("/metrics")).body, as: UTF8.self)
    #expect(metrics.contains("traffic_event_streams_refused_total 1\n"))
  }

  @Test func heartbeatsWhenQuiet() async throws {
    let server = try ServerFixtures.server(
      ServerConfiguration(heartbeatIntervalSeconds: 0.05, accessLog: .none))
    let stream = try #require(
      server.handle(ServerFixtures.get("/v7/incidents/stream?in=circle:52.5,13.4;r=10"))
        .eventStream)
    defer { stream.finish() }
    _ = await stream.next(timeoutSeconds: 1)
    let beat = try #require(await stream.next(timeoutSeconds: 2))
    #expect(String(decoding: beat, as: UTF8.self) == ": heartbeat\n\n")
  }

  @Test(arguments: [
    ("", "invalidIn", "in"), ("?in=circle:1,2", "invalidIn", "in"),
    ("?in=bbox:1,2,3,4&in=bbox:1,2,3,4", "invalidIn", "in"),
    ("?in=bbox:1,2,3,4&lang=--", "invalidParameter", "lang"),
  ])
  func badStreamParameters(suffix: String, code: String, mentions: String) throws {
    let server = try ServerFixtures.server()
    let response = server.handle(ServerFixtures.get("/v7/incidents/stream" + suffix))
    ServerFixtures.expectError(response, status: 400, code: code, mentions: mentions)
    #expect(response.eventStream == nil)
  }

  @Test func watchingIsNotLimitedInSize() throws {
    let server = try ServerFixtures.server()
    let response = server.handle(ServerFixtures.get("/v7/incidents/stream?in=bbox:-10,40,30,60"))
    #expect(response.status == 200)
    response.eventStream?.finish()
  }
}
