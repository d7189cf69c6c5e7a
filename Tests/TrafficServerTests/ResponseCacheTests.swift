import Foundation
import Testing
import Traffic
import TrafficSQLite
import TrafficStoreContract

@testable import TrafficServer

@Suite struct ResponseCacheTests {
  static let query = "/v7/incidents?in=circle:52.52,13.40;r=2000"
  /// The stamp of an empty snapshot.
  static let emptyStamp = (
    generation: IncidentIndex.empty.generation, updatedAt: Date?.none, count: 0
  )

  @Test func normalisedQueryIgnoresOrderAndTheKey() {
    #expect(
      ResponseCache.normalisedQuery("in=circle:1,2;r=3&lang=de&apiKey=secret")
        == ResponseCache.normalisedQuery("apiKey=other&lang=de&&in=circle:1,2;r=3"))
    #expect(
      ResponseCache.normalisedQuery("in=a&lang=de") != ResponseCache.normalisedQuery("in=a"))
    #expect(ResponseCache.normalisedQuery("apiKeyX=1") == "apiKeyX=1")
  }

  @Test func repeatedQueryIsAHitWithTheSameBytesAndTag() throws {
    let server = try ServerFixtures.server()
    // The first answer to a query is not kept (the doorkeeper), the second is.
    let first = server.handle(ServerFixtures.get(Self.query))
    let second = server.handle(ServerFixtures.get(Self.query + "&apiKey=ignored"))
    let third = server.handle(ServerFixtures.get(Self.query))
    let reordered = server.handle(ServerFixtures.get(Self.query + "&units=metric"))
    let reorderedAgain = server.handle(
      ServerFixtures.get("/v7/incidents?units=metric&in=circle:52.52,13.40;r=2000"))
    let reorderedThird = server.handle(ServerFixtures.get(Self.query + "&units=metric"))
    #expect(first.status == 200)
    #expect(second.body == first.body)
    #expect(third.body == first.body)
    #expect(third.headers["ETag"] == first.headers["ETag"])
    #expect(reorderedAgain.body == reordered.body)
    #expect(reorderedThird.body == reordered.body)
    let statistics = server.responseCache.statistics
    #expect(statistics.entries == 2)
    #expect(statistics.hits == 2)
    #expect(statistics.misses == 4)
    #expect(statistics.declined == 2)
    let metrics = server.handle(ServerFixtures.get("/metrics")).bodyText
    #expect(metrics.contains("traffic_response_cache_hits_total 2\n"))
    #expect(metrics.contains("traffic_response_cache_misses_total 4\n"))
    #expect(metrics.contains("traffic_response_cache_declined_total 2\n"))
  }

  /// While the snapshot loads, answers come from the store, which another writer (another
  /// node on PostgreSQL) may change without the engine's stamp changing: they are never
  /// kept, so the next answer shows the change.
  @Test func answersWhileTheSnapshotLoadsAreNotCached() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("traffic-cache-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let base = try SQLiteTrafficStore(path: directory.appendingPathComponent("store.sqlite").path)
    let incidents = try ServerFixtures.incidents()
    try base.apply(IncidentBatch(upserts: incidents))
    let gated = BackgroundLoading.GatedStore(base)
    defer { gated.gate.signal() }
    let engine = try TrafficEngine(
      store: gated, clock: { ServerFixtures.now }, loading: .inBackground)
    let server = try TrafficServer(engine: engine, configuration: ServerFixtures.quiet())
    let before = (0..<3).map { _ in server.handle(ServerFixtures.get(Self.query)) }
    // Another writer adds an incident inside the circle.
    let added = try TrafficIncident(
      id: "E-v1", originalId: "E", type: .accident, impact: .major,
      location: TrafficLocation(point: try GeoCoordinates(latitude: 52.521, longitude: 13.401)))
    try base.apply(IncidentBatch(upserts: [added]))
    let after = server.handle(ServerFixtures.get(Self.query))
    #expect(!engine.isLoaded)
    #expect(before.allSatisfy { $0.status == 200 && $0.body == before[0].body })
    #expect(try !ServerFixtures.resultIds(before[0]).contains("E"))
    #expect(try ServerFixtures.resultIds(after).contains("E"))
    #expect(server.responseCache.statistics.hits == 0)
  }

  /// One-off queries are not kept, so they cannot evict the answers that are asked again.
  @Test func distinctQueriesDoNotFillTheCache() throws {
    let server = try ServerFixtures.server()
    for step in 0..<200 {
      let latitude = 52.0 + Double(step) * 0.001
      _ = server.handle(ServerFixtures.get("/v7/incidents?in=circle:\(latitude),13.40;r=500"))
    }
    let statistics = server.responseCache.statistics
    #expect(statistics.entries == 0)
    #expect(statistics.bytes == 0)
    #expect(statistics.declined == 200)
  }

  @Test func cachedAnswerHonoursIfNoneMatchAndGzip() throws {
    let server = try ServerFixtures.server(
      ServerConfiguration(minimumGzipBytes: 1, accessLog: .none))
    let gzipHeaders: HTTPHeaders = ["Accept-Encoding": "gzip"]
    let plain = server.handle(ServerFixtures.get(Self.query))
    let compressed = server.handle(ServerFixtures.get(Self.query, headers: gzipHeaders))
    // The second asking is kept, the third is a hit.
    _ = server.handle(ServerFixtures.get(Self.query, headers: gzipHeaders))
    let compressedAgain = server.handle(ServerFixtures.get(Self.query, headers: gzipHeaders))
    #expect(compressed.headers["Content-Encoding"] == "gzip")
    #expect(compressedAgain.headers["Content-Encoding"] == "gzip")
    #expect(compressedAgain.body == compressed.body)
    #expect(plain.headers["Content-Encoding"] == nil)
    #expect(plain.headers["ETag"] != compressed.headers["ETag"])
    let tag = try #require(compressed.headers["ETag"])
    let notModified = server.handle(
      ServerFixtures.get(Self.query, headers: ["Accept-Encoding": "gzip", "If-None-Match": tag]))
    #expect(notModified.status == 304)
    #expect(notModified.body.isEmpty)
    #expect(notModified.headers["ETag"] == tag)
    #expect(server.responseCache.statistics.hits == 2)
  }

  @Test func aWriteMakesCachedAnswersStale() throws {
    let server = try ServerFixtures.server()
    let before = try ServerFixtures.resultIds(server.handle(ServerFixtures.get(Self.query)))
    #expect(before == ["A", "B"])
    let incident = try TrafficIncident(
      id: "E-v1", originalId: "E", type: .weather, impact: .minor,
      startTime: ServerFixtures.now.addingTimeInterval(-60),
      endTime: ServerFixtures.now.addingTimeInterval(3600),
      location: TrafficLocation(point: try GeoCoordinates(latitude: 52.521, longitude: 13.4)))
    try server.engine.apply(IncidentBatch(upserts: [incident]))
    let after = try ServerFixtures.resultIds(server.handle(ServerFixtures.get(Self.query)))
    #expect(Set(after) == ["A", "B", "E"])
  }

  @Test func entriesExpireAfterTheirAge() throws {
    let cache = ResponseCache(maxEntries: 10, maxBytes: 1000, maxAgeSeconds: 1)
    let key = ResponseCache.Key(route: "/v7/flow", query: "in=x", acceptsGzip: false)
    let version = ResponseCache.Version(stamp: Self.emptyStamp, flowUpdated: nil)
    cache.store(
      ResponseCache.Entry(
        body: SharedBytes(copying: Data("{}".utf8)), etag: "\"t\"", contentType: "application/json",
        isCompressed: false, version: version, createdAt: 10),
      for: key)
    #expect(cache.lookup(key, version: version, now: 10.5)?.etag == "\"t\"")
    #expect(cache.lookup(key, version: version, now: 11.5) == nil)
    let newer = ResponseCache.Version(stamp: Self.emptyStamp, flowUpdated: Date())
    #expect(cache.lookup(key, version: newer, now: 10.5) == nil)
  }

  @Test func cacheStaysWithinItsBounds() {
    let cache = ResponseCache(maxEntries: 8, maxBytes: 400, maxAgeSeconds: 10)
    let version = ResponseCache.Version(stamp: Self.emptyStamp, flowUpdated: nil)
    for index in 0..<100 {
      cache.store(
        ResponseCache.Entry(
          body: SharedBytes(copying: Data(repeating: 32, count: 1 + index % 90)),
          etag: "\"\(index)\"",
          contentType: "application/json", isCompressed: false, version: version, createdAt: 0),
        for: ResponseCache.Key(route: "r", query: "q=\(index)", acceptsGzip: false))
      let statistics = cache.statistics
      #expect(statistics.entries <= 8)
      #expect(statistics.bytes <= 400)
    }
    // Bodies above a quarter of the bytes bound are not kept.
    let key = ResponseCache.Key(route: "r", query: "big", acceptsGzip: false)
    cache.store(
      ResponseCache.Entry(
        body: SharedBytes(copying: Data(repeating: 32, count: 101)), etag: "\"big\"",
        contentType: "application/json",
        isCompressed: false, version: version, createdAt: 0),
      for: key)
    #expect(cache.lookup(key, version: version, now: 0) == nil)
  }

  @Test func errorsAndPostsAreNotCached() throws {
    let server = try ServerFixtures.server()
    _ = server.handle(ServerFixtures.get("/v7/incidents?in=circle:99,1;r=1"))
    _ = server.handle(
      ServerFixtures.post(
        "/v7/incidents",
        "{\"in\": {\"type\": \"circle\", \"center\": {\"lat\": 52.52, \"lng\": 13.4}, "
          + "\"radius\": 100}}"))
    #expect(server.responseCache.statistics.entries == 0)
  }

  @Test func disabledCacheStoresNothing() throws {
    let server = try ServerFixtures.server(
      ServerConfiguration(accessLog: .none, responseCacheEntries: 0))
    let first = server.handle(ServerFixtures.get(Self.query))
    let second = server.handle(ServerFixtures.get(Self.query))
    #expect(first.body == second.body)
    #expect(server.responseCache.statistics.entries == 0)
  }

  @Test func flowAnswersFollowNewProbes() throws {
    let server = try FlowServerFixtures.server()
    let target = FlowServerFixtures.everywhere
    let before = try #require(
      try FlowServerFixtures.currentFlow(server.handle(ServerFixtures.get(target)), segment: 0))
    #expect(before["confidence"] as? Double == 0.5)
    _ = server.handle(
      ServerFixtures.post(
        "/v1/probes?flush=true", FlowServerFixtures.csvDrive(vehicles: 3, speed: 6)))
    let after = try #require(
      try FlowServerFixtures.currentFlow(server.handle(ServerFixtures.get(target)), segment: 0))
    #expect(after["confidence"] as? Double ?? 0 > 0.7)
  }
}
