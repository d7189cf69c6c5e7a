import Foundation
import Testing
import Traffic
import TrafficFeeds
import Zlib

@testable import TrafficServer

@Suite struct FeedIngestTests {
  static func open511(
    _ ids: [String], latitude: Double = 52.52, longitude: Double = 13.41
  )
    -> String
  {
    let events = ids.map { id in
      #"{"id":"\#(id)","status":"ACTIVE","headline":"CONSTRUCTION","event_type":"CONSTRUCTION","#
        + #""severity":"MAJOR","geography":{"type":"Point","coordinates":[\#(longitude),\#(latitude)]},"#
        + #""schedule":{"intervals":["2020-01-01T00:00/"]}}"#
    }
    return #"{"events":[\#(events.joined(separator: ","))]}"#
  }

  @Test func aPushOfMoreRecordsThanTheLimitIsRefusedWhole() throws {
    var configuration = ServerFixtures.quiet()
    configuration.maxPushRecords = 2
    let server = try ServerFixtures.server(configuration)
    let before = server.engine.incidentCount
    let refused = server.handle(
      ServerFixtures.post("/v1/feeds/open511?source=bc", Self.open511(["e1", "e2", "e3"])))
    ServerFixtures.expectError(refused, status: 413, code: "httpError")
    #expect(refused.bodyText.contains("3 records, more than the 2 one push may hold"))
    #expect(server.engine.incidentCount == before)
    let taken = server.handle(
      ServerFixtures.post("/v1/feeds/open511?source=bc", Self.open511(["e1", "e2"])))
    #expect(taken.status == 200)
    #expect(server.engine.incidentCount == before + 2)
  }

  /// A source holds at most `maxSourceRecords` incidents through pushes: a push beyond is
  /// refused whole, changes to what it holds are taken, and other sources are not held back.
  @Test func aSourceHoldsAtMostItsLimit() throws {
    var configuration = ServerFixtures.quiet()
    configuration.maxSourceRecords = 3
    let server = try ServerFixtures.server(configuration)
    let before = server.engine.incidentCount
    func push(_ source: String, _ ids: [String], latitude: Double = 52.52) -> HTTPResponse {
      server.handle(
        ServerFixtures.post(
          "/v1/feeds/open511?source=\(source)", Self.open511(ids, latitude: latitude)))
    }
    #expect(push("a", ["e1", "e2"]).status == 200)
    let refused = push("a", ["e1", "e3", "e4"])
    ServerFixtures.expectError(refused, status: 413, code: "httpError")
    #expect(refused.bodyText.contains("source a would hold 4 incidents, more than the 3"))
    #expect(server.engine.incidentCount == before + 2)
    // Changed reports of what it holds and one more are taken.
    #expect(push("a", ["e1", "e2", "e3"]).status == 200)
    #expect(server.engine.incidentCount == before + 3)
    ServerFixtures.expectError(push("a", ["e5"]), status: 413, code: "httpError")
    // Another source has a limit of its own.
    #expect(push("b", ["f1", "f2", "f3"], latitude: 48.1).status == 200)
    #expect(server.engine.incidentCount == before + 6)
    let status = try ServerFixtures.object(server.handle(ServerFixtures.get("/v1/feeds")).body)
    #expect("\(status)".contains("more than the 3 one source may"))
  }

  @Test func pushesAreAppliedAsOneBatchAndCounted() throws {
    let server = try ServerFixtures.server()
    let response = server.handle(
      ServerFixtures.post("/v1/feeds/open511?source=bc", Self.open511(["e1", "e2"])))
    #expect(response.status == 200, "\(response.bodyText)")
    let body = try ServerFixtures.object(response.body)
    #expect(body["format"] as? String == "open511")
    #expect(body["source"] as? String == "bc")
    #expect(body["incidents"] as? Int == 2)
    #expect(body["added"] as? Int == 2)
    #expect(body["problemCount"] as? Int == 0)
    #expect(server.engine.incidentCount == 6)
    let found = try ServerFixtures.resultIds(
      server.handle(ServerFixtures.get("/v7/incidents?in=circle:52.52,13.41;r=50")))
    #expect(Set(found) == ["e1", "e2"])
  }

