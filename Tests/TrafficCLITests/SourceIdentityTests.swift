import Codec
import Foundation
import Testing
import Traffic
import TrafficFeeds
import TrafficSQLite
import TrafficServer
import TrafficTestSupport

@testable import traffic

/// A feed is one source however its documents arrive: a work zone imported from a file and
/// then closed by the same feed's push or poll is updated (closure included), not merged as
/// a second report of the same incident.
@Suite struct SourceIdentityTests {
  /// A WZDx 4.2 document of one work zone on a Berlin street, from `publisher`.
  static func document(
    publisher: String, id: String = "wz-1", impact: String, updated: String,
    alsoOpen otherIds: [String] = []
  ) -> Data {
    let features = ([(id, impact)] + otherIds.map { ($0, "all-lanes-open") }).enumerated().map {
      index, feature in
      """
      {"id": "\(feature.0)", "type": "Feature",
         "properties": {"core_details": {"event_type": "work-zone", "data_source_id": "s1",
             "road_names": ["Sachsendamm"], "direction": "eastbound", "update_date": "\(updated)"},
           "start_date": "2026-01-01T00:00:00Z", "end_date": "2030-01-01T00:00:00Z",
           "is_start_date_verified": false, "is_end_date_verified": false,
           "is_start_position_verified": false, "is_end_position_verified": false,
           "location_method": "channel-device-method", "vehicle_impact": "\(feature.1)"},
         "geometry": {"type": "LineString",
           "coordinates": [[13.3600, \(52.4830 + Double(index) * 0.01)],
                           [13.3640, \(52.4835 + Double(index) * 0.01)]]}}
      """
    }
    return Data(
      """
      {"feed_info": {"publisher": "\(publisher)", "version": "4.2", "update_date": "\(updated)",
        "data_sources": [{"data_source_id": "s1", "organization_name": "\(publisher)"}]},
       "type": "FeatureCollection",
       "features": [\(features.joined(separator: ","))]}
      """.utf8)
  }

  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "source-identity-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// A server on an in-memory engine, without an access log.
  static func inMemoryServer() throws -> (TrafficEngine, TrafficServer) {
    let engine = try TrafficEngine(store: InMemoryTrafficStore())
    return (
      engine,
      try TrafficServer(engine: engine, configuration: ServerConfiguration(accessLog: .none))
    )
  }

  /// Publisher A's report of work zone wz-1 (lanes closed, 08:00), then publisher B's of
  /// the same zone as b-7 an hour later with `impactOfB`; B's push answer.
  static func pushFromAThenB(_ server: TrafficServer, impactOfB: String) throws -> JSONValue {
    _ = try push(
      server,
      document(publisher: "A", impact: "some-lanes-closed", updated: "2026-11-01T08:00:00Z"))
    return try push(
      server,
      document(publisher: "B", id: "b-7", impact: impactOfB, updated: "2026-11-01T09:00:00Z"))
  }

  static func push(_ server: TrafficServer, _ body: Data, query: String = "") throws -> JSONValue {
    let response = server.handle(
      HTTPRequest(method: "POST", target: "/v1/feeds/wzdx" + query, body: body))
    #expect(response.status == 200, "\(response.bodyText)")
    return try JSONParser.parse(response.body)
  }

  @Test func aPushUpdatesWhatAFileImported() async throws {
    let folder = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("roadworks.geojson")
    try Self.document(
      publisher: "Berlin VIZ", impact: "some-lanes-closed", updated: "2026-11-01T08:00:00Z",
      alsoOpen: ["wz-2"]
    )
    .write(to: file)
    let database = folder.appendingPathComponent("store.sqlite").path
    let imported = await runTraffic(["import", "--db", database, file.path])
    #expect(imported.status == .success, "\(imported.errors)")

    let engine = try TrafficEngine(store: try SQLiteTrafficStore(path: database))
    let server = try TrafficServer(
      engine: engine, configuration: ServerConfiguration(accessLog: .none))
    let answer = try Self.push(
      server,
      Self.document(
        publisher: "Berlin VIZ", impact: "all-lanes-closed", updated: "2026-11-02T08:00:00Z"))
    #expect(answer["source"]?.string == "wzdx:Berlin VIZ")
    #expect(answer["updated"]?.int == 1)
    #expect(answer["merged"]?.int == 0)
    let incident = try engine.incident(originalId: "wz-1", options: TrafficIncidentLookupOptions())
    #expect(incident.isRoadClosed)
    #expect(incident.sources.count <= 1, "\(incident.sources)")
    // The push carried one change: the file's other work zone stays active.
    #expect(answer["ended"]?.int == 0)
    #expect(engine.incidentCount == 2)
    let other = try engine.incident(originalId: "wz-2", options: TrafficIncidentLookupOptions())
    #expect(other.isActive(at: Date()))
  }

  @Test func aPollUpdatesWhatWasPushed() async throws {
    let folder = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (engine, server) = try Self.inMemoryServer()
    _ = try Self.push(
      server,
      Self.document(publisher: "CDOT", impact: "some-lanes-closed", updated: "2026-11-01T08:00:00Z")
    )
    let file = folder.appendingPathComponent("feed.geojson")
    try Self.document(
      publisher: "CDOT", impact: "all-lanes-closed", updated: "2026-11-02T08:00:00Z"
    )
    .write(to: file)
    let poller = FeedPoller(feeds: [FeedPoller.Feed(format: nil, url: file)], engine: engine)
    let feedName = try #require(poller.status.first?.feed.name)
    _ = await poller.poll(feedName)
    #expect(poller.status.first?.lastError == nil)
    let incident = try engine.incident(originalId: "wz-1", options: TrafficIncidentLookupOptions())
    #expect(incident.isRoadClosed)
    #expect(incident.sources.count <= 1, "\(incident.sources)")
    #expect(engine.incidentCount == 1)
  }

