import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficPostgres

/// A node restarted while vehicles drive answers the same flow as the node that kept
/// running, once it has caught up: the vehicles' traces in progress (which the saved flow
/// state does not keep) are rebuilt from the probe log without counting twice.
@Suite struct PostgresRestartFlowTests {
  /// `vehicles` cars driving east into a queue — 12 m/s, then 3 m/s from the middle of the
  /// road on — a position every 5 s, their last 2 s before `end`; each car's probes split by
  /// time into `parts` consecutive batches.
  static func batches(vehicles: Int, parts: Int, end: Date) throws -> [[Probe]] {
    let count = 24
    var batches = [[Probe]](repeating: [], count: parts)
    for vehicle in 0..<vehicles {
      var east = 20 + Double(vehicle) * 7
      for k in 0..<count {
        let speed = east < 450 ? 12.0 : 3.0
        let probe = Probe(
          vehicleID: "car\(vehicle)",
          time: end - 2 - Double(vehicle) * 3 - Double(count - 1 - k) * 5,
          coordinates: try GeoCoordinates(
            latitude: 52 + Double(vehicle % 3 - 1) / 111_267,
            longitude: 13 + east / PostgresTrafficStoreFlowTests.metersPerDegreeLongitude),
          speedInMetersPerSecond: speed, headingInDegrees: 90)
        batches[k * parts / count].append(probe)
        east += speed * 5
      }
    }
    return batches
  }

  /// A node whose clock stands at `now`, so that two nodes' answers can be compared exactly.
  static func node(
    _ url: String, network: RoadNetwork, now: Date
  ) throws -> (TrafficEngine, PostgresSync) {
    let engine = try TrafficEngine(
      store: PostgresTrafficStore(url: url), clock: { now }, network: network)
    return (engine, try PostgresSync(engine: engine))
  }

  /// Every segment's flow in the area, as a line per segment with every value.
  static func flow(_ engine: TrafficEngine) throws -> [String] {
    let area = try GeoCircle(
      center: GeoCoordinates(latitude: 52, longitude: 13.007), radiusInMeters: 2000)
    return try engine.flow(inside: area, options: TrafficFlowQueryOptions())
      .sorted { $0.segmentID < $1.segmentID }
      .map {
        "\($0.segmentID): speed \($0.speedInMetersPerSecond) uncapped "
          + "\($0.speedUncappedInMetersPerSecond) free \($0.freeFlowSpeedInMetersPerSecond) "
          + "jam \($0.jamFactor) confidence \($0.confidence)"
      }
  }

  @Test func aNodeRestartedWhileVehiclesDriveAnswersTheSameFlowAsTheOthers() throws {
    let url = try PostgresTestDatabase.freshURL()
    let network = try PostgresTrafficStoreFlowTests.network()
    let now = Date()
    let batches = try Self.batches(vehicles: 5, parts: 3, end: now)
    let (a, syncA) = try Self.node(url, network: network, now: now)
    var (b, syncB) = try Self.node(url, network: network, now: now)
    defer {
      syncA.stop()
      syncB.stop()
    }
    // Reading the log under the sync's turn: a batch its listener is ingesting is done then.
    func caughtUp(_ sync: PostgresSync, through sequence: Int64) throws -> Bool {
      _ = try sync.catchUpProbes()
      return sync.store.probeSequence >= sequence
    }
    // The first batch is in the flow state saved at once (by the nodes' first ingests);
    // the second only in the probe log: the clock stands, so no later save is due.
    a.ingest(probes: batches[0], flush: false)
    #expect(try caughtUp(syncB, through: 1))
    a.ingest(probes: batches[1], flush: false)
    #expect(try caughtUp(syncB, through: 2))
    #expect(try Self.flow(a) == Self.flow(b))

    // B restarts (killed: nothing saved on the way out) while every car is mid-trace.
    syncB.stop()
    (b, syncB) = try Self.node(url, network: network, now: now)
    #expect(syncB.flowRestoreError == nil)
    a.ingest(probes: batches[2], flush: false)
    #expect(try caughtUp(syncB, through: 3))
    let onA = try Self.flow(a)
    #expect(onA.count == 2, "\(onA)")
    let onB = try Self.flow(b)
    #expect(
      onB == onA, "node A:\n\(onA.joined(separator: "\n"))\nnode B:\n\(onB.joined(separator: "\n"))"
    )

    // And once every position is decided.
    a.ingest(probes: [], flush: true)
    #expect(try caughtUp(syncB, through: 4))
    #expect(try Self.flow(b) == Self.flow(a))
  }
}
