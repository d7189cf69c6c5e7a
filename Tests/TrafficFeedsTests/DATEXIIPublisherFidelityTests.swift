import Foundation
import Geo
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficFeeds

/// What a published DATEX II document carries comes back when it is read: OpenLR offsets,
/// ALERT-C directions, version ids, long texts (within the schema's lengths).
@Suite struct DATEXIIPublisherFidelityTests {
  private static let now = Date(timeIntervalSince1970: 1_764_547_200)
  private static let options = FeedOptions(sourceName: "datex2", now: now)

  private static func published(_ incidents: [TrafficIncident]) -> Data {
    DATEXIIPublisher.document(
      Publication(incidents: incidents, publicationTime: now, countryCode: "DE"))
  }

  private static func roundTrip(_ incidents: [TrafficIncident]) throws -> [TrafficIncident] {
    let back = try DATEXIIDecoder.decode(published(incidents), options: options)
    #expect(back.problems.isEmpty, "\(back.problems)")
    return back.incidents
  }

  private static func line(
    id: String = "r1", openLR: String? = nil, tmc: [TMCLocationReference] = [],
    texts: [LocalizedText] = [], summary: String? = nil
  ) throws -> TrafficIncident {
    let polyline = try GeoPolyline(vertices: [
      GeoCoordinates(latitude: 52.0, longitude: 5.0),
      GeoCoordinates(latitude: 52.01, longitude: 5.01),
    ])
    return try TrafficIncident(
      id: id, type: summary == nil ? .accident : .other, impact: .major,
      summary: summary.map { LocalizedText(text: $0, language: .enUS) }, startTime: now,
      location: TrafficLocation(polyline: polyline, tmc: tmc, openLR: openLR),
      sourceTexts: texts)
  }

  // MARK: OpenLR offsets

  /// A publication of incidents without a country writes the placeholder `xx` (the schema
  /// requires a country); read back, it gives them no country, as before.
  @Test func anUnknownCountryStaysUnknown() throws {
    let incident = try Self.line()
    #expect(incident.details.countryCode == nil)
    let document = DATEXIIPublisher.document(
      Publication(incidents: [incident], publicationTime: Self.now, countryCode: ""))
    #expect(String(decoding: document, as: UTF8.self).contains(">xx</com:country>"))
    let back = try DATEXIIDecoder.decode(document, options: Self.options)
    #expect(back.incidents.map(\.details.countryCode) == [nil])
    // ISO 3166-1's user-assigned codes name no country; real ones do.
    for code in ["xx", "XA", "zz", "AA", "QM", "qz"] {
      #expect(!DATEXIIDecoder.isCountryCode(code))
    }
    for code in ["de", "NL", "qa", "FI", "xk"] {
      #expect(DATEXIIDecoder.isCountryCode(code))
    }
  }

  @Test func theFixturesBinaryOpenLRComesBackTheSame() throws {
    let fixture = try DATEXIIDecoder.decode(
      ownFixture("datex2", "v3_location_references.xml"), options: Self.options)
    let lines = fixture.incidents.filter {
      guard let text = $0.location.openLR, case .line? = try? OpenLR.decode(base64: text)
      else { return false }
      return true
    }
    #expect(!lines.isEmpty)
    let back = try Self.roundTrip(lines)
    #expect(back.map(\.location.openLR) == lines.map(\.location.openLR))
  }

  @Test(arguments: [(0, 0), (0x44, 0), (0, 0x44), (1, 254), (255, 255), (128, 3)])
  func offsetsSurvive(positive: Int, negative: Int) throws {
    func point(_ latitude: Double, distance: Double) throws -> OpenLR.ReferencePoint {
      OpenLR.ReferencePoint(
        coordinates: try GeoCoordinates(latitude: latitude, longitude: 5.0),
        functionalRoadClass: 2, formOfWay: .singleCarriageway, bearingInDegrees: 10,
        lowestFunctionalRoadClassToNext: 2, distanceToNextInMeters: distance)
    }
    func fraction(_ byte: Int) -> Double { byte == 0 ? 0 : (Double(byte) + 0.5) / 256 }
    let line = OpenLR.Line(
      points: [
        try point(52.0, distance: 1200), try point(52.01, distance: 700),
        try point(52.02, distance: 0),
      ],
      positiveOffset: fraction(positive), negativeOffset: fraction(negative))
    let binary = try OpenLR.encodeBase64(.line(line))
    let back = try Self.roundTrip([try Self.line(openLR: binary)])
    #expect(back.first?.location.openLR == binary)
  }

