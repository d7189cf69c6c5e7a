import Foundation
import Testing
import TrafficTestSupport

@testable import Geo

@Suite struct GeoPolylineIntersectionTests {
  private static func place(_ latitude: Double, _ longitude: Double) throws -> GeoCoordinates {
    try GeoCoordinates(latitude: latitude, longitude: longitude)
  }

  private static func line(_ points: (Double, Double)...) throws -> GeoPolyline {
    try GeoPolyline(vertices: points.map { try place($0.0, $0.1) })
  }

  // MARK: - Circle

  @Test func circleBesideTheMiddleOfALongSegment() throws {
    // 111 km along the equator; the center lies about 111 m north of its middle and 55 km
    // from either vertex.
    let segment = try Self.line((0, 0), (0, 1))
    let center = try Self.place(0.001, 0.5)
    #expect(segment.intersects(try GeoCircle(center: center, radiusInMeters: 200)))
    #expect(!segment.intersects(try GeoCircle(center: center, radiusInMeters: 100)))
  }

  @Test func circleInsideTheBoxesButBesideTheGeometry() throws {
    let center = try Self.place(0, 0)
    // A diagonal (lat + lng = 0.008 degrees) passing the center at 0.0057 degrees, about
    // 630 m, with the center inside the segment's bounding box.
    let diagonal = try Self.line((0.01, -0.002), (-0.002, 0.01))
    #expect(!diagonal.intersects(try GeoCircle(center: center, radiusInMeters: 550)))
    #expect(diagonal.intersects(try GeoCircle(center: center, radiusInMeters: 700)))
    // An L round the circle, 0.006 degrees (about 665 m) from the center on two sides; the
    // corner is 940 m away.
    let corner = try Self.line((-0.01, 0.006), (0.006, 0.006), (0.006, -0.01))
    #expect(!corner.intersects(try GeoCircle(center: center, radiusInMeters: 600)))
    #expect(corner.intersects(try GeoCircle(center: center, radiusInMeters: 700)))
  }

  @Test func circleHoldingAVertexOrTouchingIt() throws {
    let path = try Self.line((52.5, 13.3), (52.51, 13.32))
    #expect(path.intersects(try GeoCircle(center: path.vertices[1], radiusInMeters: 0)))
    #expect(path.intersects(try GeoCircle(center: path.vertices[0], radiusInMeters: 5)))
    #expect(!path.intersects(try GeoCircle(center: try Self.place(53, 13.3), radiusInMeters: 5)))
    let far = try GeoCircle(center: try Self.place(-33, 151), radiusInMeters: 1_000)
    #expect(!path.intersects(far))
    #expect(!far.intersects(path))  // the GeoArea spelling agrees
  }

  @Test func circleAcrossTheAntimeridian() throws {
    let circle = try GeoCircle(center: try Self.place(0, 180), radiusInMeters: 1_000)
    #expect(try Self.line((0.001, 179.99), (0.001, -179.99)).intersects(circle))
    #expect(!(try Self.line((0.001, -179.98), (0.001, -179.97)).intersects(circle)))
    #expect(try Self.line((0.001, -179.995), (0.001, -179.97)).intersects(circle))
  }

  // MARK: - Box

  @Test func boxPassedDiagonallyByItsCorner() throws {
    let box = try GeoBox(west: 0, south: 0, east: 1, north: 1)
    // Both segments' bounding boxes overlap the box; only the second cuts its corner.
    #expect(!(try Self.line((1.6, 0.5), (0.5, 1.6)).intersects(box)))
    #expect(try Self.line((1.4, 0.5), (0.5, 1.4)).intersects(box))
    // Through the box with both vertices outside, and with one inside.
    #expect(try Self.line((0.5, -1), (0.5, 2)).intersects(box))
    #expect(try Self.line((0.5, 0.5), (5, 5)).intersects(box))
    // Touching the edge counts.
    #expect(try Self.line((2, 1), (-1, 1)).intersects(box))
    #expect(!(try Self.line((2, 1.0001), (-1, 1.0001)).intersects(box)))
    #expect(box.intersects(try Self.line((0.5, -1), (0.5, 2))))
  }

