import Codec
import Foundation
import Synchronization
import Testing
import Traffic
import TrafficFeeds
import TrafficTestSupport
import Zlib

@testable import TrafficServer

/// A clock a test moves.
final class TestClock: Sendable {
  private let time: Mutex<Date>

  init(_ start: Date) { time = Mutex(start) }

  var now: Date { time.withLock { $0 } }

  func advance(_ seconds: TimeInterval) {
    time.withLock { $0 = $0.addingTimeInterval(seconds) }
  }
}

/// `/datex2/v3/situations` and `/wzdx/v4.2/feed`: the merged incidents published as
/// documents that validate against the official schemas, with conditional GET and DATEX II
/// deltas that lose no change and no end.
@Suite struct PublicationRoutesTests {
  /// A server on `ServerFixtures`' incidents whose clock the test moves.
  final class Setup: Sendable {
    let time: TestClock
    let engine: TrafficEngine
    let server: TrafficServer

    init() throws {
      let time = TestClock(ServerFixtures.now)
      self.time = time
      engine = try TrafficEngine(store: InMemoryTrafficStore(), clock: { time.now })
      try engine.apply(IncidentBatch(upserts: try ServerFixtures.incidents()))
      server = try TrafficServer(engine: engine, configuration: ServerFixtures.quiet())
    }

    func advance(_ seconds: TimeInterval) {
      time.advance(seconds)
    }

    func get(_ target: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
      server.handle(ServerFixtures.get(target, headers: headers))
    }
  }

  static func datexIncidents(_ response: HTTPResponse) throws -> FeedDocument {
    #expect(response.status == 200, "\(response.bodyText)")
    return try DATEXIIDecoder.decode(
      response.body, options: FeedOptions(sourceName: "datex2", now: ServerFixtures.now))
  }

  @Test func wholePublicationsHoldWhatHasNotEndedAndValidate() throws {
    let setup = try Setup()
    let datex = setup.get("/datex2/v3/situations")
    #expect(datex.headers["Content-Type"] == "application/xml; charset=utf-8")
    #expect(datex.headers["X-Publication"] == "snapshot")
    #expect(
      datex.headers["Last-Modified"] == HTTPDate.format(ServerFixtures.now),
      "the time of the last write")
    let document = try Self.datexIncidents(datex)
    #expect(document.isFullRefresh)
    #expect(document.incidents.map(\.originalId) == ["A", "B", "C", "D"])
    #expect(document.incidents.first { $0.originalId == "D" }?.isRoadClosed == true)

    let wzdx = setup.get("/wzdx/v4.2/feed")
    #expect(wzdx.status == 200)
    #expect(wzdx.headers["Content-Type"] == "application/geo+json")
    let feed = try WZDxDecoder.decode(
      wzdx.body, options: FeedOptions(sourceName: "wzdx", now: ServerFixtures.now))
    // Work zones and closures only: B is construction, D a road closure.
    #expect(feed.incidents.map(\.originalId) == ["B", "D"])
    #expect(feed.publisher == "wzdx:swift-traffic")

