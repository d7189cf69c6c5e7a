import Codec
import Foundation
import Testing
import Traffic

@Suite struct V7AreaQueryTests {
  @Test func parsesCircles() throws {
    let area = try V7AreaQuery.decode("circle:52.5,13.4;r=500", limits: .here)
    let circle = try #require(area as? GeoCircle)
    #expect(circle.center.latitude == 52.5)
    #expect(circle.center.longitude == 13.4)
    #expect(circle.radiusInMeters == 500)
  }

  @Test func parsesBoxesAcrossTheAntimeridian() throws {
    let area = try V7AreaQuery.decode("bbox:179.5,-16.5,-179.8,-16", limits: .here)
    let box = try #require(area as? GeoBox)
    #expect(box.southWestCorner.longitude == 179.5)
    #expect(box.northEastCorner.longitude == -179.8)
    #expect(box.southWestCorner.latitude == -16.5)
  }

  @Test func parsesCorridors() throws {
    let points = [
      try GeoCoordinates(latitude: 52.5, longitude: 13.4),
      try GeoCoordinates(latitude: 52.51, longitude: 13.41),
    ]
    let encoded = try FlexiblePolyline.encode(points)
    let area = try V7AreaQuery.decode("corridor:\(encoded);r=100", limits: .here)
    let corridor = try #require(area as? GeoCorridor)
    #expect(corridor.polyline == points)
    #expect(corridor.halfWidthInMeters == 100)
  }

  /// Bad `in` values and the error case each must give.
  static let badValues: [(String, String)] = [
    ("", "invalidIn"),
    ("circle", "invalidIn"),
    ("square:1,2;r=3", "invalidIn"),
    ("circle:52.5,13.4", "invalidIn"),
    ("circle:52.5,13.4;r=", "invalidIn"),
    ("circle:52.5,13.4;r=abc", "invalidIn"),
    ("circle:52.5,13.4;r=500;r=600", "invalidIn"),
    ("circle:52.5;r=500", "invalidIn"),
    ("circle:52.5,13.4,7;r=500", "invalidIn"),
    ("circle:nan,13.4;r=500", "invalidIn"),
    ("circle:inf,13.4;r=500", "invalidIn"),
    ("circle:0x10,13.4;r=500", "invalidIn"),
    ("circle:91,13.4;r=500", "invalidGeometry"),
    ("circle:52.5,181;r=500", "invalidGeometry"),
    ("circle:52.5,13.4;r=-1", "invalidGeometry"),
    ("circle:52.5,13.4;r=50001", "invalidGeometry"),
    ("circle:52.5,13.4;r=1e400", "invalidIn"),
    ("bbox:13,52,14", "invalidIn"),
    ("bbox:13,52,14,53,54", "invalidIn"),
    ("bbox:13,53,14,52", "invalidGeometry"),
    ("bbox:13,52,15,53", "invalidGeometry"),
    ("bbox:13,52,13.5,91", "invalidGeometry"),
    ("corridor:;r=10", "invalidIn"),
    ("corridor:!!!;r=10", "invalidIn"),
    ("corridor:BFoz5xJ67i1B1B7PzIhaxL7Y", "invalidIn"),
    ("corridor:BFoz5xJ67i1B1B7PzIhaxL7Y;r=5001", "invalidGeometry"),
  ]

  @Test(arguments: badValues)
  func refusesBadValuesNamingIn(value: String, code: String) {
    do {
      _ = try V7AreaQuery.decode(value, limits: .here)
      Issue.record("accepted \(value)")
    } catch {
      #expect(error.name == code, "\(value): \(error)")
      #expect(error.detail?.hasPrefix("in") == true, "\(value): \(error)")
    }
  }

