import Foundation
import Testing
import Traffic
import TrafficFeeds
import TrafficTestSupport

@Suite struct DATEXIILocationReferenceTests {
  let options = FeedOptions(sourceName: "test", now: Date(timeIntervalSince1970: 1_750_000_000))

  @Test func v2KeepsAlertCCodesAndPlacesBinaryOpenLR() throws {
    let document = try DATEXIIDecoder.decode(
      ownFixture("datex2", "v2_location_references.xml"), options: options)
    #expect(document.incidents.map(\.originalId) == ["tmc-linear", "olr-only"])

    let linear = document.incidents[0].location
    #expect(pairs(linear.polyline) == [[52.30, 4.90], [52.31, 4.91]])
    #expect(
      linear.tmc == [
        try TMCLocationReference(
          countryCode: "8", tableNumber: "1.11", tableVersion: "11.0",
          primaryLocationCode: 12345, secondaryLocationCode: 12346, direction: .negative,
          primaryOffsetInMeters: 250, secondaryOffsetInMeters: 0)
      ])
    #expect(linear.openLR == nil)

    // Only binary OpenLR: the white paper's line, its reference points joined.
    let openLR = document.incidents[1].location
    #expect(openLR.openLR == "CwRbWyNG9RpsCQCb/jsbtAT/6/+jK1lE")
    #expect(openLR.tmc.isEmpty)
    let expected = try OpenLR.decode(base64: "CwRbWyNG9RpsCQCb/jsbtAT/6/+jK1lE")
      .referenceCoordinates
    #expect(openLR.polyline.vertices == expected)
    #expect(abs(openLR.polyline.vertices[0].longitude - 6.1268198) < 1e-7)

    #expect(document.problems.count == 2)
    let tmcOnly = try #require(document.problems.first)
    #expect(tmcOnly.location?.contains("situationRecord id=tmc-only") == true)
    #expect(
      tmcOnly.reason
        == "the location has no coordinates, only Alert-C (TMC) location codes 777, which "
        + "need a TMC location table")
    let broken = try #require(document.problems.last)
    #expect(broken.location?.contains("situationRecord id=olr-broken") == true)
    #expect(
      broken.reason.hasPrefix(
        "the location has no coordinates, only binary OpenLR, which cannot be decoded: "
          + "malformed OpenLR at position 9: a line location needs at least 16 bytes, found 9 "
          + "(line "))
  }

  @Test func v3KeepsAlertCAndPlacesAPointAlongALine() throws {
    let document = try DATEXIIDecoder.decode(
      ownFixture("datex2", "v3_location_references.xml"), options: options)
    #expect(document.problems.isEmpty)
    #expect(document.incidents.map(\.originalId) == ["pal", "coords-and-olr"])

    let point = document.incidents[0].location
    #expect(point.openLR == "K/6P+SKSuBJGGAUn/1gSUyM=")  // white space removed
    #expect(
      point.tmc == [
        try TMCLocationReference(
          countryCode: "D", tableNumber: "1", tableVersion: "19.1", primaryLocationCode: 10429,
          direction: .both, primaryOffsetInMeters: 120)
      ])
    // The point at the offset (35.5/256) between the two reference points.
    #expect(point.polyline.vertices.count == 2 && point.lengthInMeters == 0)
    let position = point.polyline.vertices[0]
    #expect(abs(position.latitude - 48.61820643) < 1e-7)
    #expect(abs(position.longitude - -2.01979472) < 1e-7)

    // Coordinates win over OpenLR for the geometry; the OpenLR is kept.
    let linear = document.incidents[1].location
    #expect(pairs(linear.polyline) == [[52.0, 13.0], [52.1, 13.1]])
    #expect(linear.openLR == "CwRbWyNG9RpsCQCb/jsbtAT/6/+jK1lE")
  }

  /// The shared fixtures' Alert-C codes are kept beside their coordinates.
  @Test func v2SOAPRecordsKeepTheirAlertCPoint() throws {
    let document = try DATEXIIDecoder.decode(
      ownFixture("datex2", "v2_soap_records.xml"), options: options)
    let fog = try #require(document.incidents.first { $0.originalId == "R4" })
    #expect(
      fog.location.tmc == [
        try TMCLocationReference(countryCode: "8", tableNumber: "1.11", primaryLocationCode: 4321)
      ])
  }
}