  @Test func boxAcrossTheAntimeridian() throws {
    let box = try GeoBox(west: 179, south: 0, east: -179, north: 1)
    #expect(try Self.line((0.5, 178), (0.5, -178)).intersects(box))
    #expect(!(try Self.line((0.5, 170), (0.5, 178.5)).intersects(box)))
    #expect(!(try Self.line((0.5, -178.5), (0.5, -170)).intersects(box)))
    #expect(!(try Self.line((2, 178), (2, -178)).intersects(box)))
    // A segment crossing the antimeridian into a box that ends at it: at 180 its latitude
    // is 2 - 3 / 2 = 0.5, inside, though neither vertex is.
    let western = try GeoBox(west: 175, south: 0, east: 180, north: 1)
    #expect(try Self.line((2, 179), (-1, -179)).intersects(western))
    let eastern = try GeoBox(west: -180, south: 0, east: -175, north: 1)
    #expect(try Self.line((2, 179), (-1, -179)).intersects(eastern))
    #expect(!(try Self.line((3, 179), (1.5, -179)).intersects(western)))
  }

  // MARK: - Corridor

  @Test func corridorCrossingWithZeroWidth() throws {
    let corridor = try GeoCorridor(
      polyline: [try Self.place(-0.01, 0), try Self.place(0.01, 0)], halfWidthInMeters: 0)
    #expect(try Self.line((0, -0.01), (0, 0.01)).intersects(corridor))
    #expect(!(try Self.line((0, 0.0001), (0, 0.01)).intersects(corridor)))
    #expect(corridor.intersects(try Self.line((0, -0.01), (0, 0.01))))
  }

  @Test func corridorBesideAParallelPath() throws {
    // Diagonals 0.006 degrees of latitude apart: 0.006 / √2 degrees, about 470 m, with
    // heavily overlapping bounding boxes.
    let centerLine = [try Self.place(0, 0), try Self.place(0.01, 0.01)]
    let path = try Self.line((0.006, 0), (0.016, 0.01))
    let narrow = try GeoCorridor(polyline: centerLine, halfWidthInMeters: 400)
    let wide = try GeoCorridor(polyline: centerLine, halfWidthInMeters: 550)
    #expect(!path.intersects(narrow))
    #expect(path.intersects(wide))
    // 111 m apart along parallels.
    let equator = [try Self.place(0, 0), try Self.place(0, 0.01)]
    let north = try Self.line((0.001, 0), (0.001, 0.01))
    #expect(!north.intersects(try GeoCorridor(polyline: equator, halfWidthInMeters: 100)))
    #expect(north.intersects(try GeoCorridor(polyline: equator, halfWidthInMeters: 120)))
  }

  @Test func corridorShapedAsAnLAroundAPath() throws {
    // The corridor runs north along 0.006 E and turns west along 0.006 N; the path's end at
    // (0.003, 0.003) is 0.003 degrees, about 333 m, from both legs.
    let corridorLine = [
      try Self.place(-0.01, 0.006), try Self.place(0.006, 0.006), try Self.place(0.006, -0.01),
    ]
    let path = try Self.line((-0.01, -0.01), (0.003, 0.003))
    #expect(!path.intersects(try GeoCorridor(polyline: corridorLine, halfWidthInMeters: 300)))
    #expect(path.intersects(try GeoCorridor(polyline: corridorLine, halfWidthInMeters: 360)))
  }

  @Test func corridorAcrossTheAntimeridian() throws {
    let corridor = try GeoCorridor(
      polyline: [try Self.place(0, 179.99), try Self.place(0, -179.99)], halfWidthInMeters: 50)
    #expect(try Self.line((-0.01, 180), (0.01, 180)).intersects(corridor))
    #expect(try Self.line((0.0003, 179.995), (0.0003, -179.995)).intersects(corridor))
    #expect(!(try Self.line((0.001, 179.995), (0.001, -179.995)).intersects(corridor)))
  }

  // MARK: - Randomised against densely sampled paths

