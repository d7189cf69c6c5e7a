import Foundation
import Testing

@testable import Geo

@Suite struct GeoPolylineTests {
  private static func place(
    _ latitude: Double, _ longitude: Double, _ altitude: Double? = nil
  )
    throws -> GeoCoordinates
  {
    try GeoCoordinates(latitude: latitude, longitude: longitude, altitude: altitude)
  }

  @Test func rejectsTooFewVertices() throws {
    #expect(throws: GeoError.tooFewVertices(0)) { try GeoPolyline(vertices: []) }
    #expect(throws: GeoError.tooFewVertices(1)) {
      try GeoPolyline(vertices: [try Self.place(1, 2)])
    }
    let two = try GeoPolyline(vertices: [try Self.place(1, 2), try Self.place(1, 2)])
    #expect(two.vertices.count == 2)
  }

  @Test func pointIsAZeroLengthPolyline() throws {
    let here = try Self.place(48.1, 11.6)
    let point = GeoPolyline(point: here)
    #expect(point.vertices == [here, here])
    #expect(point.lengthInMeters == 0)
    #expect(point.coordinates(atDistance: 10) == here)
    #expect(point.boundingBox == (try GeoBox(southWestCorner: here, northEastCorner: here)))
  }

  @Test func lengthIsTheSumOfSegmentDistances() throws {
    let vertices = [try Self.place(0, 0), try Self.place(0, 1), try Self.place(1, 1)]
    let line = try GeoPolyline(vertices: vertices)
    let expected = vertices[0].distance(to: vertices[1]) + vertices[1].distance(to: vertices[2])
    #expect(abs(line.lengthInMeters - expected) < 1e-6)
    // One degree along the equator and one along a meridian: 111.3 km and 110.6 km on
    // WGS84, 111.2 km each on a sphere of the mean radius; about 222 km either way.
    #expect(abs(line.lengthInMeters - 221_900) < 221_900 * 0.005)
  }

  @Test func coordinatesAtDistanceStaysOnThePath() throws {
    // Two meridian segments and one along the equator.
    let vertices = [try Self.place(-0.02, 10), try Self.place(0, 10), try Self.place(0, 10.03)]
    let line = try GeoPolyline(vertices: vertices)
    let first = vertices[0].distance(to: vertices[1])
    let second = vertices[1].distance(to: vertices[2])

    #expect(line.coordinates(atDistance: -5) == vertices[0])
    #expect(line.coordinates(atDistance: 0) == vertices[0])
    #expect(line.coordinates(atDistance: first + second + 1) == vertices[2])

    let onMeridian = line.coordinates(atDistance: 1_000)
    #expect(abs(onMeridian.longitude - 10) < 1e-9)
    #expect(abs(vertices[0].distance(to: onMeridian) - 1_000) < 1e-6)

    let corner = line.coordinates(atDistance: first)
    #expect(corner.distance(to: vertices[1]) < 1e-6)

    let onEquator = line.coordinates(atDistance: first + 500)
    #expect(abs(onEquator.latitude) < 1e-9)
    #expect(abs(vertices[1].distance(to: onEquator) - 500) < 1e-6)
    #expect(onEquator.longitude > 10 && onEquator.longitude < 10.03)
  }

  @Test func coordinatesAtDistanceInterpolatesAltitude() throws {
    let line = try GeoPolyline(vertices: [try Self.place(0, 0, 100), try Self.place(0, 0.01, 200)])
    let quarter = line.coordinates(atDistance: line.lengthInMeters / 4)
    #expect(abs((quarter.altitude ?? .nan) - 125) < 1e-9)
    let mixed = try GeoPolyline(vertices: [try Self.place(0, 0, 100), try Self.place(0, 0.01)])
    #expect(mixed.coordinates(atDistance: mixed.lengthInMeters / 2).altitude == nil)
  }

  @Test func coordinatesAtDistanceAcrossTheAntimeridian() throws {
    let line = try GeoPolyline(vertices: [try Self.place(0, 179.99), try Self.place(0, -179.99)])
    let middle = line.coordinates(atDistance: line.lengthInMeters / 2)
    #expect(abs(abs(middle.longitude) - 180) < 1e-9)
    #expect(line.lengthInMeters < 2_300)  // the short way, 0.02 degrees
  }

  @Test func boundingBoxAcrossTheAntimeridian() throws {
    let line = try GeoPolyline(vertices: [
      try Self.place(10, 175), try Self.place(12, -175), try Self.place(11, -170),
    ])
    let box = line.boundingBox
    #expect(box.crossesAntimeridian)
    #expect(box == (try GeoBox(west: 175, south: 10, east: -170, north: 12)))
    for vertex in line.vertices { #expect(box.contains(vertex)) }
    let plain = try GeoPolyline(vertices: [try Self.place(1, 2), try Self.place(-1, 5)])
    #expect(plain.boundingBox == (try GeoBox(west: 2, south: -1, east: 5, north: 1)))
  }
}