    // A ends an hour after now: the whole publication drops it, and the data's time moves
    // to its end without a write.
    setup.advance(3600 + 60)
    let later = setup.get("/datex2/v3/situations")
    #expect(try Self.datexIncidents(later).incidents.map(\.originalId) == ["B", "D"])
    #expect(
      later.headers["Last-Modified"] == HTTPDate.format(ServerFixtures.now.addingTimeInterval(3600))
    )

    let datexVerdict = try PublishedDocumentValidator.validateDATEXII([datex.body, later.body])
    #expect(datexVerdict.status == 0, "\(datexVerdict.output)")
    let wzdxVerdict = try PublishedDocumentValidator.validateWZDx([wzdx.body])
    #expect(wzdxVerdict.status == 0, "\(wzdxVerdict.output)")
  }

  @Test func conditionalGetAnswers304UntilTheDataChanges() throws {
    let setup = try Setup()
    setup.advance(5)
    for path in ["/datex2/v3/situations", "/wzdx/v4.2/feed"] {
      let first = setup.get(path)
      let tag = try #require(first.headers["ETag"])
      let modified = try #require(first.headers["Last-Modified"])
      #expect(setup.get(path, headers: ["If-None-Match": tag]).status == 304)
      let byDate = setup.get(path, headers: ["If-Modified-Since": modified])
      #expect(byDate.status == 304, "\(path)")
      #expect(byDate.body.isEmpty)
      // An older date, or a different tag, gets the document.
      let older = HTTPDate.format(ServerFixtures.now.addingTimeInterval(-60))
      #expect(setup.get(path, headers: ["If-Modified-Since": older]).status == 200)
      #expect(setup.get(path, headers: ["If-None-Match": "\"other\""]).status == 200)
      // If-None-Match decides when both are given.
      #expect(
        setup.get(path, headers: ["If-None-Match": "\"other\"", "If-Modified-Since": modified])
          .status == 200)
    }
    // The tag is known before the document is written, and names both encodings.
    let zipped = setup.get("/datex2/v3/situations", headers: ["Accept-Encoding": "gzip"])
    let zippedTag = try #require(zipped.headers["ETag"])
    #expect(zipped.headers["Content-Encoding"] == "gzip")
    #expect(zippedTag.hasSuffix("-gz\""))
    #expect(
      setup.get(
        "/datex2/v3/situations", headers: ["If-None-Match": zippedTag, "Accept-Encoding": "gzip"]
      ).status == 304)
    // A write changes both validators.
    let before = setup.get("/datex2/v3/situations")
    var changed = try #require(try ServerFixtures.incidents().first { $0.originalId == "B" })
    changed.impact = .critical
    try setup.engine.apply(IncidentBatch(upserts: [changed]))
    let modified = try #require(before.headers["Last-Modified"])
    let after = setup.get(
      "/datex2/v3/situations",
      headers: ["If-None-Match": before.headers["ETag"] ?? "", "If-Modified-Since": modified])
    #expect(after.status == 200)
    #expect(
      setup.get("/datex2/v3/situations", headers: ["If-Modified-Since": modified]).status == 200)
    #expect(after.headers["Last-Modified"] != modified)
  }

  @Test func aWriteInTheSameSecondIsNeverHiddenBehindIfModifiedSince() throws {
    let setup = try Setup()
    // The clock has not left the second of the last write: 304 could hide a write later in
    // that second, so the document is sent.
    let first = setup.get("/datex2/v3/situations")
    let modified = try #require(first.headers["Last-Modified"])
    #expect(
      setup.get("/datex2/v3/situations", headers: ["If-Modified-Since": modified]).status == 200)
  }

  @Test func aDeltaHoldsEveryChangeAndEveryEndSinceTheLastDocument() throws {
    let setup = try Setup()
    setup.advance(10)
    let whole = try Self.datexIncidents(setup.get("/datex2/v3/situations"))
    let since = RFC3339.format(try #require(whole.publicationTime))

    setup.advance(5)
    let incidents = try ServerFixtures.incidents()
    var updated = try #require(incidents.first { $0.originalId == "B" })
    updated.impact = .critical
    let added = try TrafficIncident(
      id: "E-v1", originalId: "E", type: .accident, impact: .major,
      startTime: ServerFixtures.now, endTime: ServerFixtures.now.addingTimeInterval(7200),
      location: TrafficLocation(point: try GeoCoordinates(latitude: 52.51, longitude: 13.41)))
    try setup.engine.apply(IncidentBatch(upserts: [updated, added], deletions: ["D"]))

    let delta = setup.get("/datex2/v3/situations?since=\(since)")
    #expect(delta.headers["X-Publication"] == "delta")
    let document = try Self.datexIncidents(delta)
    #expect(!document.isFullRefresh, "feedType delta")
    #expect(document.incidents.map(\.originalId) == ["B", "D", "E"])
    #expect(document.incidents.first { $0.originalId == "B" }?.impact == .critical)
    // D was removed: it is published ended, at its removal.
    let removed = try #require(document.incidents.first { $0.originalId == "D" })
    #expect(removed.endTime.map { $0 <= ServerFixtures.now.addingTimeInterval(15) } == true)

    // The next delta, from this document's time: nothing changed but A's end passing.
    let next = RFC3339.format(try #require(document.publicationTime))
    setup.advance(3600)
    let ends = try Self.datexIncidents(setup.get("/datex2/v3/situations?since=\(next)"))
    #expect(ends.incidents.map(\.originalId) == ["A", "C"], "A and C ended by the clock")
    #expect(ends.incidents.allSatisfy { $0.endTime.map { $0 <= setup.engine.now } == true })

    // Before the server's memory: every incident it keeps and the removals it remembers,
    // flagged incomplete.
    let old = setup.get("/datex2/v3/situations?since=2000-01-01T00:00:00Z")
    #expect(old.headers["X-Publication"] == "delta; complete=false")
    #expect(try Self.datexIncidents(old).incidents.map(\.originalId) == ["A", "B", "C", "D", "E"])
    let verdict = try PublishedDocumentValidator.validateDATEXII([delta.body, old.body])
    #expect(verdict.status == 0, "\(verdict.output)")
  }

  @Test func anOpenEndedWorkZoneNeverEndsInThePastInWZDx() throws {
    let setup = try Setup()
    let b = try #require(try ServerFixtures.incidents().first { $0.originalId == "B" })
    let open = try TrafficIncident(
      id: "B-v2", originalId: "B", type: b.type, impact: b.impact, startTime: b.startTime,
      endTime: nil, location: b.location)
    try setup.engine.apply(IncidentBatch(upserts: [open]))
    // Three days without a change: the estimated end (a day after the publication time)
    // lay two days in the past, and readers dropped the work zone.
    setup.advance(3 * 86_400)
    let response = setup.get("/wzdx/v4.2/feed")
    let feed = try WZDxDecoder.decode(
      response.body, options: FeedOptions(sourceName: "wzdx", now: setup.engine.now))
    let end = try #require(feed.incidents.first { $0.originalId == "B" }?.endTime)
    #expect(end > setup.engine.now)
    // The feed's time is the start of today (UTC), the same all day long.
    let modified = try #require(response.headers["Last-Modified"])
    setup.advance(3600)
    #expect(setup.get("/wzdx/v4.2/feed").headers["Last-Modified"] == modified)
  }

  @Test func aDeltaOfAnAreaOrTypesHoldsTheIncidentsThatLeftThem() throws {
    let setup = try Setup()
    setup.advance(10)
    let box = "in=bbox:13.3,52.4,13.5,52.6"
    let whole = try Self.datexIncidents(setup.get("/datex2/v3/situations?\(box)"))
    #expect(Set(whole.incidents.map(\.originalId)) == ["A", "B", "D"])
    let since = RFC3339.format(try #require(whole.publicationTime))
    setup.advance(5)
    // B moves to Munich; A, an accident, is retyped as congestion where it is.
    let incidents = try ServerFixtures.incidents()
    let b = try #require(incidents.first { $0.originalId == "B" })
    let a = try #require(incidents.first { $0.originalId == "A" })
    let moved = try TrafficIncident(
      id: "B-v2", originalId: "B", type: b.type, impact: b.impact, startTime: b.startTime,
      endTime: b.endTime,
      location: TrafficLocation(point: try GeoCoordinates(latitude: 48.2, longitude: 11.6)))
    let retyped = try TrafficIncident(
      id: "A-v2", originalId: "A", type: .congestion, impact: a.impact, startTime: a.startTime,
      endTime: a.endTime, location: a.location)
    try setup.engine.apply(IncidentBatch(upserts: [moved, retyped]))
    // A subscriber of the box learns where B went (it kept B for good before), and one of
    // accidents that A is one no more.
    let area = try Self.datexIncidents(
      setup.get("/datex2/v3/situations?\(box)&since=\(since)"))
    #expect(Set(area.incidents.map(\.originalId)) == ["A", "B"])
    #expect(
      area.incidents.first { $0.originalId == "B" }?.location.polyline.vertices.first?.latitude
        == 48.2)
    let accidents = try Self.datexIncidents(
      setup.get("/datex2/v3/situations?type=accident&since=\(since)"))
    #expect(accidents.incidents.map(\.originalId) == ["A"])
    #expect(accidents.incidents.first?.type == .congestion)
    // Changes that never met the filter stay out.
    let elsewhere = try Self.datexIncidents(
      setup.get("/datex2/v3/situations?in=bbox:11.0,47.9,11.2,48.0&since=\(since)"))
    #expect(elsewhere.incidents.isEmpty)
  }

  @Test func aDeltaFromTheFirstDocumentAfterAStartIsComplete() throws {
    // A store written before the engine started: its latest entry time is an hour old.
    let store = InMemoryTrafficStore()
    var old = try #require(try ServerFixtures.incidents().first)
    old.entryTime = ServerFixtures.now.addingTimeInterval(-3600)
    try store.apply(IncidentBatch(upserts: [old]))
    let clock = TestClock(ServerFixtures.now)
    let engine = try TrafficEngine(store: store, clock: { clock.now })
    let server = try TrafficServer(engine: engine, configuration: ServerFixtures.quiet())
    clock.advance(5)
    let first = try Self.datexIncidents(server.handle(ServerFixtures.get("/datex2/v3/situations")))
    let time = try #require(first.publicationTime)
    #expect(time == ServerFixtures.now, "the data as the engine knows it since it started")
    clock.advance(5)
    let delta = server.handle(
      ServerFixtures.get("/datex2/v3/situations?since=\(RFC3339.format(time))"))
    #expect(delta.headers["X-Publication"] == "delta")
    #expect(try Self.datexIncidents(delta).incidents.isEmpty)
  }

  @Test func dataDatedInTheFutureNeverGiveALastModifiedAfterNow() throws {
    // A source's entry times may lie ahead of the clock (a generated or mis-set feed): at
    // start-up they would date the data in the future, and no If-Modified-Since would ever
    // match.
    let store = InMemoryTrafficStore()
    var ahead = try #require(try ServerFixtures.incidents().first)
    ahead.entryTime = ServerFixtures.now.addingTimeInterval(86_400)
    try store.apply(IncidentBatch(upserts: [ahead]))
    let clock = TestClock(ServerFixtures.now)
    let engine = try TrafficEngine(store: store, clock: { clock.now })
    let server = try TrafficServer(engine: engine, configuration: ServerFixtures.quiet())
    clock.advance(5)
    let first = server.handle(ServerFixtures.get("/wzdx/v4.2/feed"))
    let modified = try #require(first.headers["Last-Modified"])
    #expect(modified == HTTPDate.format(ServerFixtures.now))
    let again = server.handle(
      ServerFixtures.get("/wzdx/v4.2/feed", headers: ["If-Modified-Since": modified]))
    #expect(again.status == 304)
  }

  @Test func areaAndTypeFiltersSelectTheIncidents() throws {
    let setup = try Setup()
    let munich = try Self.datexIncidents(
      setup.get("/datex2/v3/situations?in=circle:48.1,11.5;r=2000"))
    #expect(munich.incidents.map(\.originalId) == ["C"])
    let accidents = try Self.datexIncidents(
      setup.get("/datex2/v3/situations?type=accident,roadClosure"))
    #expect(accidents.incidents.map(\.originalId) == ["A", "D"])
    // A whole country is one area: no size limit.
    let germany = setup.get("/datex2/v3/situations?in=bbox:5.8,47.2,15.1,55.1")
    #expect(try Self.datexIncidents(germany).incidents.count == 4)
    let feed = try WZDxDecoder.decode(
      setup.get("/wzdx/v4.2/feed?type=roadClosure").body,
      options: FeedOptions(sourceName: "wzdx", now: ServerFixtures.now))
    #expect(feed.incidents.map(\.originalId) == ["D"])
  }

  @Test func largeDocumentsAreSentAFewAtATimeAndKeptCompressed() throws {
    let setup = try Setup()
    var many: [TrafficIncident] = []
    for index in 0..<TrafficServer.largePublication {
      many.append(
        try TrafficIncident(
          id: "n\(index)", originalId: "n\(index)", type: .construction, impact: .minor,
          startTime: ServerFixtures.now, endTime: ServerFixtures.now.addingTimeInterval(86_400),
          location: TrafficLocation(
            point: try GeoCoordinates(
              latitude: 50 + Double(index % 100) * 0.01, longitude: 8 + Double(index / 100) * 0.01)
          )))
    }
    try setup.engine.apply(IncidentBatch(upserts: many))
    setup.advance(5)
    // While as many large documents as allowed are being sent, the next is refused for a
    // while, and so is a second one of the same client ...
    let server = setup.server
    #expect(server.largePublications.withLock { $0.claim("192.0.2.1") && $0.claim("192.0.2.2") })
    let busy = setup.get("/datex2/v3/situations")
    ServerFixtures.expectError(busy, status: 503, code: "httpError", mentions: "retry")
    #expect(busy.headers["Retry-After"] == "2")
    // ... small ones and current copies are still answered.
    #expect(setup.get("/datex2/v3/situations?in=circle:52.52,13.4;r=2000").status == 200)
    let tag = setup.get("/wzdx/v4.2/feed?type=accident").headers["ETag"] ?? ""
    #expect(tag.hasPrefix("\"p"))
    server.largePublications.withLock { $0.release("192.0.2.2") }
    #expect(server.largePublications.withLock { $0.claim("") })
    ServerFixtures.expectError(
      setup.get("/datex2/v3/situations"), status: 503, code: "httpError", mentions: "per client")
    server.largePublications.withLock {
      $0.release("")
      $0.release("192.0.2.1")
    }
    let whole = setup.get("/datex2/v3/situations")
    #expect(whole.status == 200)
    #expect(try Self.datexIncidents(whole).incidents.count == TrafficServer.largePublication + 4)
    // The slot is free again once the document was sent.
    #expect(server.largePublications.withLock { $0.count } == 0)

    // Compressed as it is sent, and that copy kept: the next gzip request of the same
    // version is sent from the same bytes, without writing the document again — even while
    // no slot is free.
    let zipped = setup.get("/datex2/v3/situations", headers: ["Accept-Encoding": "gzip"])
    #expect(zipped.headers["Content-Encoding"] == "gzip")
    #expect(try Gzip.decompress(zipped.body, maxOutputBytes: 1 << 30) == whole.body)
    #expect(server.largePublications.withLock { $0.claim("192.0.2.1") && $0.claim("192.0.2.2") })
    let again = setup.get("/datex2/v3/situations", headers: ["Accept-Encoding": "gzip"])
    server.largePublications.withLock {
      $0.release("192.0.2.1")
      $0.release("192.0.2.2")
    }
    #expect(again.status == 200)
    #expect(again.sharedBody != nil && again.body == zipped.body)
    #expect(again.headers["ETag"] == zipped.headers["ETag"])
    // A write makes a new version, compressed anew.
    var changed = many[0]
    changed.impact = .critical
    try setup.engine.apply(IncidentBatch(upserts: [changed]))
    let next = setup.get("/datex2/v3/situations", headers: ["Accept-Encoding": "gzip"])
    #expect(next.sharedBody == nil)
    #expect(next.headers["ETag"] != zipped.headers["ETag"])
  }

  @Test func badParametersAreRefusedNamingThem() throws {
    let setup = try Setup()
    for (target, code, mention) in [
      ("/datex2/v3/situations?since=yesterday", "invalidParameter", "since"),
      // Local time of an unknown place: RFC 3339 requires the offset.
      ("/datex2/v3/situations?since=2026-01-01T00:00:00", "invalidParameter", "offset"),
      (
        "/datex2/v3/situations?since=2026-01-01T00:00:00Z&since=2026-01-02T00:00:00Z",
        "invalidParameter", "since"
      ),
      ("/wzdx/v4.2/feed?since=2026-01-01T00:00:00Z", "invalidParameter", "since"),
      ("/datex2/v3/situations?type=volcano", "invalidIncident", "volcano"),
      ("/wzdx/v4.2/feed?in=circle:91,0;r=10", "invalidGeometry", "latitude"),
      ("/wzdx/v4.2/feed?in=square:1", "invalidIn", "square"),
      ("/datex2/v3/situations?lang=!!", "invalidParameter", "lang"),
    ] {
      ServerFixtures.expectError(setup.get(target), status: 400, code: code, mentions: mention)
    }
  }
}
