import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficSQLite

/// The probe ledger kept in the file (`probe_ledger`): probes another process already
/// imported into the store are duplicates.
@Suite struct SQLiteProbeLedgerTests {
  typealias Engines = SQLiteTrafficStoreFlowTests

  /// Two vehicles on two paths now, and the same a week earlier.
  static func files(_ network: RoadNetwork) -> (live: [Probe], old: [Probe]) {
    let paths = [
      NetworkFixtures.path(from: 0, count: 3, in: network),
      NetworkFixtures.path(from: 1, count: 2, in: network),
    ]
    var live: [Probe] = []
    var old: [Probe] = []
    for (k, path) in paths.enumerated() {
      live += NetworkFixtures.drive(
        "car\(k)", path: path, speed: 9, end: NetworkFixtures.start - Double(k) * 7,
        network: network)
      old += NetworkFixtures.drive(
        "car\(k)", path: path, speed: 12, end: NetworkFixtures.start - 7 * 86_400 - Double(k) * 7,
        network: network)
    }
    return (live, old)
  }

  @Test(
    "the same files imported again by a second engine on the reopened file are duplicates; flow and typical weeks stay as they were"
  )
  func sameFilesAgainAfterAReopen() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("flow.sqlite")
    let network = try NetworkFixtures.grid()
    let clock = NetworkFixtures.Clock()
    let (live, old) = Self.files(network)
    let first: (flows: [TrafficFlow], typical: [FlowState.Persisted.Typical])
    do {
      let store = try SQLiteTrafficStore(path: path)
      try store.saveNetwork(network)
      let engine = try Engines.engine(store, clock: clock)
      for file in [live, old] {
        let report = engine.ingest(probes: file, flush: false)
        #expect(report.ingested == file.count && report.rejected == 0, "\(report)")
      }
      engine.flushProbes()
      #expect(try engine.saveFlow())
      first = (try Engines.flows(engine), try #require(engine.persistedFlow()).typical)
      #expect(!first.typical.isEmpty)
    }
    // A new process: a new connection, a new engine restoring the saved state.
    let store = try SQLiteTrafficStore(path: path)
    let engine = try Engines.engine(store, clock: clock)
    #expect(try engine.restoreFlow())
    for file in [live, old] {
      let report = engine.ingest(probes: file, flush: false)
      #expect(report.duplicates == file.count, "\(report)")
      #expect(report.ingested == 0 && report.vehicles == 0)
    }
    engine.flushProbes()
    #expect(try Engines.flows(engine) == first.flows)
    #expect(try #require(engine.persistedFlow()).typical == first.typical)
    // The ledger is one row per vehicle, and a vehicle's two trips a week apart are two
    // regular spans.
    #expect(try store.texts("SELECT count(*) FROM probe_ledger") == ["2"])
    let ledger = try #require(try store.loadFlow()).ledger
    #expect(ledger.map(\.vehicleID) == ["car0", "car1"])
    #expect(ledger.allSatisfy { $0.spans.count == 2 && $0.spans.allSatisfy { $0.step == 5000 } })
  }

  @Test("a damaged ledger row fails the load with an error naming the vehicle and the file")
  func damagedLedgerRow() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("flow.sqlite")
    let network = try NetworkFixtures.grid()
    let store = try SQLiteTrafficStore(path: path)
    try store.saveNetwork(network)
    let clock = NetworkFixtures.Clock()
    let engine = try Engines.engine(store, clock: clock)
    engine.ingest(probes: Self.files(network).live, flush: true)
    #expect(try engine.saveFlow())
    try store.execute("UPDATE probe_ledger SET spans = x'0102' WHERE vehicle_id = 'car1'")
    #expect {
      try store.loadFlow()
    } throws: { error in
      guard case .operationFailed(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains("\"car1\"") && detail.contains(path)
    }
  }
}
