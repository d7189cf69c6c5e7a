import Foundation
import Roads
import Testing
import Traffic

/// Each probe is ingested once, whatever the order of the batches: a repeat is a duplicate,
/// an earlier trip is learned (`ProbeLedger`).
@Suite struct ProbeIngestOnceTests {
  typealias F = FlowFixtures

  static func typical(_ engine: TrafficEngine) throws -> [FlowState.Persisted.Typical] {
    try #require(engine.persistedFlow()).typical
  }

  /// Three vehicles driving now, and the same three three days and an hour earlier (another
  /// typical bin) at another speed.
  static func files(network: RoadNetwork) throws -> (live: [Probe], old: [Probe]) {
    let live = try F.fleet(3, along: [0, 2], speed: 8, network: network)
    let old = try F.fleet(
      3, along: [0, 2], speed: 11, end: F.now - 3 * 86_400 - 3_600, network: network)
    return (live, old)
  }

  @Test("an older file after a newer one is matched and learned, as if they came in time order")
  func olderFileAfterNewer() throws {
    let network = try F.network()
    let (live, old) = try Self.files(network: network)
    let engine = try F.engine(network: network)
    engine.ingest(probes: live, flush: true)
    let report = engine.ingest(probes: old, flush: true)
    #expect(report.ingested == old.count, "\(report)")
    #expect(report.rejected == 0)
    #expect(report.accepted > old.count / 2)
    #expect(report.vehicles == 3)

    let reference = try F.engine(network: network)
    reference.ingest(probes: old, flush: true)
    reference.ingest(probes: live, flush: true)
    let liveOnly = try F.engine(network: network)
    liveOnly.ingest(probes: live, flush: true)
    #expect(try Self.typical(engine) == Self.typical(reference))
    #expect(try Self.typical(engine) != Self.typical(liveOnly), "the old file taught nothing")
    // The live picture is the live file's.
    #expect(try F.flow(engine, 0) == F.flow(liveOnly, 0))
  }

  @Test("a batch sent again, in part or whole, is rejected as duplicates and changes nothing")
  func batchSentAgain() throws {
    let network = try F.network()
    let (live, old) = try Self.files(network: network)
    let engine = try F.engine(network: network)
    engine.ingest(probes: old, flush: true)
    engine.ingest(probes: live, flush: true)
    let flow = try F.flow(engine, 0)
    let typical = try Self.typical(engine)
    let again = engine.ingest(probes: live + old, flush: true)
    #expect(again.duplicates == live.count + old.count)
    #expect(again.ingested == 0 && again.vehicles == 0)
    #expect(try F.flow(engine, 0) == flow)
    #expect(try Self.typical(engine) == typical)
  }

  @Test("a finer recording inside a trip already counted is out of order; its repeats duplicates")
  func finerRecordingOfACountedTrip() throws {
    let network = try F.network()
    let engine = try F.engine(network: network)
    let five = try F.drive("a", along: [0, 2], speed: 8, interval: 5, network: network)
    engine.ingest(probes: five, flush: true)
    let one = try F.drive("a", along: [0, 2], speed: 8, interval: 1, network: network)
    let report = engine.ingest(probes: one, flush: true)
    // Every fifth second repeats a time of the 5 s file; the others lie between its times.
    let repeats = one.filter { probe in five.contains { $0.time == probe.time } }.count
    #expect(repeats > 10)
    #expect(report.duplicates == repeats)
    #expect(report.outOfOrder == one.count - repeats - report.ingested)
    #expect(report.ingested <= 4, "only the 1 s file's seconds before the 5 s file's start")
  }
}