  // MARK: ALERT-C directions

  @Test(arguments: [TMCLocationReference.Direction.positive, .negative, .both, .unknown])
  func alertCDirectionsSurvive(direction: TMCLocationReference.Direction) throws {
    let tmc = try TMCLocationReference(
      countryCode: "D", tableNumber: "1", tableVersion: "A", primaryLocationCode: 12_345,
      secondaryLocationCode: 12_346, direction: direction)
    let back = try Self.roundTrip([try Self.line(tmc: [tmc])])
    #expect(back.first?.location.tmc.map(\.direction) == [direction])
  }

  @Test func anOppositeAffectedDirectionTurnsTheCodedOneRound() {
    let read = DATEXIILocationReader.alertCDirection
    #expect(read("positive", "opposite") == .negative)
    #expect(read("negative", "opposite") == .positive)
    #expect(read("negative", "aligned") == .negative)
    #expect(read("positive", nil) == .positive)
    #expect(read("both", nil) == .both)
  }

  // MARK: Versions

  @Test(arguments: [
    ("close-Q", "close-Q~mxcdsgcf3"), ("acc-1", "acc-1_4"), ("w", "w"), ("x", "x_v2"),
  ])
  func versionsReadBackAndDoNotGrow(originalId: String, id: String) throws {
    var incident = try Self.line(id: originalId)
    incident = incident.reidentified(id: id, originalId: originalId)
    let first = Self.published([incident])
    let text = try #require(String(data: first, encoding: .utf8))
    #expect(!text.contains(#"version="""#))
    let back = try Self.roundTrip([incident])
    #expect(back.map(\.id) == [id])
    let again = try #require(String(data: Self.published(back), encoding: .utf8))
    #expect(Self.versions(in: again) == Self.versions(in: text))
    #expect(Self.versions(in: text).count == 1)
  }

  private static func versions(in document: String) -> [String] {
    document.matches(of: #/ id="[^"]*" version="([^"]*)"/#).map { String($0.output.1) }
  }

  // MARK: Lengths

  @Test func longTextsAreSchemaValidAndReadBack() throws {
    let paragraph = String(repeating: "Stau wegen Bauarbeiten. ", count: 25) + "Ende."  // 605
    let lines = [paragraph, "kurz", paragraph, paragraph].joined(separator: "\n")
    let unbroken = String(repeating: "e\u{301}", count: 700)  // 700 graphemes, 1400 scalars
    let emoji = String(repeating: "👩‍👩‍👧", count: 300)  // 5 scalars, 2 UTF-16 pairs each
    let incidents = [
      try Self.line(id: "a", texts: [LocalizedText(text: lines, language: .enUS)]),
      try Self.line(id: "b", texts: [LocalizedText(text: unbroken, language: .enUS)]),
      try Self.line(id: "c", summary: emoji),
    ]
    let document = Self.published(incidents)
    let verdict = try PublishedDocumentValidator.validateDATEXII([document])
    #expect(verdict.status == 0, "\(verdict.output.prefix(2000))")
    let back = try DATEXIIDecoder.decode(document, options: Self.options).incidents
    // Cut at its line breaks, a text reads back whole.
    #expect(back.first?.sourceTexts.map(\.text) == [lines])
    // Without a line break or a space, one is added where it was cut, between characters.
    let cut = try #require(back.dropFirst().first?.sourceTexts.first?.text)
    #expect(cut.replacingOccurrences(of: "\n", with: "") == unbroken)
    #expect(cut.split(separator: "\n").allSatisfy { $0.unicodeScalars.count <= 1024 })
  }

  @Test func aLongLineIsCutAtASpace() {
    let text = String(repeating: "Stau ", count: 300) + "Ende"
    let pieces = DATEXIIPublisher.pieces(text)
    #expect(pieces.count == 2)
    #expect(pieces.joined(separator: " ") == text)
  }

  @Test func piecesNeverSplitACharacter() {
    let text = String(repeating: "🇩🇪", count: 600)  // 2 scalars each
    let pieces = DATEXIIPublisher.pieces(text)
    #expect(pieces.joined() == text)
    #expect(pieces.allSatisfy { $0.unicodeScalars.count <= 1024 })
    #expect(pieces.first?.unicodeScalars.count == 1024)
    #expect(DATEXIIPublisher.limited(text).count == 512)
    #expect(DATEXIIPublisher.limited("kurz") == "kurz")
  }
}
