import Codec
import Testing
import TrafficTestSupport

@testable import Geo

private func malformed(_ position: Int?, _ reason: String) -> GeoError {
  .malformed(format: "OpenLR", position: position, reason: reason)
}

/// A reference point as TomTom's openlr-python test data states it: longitude, latitude,
/// functional road class, form of way.
private struct Expected: Sendable {
  var longitude: Double
  var latitude: Double
  var functionalRoadClass: Int
  var formOfWay: OpenLR.FormOfWay
}

/// Reference vectors from TomTom's OpenLR Python library (tests of `binary_decode`), whose
/// first line is the white paper's example (LRPs at 6.12683/49.60851, 6.12838/49.60398,
/// 6.12817/49.60305 after the relative offsets of section 7.2.2).
private let lineVectors: [(String, [Expected], positive: Double, negative: Double)] = [
  (
    "CwRbWyNG9RpsCQCb/jsbtAT/6/+jK1lE",
    [
      Expected(
        longitude: 6.1268198, latitude: 49.6085178, functionalRoadClass: 3,
        formOfWay: .multipleCarriageway),
      Expected(
        longitude: 6.1283698, latitude: 49.6039878, functionalRoadClass: 3,
        formOfWay: .singleCarriageway),
      Expected(
        longitude: 6.1281598, latitude: 49.6030578, functionalRoadClass: 5,
        formOfWay: .singleCarriageway),
    ], 68.5 / 256, 0
  ),
  (
    "CwB67CGukRxiCACyAbwaMXU=",
    [
      Expected(
        longitude: 0.6752192, latitude: 47.3651611, functionalRoadClass: 3, formOfWay: .roundabout),
      Expected(
        longitude: 0.6769992, latitude: 47.3696011, functionalRoadClass: 3,
        formOfWay: .multipleCarriageway),
    ], 0, 117.5 / 256
  ),
  (
    "CwcX6CItqAs6AQAAAAALGg==",
    [
      Expected(
        longitude: 9.9750602, latitude: 48.0632865, functionalRoadClass: 1,
        formOfWay: .singleCarriageway),
      Expected(
        longitude: 9.9750602, latitude: 48.0632865, functionalRoadClass: 1,
        formOfWay: .singleCarriageway),
    ], 0, 0
  ),
]

private let encodedVectors = [
  "CwRbWyNG9RpsCQCb/jsbtAT/6/+jK1lE", "CwB67CGukRxiCACyAbwaMXU=", "CwcX6CItqAs6AQAAAAALGg==",
  "CwRbWyNG9BpgAACa/jsboAD/6/+kKwA=", "I+djotZ9eA==", "IyVUdwmSoA==",
  "K/6P+SKSuBJGGAUn/1gSUyM=", "KwBVwSCh+RRXAf/i/9AUXP8=", "KwOg5iUNnCOTAv+D/5QjQ1j/gP/r",
]

@Suite struct OpenLRTests {
  private func expectClose(
    _ point: GeoCoordinates, latitude: Double, longitude: Double,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(abs(point.latitude - latitude) < 1e-7, sourceLocation: sourceLocation)
    #expect(abs(point.longitude - longitude) < 1e-7, sourceLocation: sourceLocation)
  }

  @Test(arguments: 0..<lineVectors.count)
  func decodesLineLocations(_ index: Int) throws {
    let (text, expected, positive, negative) = lineVectors[index]
    guard case .line(let line) = try OpenLR.decode(base64: text) else {
      Issue.record("not a line location")
      return
    }
    #expect(line.points.count == expected.count)
    for (point, want) in zip(line.points, expected) {
      expectClose(point.coordinates, latitude: want.latitude, longitude: want.longitude)
      #expect(point.functionalRoadClass == want.functionalRoadClass)
      #expect(point.formOfWay == want.formOfWay)
    }
    #expect(abs(line.positiveOffset - positive) < 1e-12)
    #expect(abs(line.negativeOffset - negative) < 1e-12)
  }

