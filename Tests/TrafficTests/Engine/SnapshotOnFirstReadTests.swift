import Foundation
import Testing

@testable import Traffic

/// `traffic import` leaves the snapshot after its write to the first reader: whoever reads
/// next sees exactly what an engine that built it at once sees.
@Suite struct SnapshotOnFirstReadTests {
  typealias F = EngineFixtures

  static let first = [
    (id: "a", at: (52.50, 13.40)), (id: "b", at: (52.51, 13.41)), (id: "c", at: (48.1, 11.6)),
  ]

  @Test func theFirstReadSeesTheWriteAsAnEngineThatBuiltItAtOnce() async throws {
    let lazy = try F.engine([])
    let eager = try F.engine([])
    let document = try Self.first.map { try F.incident($0.id, [$0.at]) }
    let lazyReport = try lazy.ingest(
      document, from: "feed", isFullRefresh: true, building: .onFirstRead)
    let eagerReport = try eager.ingest(document, from: "feed", isFullRefresh: true)
    #expect(lazyReport == eagerReport)
    #expect(lazyReport.added == 3)
    // A second document reads the pending snapshot: one update, one incident ended.
    let second = [
      try F.incident("a", [(52.50, 13.40)], impact: .critical),
      try F.incident("b", [(52.51, 13.41)]),
    ]
    let lazySecond = try lazy.ingest(
      second, from: "feed", isFullRefresh: true, building: .onFirstRead)
    #expect(lazySecond == (try eager.ingest(second, from: "feed", isFullRefresh: true)))
    #expect(lazySecond.updated == 1 && lazySecond.ended == 1 && lazySecond.unchanged == 1)
    let circle = try F.circle(52.505, 13.405, 5_000)
    let options = TrafficIncidentsQueryOptions(
      sortOrigin: try GeoCoordinates(latitude: 52.5, longitude: 13.4))
    // Version ids carry the time of their pass, so the engines' differ; the rest is equal.
    func facts(_ engine: TrafficEngine) throws -> [String] {
      try engine.incidents(inside: circle, options: options).map {
        "\($0.originalId) \($0.impact) \($0.startTime!) \($0.endTime!) \($0.sources)"
      }
    }
    #expect(try facts(lazy) == (try facts(eager)))
    #expect(try lazy.incidents(inside: circle, options: options).map(\.originalId) == ["a", "b"])
    #expect(lazy.incidentCount == 3)
    #expect((try await lazy.lookupIncident(with: "a")).impact == .critical)
  }

  @Test func anEngineWithChangeStreamsBuildsAtOnceAndTellsThem() async throws {
    let engine = try F.engine([])
    let stream = engine.incidentChanges(inside: try F.circle(52.5, 13.4, 5_000))
    _ = try engine.ingest(
      [try F.incident("a", [(52.5, 13.4)])], from: "feed", isFullRefresh: false,
      building: .onFirstRead)
    var changes = stream.makeAsyncIterator()
    let change = await changes.next()
    #expect(change?.kind == .added)
    #expect(change?.incident.originalId == "a")
  }
}