  /// A random path of 1-3 segments of 100-600 m starting within `reach` meters of
  /// `origin`.
  private static func randomPath(
    near origin: GeoCoordinates, reach: Double, using generator: inout SeededGenerator
  ) throws -> GeoPolyline {
    var vertices = [
      origin.destination(
        bearing: Double.random(in: 0..<360, using: &generator),
        distanceInMeters: Double.random(in: 0...reach, using: &generator))
    ]
    for _ in 0..<Int.random(in: 1...3, using: &generator) {
      vertices.append(
        vertices[vertices.count - 1].destination(
          bearing: Double.random(in: 0..<360, using: &generator),
          distanceInMeters: Double.random(in: 100...600, using: &generator)))
    }
    return try GeoPolyline(vertices: vertices)
  }

  /// A random place, a quarter of them within a few hundred meters of the antimeridian.
  private static func randomOrigin(
    using generator: inout SeededGenerator
  ) throws
    -> GeoCoordinates
  {
    let latitude = Double.random(in: -70...70, using: &generator)
    if Int.random(in: 0..<4, using: &generator) == 0 {
      return try place(latitude, Bool.random(using: &generator) ? 179.997 : -179.997)
    }
    return try place(latitude, Double.random(in: -180...180, using: &generator))
  }

  /// Points every metre along the path (and its last vertex).
  private static func densified(_ line: GeoPolyline) -> [GeoCoordinates] {
    let length = line.lengthInMeters
    var points = stride(from: 0.0, to: length, by: 1).map { line.coordinates(atDistance: $0) }
    points.append(line.vertices[line.vertices.count - 1])
    return points
  }

  /// Samples are at most 0.5 m from any point of the path; results whose oracle lies within
  /// this band of the boundary are not judged.
  private static let band = 1.0

  @Test func circlesAgainstDensePoints() throws {
    var generator = SeededGenerator(seed: 2024)
    var outcomes = (hits: 0, misses: 0)
    for _ in 0..<100 {
      let center = try Self.randomOrigin(using: &generator)
      let path = try Self.randomPath(near: center, reach: 1_500, using: &generator)
      let radius = Double.random(in: 20...700, using: &generator)
      let circle = try GeoCircle(center: center, radiusInMeters: radius)
      let nearest = Self.densified(path).map { center.distance(to: $0) }.min() ?? .infinity
      guard abs(nearest - radius) > Self.band else { continue }
      let expected = nearest <= radius
      #expect(path.intersects(circle) == expected, "\(path.vertices) vs \(circle)")
      if expected { outcomes.hits += 1 } else { outcomes.misses += 1 }
    }
    #expect(outcomes.hits > 20 && outcomes.misses > 20, "\(outcomes)")
  }

  /// The planar filter decides only what the geodesic test would decide: thousands of
  /// paths placed so that their nearest point falls within a few percent of the radius
  /// (where the filter's margin lies), at every latitude it serves and beyond, agree with
  /// the segment-by-segment geodesic distance.
  @Test func planarFilterAgreesWithTheGeodesicTest() throws {
    var generator = SeededGenerator(seed: 77)
    var outcomes = (hits: 0, misses: 0)
    for _ in 0..<4_000 {
      let center = try Self.randomOrigin(using: &generator)
      let radius = [
        Double.random(in: 5...100, using: &generator),
        Double.random(in: 100...2_000, using: &generator),
        Double.random(in: 2_000...12_000, using: &generator),
      ][Int.random(in: 0..<3, using: &generator)]
      // A path whose first vertex lies just inside or outside the circle, going anywhere,
      // segments of up to twice the radius.
      let start = center.destination(
        bearing: Double.random(in: 0..<360, using: &generator),
        distanceInMeters: radius * Double.random(in: 0.95...1.05, using: &generator))
      var vertices = [start]
      for _ in 0..<Int.random(in: 1...3, using: &generator) {
        vertices.append(
          vertices[vertices.count - 1].destination(
            bearing: Double.random(in: 0..<360, using: &generator),
            distanceInMeters: Double.random(in: 1...(2 * radius), using: &generator)))
      }
      let path = try GeoPolyline(vertices: vertices)
      let circle = try GeoCircle(center: center, radiusInMeters: radius)
      let geodesic = (1..<vertices.count).contains { i in
        SegmentGeometry.closestPoint(on: vertices[i - 1], vertices[i], to: center).distance
          <= radius
      }
      #expect(path.intersects(circle) == geodesic, "\(vertices) vs \(circle)")
      if geodesic { outcomes.hits += 1 } else { outcomes.misses += 1 }
    }
    #expect(outcomes.hits > 1_000 && outcomes.misses > 1_000, "\(outcomes)")
  }

