import Foundation
import Testing
import TrafficTestSupport

@testable import Traffic

/// The v7 answers read back what they write: incidents with every location reference, and
/// error bodies.
@Suite struct V7AnswerRoundTripTests {
  static let openLR = ["IyVUdwmSoA==", "CwRbWyNG9RpsCQCb/jsbtAT/6/+jK1lE"]

  static func tmc(using generator: inout SeededGenerator) throws -> TMCLocationReference {
    func maybe<T>(_ value: T) -> T? { Bool.random(using: &generator) ? value : nil }
    let directions = TMCLocationReference.Direction.allCases
    return try TMCLocationReference(
      countryCode: ["D", "8", "F"][Int.random(in: 0..<3, using: &generator)],
      extendedCountryCode: maybe("E0"),
      tableNumber: ["1", "1.11", "007"][Int.random(in: 0..<3, using: &generator)],
      tableVersion: maybe("19.1"),
      primaryLocationCode: Int.random(in: 0...65_535, using: &generator),
      secondaryLocationCode: maybe(Int.random(in: 0...65_535, using: &generator)),
      extent: maybe(Int.random(in: 0...31, using: &generator)),
      direction: directions[Int.random(in: 0..<directions.count, using: &generator)],
      primaryOffsetInMeters: maybe(Double.random(in: 0...5_000, using: &generator)),
      secondaryOffsetInMeters: maybe(0),
      affectedLengthInMeters: maybe(Double.random(in: 0...50_000, using: &generator)))
  }

  /// Incidents with every field the wire carries, location references included.
  static func incidents(count: Int, seed: UInt64) throws -> [TrafficIncident] {
    var generator = SeededGenerator(seed: seed)
    return try (0..<count).map { index in
      let vertices = try (0..<(1 + index % 5)).map { _ in
        try GeoCoordinates(
          latitude: Double.random(in: -90...90, using: &generator),
          longitude: Double.random(in: -180...180, using: &generator))
      }
      let polyline =
        vertices.count == 1 ? GeoPolyline(point: vertices[0]) : try GeoPolyline(vertices: vertices)
      let start = Date(timeIntervalSince1970: Double(1_700_000_000 + index * 3_600))
      var restriction = VehicleRestriction()
      restriction.isDieselFuelRestricted = index % 2 == 0
      restriction.restrictedIfWiderThanInCentimeters = 250 + index
      restriction.restrictedHazardousGoods = index % 3 == 0 ? [.explosive] : []
      return try TrafficIncident(
        id: "i\(index)", originalId: "o\(index)",
        parentId: index % 4 == 0 ? "p\(index)" : nil,
        type: TrafficIncidentType.allCases[index % TrafficIncidentType.allCases.count],
        impact: TrafficIncidentImpact.allCases[index % TrafficIncidentImpact.allCases.count],
        description: LocalizedText(text: "Stau \"\(index)\" ✓\n", language: .deDE),
        summary: LocalizedText(text: "Jam \(index)", language: .enUS),
        startTime: index % 5 == 0 ? nil : start,
        endTime: index % 3 == 0 ? nil : start.addingTimeInterval(600.25),
        entryTime: index % 2 == 0 ? start.addingTimeInterval(-60) : nil,
        isRoadClosed: index % 2 == 1,
        junctionsTraversability: JunctionsTraversability.allCases[
          index % JunctionsTraversability.allCases.count],
        codes: index % 2 == 0 ? [index, 401] : [],
        location: TrafficLocation(
          polyline: polyline,
          additionalPolylines: index % 4 == 1
            ? [GeoPolyline(point: try GeoCoordinates(latitude: 1, longitude: 2))] : [],
          lengthInMeters: index % 3 == 1 ? 12.75 * Double(index) : nil,
          description: index % 2 == 0 ? "A\(index)" : nil,
          tmc: try (0..<(index % 3)).map { _ in try tmc(using: &generator) },
          openLR: index % 3 == 2 ? nil : openLR[index % 2]),
        vehicleRestrictions: index % 2 == 0 ? [.truck: restriction, .all: .always] : [:])
    }
  }

  /// Every field of an incident the wire carries, with the references left out of `written`.
  static func expectSame(
    _ decoded: TrafficIncident, _ original: TrafficIncident,
    written: V7IncidentWire.LocationReferencing,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    var location = original.location
    if !written.contains(.openLR) { location.openLR = nil }
    if !written.contains(.tmc) { location.tmc = [] }
    #expect(decoded.location == location, sourceLocation: sourceLocation)
    let fields: [(TrafficIncident) -> AnyHashable] = [
      { $0.id }, { $0.originalId }, { $0.parentId }, { $0.type }, { $0.impact },
      { $0.description }, { $0.summary }, { $0.startTime }, { $0.endTime }, { $0.entryTime },
      { $0.isRoadClosed }, { $0.junctionsTraversability }, { $0.codes },
      { $0.vehicleRestrictions },
    ]
    for (number, field) in fields.enumerated() {
      #expect(field(decoded) == field(original), "field \(number)", sourceLocation: sourceLocation)
    }
  }

