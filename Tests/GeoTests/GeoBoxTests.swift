import Foundation
import Testing
import TrafficTestSupport

@testable import Geo

@Suite struct GeoBoxTests {
  private static func place(_ latitude: Double, _ longitude: Double) throws -> GeoCoordinates {
    try GeoCoordinates(latitude: latitude, longitude: longitude)
  }

  // MARK: - Construction

  @Test func rejectsSouthOfNorth() {
    #expect(throws: GeoError.invalidBox(south: 10, north: 5)) {
      try GeoBox(west: 0, south: 10, east: 1, north: 5)
    }
    #expect(throws: GeoError.invalidLatitude(-91)) {
      try GeoBox(west: 0, south: -91, east: 1, north: 5)
    }
    #expect(throws: GeoError.invalidLongitude(181)) {
      try GeoBox(west: 0, south: 0, east: 181, north: 5)
    }
  }

  @Test func edgesAndExtent() throws {
    let box = try GeoBox(west: 13, south: 52, east: 14.5, north: 53)
    #expect(box.west == 13 && box.south == 52 && box.east == 14.5 && box.north == 53)
    #expect(box.southWestCorner == (try Self.place(52, 13)))
    #expect(box.northEastCorner == (try Self.place(53, 14.5)))
    #expect(!box.crossesAntimeridian)
    #expect(box.widthInDegrees == 1.5)
    #expect(box.heightInDegrees == 1)
    #expect(box.center == (try Self.place(52.5, 13.75)))
    #expect(box.description == "13.0,52.0,14.5,53.0")
    // A degenerate box (one point) is valid.
    let point = try GeoBox(west: 1, south: 2, east: 1, north: 2)
    #expect(point.widthInDegrees == 0)
    #expect(point.contains(try Self.place(2, 1)))
  }

  @Test func extentAcrossTheAntimeridian() throws {
    let box = try GeoBox(west: 170, south: -10, east: -160, north: 10)
    #expect(box.crossesAntimeridian)
    #expect(box.widthInDegrees == 30)
    #expect(box.center.latitude == 0)
    #expect(box.center.longitude == -175)
    let centered = try GeoBox(west: 175, south: 0, east: -175, north: 1)
    #expect(centered.center.longitude == 180 || centered.center.longitude == -180)
  }

  // MARK: - Containment

  @Test func containsIncludesEdges() throws {
    let box = try GeoBox(west: 13, south: 52, east: 14, north: 53)
    for (latitude, longitude) in [(52.5, 13.5), (52, 13), (53, 14), (52, 14), (53, 13.5)] {
      #expect(box.contains(try Self.place(latitude, longitude)), "\(latitude),\(longitude)")
    }
    for (latitude, longitude) in [(51.999, 13.5), (53.001, 13.5), (52.5, 12.999), (52.5, 14.001)] {
      #expect(!box.contains(try Self.place(latitude, longitude)), "\(latitude),\(longitude)")
    }
  }

  @Test func containsAcrossTheAntimeridian() throws {
    let box = try GeoBox(west: 170, south: -10, east: -170, north: 10)
    for longitude in [170.0, 175, 180, -180, -175, -170] {
      #expect(box.contains(try Self.place(0, longitude)), "\(longitude)")
    }
    for longitude in [169.9, -169.9, 0, 90, -90] {
      #expect(!box.contains(try Self.place(0, longitude)), "\(longitude)")
    }
    #expect(!box.contains(try Self.place(10.5, 180)))
  }

  @Test func theMeridians180AndMinus180AreOne() throws {
    let west = try GeoBox(west: 170, south: 0, east: 180, north: 1)
    let east = try GeoBox(west: -180, south: 0, east: -170, north: 1)
    #expect(west.contains(try Self.place(0.5, -180)))
    #expect(east.contains(try Self.place(0.5, 180)))
    #expect(!west.contains(try Self.place(0.5, -179.999)))
    #expect(west.intersects(east) && east.intersects(west))
    #expect(!west.intersects(try GeoBox(west: -179.999, south: 0, east: -170, north: 1)))
  }

  // MARK: - Intersection

  @Test func intersectsOtherBoxes() throws {
    let box = try GeoBox(west: 0, south: 0, east: 10, north: 10)
    let cases: [(GeoBox, Bool)] = [
      (try GeoBox(west: 5, south: 5, east: 15, north: 15), true),
      (try GeoBox(west: 2, south: 2, east: 3, north: 3), true),  // inside
      (try GeoBox(west: -5, south: -5, east: 15, north: 15), true),  // around
      (try GeoBox(west: 10, south: 10, east: 11, north: 11), true),  // touching corner
      (try GeoBox(west: 10.001, south: 0, east: 11, north: 10), false),
      (try GeoBox(west: 0, south: 10.001, east: 10, north: 11), false),
      (try GeoBox(west: 2, south: -20, east: 3, north: -0.001), false),
      // Across the antimeridian: covers 170...180 and -180...5.
      (try GeoBox(west: 170, south: 1, east: 5, north: 2), true),
      (try GeoBox(west: 170, south: 1, east: -1, north: 2), false),
      (try GeoBox(west: 5, south: 1, east: 1, north: 2), true),  // all but 1...5
    ]
    for (other, expected) in cases {
      #expect(box.intersects(other) == expected, "\(other)")
      #expect(other.intersects(box) == expected, "\(other) reversed")
    }
  }

  @Test func boxesAcrossTheAntimeridianIntersect() throws {
    let a = try GeoBox(west: 170, south: 0, east: -170, north: 10)
    let b = try GeoBox(west: 175, south: 5, east: -100, north: 20)
    #expect(a.intersects(b) && b.intersects(a))
    #expect(a.intersects(try GeoBox(west: -175, south: 0, east: -172, north: 1)))
    #expect(a.intersects(try GeoBox(west: 171, south: 0, east: 172, north: 1)))
    #expect(!a.intersects(try GeoBox(west: -169, south: 0, east: 169, north: 1)))
    #expect(!a.intersects(try GeoBox(west: 175, south: 11, east: -175, north: 12)))
  }

  // MARK: - Enclosing

  @Test func enclosingPoints() throws {
    #expect(GeoBox.enclosing([GeoCoordinates]()) == nil)
    let single = try #require(GeoBox.enclosing([try Self.place(1, 2)]))
    #expect(single == (try GeoBox(west: 2, south: 1, east: 2, north: 1)))
    let box = try #require(
      GeoBox.enclosing([try Self.place(1, 2), try Self.place(-3, 8), try Self.place(4, 5)]))
    #expect(box == (try GeoBox(west: 2, south: -3, east: 8, north: 4)))
  }

  @Test func enclosingTakesTheShortWayAcrossTheAntimeridian() throws {
    let points = [try Self.place(0, 170), try Self.place(5, -170), try Self.place(-2, 179)]
    let box = try #require(GeoBox.enclosing(points))
    #expect(box == (try GeoBox(west: 170, south: -2, east: -170, north: 5)))
    #expect(box.crossesAntimeridian)
    for point in points { #expect(box.contains(point)) }
  }

  @Test func enclosingAPathRoundTheWorldCoversEveryLongitude() throws {
    let lap = try stride(from: 0.0, through: 360, by: 90).map {
      try Self.place(10, GeoCoordinates.wrappedLongitude($0))
    }
    let box = try #require(GeoBox.enclosing(lap))
    #expect(box.west == -180 && box.east == 180)
    #expect(box.widthInDegrees == 360)
  }

  @Test func enclosingHoldsPointsOnEitherSideOfTheMeridian180() throws {
    // -180 and 180 are the same meridian; the box must hold the points whichever is used.
    for longitudes in [[-180.0, 179], [179, -180], [180, -179], [-179, 180], [-180, 180]] {
      let points = try longitudes.map { try Self.place(1, $0) }
      let box = try #require(GeoBox.enclosing(points))
      #expect(box.widthInDegrees <= 1, "\(longitudes): \(box)")
      for point in points { #expect(box.contains(point), "\(longitudes): \(box)") }
    }
  }

  @Test func enclosingSeededRandomPaths() throws {
    var generator = SeededGenerator(seed: 4)
    for _ in 0..<200 {
      // A walk of short steps that may cross the antimeridian.
      var longitude = Double.random(in: -180...180, using: &generator)
      var points: [GeoCoordinates] = []
      for _ in 0..<Int.random(in: 1...8, using: &generator) {
        longitude = GeoCoordinates.wrappedLongitude(
          longitude + Double.random(in: -20...20, using: &generator))
        points.append(
          try Self.place(Double.random(in: -80...80, using: &generator), longitude))
      }
      let box = try #require(GeoBox.enclosing(points))
      for point in points { #expect(box.contains(point), "\(point) in \(box)") }
      #expect(box.widthInDegrees <= 20 * Double(points.count - 1) + 1e-9)
      #expect(box.south == points.map(\.latitude).min())
      #expect(box.north == points.map(\.latitude).max())
    }
  }

  // MARK: - Expansion

  @Test func expandedRejectsBadDistances() throws {
    let box = try GeoBox(west: 0, south: 0, east: 1, north: 1)
    #expect(throws: GeoError.invalidDistance(name: "expansion", value: -1)) {
      try box.expanded(byMeters: -1)
    }
    #expect(throws: GeoError.invalidDistance(name: "expansion", value: .infinity)) {
      try box.expanded(byMeters: .infinity)
    }
    #expect(try box.expanded(byMeters: 0).contains(box.center))
  }

  @Test func expandedHoldsPointsWithinTheDistance() throws {
    let box = try GeoBox(west: 13.3, south: 52.5, east: 13.31, north: 52.51)
    let meters = 1_000.0
    let expanded = try box.expanded(byMeters: meters)
    let edges: [(GeoCoordinates, Double)] = [
      (try Self.place(52.51, 13.305), 0), (try Self.place(52.505, 13.31), 90),
      (try Self.place(52.5, 13.305), 180), (try Self.place(52.505, 13.3), 270),
      (box.northEastCorner, 45), (box.southWestCorner, 225),
    ]
    for (edge, bearing) in edges {
      let inside = edge.destination(bearing: bearing, distanceInMeters: meters * 0.99)
      #expect(inside.distance(to: edge) < meters)
      #expect(expanded.contains(inside), "\(inside) at \(bearing)")
      if bearing.truncatingRemainder(dividingBy: 90) == 0 {
        // Not much more than asked for, straight out from an edge.
        let outside = edge.destination(bearing: bearing, distanceInMeters: meters * 1.1)
        #expect(!expanded.contains(outside), "\(outside) at \(bearing)")
      }
    }
  }

  @Test func expandedWrapsAcrossTheAntimeridianAndAtThePoles() throws {
    let east = try GeoBox(west: 179.99, south: 0, east: 179.999, north: 0.01)
    let grown = try east.expanded(byMeters: 5_000)
    #expect(grown.crossesAntimeridian)
    #expect(grown.contains(try Self.place(0.005, -179.98)))
    #expect(grown.contains(try Self.place(0.005, 179.96)))
    #expect(!grown.contains(try Self.place(0.005, 0)))

    let polar = try GeoBox(west: 10, south: 89.95, east: 11, north: 89.99)
    let cap = try polar.expanded(byMeters: 10_000)
    #expect(cap.west == -180 && cap.east == 180 && cap.north == 90)

    let huge = try GeoBox(west: 0, south: 0, east: 1, north: 1).expanded(byMeters: 30_000_000)
    #expect(huge.west == -180 && huge.east == 180 && huge.south == -90 && huge.north == 90)
  }

  // MARK: - Codable

  @Test func codableRoundTripAndValidation() throws {
    let box = try GeoBox(west: 170, south: -10, east: -170, north: 10)
    let data = try JSONEncoder().encode(box)
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Double]
    #expect(object == ["west": 170, "south": -10, "east": -170, "north": 10])
    #expect(try JSONDecoder().decode(GeoBox.self, from: data) == box)
    let bad = Data(#"{"west": 0, "south": 5, "east": 1, "north": 4}"#.utf8)
    #expect(throws: GeoError.invalidBox(south: 5, north: 4)) {
      try JSONDecoder().decode(GeoBox.self, from: bad)
    }
  }
}
