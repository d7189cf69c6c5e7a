import Dispatch
import Foundation
import Synchronization
import Testing
import Traffic
import TrafficTestSupport

/// An engine that loads its snapshot in the background answers from the store's own index
/// meanwhile (SQLite's R*Tree, PostGIS's GiST): the same answers as once the snapshot is
/// there, and writes wait for the snapshot. Each indexed store runs these checks.
package enum BackgroundLoading {
  /// A store with `currentIncidents()` (the snapshot's load) held until the test opens the
  /// gate, and failing when told to.
  package final class GatedStore<Base: IndexedTrafficStore>: IndexedTrafficStore {
    package let base: Base
    package let gate = DispatchSemaphore(value: 0)
    let failing: Bool

    package init(_ base: Base, failing: Bool = false) {
      self.base = base
      self.failing = failing
    }

    package func currentIncidents() throws(TrafficStoreError) -> [TrafficIncident] {
      gate.wait()
      if failing { throw .operationFailed("the stored incident x cannot be read") }
      return try base.currentIncidents()
    }
    package func apply(_ batch: IncidentBatch) throws(TrafficStoreError) { try base.apply(batch) }
    package func history(
      ofOriginalId originalId: String
    ) throws(TrafficStoreError) -> [TrafficIncident] {
      try base.history(ofOriginalId: originalId)
    }
    package func purge(endedBefore cutoff: Date) throws(TrafficStoreError) -> [String] {
      try base.purge(endedBefore: cutoff)
    }
    package func summary() throws(TrafficStoreError) -> TrafficStoreSummary { try base.summary() }
    package func candidates(intersecting box: GeoBox) throws(TrafficStoreError) -> [TrafficIncident]
    {
      try base.candidates(intersecting: box)
    }
    package func incident(originalId: String) throws(TrafficStoreError) -> TrafficIncident? {
      try base.incident(originalId: originalId)
    }
  }

  package static let now = Date(timeIntervalSince1970: 1_800_000_000)

  /// Incidents of every type and impact, some ended, some in the future, some without times,
  /// over a small region so that circles meet several of them; a few with HERE's id prefix.
  package static func incidents(
    count: Int, generator: inout SeededGenerator
  ) throws -> [TrafficIncident] {
    let types = TrafficIncidentType.allCases
    let impacts: [TrafficIncidentImpact] = [.critical, .major, .minor, .low, .unknown]
    return try (0..<count).map { number in
      let latitude = Double.random(in: 52.3...52.7, using: &generator)
      let longitude = Double.random(in: 13.1...13.7, using: &generator)
      let vertices = try (0..<Int.random(in: 2...4, using: &generator)).map { step in
        try GeoCoordinates(
          latitude: latitude + Double(step) * 0.002,
          longitude: longitude + Double.random(in: -0.003...0.003, using: &generator))
      }
      let start = now.addingTimeInterval(Double.random(in: -7_200...3_600, using: &generator))
      let end = start.addingTimeInterval(Double.random(in: 600...14_400, using: &generator))
      let timed = number % 7 != 0
      let id = number % 11 == 0 ? "here:traffic:incident:n\(number)" : "n\(number)"
      return try TrafficIncident(
        id: id + "-v1", originalId: id, type: types[number % types.count],
        impact: impacts[number % impacts.count],
        description: LocalizedText(text: "incident \(number)", language: .enUS),
        startTime: timed ? start : nil, endTime: timed ? end : nil,
        entryTime: number % 5 == 0 ? nil : start.addingTimeInterval(-60),
        location: TrafficLocation(polyline: try GeoPolyline(vertices: vertices)))
    }
  }

  /// A query of every kind the engine answers: circle, box or corridor, with filters,
  /// language, sort origin and limit varying by round.
  package struct Query {
    package var area: any GeoArea
    package var options: TrafficIncidentsQueryOptions
  }

  package static func queries(_ generator: inout SeededGenerator) throws -> [Query] {
    try (0..<120).map { round in
      let center = try GeoCoordinates(
        latitude: .random(in: 52.3...52.7, using: &generator),
        longitude: .random(in: 13.1...13.7, using: &generator))
      let area: any GeoArea
      switch round % 3 {
      case 0:
        area = try GeoCircle(
          center: center, radiusInMeters: .random(in: 200...8_000, using: &generator))
      case 1:
        area = try GeoBox(
          west: center.longitude, south: center.latitude, east: center.longitude + 0.05,
          north: center.latitude + 0.04)
      default:
        area = try GeoCorridor(
          polyline: [
            center,
            try GeoCoordinates(
              latitude: center.latitude + 0.05, longitude: center.longitude + 0.08),
          ], halfWidthInMeters: 500)
      }
      var options = TrafficIncidentsQueryOptions()
      if round % 4 == 1 { options.sortOrigin = center }
      if round % 5 == 2 { options.limit = 3 }
      if round % 6 == 3 { options.impactFilter = [.critical, .minor] }
      if round % 7 == 4 { options.typeFilter = [.construction, .accident, .roadClosure] }
      if round % 8 == 5 { options.earliestStartTime = now.addingTimeInterval(-3_600) }
      options.languageCode = [nil, .deDE][round % 2]
      return Query(area: area, options: options)
    }
  }

  /// Every answer of the engine to `queries` and to lookups of every id (and unknown ones).
  package static func answers(
    _ engine: TrafficEngine, _ queries: [Query], ids: [String]
  ) throws -> [String] {
    var answers: [String] = []
    for query in queries {
      let found = try engine.incidents(inside: query.area, options: query.options)
      answers.append(found.map(\.id).joined(separator: ","))
      let encoded = try engine.encodedIncidents(
        inside: query.area, options: query.options, locationReferencing: .shape,
        sourceUpdated: engine.lastUpdate)
      answers.append(String(decoding: encoded.data, as: UTF8.self))
    }
    for id in ids {
      answers.append(try engine.incident(originalId: id, options: .init()).id)
    }
    return answers
  }

  /// Fills the empty `base` and checks that an engine loading it in the background answers
  /// area queries and lookups from the store as the loaded snapshot does, that nothing of
  /// that waits for the snapshot, and that a write waits for it and then lands on it.
  package static func checkQueriesWhileLoading<Base: IndexedTrafficStore>(on base: Base) throws {
    var generator = SeededGenerator(seed: 0x10AD_0001)
    let incidents = try BackgroundLoading.incidents(count: 800, generator: &generator)
    try base.apply(IncidentBatch(upserts: incidents))
    let queries = try BackgroundLoading.queries(&generator)
    // Lookups by the stored id, and with HERE's prefix added or taken off.
    let ids = incidents.prefix(60).map(\.originalId) + ["here:traffic:incident:n3", "n22"]
    let clock: @Sendable () -> Date = { BackgroundLoading.now }

    let reference = try TrafficEngine(store: base, clock: clock)
    let expected = try BackgroundLoading.answers(reference, queries, ids: ids)
    #expect(expected.contains { $0.contains("\"results\":[{") }, "the queries find incidents")

    let gated = GatedStore(base)
    let engine = try TrafficEngine(store: gated, clock: clock, loading: .inBackground)
    // Should a query wait for the snapshot after all, the gate opens after a while (and the
    // test fails below) rather than the test hanging.
    DispatchQueue.global().asyncAfter(deadline: .now() + 120) { gated.gate.signal() }
    #expect(!engine.isLoaded)
    #expect(engine.incidentCount == incidents.count)
    #expect(engine.lastUpdate == reference.lastUpdate)
    #expect(engine.lastUpdate == incidents.compactMap(\.entryTime).max())
    #expect(try BackgroundLoading.answers(engine, queries, ids: ids) == expected)
    #expect(!engine.isLoaded, "nothing above waited for the snapshot")

    // A write waits for the snapshot, then lands on it.
    let moved = try incidents[0].updated(
      id: "n0-v2", startTime: BackgroundLoading.now.addingTimeInterval(-60), endTime: nil)
    let written = Mutex<[IncidentChange]?>(nil)
    let writing = DispatchGroup()
    DispatchQueue.global().async(group: writing) {
      written.withLock { $0 = try? engine.apply(IncidentBatch(upserts: [moved])) }
    }
    #expect(writing.wait(timeout: .now() + 0.3) == .timedOut, "the write waits for the load")
    gated.gate.signal()
    try engine.waitUntilLoaded()
    #expect(writing.wait(timeout: .now() + 30) == .success)
    #expect(written.withLock { $0 }?.map(\.kind) == [.updated])
    #expect(engine.isLoaded)
    #expect(try engine.incident(originalId: "n0", options: .init()).id == "n0-v2")
    #expect(try reference.apply(IncidentBatch(upserts: [moved])).map(\.kind) == [.updated])
    #expect(
      try BackgroundLoading.answers(engine, queries, ids: ids)
        == (try BackgroundLoading.answers(reference, queries, ids: ids)))
  }

  /// Checks the summary of the empty `store` as incidents come and go.
  package static func checkSummary(of store: some IndexedTrafficStore) throws {
    #expect(try store.summary() == TrafficStoreSummary(count: 0, latestEntry: nil))
    var generator = SeededGenerator(seed: 0x10AD_0005)
    var incidents = try BackgroundLoading.incidents(count: 50, generator: &generator)
    try store.apply(IncidentBatch(upserts: incidents))
    #expect(
      try store.summary()
        == TrafficStoreSummary(count: 50, latestEntry: incidents.compactMap(\.entryTime).max()))
    // The latest entry leaves with its incident.
    let latest = try #require(
      incidents.max { ($0.entryTime ?? .distantPast) < ($1.entryTime ?? .distantPast) })
    try store.apply(IncidentBatch(deletions: [latest.originalId]))
    incidents.removeAll { $0.originalId == latest.originalId }
    #expect(
      try store.summary()
        == TrafficStoreSummary(count: 49, latestEntry: incidents.compactMap(\.entryTime).max()))
  }
}
