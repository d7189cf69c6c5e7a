import Foundation
import Testing
import TrafficTestSupport

@testable import Geo

@Suite struct GeoPolylineClosestPointTests {
  private static func place(_ latitude: Double, _ longitude: Double) throws -> GeoCoordinates {
    try GeoCoordinates(latitude: latitude, longitude: longitude)
  }

  /// The smallest distance from `point` to points every `step` meters along the path: an
  /// upper bound on the true distance that exceeds it by at most step / 2 (plus the
  /// curvature of a geodesic over half a step, far below a millimetre).
  private static func denseDistance(
    from point: GeoCoordinates, to line: GeoPolyline, step: Double
  ) -> (distance: Double, along: Double) {
    let length = line.lengthInMeters
    var best = (distance: Double.infinity, along: 0.0)
    var along = 0.0
    while true {
      let distance = point.distance(to: line.coordinates(atDistance: along))
      if distance < best.distance { best = (distance, along) }
      if along >= length { break }
      along = min(length, along + step)
    }
    return best
  }

  @Test func pointBesideTheMiddleOfALongSegment() throws {
    // 111 km along the equator; the point lies 0.001 degrees (about 110 m) north of its
    // middle, some 55 km from either vertex.
    let line = try GeoPolyline(vertices: [try Self.place(0, 0), try Self.place(0, 1)])
    let point = try Self.place(0.001, 0.5)
    let closest = line.closestPoint(to: point)
    let foot = try Self.place(0, 0.5)
    #expect(abs(closest.distanceInMeters - point.distance(to: foot)) < 0.01)
    #expect(closest.distanceInMeters < 112)
    #expect(closest.coordinates.distance(to: foot) < 0.01)
    #expect(closest.segmentIndex == 0)
    #expect(abs(closest.distanceAlongInMeters - line.lengthInMeters / 2) < 0.01)
    #expect(line.distance(to: point) == closest.distanceInMeters)
    // Nearer than either vertex by far: a vertex-only search would report 55 km.
    #expect(closest.distanceInMeters * 100 < point.distance(to: line.vertices[0]))
  }

  @Test func picksTheNearestSegmentAndMeasuresAlongThePath() throws {
    // An L: north along the meridian 10 for 0.01 degrees, then east.
    let vertices = [try Self.place(0, 10), try Self.place(0.01, 10), try Self.place(0.01, 10.01)]
    let line = try GeoPolyline(vertices: vertices)
    let first = vertices[0].distance(to: vertices[1])
    let point = try Self.place(0.0105, 10.005)  // just north of the second segment's middle
    let closest = line.closestPoint(to: point)
    #expect(closest.segmentIndex == 1)
    let foot = try Self.place(0.01, 10.005)
    #expect(closest.coordinates.distance(to: foot) < 0.05)
    #expect(abs(closest.distanceAlongInMeters - (first + vertices[1].distance(to: foot))) < 0.05)
    #expect(abs(closest.distanceInMeters - point.distance(to: foot)) < 0.05)
  }

  @Test func beyondTheEndsTheVerticesAreNearest() throws {
    let vertices = [try Self.place(0, 10), try Self.place(0, 10.01)]
    let line = try GeoPolyline(vertices: vertices)
    let before = try Self.place(0.001, 9.99)
    let after = try Self.place(-0.002, 10.02)
    #expect(line.closestPoint(to: before).coordinates.distance(to: vertices[0]) < 1e-6)
    #expect(line.closestPoint(to: before).distanceAlongInMeters < 1e-6)
    #expect(
      abs(line.closestPoint(to: after).distanceInMeters - after.distance(to: vertices[1])) < 1e-6)
    #expect(abs(line.closestPoint(to: after).distanceAlongInMeters - line.lengthInMeters) < 1e-6)
  }

  @Test func aPointOnThePathIsAtDistanceZero() throws {
    let line = try GeoPolyline(vertices: [
      try Self.place(52.5, 13.3), try Self.place(52.51, 13.32), try Self.place(52.5, 13.35),
    ])
    #expect(line.distance(to: line.vertices[1]) < 1e-6)
    // The nearest parameter on segments up to 5 km comes from a flat local frame, whose
    // meridian convergence places it a few centimetres along the segment from the true one
    // (2.5 cm here, 1.2 km into a 1.8 km segment at 52.5 degrees).
    let onPath = line.coordinates(atDistance: 1_234)
    #expect(line.distance(to: onPath) < 0.05)
    #expect(abs(line.closestPoint(to: onPath).distanceAlongInMeters - 1_234) < 0.05)
    // A zero-length polyline measures to its one point.
    let here = try Self.place(52.5, 13.3)
    let elsewhere = try Self.place(52.6, 13.3)
    #expect(GeoPolyline(point: here).distance(to: elsewhere) == here.distance(to: elsewhere))
  }

  @Test func acrossTheAntimeridian() throws {
    let line = try GeoPolyline(vertices: [try Self.place(0, 179.99), try Self.place(0, -179.99)])
    let point = try Self.place(0.001, 180)
    let closest = line.closestPoint(to: point)
    #expect(closest.distanceInMeters < 112)
    #expect(abs(abs(closest.coordinates.longitude) - 180) < 1e-6)
  }

  @Test func seededRandomShortPathsAgainstDensePoints() throws {
    var generator = SeededGenerator(seed: 11)
    for _ in 0..<40 {
      let start = try Self.place(
        Double.random(in: -70...70, using: &generator),
        Double.random(in: -180...180, using: &generator))
      var vertices = [start]
      for _ in 0..<Int.random(in: 1...3, using: &generator) {
        let last = vertices[vertices.count - 1]
        vertices.append(
          last.destination(
            bearing: Double.random(in: 0..<360, using: &generator),
            distanceInMeters: Double.random(in: 50...600, using: &generator)))
      }
      let line = try GeoPolyline(vertices: vertices)
      let point = start.destination(
        bearing: Double.random(in: 0..<360, using: &generator),
        distanceInMeters: Double.random(in: 0...800, using: &generator))
      let dense = Self.denseDistance(from: point, to: line, step: 1)
      let closest = line.closestPoint(to: point)
      // Sampling every metre overestimates by at most 0.5 m; the flat-frame parameter on
      // these sub-kilometre segments costs at most a centimetre (see
      // `aPointOnThePathIsAtDistanceZero`).
      #expect(closest.distanceInMeters <= dense.distance + 0.01, "\(vertices) \(point)")
      #expect(closest.distanceInMeters >= dense.distance - 0.51, "\(vertices) \(point)")
      // The reported point is where the reported distance is measured to.
      #expect(abs(point.distance(to: closest.coordinates) - closest.distanceInMeters) < 1e-6)
      #expect(line.distance(to: point) == closest.distanceInMeters)
    }
  }

  @Test func longSegmentsAreRefinedGeodesically() throws {
    // 300 km segments at high latitude, where a flat local frame alone would be off.
    let a = try Self.place(60, 5), b = try Self.place(61.5, 10)
    let line = try GeoPolyline(vertices: [a, b])
    for point in [try Self.place(61, 6.5), try Self.place(60.5, 9), try Self.place(60.9, 7.6)] {
      let dense = Self.denseDistance(from: point, to: line, step: 20)
      let closest = line.closestPoint(to: point)
      #expect(closest.distanceInMeters <= dense.distance + 0.01, "\(point)")
      #expect(closest.distanceInMeters >= dense.distance - 10.01, "\(point)")
      #expect(abs(closest.distanceAlongInMeters - dense.along) < 100, "\(point)")
    }
  }
}
