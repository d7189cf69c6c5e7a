import Foundation
import Testing

@testable import Geo

@Suite struct GeoCorridorTests {
  private static func place(_ latitude: Double, _ longitude: Double) throws -> GeoCoordinates {
    try GeoCoordinates(latitude: latitude, longitude: longitude)
  }

  @Test func validatesVerticesAndHalfWidth() throws {
    #expect(throws: GeoError.tooFewVertices(1)) {
      try GeoCorridor(polyline: [try Self.place(0, 0)])
    }
    #expect(throws: GeoError.tooFewVertices(0)) { try GeoCorridor(polyline: []) }
    let line = [try Self.place(0, 0), try Self.place(0, 0.01)]
    #expect(throws: GeoError.invalidDistance(name: "half width", value: -1)) {
      try GeoCorridor(polyline: line, halfWidthInMeters: -1)
    }
    #expect(throws: GeoError.invalidDistance(name: "half width", value: .infinity)) {
      try GeoCorridor(polyline: line, halfWidthInMeters: .infinity)
    }
    let corridor = try GeoCorridor(polyline: line)
    #expect(corridor.halfWidthInMeters == 30)
    #expect(corridor.polyline == line)
    #expect(corridor.path.vertices == line)
  }

  @Test func containsPointsWithinTheHalfWidthOfASegment() throws {
    // 1.1 km along the equator with the default 30 m half width; points beside its middle
    // are 20 and 40 m off, far from either vertex.
    let start = try Self.place(0, 0), end = try Self.place(0, 0.01)
    let corridor = try GeoCorridor(polyline: [start, end])
    let middle = try Self.place(0, 0.005)
    #expect(corridor.contains(middle.destination(bearing: 0, distanceInMeters: 20)))
    #expect(corridor.contains(middle.destination(bearing: 180, distanceInMeters: 20)))
    #expect(!corridor.contains(middle.destination(bearing: 0, distanceInMeters: 40)))
    #expect(corridor.contains(start.destination(bearing: 270, distanceInMeters: 25)))
    #expect(!corridor.contains(start.destination(bearing: 270, distanceInMeters: 35)))
    #expect(!corridor.contains(end.destination(bearing: 45, distanceInMeters: 35)))
  }

  @Test func boundingBoxHoldsTheWholeCorridor() throws {
    let line = [
      try Self.place(52.5, 13.3), try Self.place(52.52, 13.35), try Self.place(52.49, 13.4),
    ]
    let corridor = try GeoCorridor(polyline: line, halfWidthInMeters: 500)
    let box = corridor.boundingBox
    for vertex in line {
      for bearing in stride(from: 0.0, to: 360, by: 15) {
        let edge = vertex.destination(bearing: bearing, distanceInMeters: 499)
        #expect(box.contains(edge), "\(edge)")
      }
    }
    // Not wildly larger than the path's box grown by the half width.
    let pathBox = corridor.path.boundingBox
    #expect(box.north - pathBox.north < 0.006)
    #expect(box.west > pathBox.west - 0.009)
  }

  @Test func boundingBoxAcrossTheAntimeridian() throws {
    let corridor = try GeoCorridor(
      polyline: [try Self.place(-16, 179.9), try Self.place(-17, -179.9)], halfWidthInMeters: 1_000)
    let box = corridor.boundingBox
    #expect(box.crossesAntimeridian)
    #expect(box.contains(try Self.place(-16.5, 180)))
    #expect(
      box.contains(try Self.place(-16, 179.9).destination(bearing: 270, distanceInMeters: 990)))
    #expect(!box.contains(try Self.place(-16.5, 0)))
  }

  @Test func areasAnswerThroughTheProtocol() throws {
    let line = try GeoPolyline(vertices: [try Self.place(0, -0.01), try Self.place(0, 0.01)])
    let center = try Self.place(0, 0)
    let areas: [any GeoArea] = [
      try GeoCircle(center: center, radiusInMeters: 50),
      try GeoBox(west: -0.001, south: -0.001, east: 0.001, north: 0.001),
      try GeoCorridor(polyline: [try Self.place(-0.01, 0), try Self.place(0.01, 0)]),
    ]
    for area in areas {
      #expect(area.contains(center))
      #expect(area.intersects(line))
      #expect(area.boundingBox.contains(center))
      #expect(!area.contains(try Self.place(0.1, 0.1)))
    }
  }
}

/// `GeoCircle` lives in the same file as `GeoCorridor` (Sources/Geo/Model/GeoCircle.swift).
@Suite struct GeoCircleAreaTests {
  private static func place(_ latitude: Double, _ longitude: Double) throws -> GeoCoordinates {
    try GeoCoordinates(latitude: latitude, longitude: longitude)
  }

  @Test func validatesRadius() throws {
    let center = try Self.place(1, 2)
    #expect(throws: GeoError.invalidDistance(name: "radius", value: -0.1)) {
      try GeoCircle(center: center, radiusInMeters: -0.1)
    }
    let error = #expect(throws: GeoError.self) {
      try GeoCircle(center: center, radiusInMeters: .nan)
    }
    guard case .invalidDistance(name: "radius", _) = error else {
      Issue.record("expected invalidDistance, got \(String(describing: error))")
      return
    }
    let point = try GeoCircle(center: center, radiusInMeters: 0)
    #expect(point.contains(center))
    #expect(point.description == "1.0,2.0;r=0.0")
  }

  @Test func containsByGeodesicDistance() throws {
    let center = try Self.place(48.1, 11.6)
    let circle = try GeoCircle(center: center, radiusInMeters: 1_000)
    for bearing in stride(from: 0.0, to: 360, by: 30) {
      #expect(circle.contains(center.destination(bearing: bearing, distanceInMeters: 990)))
      #expect(!circle.contains(center.destination(bearing: bearing, distanceInMeters: 1_010)))
    }
  }

  @Test func boundingBoxHoldsTheCircle() throws {
    for (latitude, longitude) in [(0.0, 0.0), (60.0, 10.0), (-75.0, 179.99), (89.99, 0.0)] {
      let center = try Self.place(latitude, longitude)
      let circle = try GeoCircle(center: center, radiusInMeters: 2_000)
      let box = circle.boundingBox
      for bearing in stride(from: 0.0, to: 360, by: 10) {
        let edge = center.destination(bearing: bearing, distanceInMeters: 1_999)
        #expect(box.contains(edge), "\(edge) for \(center)")
      }
    }
    let antimeridian = try GeoCircle(center: try Self.place(0, 180), radiusInMeters: 1_000)
    #expect(antimeridian.boundingBox.crossesAntimeridian)
    let pole = try GeoCircle(center: try Self.place(89.99, 0), radiusInMeters: 2_000)
    #expect(pole.boundingBox.west == -180 && pole.boundingBox.east == 180)
  }
}
