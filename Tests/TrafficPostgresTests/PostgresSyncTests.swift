import Foundation
import Synchronization
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficPostgres

@Suite struct PostgresSyncTests {
  static func point(
    _ id: String, version: Int = 1, latitude: Double = 52.5, longitude: Double = 13.4
  ) throws -> TrafficIncident {
    try TrafficIncident(
      id: "\(id)-v\(version)", originalId: id, type: .accident, impact: .major,
      description: LocalizedText(text: id, language: .enUS),
      location: TrafficLocation(point: GeoCoordinates(latitude: latitude, longitude: longitude)))
  }

  /// Polls `condition` every 10 ms until it holds or `seconds` pass.
  ///
  /// - Returns: Whether it held in time.
  static func eventually(within seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if condition() { return true }
      usleep(10_000)
    }
    return condition()
  }

  @Test func anIncidentWrittenThroughNodeAIsReturnedByNodeBWithinOneSecond() async throws {
    let url = try PostgresTestDatabase.freshURL()
    let nodeA = try TrafficEngine(store: PostgresTrafficStore(url: url))
    let nodeB = try TrafficEngine(store: PostgresTrafficStore(url: url))
    let syncA = try PostgresSync(engine: nodeA)
    let syncB = try PostgresSync(engine: nodeB)
    defer {
      syncA.stop()
      syncB.stop()
    }
    let area = try GeoCircle(
      center: GeoCoordinates(latitude: 52.5, longitude: 13.4), radiusInMeters: 10_000)
    let changesOnB = nodeB.incidentChanges(inside: area)

    let written = Date()
    try nodeA.apply(IncidentBatch(upserts: [try Self.point("x")]))
    #expect(
      Self.eventually(within: 1) { (try? nodeB.incident(originalId: "x", options: .init())) != nil }
    )
    #expect(Date().timeIntervalSince(written) < 1)
    #expect(try await nodeB.lookupIncident(with: "x").id == "x-v1")
    #expect(try await nodeB.queryForIncidents(inside: area).map(\.originalId) == ["x"])

    // A new version, a deletion and a write from B the other way.
    try nodeA.apply(IncidentBatch(upserts: [try Self.point("x", version: 2), try Self.point("y")]))
    try nodeA.apply(IncidentBatch(deletions: ["y"]))
    try nodeB.apply(IncidentBatch(upserts: [try Self.point("z")]))
    #expect(
      Self.eventually(within: 1) {
        (try? nodeB.incident(originalId: "x", options: .init()).id) == "x-v2"
          && (try? nodeB.incident(originalId: "y", options: .init())) == nil
          && (try? nodeA.incident(originalId: "z", options: .init())) != nil
      })
    #expect(nodeA.incidentCount == 2)
    #expect(nodeB.incidentCount == 2)

    // B's change stream told what A did, in order, and its own write, each once. (B's own
    // write may come before it hears of A's last batch: nodes learn of each other late.) A
    // node catches up with the current version of what other nodes' batches touched
    // (`PostgresTrafficStore.changes(since:)`), so when A's last two batches land before B
    // reads either, "y" — added, then removed — is never seen by B: both or neither of its
    // changes are told. Read with a deadline, so that a missing change fails rather than
    // waits forever.
    let told = Mutex<[String]>([])
    let reader = Task {
      for await change in changesOnB {
        told.withLock { $0.append("\(change.kind.rawValue) \(change.incident.id)") }
      }
    }
    #expect(
      Self.eventually(within: 2) {
        told.withLock { $0.contains("updated x-v2") && $0.contains("added z-v1") }
      })
    // Changes that would still come (none should) have a moment to arrive.
    usleep(200_000)
    reader.cancel()
    let changes = told.withLock { $0 }
    let fromA = changes.filter { $0 != "added z-v1" }
    #expect(
      fromA == ["added x-v1", "updated x-v2", "added y-v1", "removed y-v1"]
        || fromA == ["added x-v1", "updated x-v2"], "\(changes)")
    #expect(changes.filter { $0 == "added z-v1" }.count == 1)
  }

  @Test func aNodeStartedLaterCatchesUpAndFollowsPurges() throws {
    let url = try PostgresTestDatabase.freshURL()
    let nodeA = try TrafficEngine(
      store: PostgresTrafficStore(url: url), retentionInSeconds: 0)
    try nodeA.apply(
      IncidentBatch(upserts: [
        try Self.point("ended").updated(
          id: "ended-v1", startTime: Date(timeIntervalSinceNow: -7200),
          endTime: Date(timeIntervalSinceNow: -3600)),
        try Self.point("running"),
      ]))
    let nodeB = try TrafficEngine(store: PostgresTrafficStore(url: url))
    let syncB = try PostgresSync(engine: nodeB)
    defer { syncB.stop() }
    #expect(nodeB.incidentCount == 2)
    #expect(try nodeA.purgeExpired() == ["ended"])
    #expect(Self.eventually(within: 1) { nodeB.incidentCount == 1 })
    #expect(syncB.lastError == nil)
  }

  @Test func theListenerReconnectsAfterItsConnectionIsTerminated() throws {
    let cluster = try PostgresCluster.shared()
    let url = try PostgresTestDatabase.freshURL()
    let nodeA = try TrafficEngine(store: PostgresTrafficStore(url: url))
    let nodeB = try TrafficEngine(store: PostgresTrafficStore(url: url))
    let syncB = try PostgresSync(engine: nodeB)
    defer { syncB.stop() }
    try PostgresAdmin.run(
      """
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE query LIKE 'LISTEN traffic_incidents%' AND pid <> pg_backend_pid()
      """, url: cluster.url)
    try nodeA.apply(IncidentBatch(upserts: [try Self.point("after-reconnect")]))
    #expect(
      Self.eventually(within: 5) {
        (try? nodeB.incident(originalId: "after-reconnect", options: .init())) != nil
      })
  }

  @Test func externalChangesReachTheSnapshotAndStreamsButNotTheStore() async throws {
    let store = InMemoryTrafficStore()
    let engine = try TrafficEngine(store: store)
    try engine.apply(IncidentBatch(upserts: [try Self.point("kept"), try Self.point("gone")]))
    let area = try GeoCircle(
      center: GeoCoordinates(latitude: 52.5, longitude: 13.4), radiusInMeters: 10_000)
    let stream = engine.incidentChanges(inside: area)
    let changes = engine.applyExternalChanges(
      upserts: [try Self.point("kept"), try Self.point("new"), try Self.point("kept", version: 2)],
      deletions: ["gone", "never-held"])
    #expect(
      changes.map { "\($0.kind.rawValue) \($0.incident.id)" } == [
        "removed gone-v1", "added new-v1", "updated kept-v2",
      ])
    #expect(try engine.incident(originalId: "kept", options: .init()).id == "kept-v2")
    #expect(try store.currentIncidents().map(\.originalId).sorted() == ["gone", "kept"])
    var told: [String] = []
    for await change in stream {
      told.append("\(change.kind.rawValue) \(change.incident.id)")
      if told.count == 3 { break }
    }
    #expect(told == changes.map { "\($0.kind.rawValue) \($0.incident.id)" })
    // Nothing new: nothing told, the snapshot kept.
    #expect(engine.applyExternalChanges(upserts: [try Self.point("new")], deletions: []).isEmpty)
  }

  @Test func anEngineOnAnotherStoreIsRefused() throws {
    let engine = try TrafficEngine(store: InMemoryTrafficStore())
    #expect(throws: TrafficStoreError.self) { try PostgresSync(engine: engine) }
  }

  @Test func theListenerCallsBackWithTheSequenceAndStopsPromptly() throws {
    let url = try PostgresTestDatabase.freshURL()
    let store = try PostgresTrafficStore(url: url)
    let heard = Mutex<[Int64?]>([])
    let listener = try PostgresChangeListener(url: url) { sequence in
      heard.withLock { $0.append(sequence) }
    }
    try store.apply(IncidentBatch(upserts: [try Self.point("n")]))
    let text = try store.texts("SELECT max(sequence) FROM incident_changes").first ?? nil
    let logged = try #require(text.flatMap { Int64($0) })
    #expect(Self.eventually(within: 1) { heard.withLock { $0.contains(logged) } })
    let start = Date()
    listener.stop()
    #expect(Date().timeIntervalSince(start) < 0.5)
    listener.stop()
  }
}