  @Test func fullRefreshesEndWhatTheSourceNoLongerCarries() throws {
    let server = try ServerFixtures.server()
    _ = server.handle(
      ServerFixtures.post("/v1/feeds/open511?source=bc", Self.open511(["e1", "e2"])))
    // Without fullRefresh=true a push is a set of changes: it ends nothing.
    let changes = server.handle(
      ServerFixtures.post("/v1/feeds/open511?source=bc", Self.open511(["e2"])))
    #expect(try ServerFixtures.object(changes.body)["ended"] as? Int == 0)
    #expect(try ServerFixtures.object(changes.body)["fullRefresh"] as? Bool == false)
    let second = server.handle(
      ServerFixtures.post(
        "/v1/feeds/open511?source=bc&fullRefresh=true", Self.open511(["e2", "e3"])))
    let body = try ServerFixtures.object(second.body)
    #expect(body["added"] as? Int == 1)
    #expect(body["unchanged"] as? Int == 1)
    #expect(body["updated"] as? Int == 0)
    #expect(body["ended"] as? Int == 1)
    // e1 has ended: gone from queries, still found by lookup until purged.
    #expect(server.handle(ServerFixtures.get("/v7/incidents/e1")).status == 200)
    #expect(server.handle(ServerFixtures.get("/v7/incidents/e3")).status == 200)
    let active = try ServerFixtures.resultIds(
      server.handle(ServerFixtures.get("/v7/incidents?in=circle:52.52,13.41;r=50")))
    #expect(Set(active) == ["e2", "e3"])
    // Another source's refresh does not touch these.
    _ = server.handle(
      ServerFixtures.post(
        "/v1/feeds/open511?source=other&fullRefresh=true", Self.open511(["o1"])))
    #expect(server.handle(ServerFixtures.get("/v7/incidents/e2")).status == 200)
  }

  @Test(
    "fullRefresh and records follow the one rule of Boolean parameters, as flush does",
    arguments: [
      ("fullRefresh=1&records=1", true), ("fullRefresh&records", true),
      ("fullRefresh=&records=", true), ("fullRefresh=0&records=0", false),
      ("fullRefresh=false&records=false", false),
    ])
  func booleanParameters(query: String, value: Bool) throws {
    let server = try ServerFixtures.server()
    let response = server.handle(
      ServerFixtures.post("/v1/feeds/open511?source=bc&" + query, Self.open511(["e1"])))
    let body = try ServerFixtures.object(response.body)
    #expect(body["fullRefresh"] as? Bool == value, "\(response.bodyText)")
    #expect((body["records"] != nil) == value)
  }

  @Test func hereV7DocumentsRoundTripThroughThePush() throws {
    let server = try ServerFixtures.server()
    let source = try ServerFixtures.incidents().map {
      try TrafficIncident(
        id: $0.id + "-copy", originalId: $0.originalId + "-copy", type: $0.type,
        impact: $0.impact, startTime: $0.startTime, endTime: $0.endTime, location: $0.location)
    }
    let document = V7IncidentWire.encode(source, sourceUpdated: ServerFixtures.now)
    let response = server.handle(
      HTTPRequest(
        method: "POST", target: "/v1/feeds/here-v7", headers: ["Content-Encoding": "gzip"],
        body: Gzip.compress(document)))
    let body = try ServerFixtures.object(response.body)
    #expect(body["added"] as? Int == 4, "\(response.bodyText)")
    #expect(server.handle(ServerFixtures.get("/v7/incidents/A-copy")).status == 200)
  }

  @Test func badPushesAnswer4xxAndShowInTheStatus() throws {
    let server = try ServerFixtures.server()
    ServerFixtures.expectError(
      server.handle(ServerFixtures.post("/v1/feeds/open511", "{\"events\": 12")), status: 400,
      code: "badRequest", mentions: "open511")
    ServerFixtures.expectError(
      server.handle(ServerFixtures.post("/v1/feeds/datex2", "<notDatex/>")), status: 400,
      code: "badRequest", mentions: "datex2")
    ServerFixtures.expectError(
      server.handle(ServerFixtures.post("/v1/feeds/gtfs-rt", "x")), status: 404,
      code: "httpError", mentions: "gtfs-rt")
    ServerFixtures.expectError(
      server.handle(ServerFixtures.post("/v1/feeds/open511", "")), status: 400,
      code: "badRequest", mentions: "empty")
    for (suffix, name) in [
      ("?source=", "source"), ("?source=a&source=b", "source"), ("?lang=??", "lang"),
      ("?country=Germany", "country"), ("?axisOrder=up", "axisOrder"),
      ("?fullRefresh=maybe", "fullRefresh"), ("?fullRefresh=true&fullRefresh=false", "fullRefresh"),
    ] {
      ServerFixtures.expectError(
        server.handle(ServerFixtures.post("/v1/feeds/open511" + suffix, Self.open511(["x"]))),
        status: 400, code: "invalidParameter", mentions: name)
    }
    let list = try ServerFixtures.object(server.handle(ServerFixtures.get("/v1/feeds")).body)
    let feeds = try #require(list["feeds"] as? [[String: Any]])
    let open511 = try #require(feeds.first { $0["format"] as? String == "open511" })
    #expect(open511["pushes"] as? Int == 1)
    #expect((open511["lastError"] as? String)?.contains("open511") == true)
    #expect(open511["lastPushTime"] is NSNull)
  }

