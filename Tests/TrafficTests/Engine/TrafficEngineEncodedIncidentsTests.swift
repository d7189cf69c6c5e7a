import Foundation
import Testing
import TrafficTestSupport

@testable import Traffic

/// `encodedIncidents` (what the server answers) is assembled from result objects encoded
/// once per incident version; it must stay byte for byte the encoding of the query's answer,
/// for every language, location referencing, order and limit, and after incidents change.
@Suite struct TrafficEngineEncodedIncidentsTests {
  typealias F = EngineFixtures

  /// Incidents of every impact and several types scattered over a few kilometres of Berlin.
  static func scattered(_ count: Int, generator: inout SeededGenerator) throws -> [TrafficIncident]
  {
    let impacts: [TrafficIncidentImpact] = [.critical, .major, .minor, .low, .unknown]
    let types: [TrafficIncidentType] = [.accident, .construction, .roadClosure, .congestion]
    return try (0..<count).map { number in
      let latitude = 52.50 + Double.random(in: 0...0.05, using: &generator)
      let longitude = 13.38 + Double.random(in: 0...0.08, using: &generator)
      return try F.incident(
        "i\(number)",
        [(latitude, longitude), (latitude + 0.001, longitude + 0.0015)],
        type: types[number % types.count], impact: impacts[number % impacts.count],
        start: F.now - Double(number % 7) * F.hour)
    }
  }

  @Test func theAssembledAnswerIsTheEncodingOfTheAnswer() throws {
    var generator = SeededGenerator(seed: 41)
    let engine = try F.engine(try Self.scattered(300, generator: &generator))
    let updated = Date(timeIntervalSince1970: 1_811_000_000)
    for round in 0..<60 {
      let circle = try F.circle(
        52.50 + Double.random(in: 0...0.05, using: &generator),
        13.38 + Double.random(in: 0...0.08, using: &generator),
        Double.random(in: 100...3_000, using: &generator))
      var options = TrafficIncidentsQueryOptions()
      options.languageCode = [nil, .deDE, .enUS][round % 3]
      if round % 4 == 1 { options.sortOrigin = circle.center }
      if round % 5 == 2 { options.limit = 3 }
      let references: V7IncidentWire.LocationReferencing = round % 2 == 0 ? .shape : []
      // Twice: the second answer comes from the cached result objects.
      for _ in 0..<2 {
        let assembled = try engine.encodedIncidents(
          inside: circle, options: options, locationReferencing: references,
          sourceUpdated: updated
        ).data
        let expected = V7IncidentWire.encode(
          try engine.incidents(inside: circle, options: options), sourceUpdated: updated,
          locationReferencing: references)
        #expect(assembled == expected, "round \(round)")
      }
    }
  }

  @Test func aVersionWrittenAgainIsEncodedAgain() throws {
    let first = try F.incident("a", [(52.5, 13.4), (52.501, 13.401)])
    let engine = try F.engine([first])
    let circle = try F.circle(52.5, 13.4, 500)
    let options = TrafficIncidentsQueryOptions()
    let before = try engine.encodedIncidents(
      inside: circle, options: options, locationReferencing: .shape, sourceUpdated: nil
    ).data
    #expect(String(decoding: before, as: UTF8.self).contains("expected until 06/02/2027"))
    // The same version id, ending a day later: the cached result object must not be reused.
    let rewritten = try first.updated(
      id: first.id, startTime: first.startTime, endTime: F.now + 48 * F.hour)
    _ = try engine.apply(IncidentBatch(upserts: [rewritten]))
    let after = try engine.encodedIncidents(
      inside: circle, options: options, locationReferencing: .shape, sourceUpdated: nil
    ).data
    #expect(
      after
        == V7IncidentWire.encode(
          try engine.incidents(inside: circle, options: options), sourceUpdated: nil))
    #expect(String(decoding: after, as: UTF8.self).contains("expected until 06/03/2027"))
  }

  /// Past the tables' first size (1,024 slots, grown at half full) and through clears when
  /// the byte bound is reached, every answer is still the encoding of the incidents.
  @Test func answersStayExactThroughGrowthAndClears() throws {
    var generator = SeededGenerator(seed: 7)
    let incidents = try Self.scattered(2_000, generator: &generator)
    let index = IncidentIndex(incidents)
    let updated = Date(timeIntervalSince1970: 1_811_000_000)
    for maxBytes in [256 << 20, 400_000] {
      let cache = V7ResultCache(maxBytes: maxBytes)
      for round in 0..<6 {
        // Every incident, then halves in another order: hits, misses and mixtures.
        var positions = Array(index.incidents.indices)
        if round % 2 == 1 { positions.reverse() }
        if round >= 2 { positions = Array(positions.prefix(1_000 + 300 * round)) }
        let language: LanguageCode? = round % 3 == 0 ? .deDE : nil
        let answer = cache.encode(
          positions, of: index, language: language, references: .shape, sourceUpdated: updated
        ) { $0.localized(to: language) }
        let expected = V7IncidentWire.encode(
          positions.map { index.incidents[$0].localized(to: language) }, sourceUpdated: updated,
          locationReferencing: .shape)
        #expect(answer.data == expected, "maxBytes \(maxBytes), round \(round)")
        #expect(answer.bytes.count == expected.count)
      }
    }
  }
}