  @Test(arguments: [
    V7IncidentWire.LocationReferencing.shape, [.shape, .openLR], [.shape, .tmc], .all,
  ])
  func incidentsReadBackEqualWithEveryReference(
    references: V7IncidentWire.LocationReferencing
  ) throws {
    let incidents = try Self.incidents(count: 60, seed: UInt64(references.rawValue))
    let updated = Date(timeIntervalSince1970: 1_800_000_000.5)
    let data = V7IncidentWire.encode(
      incidents, sourceUpdated: updated, locationReferencing: references)
    let answer = try V7IncidentWire.decode(data)
    #expect(answer.problems.isEmpty, "\(answer.problems.prefix(3))")
    #expect(answer.sourceUpdated == updated)
    try #require(answer.incidents.count == incidents.count)
    for (decoded, original) in zip(answer.incidents, incidents) {
      Self.expectSame(decoded, original, written: references)
    }
    // Decoding then encoding gives the same text.
    #expect(
      V7IncidentWire.encode(
        answer.incidents, sourceUpdated: answer.sourceUpdated, locationReferencing: references)
        == data)
    for incident in incidents.prefix(20) {
      let lookup = V7IncidentWire.encodeLookup(incident, locationReferencing: references)
      let decoded = try V7IncidentWire.decodeLookup(lookup)
      Self.expectSame(decoded, incident, written: references)
      #expect(V7IncidentWire.encodeLookup(decoded, locationReferencing: references) == lookup)
    }
  }

  @Test func theResultCacheWritesWhatTheCodecReads() throws {
    let incidents = try Self.incidents(count: 40, seed: 9)
    let index = IncidentIndex(incidents)
    let cache = V7ResultCache()
    let updated = Date(timeIntervalSince1970: 1_800_000_000)
    for references in [V7IncidentWire.LocationReferencing.shape, .all] {
      // Twice: encoded fresh, then assembled from the cached fragments.
      for _ in 0..<2 {
        let answer = cache.encode(
          Array(index.incidents.indices.reversed()), of: index, language: nil,
          references: references, sourceUpdated: updated
        ) { $0 }
        let data = answer.data
        let decoded = try V7IncidentWire.decode(data)
        #expect(decoded.problems.isEmpty)
        #expect(decoded.incidents.map(\.id) == index.incidents.reversed().map(\.id))
        #expect(
          V7IncidentWire.encode(
            decoded.incidents, sourceUpdated: updated, locationReferencing: references) == data)
      }
    }
  }

  static let errors: [TrafficQueryError] = [
    .invalidIn("in \"x\" has no type"), .invalidGeometry("x"), .invalidIncident("x"),
    .invalidFilterOptions("x"), .invalidParameter("lang: \"é\""), .badRequest("x"),
    .incidentIdNotFound("A/B"), .authenticationFailed, .forbidden, .tooManyRequests,
    .proxyAuthenticationFailed, .proxyServerUnreachable, .serverUnreachable, .timedOut,
    .offline, .httpError(status: 413, "5 incidents match"), .httpError(status: 418, ""),
    .httpError(status: 500, "status 500: nested"), .failedToRetrieveResult("x"),
    .operationCancelled, .internalError("x"), .invalidIn(""), .badRequest(""),
  ]

  @Test(arguments: errors)
  func errorAnswersReadBackEqual(error: TrafficQueryError) throws {
    let body = V7ErrorAnswer.encode(error, correlationId: "c-1")
    let decoded = V7ErrorAnswer.decode(status: error.httpStatus, body: Data(body))
    #expect(decoded == error)
    #expect(V7ErrorAnswer.encode(decoded, correlationId: "c-1") == body)
  }

  @Test func errorAnswersHaveAFixedShape() {
    let body = V7ErrorAnswer.encode(
      .invalidGeometry("in: apiKey=secret is wrong"),
      detail: { $0.replacingOccurrences(of: "secret", with: "***") })
    #expect(
      String(decoding: body, as: UTF8.self)
        == #"{"status":400,"title":"Invalid geometry","code":"invalidGeometry","#
        + #""detail":"in: apiKey=*** is wrong","correlationId":""}"#)
    // An answer without a v7 body stands for its status.
    #expect(V7ErrorAnswer.decode(status: 401, body: Data()) == .authenticationFailed)
    #expect(
      V7ErrorAnswer.decode(status: 502, body: Data("Bad gateway".utf8))
        == .httpError(status: 502, "Bad gateway"))
  }
}