  /// Failed pushes under ever new source names do not grow the feed list without bound:
  /// past the limit the oldest failure-only source is forgotten; a source that pushed
  /// successfully stays.
  @Test func failedPushesUnderNewNamesKeepTheFeedListBounded() throws {
    let server = try ServerFixtures.server()
    _ = server.handle(ServerFixtures.post("/v1/feeds/open511?source=good", Self.open511(["e1"])))
    let limit = FeedIngest.maximumFailedSources
    for k in 0..<(limit + 5) {
      _ = server.handle(ServerFixtures.post("/v1/feeds/open511?source=bad\(k)", "{"))
    }
    let list = try ServerFixtures.object(server.handle(ServerFixtures.get("/v1/feeds")).body)
    let sources = try #require(list["feeds"] as? [[String: Any]]).compactMap {
      $0["source"] as? String
    }
    #expect(sources.count == limit + 1)
    #expect(sources.contains("good"))
    #expect(!sources.contains("bad0") && sources.contains("bad\(limit + 4)"))
  }

  @Test func feedStatusAndMetricsAfterAGoodPush() throws {
    let server = try ServerFixtures.server()
    _ = server.handle(ServerFixtures.post("/v1/feeds/open511?source=bc", Self.open511(["e1"])))
    let list = try ServerFixtures.object(server.handle(ServerFixtures.get("/v1/feeds")).body)
    let feed = try #require((list["feeds"] as? [[String: Any]])?.first)
    #expect(feed["source"] as? String == "bc")
    #expect(feed["incidents"] as? Int == 1)
    #expect(feed["lastPushTime"] is String)
    #expect(feed["lastError"] is NSNull)
    let metrics = server.handle(ServerFixtures.get("/metrics")).bodyText
    #expect(metrics.contains(#"traffic_feed_pushes_total{format="open511",source="bc"} 1"#))
    #expect(metrics.contains(#"traffic_feed_failing{format="open511",source="bc"} 0"#))
  }

  /// Pushes under ever new source names cannot grow `/metrics` without bound: the first
  /// `maxMetricSources` sources keep their series, the later ones are summed as `other`.
  @Test func perSourceMetricSeriesAreCapped() throws {
    var configuration = ServerFixtures.quiet()
    configuration.maxMetricSources = 2
    let server = try ServerFixtures.server(configuration)
    for (index, source) in ["first", "second", "x1", "x2", "x3", "other"].enumerated() {
      let push = server.handle(
        ServerFixtures.post(
          "/v1/feeds/open511?source=\(source)", Self.open511(["m\(index)a", "m\(index)b"])))
      #expect(push.status == 200)
    }
    let metrics = server.handle(ServerFixtures.get("/metrics")).bodyText
    let pushes = metrics.split(separator: "\n").filter {
      $0.hasPrefix("traffic_feed_pushes_total{")
    }
    #expect(
      pushes == [
        #"traffic_feed_pushes_total{format="open511",source="first"} 1"#,
        #"traffic_feed_pushes_total{format="open511",source="other"} 4"#,
        #"traffic_feed_pushes_total{format="open511",source="second"} 1"#,
      ])
    #expect(metrics.contains(#"traffic_feed_incidents{format="open511",source="other"} 8"#))
    #expect(!metrics.contains("x1"))
  }

  /// Label values are escaped as the Prometheus text format says; control characters, which
  /// it has no escape for, become U+FFFD; a pushed source name may not hold them at all.
  @Test func metricLabelsAreEscaped() throws {
    #expect(ServerMetrics.label("a\\b\"c\nd\re\u{0}f") == "\"a\\\\b\\\"c\\nd\u{FFFD}e\u{FFFD}f\"")
    let server = try ServerFixtures.server()
    ServerFixtures.expectError(
      server.handle(ServerFixtures.post("/v1/feeds/open511?source=a%0Db", Self.open511(["c1"]))),
      status: 400, code: "invalidParameter", mentions: "control character")
    _ = server.handle(
      ServerFixtures.post("/v1/feeds/open511?source=%22quoted%22%5Cname", Self.open511(["c2"])))
    let metrics = server.handle(ServerFixtures.get("/metrics")).bodyText
    #expect(
      metrics.contains(#"traffic_feed_pushes_total{format="open511",source="\"quoted\"\\name"} 1"#))
  }

  @Test func everyFormatHasADecoder() {
    for format in FeedFormat.allCases {
      #expect(format.decoder.format == format)
    }
  }
}
