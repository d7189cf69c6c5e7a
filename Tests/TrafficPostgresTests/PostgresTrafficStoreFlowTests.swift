import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficPostgres

/// Flow on the shared store: probe batches one node ingests reach the others through
/// `probe_log`, and the flow state is saved per road network in `flow_state`.
@Suite struct PostgresTrafficStoreFlowTests {
  static let limit = 13.89
  static let metersPerDegreeLongitude = 68_677.0

  /// A 1 km (or `meters`) east–west two-way road near Berlin: segment 0 eastbound, 1
  /// westbound.
  static func network(meters: Double = 1000) throws -> RoadNetwork {
    let west = try GeoCoordinates(latitude: 52, longitude: 13)
    let east = try GeoCoordinates(latitude: 52, longitude: 13 + meters / metersPerDegreeLongitude)
    let nodes = [
      RoadNode(id: 0, sourceID: "w", coordinates: west),
      RoadNode(id: 1, sourceID: "e", coordinates: east),
    ]
    let speed = SpeedLimit(metersPerSecond: limit, source: .posted)
    let line = try GeoPolyline(vertices: [west, east])
    let segments = [
      RoadSegment(
        id: 0, sourceID: "road", fromNode: 0, toNode: 1, geometry: line, name: "Road",
        roadClass: .primary, speedLimit: speed, oppositeID: 1),
      RoadSegment(
        id: 1, sourceID: "road", fromNode: 1, toNode: 0,
        geometry: try GeoPolyline(vertices: [east, west]), name: "Road", roadClass: .primary,
        speedLimit: speed, isReversed: true, oppositeID: 0),
    ]
    return try RoadNetwork(nodes: nodes, segments: segments)
  }

  /// `vehicles` cars driving east at `speed`, a position every 5 s, ending 2 s ago.
  static func drive(vehicles: Int, speed: Double, prefix: String = "car") throws -> [Probe] {
    let end = Date() - 2
    let count = Int(900 / (speed * 5))
    var probes: [Probe] = []
    for vehicle in 0..<vehicles {
      for k in 0...count {
        let east = 50 + Double(k) * speed * 5
        probes.append(
          Probe(
            vehicleID: "\(prefix)\(vehicle)",
            time: end - Double(vehicle) * 3 - Double(count - k) * 5,
            coordinates: try GeoCoordinates(
              latitude: 52 + Double(vehicle % 3 - 1) / 111_267,
              longitude: 13 + east / metersPerDegreeLongitude),
            speedInMetersPerSecond: speed, headingInDegrees: 90))
      }
    }
    return probes
  }

  static func eastbound(_ engine: TrafficEngine) throws -> TrafficFlow? {
    let area = try GeoCircle(
      center: GeoCoordinates(latitude: 52, longitude: 13.007), radiusInMeters: 2000)
    return try engine.flow(inside: area, options: TrafficFlowQueryOptions())
      .first { $0.segmentID == 0 }
  }

  /// A node of a deployment: an engine with the road network on the store at `url`,
  /// following the others.
  static func node(_ url: String, network: RoadNetwork) throws -> (TrafficEngine, PostgresSync) {
    let engine = try TrafficEngine(store: PostgresTrafficStore(url: url), network: network)
    return (engine, try PostgresSync(engine: engine))
  }

  @Test func probesIngestedByNodeAShowInNodeBsFlowWithinASecond() throws {
    let url = try PostgresTestDatabase.freshURL()
    let network = try Self.network()
    let (a, syncA) = try Self.node(url, network: network)
    let (b, syncB) = try Self.node(url, network: network)
    defer {
      syncA.stop()
      syncB.stop()
    }
    #expect(try Self.eastbound(b)?.confidence == 0.5)
    let probes = try Self.drive(vehicles: 4, speed: 8)
    let sent = Date()
    let report = a.ingest(probes: probes, flush: true)
    #expect(report.accepted > probes.count / 2)
    #expect(abs((try Self.eastbound(a)?.speedUncappedInMetersPerSecond ?? 0) - 8) < 0.5)
    let seen = PostgresSyncTests.eventually(within: 1) {
      ((try? Self.eastbound(b))??.confidence ?? 0) > 0.7
    }
    #expect(seen, "node B's flow never showed node A's probes")
    #expect(Date().timeIntervalSince(sent) < 1.5)
    let onB = try #require(try Self.eastbound(b))
    let onA = try #require(try Self.eastbound(a))
    #expect(abs(onB.speedUncappedInMetersPerSecond - 8) < 0.5)
    #expect(abs(onB.speedUncappedInMetersPerSecond - onA.speedUncappedInMetersPerSecond) < 0.01)
    #expect(abs(onB.jamFactor - onA.jamFactor) < 0.01)
    #expect(syncB.store.probeSequence == 1)

    // The same batch delivered again (a retried append) is rejected as duplicates: the
    // flow does not change.
    let again = b.ingestShared(probes: probes, flush: true)
    #expect(again.duplicates == probes.count)
    #expect(again.accepted == 0)
    let afterAgain = try #require(try Self.eastbound(b))
    #expect(
      abs(afterAgain.speedUncappedInMetersPerSecond - onB.speedUncappedInMetersPerSecond) < 0.01)