  /// The white paper example's attributes: bearings and distances are bucket midpoints.
  @Test func decodesTheWhitePaperAttributes() throws {
    guard case .line(let line) = try OpenLR.decode(base64: "CwRbWyNG9RpsCQCb/jsbtAT/6/+jK1lE")
    else {
      Issue.record("not a line location")
      return
    }
    #expect(line.points.map(\.bearingInDegrees) == [140.625, 230.625, 286.875])
    #expect(line.points.map(\.lowestFunctionalRoadClassToNext) == [3, 5, 7])
    #expect(abs(line.points[0].distanceToNextInMeters - 9.5 * 58.6) < 1e-9)
    #expect(abs(line.points[1].distanceToNextInMeters - 4.5 * 58.6) < 1e-9)
    #expect(line.points[2].distanceToNextInMeters == 0)
    let polyline = OpenLR.Location.line(line).approximatePolyline
    #expect(polyline.vertices == line.points.map(\.coordinates))
  }

  @Test func decodesGeoCoordinates() throws {
    // openlr-python: Coordinates(lon, lat) = (-34.6089398, -58.3732688), (52.4952185, 13.4616744).
    guard case .geoCoordinate(let south) = try OpenLR.decode(base64: "I+djotZ9eA==") else {
      Issue.record("not a geo-coordinate")
      return
    }
    expectClose(south, latitude: -58.3732688, longitude: -34.6089398)
    guard case .geoCoordinate(let north) = try OpenLR.decode(base64: "IyVUdwmSoA==") else {
      Issue.record("not a geo-coordinate")
      return
    }
    expectClose(north, latitude: 13.4616744, longitude: 52.4952185)
    #expect(
      try OpenLR.decode(base64: "IyVUdwmSoA==").approximatePolyline == GeoPolyline(point: north))
  }

  @Test func decodesPointAlongLineAndItsPosition() throws {
    let location = try OpenLR.decode(base64: "K/6P+SKSuBJGGAUn/1gSUyM=")
    guard case .pointAlongLine(let point) = location else {
      Issue.record("not a point along a line")
      return
    }
    expectClose(point.first.coordinates, latitude: 48.6184394, longitude: -2.0216238)
    expectClose(point.last.coordinates, latitude: 48.6167594, longitude: -2.0084338)
    #expect(point.first.functionalRoadClass == 2 && point.first.formOfWay == .multipleCarriageway)
    #expect(point.positiveOffset == 35.5 / 256)  // 0.138671875
    #expect(point.orientation == .unknown && point.sideOfRoad == .onRoadOrUnknown)
    // The point at the offset on the straight segment between the two LRPs.
    let position = try #require(location.approximatePolyline.vertices.first)
    expectClose(position, latitude: 48.61820643, longitude: -2.01979472)
  }

  @Test func decodesPOIWithAccessPoint() throws {
    guard
      case .poiWithAccessPoint(let point, let poi) = try OpenLR.decode(
        base64: "KwOg5iUNnCOTAv+D/5QjQ1j/gP/r")
    else {
      Issue.record("not a POI with access point")
      return
    }
    expectClose(point.first.coordinates, latitude: 52.1059978, longitude: 5.1025807)
    expectClose(poi, latitude: 52.1057878, longitude: 5.1013007)
    #expect(point.positiveOffset == 88.5 / 256)  // 0.34570312
  }

  /// Encoding a decoded reference gives back the reference implementation's bytes.
  @Test(arguments: encodedVectors)
  func encodingADecodedReferenceGivesTheSameBytes(_ text: String) throws {
    #expect(try OpenLR.encodeBase64(OpenLR.decode(base64: text)) == text)
  }

  @Test func acceptsURLSafeBase64AndWhiteSpace() throws {
    let standard = try OpenLR.decode(base64: "CwRbWyNG9RpsCQCb/jsbtAT/6/+jK1lE")
    #expect(try OpenLR.decode(base64: " CwRbWyNG9RpsCQCb_jsbtAT_6_-jK1lE\n") == standard)
  }

  @Test(arguments: [
    ("", malformed(0, "no data: the reference is empty")),
    (
      "CgRbWyNG9BpsCQCb/jsbtAT/6/+jK1kC",
      malformed(0, "version 2 is not supported; only version 3 is")
    ),
    ("ewGkNSK5Wg==", malformed(0, "header 0x7B names no location type")),
    ("AwOgxCUNmwEs", malformed(0, "circle locations are not supported")),
    ("QwOgcSUNGgGIAX8=", malformed(0, "rectangle and grid locations are not supported")),
    ("EwOgUCUNEwJFAH//yAEv/vIAxw==", malformed(0, "polygon locations are not supported")),
    ("WwOgrCUNaiOLBiMD", malformed(0, "closed line locations are not supported")),
    ("CwRbWyNG9Rps", malformed(9, "a line location needs at least 16 bytes, found 9")),
    ("IyVUdwmS", malformed(6, "a geo-coordinate location has 7 bytes, found 6")),
    ("Cw!b", malformed(2, "invalid base64 character '!'")),
    ("CwRb=x", malformed(5, "invalid base64: data after padding")),
    ("CwRbW", malformed(5, "invalid base64: the text ends inside a byte")),
  ])
  func refusesBadInput(_ text: String, _ error: GeoError) {
    #expect(throws: error) { try OpenLR.decode(base64: text) }
  }

  @Test func refusesOffsetFlagsThatDisagreeWithTheLength() throws {
    let bytes = try Base64.decode("CwRbWyNG9RpsCQCb/jsbtAT/6/+jK1lE")
    #expect(throws: malformed(23, "the offset flags announce 1 offset byte(s), the data has 0")) {
      try OpenLR.decode(Array(bytes.dropLast()))
    }
    #expect(
      throws: malformed(
        26, "26 bytes fit no line location (16 + 7 per intermediate point + up to 2 offsets)")
    ) {
      try OpenLR.decode(bytes + [0, 0])
    }
  }

  @Test func refusesCoordinatesOffTheGlobe() {
    #expect(
      throws: malformed(
        1, GeoError.invalidLatitude((8_388_607 - 0.5) * 360 / 16_777_216).description)
    ) {
      try OpenLR.decode([0x23, 0, 0, 0, 0x7F, 0xFF, 0xFF])
    }
  }

  @Test func encoderRefusesWhatTheFormatCannotHold() throws {
    let a = try GeoCoordinates(latitude: 52, longitude: 13)
    let far = try GeoCoordinates(latitude: 53, longitude: 13)
    let point = OpenLR.ReferencePoint(
      coordinates: a, functionalRoadClass: 2, formOfWay: .motorway, bearingInDegrees: 10,
      lowestFunctionalRoadClassToNext: 2, distanceToNextInMeters: 100)
    var last = point
    last.coordinates = far
    #expect(throws: malformed(nil, "a line location needs at least 2 reference points")) {
      try OpenLR.encode(.line(OpenLR.Line(points: [point])))
    }
    #expect(
      throws: malformed(
        nil, "reference point \(far) lies more than 0.32767 degrees from the previous one")
    ) {
      try OpenLR.encode(.line(OpenLR.Line(points: [point, last])))
    }
    var badClass = point
    badClass.functionalRoadClass = 8
    #expect(throws: malformed(nil, "functional road class 8 is outside 0...7")) {
      try OpenLR.encode(.line(OpenLR.Line(points: [badClass, point])))
    }
    #expect(throws: malformed(nil, "positive offset 1.0 is outside 0..<1")) {
      try OpenLR.encode(.line(OpenLR.Line(points: [point, point], positiveOffset: 1)))
    }
  }
}
