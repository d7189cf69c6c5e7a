import Foundation
import Synchronization
import Testing

@testable import Traffic

@Suite struct TrafficEngineWriteTests {
  typealias F = EngineFixtures

  @Test func aNewVersionKeepsTheOriginalIdAndGetsANewId() async throws {
    let store = InMemoryTrafficStore()
    let engine = try TrafficEngine(store: store, clock: { F.now })
    try engine.apply(IncidentBatch(upserts: [try F.incident("x", [(52.5, 13.4)], version: 1)]))
    let changes = try engine.apply(
      IncidentBatch(upserts: [try F.incident("x", [(52.5, 13.4)], impact: .critical, version: 2)]))
    #expect(changes.map(\.kind) == [.updated])
    let now = try await engine.lookupIncident(with: "x")
    #expect(now.id == "x-v2")
    #expect(now.impact == .critical)
    #expect(try store.history(ofOriginalId: "x").map(\.id) == ["x-v1", "x-v2"])
    #expect(engine.incidentCount == 1)
  }

  @Test func aRestartedEngineSeesWhatTheStoreHolds() throws {
    let store = InMemoryTrafficStore()
    let first = try TrafficEngine(store: store, clock: { F.now })
    try first.apply(IncidentBatch(upserts: [try F.incident("kept", [(52.5, 13.4)])]))
    let second = try TrafficEngine(store: store, clock: { F.now })
    #expect(second.incidentCount == 1)
  }

  @Test func anInconsistentBatchChangesNothing() async throws {
    let engine = try F.engine([try F.incident("a", [(52.5, 13.4)])])
    #expect(throws: TrafficStoreError.self) {
      try engine.apply(
        IncidentBatch(upserts: [try F.incident("b", [(52.5, 13.4)])], deletions: ["b"]))
    }
    #expect(engine.incidentCount == 1)
    #expect(try engine.store.currentIncidents().map(\.originalId) == ["a"])
  }

  @Test func aStoreThatCannotBeReadFailsTheEngineWithAReason() {
    struct BrokenStore: TrafficStore {
      func currentIncidents() throws(TrafficStoreError) -> [TrafficIncident] {
        throw .cannotOpen("disk on fire")
      }
      func apply(_ batch: IncidentBatch) throws(TrafficStoreError) {}
      func history(ofOriginalId originalId: String) throws(TrafficStoreError) -> [TrafficIncident] {
        []
      }
      func purge(endedBefore cutoff: Date) throws(TrafficStoreError) -> [String] { [] }
    }
    #expect(throws: TrafficEngineError.storeUnavailable(.cannotOpen("disk on fire"))) {
      try TrafficEngine(store: BrokenStore())
    }
    #expect(throws: TrafficEngineError.self) {
      try TrafficEngine(store: InMemoryTrafficStore(), retentionInSeconds: -1)
    }
  }

  @Test func expiredIncidentsArePurgedAfterTheRetention() async throws {
    let clock = Mutex(F.now)
    let store = InMemoryTrafficStore()
    let engine = try TrafficEngine(
      store: store, retentionInSeconds: 3600, clock: { clock.withLock { $0 } })
    try engine.apply(
      IncidentBatch(upserts: [
        try F.incident("ends-soon", [(52.5, 13.4)], end: F.now + 60),
        try F.incident("lasting", [(52.5, 13.4)]),
      ]))
    let circle = try F.circle(52.5, 13.4, 100)
    #expect(try await engine.queryForIncidents(inside: circle).count == 2)
    clock.withLock { $0 = F.now + 61 }
    // Gone from results the moment it ended, but kept for the retention period.
    #expect(try await engine.queryForIncidents(inside: circle).map(\.originalId) == ["lasting"])
    #expect(try engine.purgeExpired().isEmpty)
    clock.withLock { $0 = F.now + 60 + 3601 }
    #expect(try engine.purgeExpired() == ["ends-soon"])
    #expect(
      await queryError { _ = try await engine.lookupIncident(with: "ends-soon") }
        == .incidentIdNotFound("ends-soon"))
    #expect(try store.history(ofOriginalId: "ends-soon").isEmpty)
  }

  @Test func changeStreamsSeeAdditionsUpdatesAndRemovalsInTheirArea() async throws {
    let engine = try F.engine([])
    let stream = engine.incidentChanges(inside: try F.circle(52.5, 13.4, 1_000))
    var iterator = stream.makeAsyncIterator()
    try engine.apply(IncidentBatch(upserts: [try F.incident("elsewhere", [(48.1, 11.5)])]))
    try engine.apply(IncidentBatch(upserts: [try F.incident("x", [(52.5, 13.4)], version: 1)]))
    try engine.apply(IncidentBatch(upserts: [try F.incident("x", [(52.5, 13.401)], version: 2)]))
    // Moves out.
    try engine.apply(IncidentBatch(upserts: [try F.incident("x", [(52.6, 13.6)], version: 3)]))
    try engine.apply(IncidentBatch(upserts: [try F.incident("y", [(52.5, 13.4)])]))
    try engine.apply(IncidentBatch(deletions: ["y"]))
    var seen: [String] = []
    for _ in 0..<5 {
      guard let change = await iterator.next() else { break }
      seen.append("\(change.kind.rawValue) \(change.incident.id)")
    }
    #expect(seen == ["added x-v1", "updated x-v2", "removed x-v2", "added y-v1", "removed y-v1"])
  }

  @Test func readersSeeWholeBatchesWhileAWriterRuns() async throws {
    let engine = try F.engine([], limits: .unlimited)
    let circle = try F.circle(52.5, 13.4, 5_000)
    let writer = Task.detached {
      for round in 0..<40 {
        let batch = try (0..<25).map {
          try F.incident("r\(round)-\($0)", [(52.5, 13.4 + Double($0) * 1e-4)])
        }
        try engine.apply(IncidentBatch(upserts: batch))
      }
    }
    var observed: Set<Int> = []
    while !(writer.isCancelled) {
      let count = try await engine.queryForIncidents(inside: circle).count
      #expect(count % 25 == 0, "a query saw part of a batch: \(count)")
      observed.insert(count)
      if count == 1000 { break }
    }
    try await writer.value
    #expect(try await engine.queryForIncidents(inside: circle).count == 1000)
    #expect(observed.count >= 2)
  }
}