    // A's own batch is not read back by A.
    let store = try #require(a.store as? PostgresTrafficStore)
    store.probeLog.withLock { $0.applied = 0 }
    #expect(try store.pendingProbeBatches().batches.isEmpty)
    // B reads it, with the probes as sent.
    let storeB = try #require(b.store as? PostgresTrafficStore)
    storeB.probeLog.withLock { $0.applied = 0 }
    let pending = try storeB.pendingProbeBatches()
    #expect(pending.batches.map(\.probes) == [probes])
    #expect(pending.batches.map(\.flush) == [true])
    #expect(pending.batches.map(\.node) == [store.nodeID])
  }

  @Test func aRestartedNodeLoadsTheSavedStateAndReplaysTheBatchesAfterIt() throws {
    let url = try PostgresTestDatabase.freshURL()
    let network = try Self.network()
    let (a, syncA) = try Self.node(url, network: network)
    defer { syncA.stop() }
    // The first ingest saves the state (the save is due at once), holding this batch.
    a.ingest(probes: try Self.drive(vehicles: 3, speed: 8), flush: true)
    let storeA = try #require(a.store as? PostgresTrafficStore)
    #expect(try storeA.texts("SELECT count(*) FROM flow_state") == ["1"])
    // A second batch (a slower fleet) is in the log only, not in the saved state.
    a.ingest(probes: try Self.drive(vehicles: 3, speed: 6, prefix: "slow"), flush: true)
    let before = try #require(try Self.eastbound(a))
    #expect(before.speedUncappedInMetersPerSecond < 7.5)

    // A new node (a restart) loads the state and replays the second batch only: were the
    // first replayed too, its vehicles' contributions would count twice.
    let (b, syncB) = try Self.node(url, network: network)
    defer { syncB.stop() }
    let after = try #require(try Self.eastbound(b))
    #expect(
      abs(after.speedUncappedInMetersPerSecond - before.speedUncappedInMetersPerSecond) < 0.01,
      "\(after) vs \(before)")
    #expect(abs(after.jamFactor - before.jamFactor) < 0.01)
    #expect(after.confidence > 0.7)

    // Another network's state is another row: a node on it starts empty.
    let other = try Self.network(meters: 1001)
    let storeC = try PostgresTrafficStore(url: url)
    try storeC.saveNetwork(other)
    #expect(try storeC.loadFlow() == nil)
  }

  /// A client pushing a batch again to another node (a retry through a load balancer), or
  /// to a node started after it: every node knows the probes as ingested and rejects them
  /// as duplicates; the flow does not change.
  @Test func aBatchPushedAgainToAnotherNodeIsADuplicateThere() throws {
    let url = try PostgresTestDatabase.freshURL()
    let network = try Self.network()
    let (a, syncA) = try Self.node(url, network: network)
    let (b, syncB) = try Self.node(url, network: network)
    defer {
      syncA.stop()
      syncB.stop()
    }
    let probes = try Self.drive(vehicles: 3, speed: 8)
    let first = a.ingest(probes: probes, flush: true)
    #expect(first.ingested == probes.count && first.rejected == 0, "\(first)")
    let seen = PostgresSyncTests.eventually(within: 2) {
      syncB.store.probeSequence >= 1
    }
    #expect(seen, "node B never read node A's batch")
    let onB = try #require(try Self.eastbound(b))
    let again = b.ingest(probes: probes, flush: true)
    #expect(again.duplicates == probes.count, "\(again)")
    #expect(again.ingested == 0 && again.vehicles == 0)
    #expect(try Self.eastbound(b) == onB)
    // A node started now loads the saved state (with its ledger) and replays the log: the
    // batch is a duplicate there too.
    let (c, syncC) = try Self.node(url, network: network)
    defer { syncC.stop() }
    let onC = c.ingest(probes: probes, flush: true)
    #expect(onC.duplicates == probes.count, "\(onC)")
    // And node A gets B's and C's copies through the log as duplicates.
    let copies = PostgresSyncTests.eventually(within: 2) { syncA.store.probeSequence >= 3 }
    #expect(copies)
    #expect(a.ingest(probes: Array(probes.prefix(5)), flush: false).duplicates == 5)
  }

  @Test func typicalWeeksAreLearnedByEveryNodeAndSurviveARestart() throws {
    let network = try OSMImporter.importNetwork(
      from: Fixtures.liechtenstein(), options: OSMImportOptions(countryCode: "LI"))
    let now = Date()
    let scenario = try #require(TypicalWeekScenario(network: network, now: now))
    let url = try PostgresTestDatabase.freshURL()
    let (a, syncA) = try Self.node(url, network: network)
    let (b, syncB) = try Self.node(url, network: network)
    defer {
      syncA.stop()
      syncB.stop()
    }
    func roadA(_ engine: TrafficEngine) throws -> TrafficFlow? {
      let road = network.segments[scenario.roadA]
      return try engine.flow(
        inside: GeoCircle(
          center: road.geometry.coordinates(atDistance: road.lengthInMeters / 2),
          radiusInMeters: 3),
        options: TrafficFlowQueryOptions()
      ).first { $0.segmentID == scenario.roadA }
    }
    // Four weeks of history, ingested by node A only (shared through the probe log).
    a.ingest(
      probes: scenario.rows.map {
        Probe(vehicleID: $0.vehicle, time: $0.time, coordinates: $0.coordinates)
      }, flush: true)
    let slow = TypicalWeekScenario.slow
    func isTypicallySlow(_ flow: TrafficFlow?) -> Bool {
      guard let flow else { return false }
      return abs(flow.speedUncappedInMetersPerSecond - slow) <= 0.3 * slow
        && flow.confidence > 0.5 && flow.confidence <= 0.7
    }
    let onA = try roadA(a)
    #expect(isTypicallySlow(onA), "\(String(describing: onA))")
    let learned = PostgresSyncTests.eventually(within: 5) { isTypicallySlow(try? roadA(b)) }
    let onB = try roadA(b)
    #expect(learned, "node B never learned node A's history: \(String(describing: onB))")
    // A restarted node loads the weeks from the saved state (the probe log, pruned after a
    // quarter of an hour in service, is emptied so that nothing is replayed).
    try a.saveFlow()
    let store = try #require(a.store as? PostgresTrafficStore)
    _ = try store.texts("DELETE FROM probe_log")
    #expect(try store.texts("SELECT count(*) FROM probe_log") == ["0"])
    let (c, syncC) = try Self.node(url, network: network)
    defer { syncC.stop() }
    let onC = try roadA(c)
    #expect(isTypicallySlow(onC), "\(String(describing: onC))")
    let later = try roadA(c).map { _ in
      try c.flow(
        inside: GeoCircle(
          center: network.segments[scenario.roadA].geometry.coordinates(atDistance: 10),
          radiusInMeters: 3),
        options: TrafficFlowQueryOptions(at: now.addingTimeInterval(6 * 3_600))
      ).first { $0.segmentID == scenario.roadA }
    }
    let fast = TypicalWeekScenario.fast
    #expect(abs((later??.speedUncappedInMetersPerSecond ?? 0) - fast) <= 0.3 * fast)
  }

  @Test func aDamagedFlowStateIsAnErrorNamingTheNetwork() throws {
    let url = try PostgresTestDatabase.freshURL()
    let network = try Self.network()
    let store = try PostgresTrafficStore(url: url)
    try store.saveNetwork(network)
    let fingerprint = FlowStateCoder.fingerprint(of: network)
    try PostgresAdmin.run(
      "INSERT INTO flow_state (network, probe_sequence, held_sequences, state) "
        + "VALUES ($1, 0, '{}', '\\x0102')", [fingerprint], url: url)
    #expect {
      try store.loadFlow()
    } throws: { error in
      "\(error)".contains("the flow state of network \(fingerprint)")
    }
    // A node still starts, with empty flow, replaying the whole log, and says why.
    try PostgresTrafficStore(url: url).shareProbes(
      try Self.drive(vehicles: 3, speed: 8), flush: true)
    let (engine, sync) = try Self.node(url, network: network)
    defer { sync.stop() }
    #expect(
      "\(sync.flowRestoreError.map { "\($0)" } ?? "")"
        .contains("the flow state of network \(fingerprint)"))
    #expect(try Self.eastbound(engine)?.confidence ?? 0 > 0.7)
    // Its next save replaces the damaged row.
    #expect(try sync.saveFlow())
    #expect(try store.loadFlow() != nil)
  }

  @Test func aDamagedProbeBatchIsSkippedAndReported() throws {
    let url = try PostgresTestDatabase.freshURL()
    let network = try Self.network()
    let (b, syncB) = try Self.node(url, network: network)
    defer { syncB.stop() }
    try PostgresAdmin.run(
      "INSERT INTO probe_log (node, flush, probes) VALUES (gen_random_uuid(), false, '\\x0109')",
      url: url)
    let storeA = try PostgresTrafficStore(url: url)
    try storeA.shareProbes(try Self.drive(vehicles: 3, speed: 8), flush: true)
    #expect(try syncB.catchUpProbes() <= 1)
    let seen = PostgresSyncTests.eventually(within: 1) {
      ((try? Self.eastbound(b))??.confidence ?? 0) > 0.7
    }
    #expect(seen)
    #expect("\(syncB.lastError.map { "\($0)" } ?? "")".contains("probe batch"))
  }
}