  @Test func aGivenNameWinsAndTwoSourcesStayTwo() throws {
    let (_, server) = try Self.inMemoryServer()
    // Two publishers report the same work zone: one incident, two sources.
    let second = try Self.pushFromAThenB(server, impactOfB: "some-lanes-closed")
    #expect(second["source"]?.string == "wzdx:B")
    #expect(second["merged"]?.int == 1)
    // A name given by the client wins over the document's.
    let named = try Self.push(
      server,
      Self.document(publisher: "A", impact: "some-lanes-closed", updated: "2026-11-01T08:00:00Z"),
      query: "?source=viz-push")
    #expect(named["source"]?.string == "viz-push")
  }

  @Test func aSecondSourcesClosureShowsAtOnceAsAnIncidentOfItsOwn() async throws {
    let (engine, server) = try Self.inMemoryServer()
    // B reports the same work zone an hour later, closed, where A said lanes closed: B's
    // closure is not A's report, so it stands on its own, at once.
    let second = try Self.pushFromAThenB(server, impactOfB: "all-lanes-closed")
    #expect(second["added"]?.int == 1)
    #expect(engine.incidentCount == 2)
    let closure = try await engine.lookupIncident(with: "b-7")
    #expect(closure.isRoadClosed)
    #expect(closure.sources.map(\.feed) == ["wzdx:B"])
    #expect(try await engine.lookupIncident(with: "wz-1").isRoadClosed == false)
    // A repeating its report leaves both standing.
    let again = try Self.push(
      server,
      Self.document(publisher: "A", impact: "some-lanes-closed", updated: "2026-11-01T08:00:00Z"))
    #expect(again["unchanged"]?.int == 1)
    #expect(try await engine.lookupIncident(with: "b-7").isRoadClosed)
  }

  @Test func aPushListsEachRecordWhenAsked() throws {
    let (_, server) = try Self.inMemoryServer()
    _ = try Self.push(
      server,
      Self.document(
        publisher: "A", impact: "some-lanes-closed", updated: "2026-11-01T08:00:00Z",
        alsoOpen: ["wz-2"]))
    let answer = try Self.push(
      server,
      Self.document(
        publisher: "B", id: "b-7", impact: "all-lanes-closed", updated: "2026-11-01T09:00:00Z",
        alsoOpen: ["b-8"]),
      query: "?records=true")
    let records = try #require(answer["records"]?.array)
    #expect(
      records.map { [$0["id"]?.string, $0["outcome"]?.string, $0["incident"]?.string] } == [
        ["b-7", "added", "b-7"], ["b-8", "merged", "wz-2"],
      ])
    // Without the parameter no list; a bad value is named.
    let plain = try Self.push(
      server,
      Self.document(publisher: "C", impact: "all-lanes-open", updated: "2026-11-01T09:00:00Z"))
    #expect(plain["records"]?.array == nil)
    #expect(plain["merged"]?.int == 1)
    let bad = server.handle(
      HTTPRequest(
        method: "POST", target: "/v1/feeds/wzdx?records=yes",
        body: Self.document(
          publisher: "C", impact: "all-lanes-open", updated: "2026-11-01T09:00:00Z")))
    #expect(bad.status == 400)
    #expect(bad.bodyText.contains("records"))
  }

  @Test func importListsEachRecordWhenAsked() async throws {
    let folder = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let first = folder.appendingPathComponent("a.geojson")
    let second = folder.appendingPathComponent("b.geojson")
    try Self.document(
      publisher: "A", impact: "some-lanes-closed", updated: "2026-11-01T08:00:00Z",
      alsoOpen: ["wz-2"]
    ).write(to: first)
    try Self.document(
      publisher: "B", id: "b-7", impact: "all-lanes-closed", updated: "2026-11-01T09:00:00Z"
    ).write(to: second)
    let database = folder.appendingPathComponent("store.sqlite").path
    let plain = await runTraffic(["import", "--db", database, first.path])
    #expect(plain.status == .success, "\(plain.errors)")
    #expect(!plain.output.contains(" added\n"))
    let listed = await runTraffic(
      ["import", "--db", database, "--records", second.path, first.path])
    #expect(listed.status == .success, "\(listed.errors)")
    let lines = listed.output.split(separator: "\n").filter { $0.hasPrefix("  ") }
    #expect(lines == ["  b-7 added", "  wz-1 unchanged", "  wz-2 unchanged"])
  }

  @Test func theCommandLineNamesSources() throws {
    let feed = try FeedPoller.Feed.parse("viz=wzdx:https://example.org/wzdx.geojson@30")
    #expect(feed.name == "viz" && feed.isNamed)
    #expect(feed.format == .wzdx && feed.intervalInSeconds == 30)
    let unnamed = try FeedPoller.Feed.parse("wzdx:https://example.org/a=b.geojson")
    #expect(!unnamed.isNamed && unnamed.url.path == "/a=b.geojson")
    #expect(throws: FeedError.self) { try FeedPoller.Feed.parse("=wzdx:https://example.org/x") }
  }
}
