import Foundation
import Testing
import Traffic
import TrafficFeeds

@testable import TrafficServer

/// `locationReferencing` on the incident routes: `shape`, `olr`, `tmc`, `none`.
@Suite struct LocationReferencingRoutesTests {
  static let openLR = "CwRbWyNG9RpsCQCb/jsbtAT/6/+jK1lE"

  /// A server whose incident "T" (near A) carries a TMC reference and OpenLR.
  static func server() throws -> TrafficServer {
    let engine = try ServerFixtures.engine()
    let tmc = try TMCLocationReference(
      countryCode: "D", extendedCountryCode: "E0", tableNumber: "1", primaryLocationCode: 10429,
      extent: 1, direction: .negative, primaryOffsetInMeters: 0, affectedLengthInMeters: 634)
    let incident = try TrafficIncident(
      id: "T-v1", originalId: "T", type: .congestion, impact: .minor,
      startTime: ServerFixtures.now.addingTimeInterval(-60),
      endTime: ServerFixtures.now.addingTimeInterval(3600),
      location: TrafficLocation(
        point: try GeoCoordinates(latitude: 52.5205, longitude: 13.4005), tmc: [tmc],
        openLR: openLR))
    try engine.apply(IncidentBatch(upserts: [incident]))
    return try TrafficServer(engine: engine, configuration: ServerFixtures.quiet())
  }

  static func location(
    _ response: HTTPResponse, id: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> [String: Any] {
    let object = try ServerFixtures.object(response.body, sourceLocation: sourceLocation)
    let results = try #require(
      object["results"] as? [[String: Any]], sourceLocation: sourceLocation)
    let result = try #require(
      results.first { ($0["incidentDetails"] as? [String: Any])?["originalId"] as? String == id },
      sourceLocation: sourceLocation)
    return try #require(result["location"] as? [String: Any], sourceLocation: sourceLocation)
  }

  @Test func olrAndTmcAreWrittenInHEREsShape() throws {
    let server = try Self.server()
    let target = "/v7/incidents?in=circle:52.52,13.40;r=2000&locationReferencing=olr,tmc"
    let response = server.handle(ServerFixtures.get(target))
    #expect(response.status == 200)
    let location = try Self.location(response, id: "T")
    #expect(location["shape"] == nil)
    #expect(location["olr"] as? String == Self.openLR)
    let tmc = try #require(location["tmc"] as? [String: Any])
    #expect(tmc["extendedCountryCode"] as? String == "E0")
    #expect(tmc["ebuCountryCode"] as? String == "D")
    #expect(tmc["tableId"] as? String == "1")
    #expect(tmc["locationId"] as? String == "10429")
    #expect(tmc["queuingDirection"] as? String == "-")
    #expect(tmc["extent"] as? Int == 1)
    #expect(tmc["primaryOffset"] as? Double == 0)
    #expect(tmc["affectedLength"] as? Double == 634)
    // An incident without references gets neither member.
    let plain = try Self.location(response, id: "A")
    #expect(plain["olr"] == nil && plain["tmc"] == nil && plain["shape"] == nil)
    #expect(plain["length"] as? Double == 0)
  }

  @Test func shapeStaysTheDefaultAndCombines() throws {
    let server = try Self.server()
    let base = "/v7/incidents?in=circle:52.52,13.40;r=2000"
    let plain = try Self.location(server.handle(ServerFixtures.get(base)), id: "T")
    #expect(plain["shape"] != nil && plain["olr"] == nil && plain["tmc"] == nil)
    let all = try Self.location(
      server.handle(ServerFixtures.get(base + "&locationReferencing=shape,olr,tmc")), id: "T")
    #expect(all["shape"] != nil && all["olr"] != nil && all["tmc"] != nil)
  }

  @Test func noneLeavesEveryReferenceOut() throws {
    let server = try Self.server()
    let target = "/v7/incidents?in=circle:52.52,13.40;r=2000"
    let none = server.handle(ServerFixtures.get(target + "&locationReferencing=none"))
    #expect(try ServerFixtures.resultIds(none) == ["A", "T", "B"])
    #expect(!none.bodyText.contains("shape") && !none.bodyText.contains("olr"))
    let lookup = server.handle(ServerFixtures.get("/v7/incidents/T?locationReferencing=none"))
    #expect(lookup.status == 200)
    #expect(!lookup.bodyText.contains("shape"))
  }

  @Test func lookupAnswersOlr() throws {
    let server = try Self.server()
    let response = server.handle(ServerFixtures.get("/v7/incidents/T?locationReferencing=olr"))
    #expect(response.status == 200)
    let object = try ServerFixtures.object(response.body)
    let location = try #require(object["location"] as? [String: Any])
    #expect(location["olr"] as? String == Self.openLR)
    #expect(location["shape"] == nil)
  }

  /// What the server writes, the HERE v7 decoder reads back with the references.
  @Test func hereV7DecoderReadsTheReferencesBack() throws {
    let server = try Self.server()
    let target =
      "/v7/incidents?in=circle:52.52,13.40;r=2000&locationReferencing=shape,olr,tmc"
    let response = server.handle(ServerFixtures.get(target))
    let document = try HEREv7Decoder.decode(
      response.body, options: FeedOptions(sourceName: "here"))
    let decoded = try #require(document.incidents.first { $0.originalId == "T" })
    let original = try server.engine.incident(
      originalId: "T", options: TrafficIncidentLookupOptions())
    #expect(decoded.location.tmc == original.location.tmc)
    #expect(decoded.location.openLR == Self.openLR)
    #expect(decoded.location.polyline == original.location.polyline)
  }

  @Test func flowStillRefusesCodes() throws {
    let server = try ServerFixtures.server()
    let response = server.handle(
      ServerFixtures.get("/v7/flow?in=circle:52.52,13.40;r=2000&locationReferencing=olr"))
    ServerFixtures.expectError(
      response, status: 400, code: "invalidParameter", mentions: "locationReferencing")
  }
}