/// Two nodes writing at once: each write is planned against what the other committed.
@Suite struct PostgresWriterTurnTests {
  static func report(
    _ id: String, latitude: Double, type: TrafficIncidentType
  ) throws
    -> TrafficIncident
  {
    try TrafficIncident(
      id: id, originalId: id, type: type, impact: .major,
      description: LocalizedText(text: id, language: .enUS),
      location: TrafficLocation(point: GeoCoordinates(latitude: latitude, longitude: 9.52)))
  }

  @Test func twoSourcesPushingOneIdToTwoNodesAtOnceKeepBothReports() throws {
    let url = try PostgresTestDatabase.freshURL()
    let nodeA = try TrafficEngine(store: PostgresTrafficStore(url: url))
    let nodeB = try TrafficEngine(store: PostgresTrafficStore(url: url))
    let syncA = try PostgresSync(engine: nodeA)
    let syncB = try PostgresSync(engine: nodeB)
    defer {
      syncA.stop()
      syncB.stop()
    }
    // Rounds of one id each: source S on node A, source T (another event, 7 km away) on
    // node B, at the same moment. Before the writers' turn both planned an addition against
    // snapshots without the other's, and one of the two acknowledged reports was lost.
    let rounds = 12
    let failures = Mutex<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 2 * rounds) { index in
      let id = "race-\(index / 2)"
      let (engine, feed) = index % 2 == 0 ? (nodeA, "S") : (nodeB, "T")
      do {
        let report = try Self.report(
          id, latitude: index % 2 == 0 ? 47.14 : 47.20,
          type: index % 2 == 0 ? .accident : .roadClosure)
        try engine.ingest([report], from: feed, isFullRefresh: false)
      } catch {
        failures.withLock { $0.append("\(id) \(feed): \(error)") }
      }
    }
    #expect(failures.withLock { $0 } == [])
    let stored = try PostgresTrafficStore(url: url).currentIncidents()
    for round in 0..<rounds {
      let kept = stored.filter {
        $0.originalId == "race-\(round)" || $0.originalId.hasPrefix("race-\(round)@")
      }
      #expect(
        Set(kept.flatMap { $0.sources.map(\.feed) }) == ["S", "T"],
        "race-\(round): \(kept.map(\.originalId))")
      #expect(kept.count == 2, "race-\(round): \(kept.map(\.originalId))")
    }
    // Both nodes hold what the database holds.
    #expect(
      PostgresSyncTests.eventually(within: 2) {
        nodeA.incidentCount == 2 * rounds && nodeB.incidentCount == 2 * rounds
      })
  }

  @Test func fullRefreshesOfOneSourceOnTwoNodesLeaveTheLastOneWhole() throws {
    let url = try PostgresTestDatabase.freshURL()
    let nodeA = try TrafficEngine(store: PostgresTrafficStore(url: url))
    let nodeB = try TrafficEngine(store: PostgresTrafficStore(url: url))
    let syncA = try PostgresSync(engine: nodeA)
    let syncB = try PostgresSync(engine: nodeB)
    defer {
      syncA.stop()
      syncB.stop()
    }
    for round in 0..<6 {
      let documents = [("x\(round)", nodeA), ("y\(round)", nodeB)]
      DispatchQueue.concurrentPerform(iterations: 2) { index in
        let (id, engine) = documents[index]
        _ = try? engine.ingest(
          [try Self.report(id, latitude: 47.14, type: .accident)], from: "F",
          isFullRefresh: true)
      }
      // Whichever came last is the source's whole picture: exactly one of its documents'
      // incidents (and none of an earlier round's) is active.
      let now = Date()
      let active = try PostgresTrafficStore(url: url).currentIncidents()
        .filter { $0.endTime.map { $0 > now } ?? true }.map(\.originalId)
      #expect(active.count == 1, "round \(round): \(active.sorted())")
    }
  }
}