  /// HERE's limits hold exactly: the limit itself passes, the least step beyond fails.
  @Test func limitsHoldAtTheirExactBoundaries() throws {
    func code(_ value: String) -> String? {
      do {
        _ = try V7AreaQuery.decode(value, limits: .here)
        return nil
      } catch {
        return error.name
      }
    }
    #expect(code("circle:52.5,13.4;r=50000") == nil)
    #expect(code("circle:52.5,13.4;r=50000.001") == "invalidGeometry")
    #expect(code("bbox:13,52,14,53") == nil)
    #expect(code("bbox:13,52,14.0000001,53") == "invalidGeometry")
    #expect(code("bbox:13,52,14,53.0000001") == "invalidGeometry")
    #expect(code("bbox:179.5,0,-179.5,1") == nil)
    #expect(code("bbox:179.5,0,-179.4,1") == "invalidGeometry")
    func line(_ count: Int) throws -> String {
      try FlexiblePolyline.encode(
        (0..<count).map { try GeoCoordinates(latitude: 47 + Double($0) * 0.001, longitude: 9) })
    }
    #expect(code("corridor:\(try line(300));r=5000") == nil)
    #expect(code("corridor:\(try line(301));r=10") == "invalidGeometry")
    #expect(code("corridor:\(try line(2));r=5000.01") == "invalidGeometry")
    // Along the equator the length grows linearly with the longitude.
    let probe = try GeoCorridor(
      polyline: [
        try GeoCoordinates(latitude: 0, longitude: 0),
        try GeoCoordinates(latitude: 0, longitude: 4),
      ], halfWidthInMeters: 10)
    let degrees = 4 * 500_000 / probe.path.lengthInMeters
    func equator(_ longitude: Double) throws -> String {
      try FlexiblePolyline.encode(
        [
          try GeoCoordinates(latitude: 0, longitude: 0),
          try GeoCoordinates(latitude: 0, longitude: longitude),
        ], precision: 7)
    }
    #expect(code("corridor:\(try equator(degrees - 2e-6));r=10") == nil)
    let tooLong = "corridor:\(try equator(degrees + 2e-6));r=10"
    do {
      _ = try V7AreaQuery.decode(tooLong, limits: .here)
      Issue.record("a corridor longer than 500 km passed")
    } catch {
      #expect(error.name == "invalidGeometry")
      #expect(
        error.detail == "in: corridor length 500000.3 m exceeds the limit of 500000.0 m",
        "\(error)")
    }
  }

  @Test func refusesCorridorsBeyondThePointLimitBeforeBuildingThem() throws {
    let points = try (0..<10_000).map {
      try GeoCoordinates(latitude: 52 + Double($0) * 1e-5, longitude: 13)
    }
    let encoded = try FlexiblePolyline.encode(points)
    #expect(throws: TrafficQueryError.self) {
      try V7AreaQuery.decode("corridor:\(encoded);r=10", limits: .here)
    }
    do {
      _ = try V7AreaQuery.decode("corridor:\(encoded);r=10", limits: .here)
    } catch {
      #expect(error.name == "invalidGeometry")
      #expect(error.detail?.contains("10000 points") == true)
    }
  }

  @Test func convertsJSONAreasToTheTextForm() throws {
    func text(_ json: String) throws -> String {
      guard case .object(let members) = try JSONParser.parse(Data(json.utf8)) else {
        throw TrafficQueryError.badRequest("not an object")
      }
      return try V7AreaQuery.text(fromJSON: members)
    }
    #expect(
      try text(#"{"type":"circle","center":{"lat":52.5,"lng":13.4},"radius":500}"#)
        == "circle:52.5,13.4;r=500")
    #expect(
      try text(#"{"type":"bbox","west":13,"south":52,"east":13.5,"north":52.4}"#)
        == "bbox:13,52,13.5,52.4")
    #expect(try text(#"{"type":"corridor","corridor":"BFoz","radius":20}"#) == "corridor:BFoz;r=20")
    #expect(throws: TrafficQueryError.invalidIn("in.center.lat must be a number")) {
      try text(#"{"type":"circle","center":{"lat":"52","lng":13.4},"radius":500}"#)
    }
    #expect(throws: TrafficQueryError.self) { try text(#"{"type":"hexagon"}"#) }
  }
}