  /// Whether `point` lies in `box` grown (margin > 0) or shrunk (margin < 0) by `margin`
  /// meters on every side.
  private static func box(
    _ box: GeoBox, contains point: GeoCoordinates, marginInMeters margin: Double
  ) -> Bool {
    let dLat = margin / 110_000
    guard point.latitude >= box.south - dLat, point.latitude <= box.north + dLat else {
      return false
    }
    let widest = max(abs(box.south), abs(box.north)) + abs(dLat)
    let dLng = margin / (111_000 * cos(widest * .pi / 180))
    // Longitude east of the western edge, in -180..<180 so that points just west of the
    // box come out negative.
    var offset = (point.longitude - box.west).truncatingRemainder(dividingBy: 360)
    if offset < -180 { offset += 360 } else if offset >= 180 { offset -= 360 }
    if offset < 0 && box.widthInDegrees > 180 { offset += 360 }
    return offset >= -dLng && offset <= box.widthInDegrees + dLng
  }

  @Test func boxesAgainstDensePoints() throws {
    var generator = SeededGenerator(seed: 77)
    var outcomes = (hits: 0, misses: 0)
    for _ in 0..<100 {
      let origin = try Self.randomOrigin(using: &generator)
      let southWest = origin.destination(
        bearing: 225, distanceInMeters: Double.random(in: 50...800, using: &generator))
      let northEast = origin.destination(
        bearing: 45, distanceInMeters: Double.random(in: 50...800, using: &generator))
      let box = try GeoBox(southWestCorner: southWest, northEastCorner: northEast)
      let path = try Self.randomPath(near: origin, reach: 1_500, using: &generator)
      let points = Self.densified(path)
      let surely = points.contains { Self.box(box, contains: $0, marginInMeters: -Self.band) }
      let possibly = points.contains { Self.box(box, contains: $0, marginInMeters: Self.band) }
      guard surely || !possibly else { continue }
      #expect(path.intersects(box) == surely, "\(path.vertices) vs \(box)")
      if surely { outcomes.hits += 1 } else { outcomes.misses += 1 }
    }
    #expect(outcomes.hits > 20 && outcomes.misses > 20, "\(outcomes)")
  }

  @Test func corridorsAgainstDensePoints() throws {
    var generator = SeededGenerator(seed: 1_234)
    var outcomes = (hits: 0, misses: 0)
    for _ in 0..<60 {
      let origin = try Self.randomOrigin(using: &generator)
      let centerLine = try Self.randomPath(near: origin, reach: 0, using: &generator)
      let path = try Self.randomPath(near: origin, reach: 1_200, using: &generator)
      let halfWidth = Double.random(in: 5...300, using: &generator)
      let corridor = try GeoCorridor(
        polyline: centerLine.vertices, halfWidthInMeters: halfWidth)
      // The center line's own distance is checked against dense points in
      // GeoPolylineClosestPointTests; here the path is sampled.
      let nearest = Self.densified(path).map { centerLine.distance(to: $0) }.min() ?? .infinity
      guard abs(nearest - halfWidth) > Self.band else { continue }
      let expected = nearest <= halfWidth
      #expect(path.intersects(corridor) == expected, "\(path.vertices) vs \(centerLine.vertices)")
      if expected { outcomes.hits += 1 } else { outcomes.misses += 1 }
    }
    #expect(outcomes.hits > 10 && outcomes.misses > 10, "\(outcomes)")
  }
}
