import Foundation
import Synchronization
import Testing
import Traffic
import TrafficFeeds
import TrafficPostgres
import TrafficSQLite
import TrafficTestSupport

/// The poller's state across restarts: validators sent on the first request, saved only
/// after the document's incidents were stored, ignored for another URL.
@Suite(.serialized) struct FeedPollerStateTests {
  static let etag = "\"wzdx-1\""
  static let lastModified = "Sun, 29 Nov 2026 19:00:00 GMT"

  /// Where a restarted process finds its store again.
  enum Backend: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }

    /// A new empty place, and how to open a store on it (again and again).
    func place() throws -> @Sendable () throws -> any TrafficStore {
      switch self {
      case .sqlite:
        let path = FileManager.default.temporaryDirectory
          .appendingPathComponent("poller-\(UUID()).sqlite").path
        return { try SQLiteTrafficStore(path: path) }
      case .postgres:
        let cluster = try PostgresCluster.shared()
        let schema =
          "poller_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        try PostgresAdmin.run("CREATE SCHEMA \(schema)", url: cluster.url)
        let url = "\(cluster.url)?options=-csearch_path%3D\(schema)%2Cpublic"
        return { try PostgresTrafficStore(url: url) }
      }
    }
  }

  /// The WZDx fixture (three incidents) with an `ETag` and a `Last-Modified`; `304` when
  /// asked with that `ETag`.
  static func publisher() throws -> LoopbackFeedServer {
    let document = try Data(
      contentsOf: FeedPollerTests.ownFixtures.appendingPathComponent("wzdx/feed_v42.geojson"))
    return try LoopbackFeedServer { request in
      if request.headers["if-none-match"] == etag { return .init(status: 304) }
      return .init(
        status: 200,
        headers: [
          "ETag": etag, "Last-Modified": lastModified, "Content-Type": "application/geo+json",
        ], body: document)
    }
  }

  static func feed(_ url: URL) -> FeedPoller.Feed {
    FeedPoller.Feed(format: .wzdx, url: url, intervalInSeconds: 30, name: "works")
  }

  @Test(arguments: Backend.allCases)
  func aRestartedPollerAsksWithTheSavedValidatorsAndA304KeepsTheIncidents(
    _ backend: Backend
  ) async throws {
    let publisher = try Self.publisher()
    defer { publisher.stop() }
    let url = try #require(publisher.url("/wzdx.geojson"))
    let open = try backend.place()

    let firstEngine = try TrafficEngine(store: try open())
    let first = FeedPoller(feeds: [Self.feed(url)], engine: firstEngine)
    #expect(await first.poll("works") == 30)
    #expect(firstEngine.incidentCount == 3)
    let firstSuccess = try #require(first.status.first?.lastSuccess)
    #expect(publisher.requests.count == 1)
    #expect(publisher.requests.first?.headers["if-none-match"] == nil)

    // The process restarts: a new store object on the same storage, a new engine and poller.
    let engine = try TrafficEngine(store: try open())
    #expect(engine.incidentCount == 3)
    let poller = FeedPoller(feeds: [Self.feed(url)], engine: engine)
    var status = try #require(poller.status.first)
    // Stores keep seconds since 1970 as doubles: equal to well below a millisecond.
    let restored = try #require(status.lastSuccess, "the saved last success is reported at once")
    #expect(abs(restored.timeIntervalSince(firstSuccess)) < 0.000_1)
    #expect(status.fetches == 1)
    #expect(status.incidentCount == 3)
    #expect(status.etag == Self.etag)

    #expect(await poller.poll("works") == 30)
    let request = try #require(publisher.requests.last)
    #expect(publisher.requests.count == 2)
    #expect(request.headers["if-none-match"] == Self.etag)
    #expect(request.headers["if-modified-since"] == Self.lastModified)
    status = try #require(poller.status.first)
    #expect(status.lastError == nil)
    #expect(status.fetches == 2)
    #expect(status.lastReport == nil, "a 304 ingests nothing")
    #expect(try #require(status.lastSuccess) > firstSuccess)
    #expect(status.incidentCount == 3, "the counts of the document still held")
    #expect(engine.incidentCount == 3, "a 304 keeps the incidents")
    let saved = try #require(try (engine.store as? any FeedStateStore)?.feedState(named: "works"))
    #expect(saved.fetchCount == 2)
    #expect(saved.etag == Self.etag)
  }

  @Test func aStateSavedForAnotherURLIsIgnored() async throws {
    let publisher = try Self.publisher()
    defer { publisher.stop() }
    let open = try Backend.sqlite.place()
    let old = try #require(publisher.url("/old.geojson"))
    let moved = try #require(publisher.url("/new.geojson"))
    let first = FeedPoller(feeds: [Self.feed(old)], engine: try TrafficEngine(store: try open()))
    await first.poll("works")
    #expect(first.status.first?.etag == Self.etag)

    let poller = FeedPoller(feeds: [Self.feed(moved)], engine: try TrafficEngine(store: try open()))
    var status = try #require(poller.status.first)
    #expect(status.etag == nil)
    #expect(status.lastSuccess == nil)
    #expect(status.fetches == 0)
    await poller.poll("works")
    let request = try #require(publisher.requests.last)
    #expect(request.target == "/new.geojson")
    #expect(request.headers["if-none-match"] == nil)
    #expect(request.headers["if-modified-since"] == nil)
    status = try #require(poller.status.first)
    #expect(status.fetches == 1)
    #expect(status.lastReport?.unchanged == 3, "the document was ingested again (unchanged)")
  }

  @Test func validatorsAreNotKeptWhenTheIncidentsCouldNotBeStored() async throws {
    let publisher = try Self.publisher()
    defer { publisher.stop() }
    let url = try #require(publisher.url("/wzdx.geojson"))
    let store = RefusingStore()
    store.refusesBatches.store(true, ordering: .sequentiallyConsistent)
    let engine = try TrafficEngine(store: store)
    let poller = FeedPoller(feeds: [Self.feed(url)], engine: engine)
    await poller.poll("works")
    var status = try #require(poller.status.first)
    #expect(status.lastError?.contains("refused") == true)
    #expect(status.etag == nil)
    let saved = try #require(try store.feedState(named: "works"))
    #expect(saved.etag == nil, "no validators for a document that was not stored")
    #expect(saved.lastModified == nil)
    #expect(saved.errorCount == 1)
    #expect(saved.consecutiveFailures == 1)

    // The store works again: the document is asked for unconditionally and ingested.
    store.refusesBatches.store(false, ordering: .sequentiallyConsistent)
    await poller.poll("works")
    #expect(publisher.requests.last?.headers["if-none-match"] == nil)
    status = try #require(poller.status.first)
    #expect(status.lastError == nil)
    #expect(engine.incidentCount == 3)
    #expect(try store.feedState(named: "works")?.etag == Self.etag)
  }

  @Test func validatorsAreNotKeptForADocumentThatCannotBeDecoded() async throws {
    let serveJunk = Atomic<Bool>(true)
    let document = try Data(
      contentsOf: FeedPollerTests.ownFixtures.appendingPathComponent("wzdx/feed_v42.geojson"))
    let publisher = try LoopbackFeedServer { request in
      if request.headers["if-none-match"] == "\"same\"" { return .init(status: 304) }
      let junk = serveJunk.load(ordering: .sequentiallyConsistent)
      return .init(
        status: 200, headers: ["ETag": "\"same\""],
        body: junk ? Data("this is not JSON".utf8) : document)
    }
    defer { publisher.stop() }
    let url = try #require(publisher.url("/wzdx.geojson"))
    let engine = try TrafficEngine(store: InMemoryTrafficStore())
    let poller = FeedPoller(feeds: [Self.feed(url)], engine: engine)
    await poller.poll("works")
    #expect(poller.status.first?.lastError != nil)
    serveJunk.store(false, ordering: .sequentiallyConsistent)
    await poller.poll("works")
    #expect(publisher.requests.last?.headers["if-none-match"] == nil)
    #expect(engine.incidentCount == 3)
  }
}

/// An in-memory store whose batches fail while `refusesBatches` is set, as a full disk would.
final class RefusingStore: TrafficStore, FeedStateStore {
  let refusesBatches = Atomic<Bool>(false)
  private let base = InMemoryTrafficStore()

  func currentIncidents() throws(TrafficStoreError) -> [TrafficIncident] {
    try base.currentIncidents()
  }

  func apply(_ batch: IncidentBatch) throws(TrafficStoreError) {
    if refusesBatches.load(ordering: .sequentiallyConsistent) {
      throw .operationFailed("the test store refused the batch")
    }
    try base.apply(batch)
  }

  func history(ofOriginalId originalId: String) throws(TrafficStoreError) -> [TrafficIncident] {
    try base.history(ofOriginalId: originalId)
  }

  func purge(endedBefore cutoff: Date) throws(TrafficStoreError) -> [String] {
    try base.purge(endedBefore: cutoff)
  }

  func feedState(named name: String) throws(TrafficStoreError) -> FeedPollState? {
    try base.feedState(named: name)
  }

  func saveFeedState(_ state: FeedPollState) throws(TrafficStoreError) {
    try base.saveFeedState(state)
  }
}
