import Testing
import TrafficTestSupport

@testable import Geo

@Suite struct RTreeGeoNearestTests {
  func randomCoordinates(using generator: inout SeededGenerator) -> GeoCoordinates {
    GeoCoordinates(
      uncheckedLatitude: Double.random(in: -90...90, using: &generator),
      longitude: Double.random(in: -180...180, using: &generator))
  }

  /// A random lng/lat box: tiny to continental, sometimes at a pole, sometimes across or
  /// beside the antimeridian (given unwrapped, `maxX` beyond 180).
  func randomBox(using generator: inout SeededGenerator) -> RTreeBox {
    let scale = [0.001, 0.1, 5, 60][Int.random(in: 0..<4, using: &generator)]
    let width = Double.random(in: 0...scale, using: &generator)
    let height = Double.random(in: 0...min(scale, 90), using: &generator)
    let south = Double.random(in: -90...(90 - height), using: &generator)
    let west: Double
    switch Int.random(in: 0..<3, using: &generator) {
    case 0: west = 180 - width * Double.random(in: 0...1, using: &generator)
    case 1: west = Double.random(in: 170...180, using: &generator) - width
    default: west = Double.random(in: -180...(180 - width), using: &generator)
    }
    return RTreeBox(uncheckedMinX: west, minY: south, maxX: west + width, maxY: south + height)
  }

  @Test func lowerBoundNeverExceedsGeodesicDistanceToTheBox() {
    var generator = SeededGenerator(seed: 21)
    var tightest = 0.0
    for _ in 0..<3000 {
      let box = randomBox(using: &generator)
      // Points near the box as often as far from it.
      let point: GeoCoordinates
      if Bool.random(using: &generator) {
        point = randomCoordinates(using: &generator)
      } else {
        point = GeoCoordinates(
          uncheckedLatitude: min(
            90, max(-90, box.minY + Double.random(in: -3...3, using: &generator))),
          longitude: box.maxX + Double.random(in: -3...3, using: &generator))
      }
      let bound = GeoLowerBound(point).meters(to: box)
      // Corners, edge points, the clamped point and random interior points.
      var samples: [(Double, Double)] = [
        (box.minX, box.minY), (box.minX, box.maxY), (box.maxX, box.minY), (box.maxX, box.maxY),
        (box.minX, min(box.maxY, max(box.minY, point.latitude))),
        (box.maxX, min(box.maxY, max(box.minY, point.latitude))),
      ]
      for _ in 0..<40 {
        let x = Double.random(in: box.minX...box.maxX, using: &generator)
        let y = Double.random(in: box.minY...box.maxY, using: &generator)
        samples.append((x, y))
        samples.append((box.minX, y))
        samples.append((box.maxX, y))
        samples.append((x, box.minY))
        samples.append((x, box.maxY))
      }
      var nearest = Double.infinity
      for (x, y) in samples {
        let distance = point.distance(to: GeoCoordinates(uncheckedLatitude: y, longitude: x))
        nearest = min(nearest, distance)
        #expect(
          bound <= distance, "bound \(bound) > \(distance) from \(point) to \(x),\(y) in \(box)")
      }
      if nearest > 1000 { tightest = max(tightest, bound / nearest) }
    }
    // The bound is useful: for some boxes it is within 1 % of the true distance.
    #expect(tightest > 0.99)
  }

  @Test func pointInsideOrBesideTheBox() throws {
    let box = RTreeBox(uncheckedMinX: 179, minY: 10, maxX: 181, maxY: 11)
    let inside = try GeoCoordinates(latitude: 10.5, longitude: -179.5)
    #expect(GeoLowerBound(inside).meters(to: box) == 0)
    let across = try GeoCoordinates(latitude: 10.5, longitude: -178)
    let bound = GeoLowerBound(across).meters(to: box)
    let edge = across.distance(to: try GeoCoordinates(latitude: 10.5, longitude: -179))
    #expect(bound <= edge)
    #expect(bound > 0.99 * edge)
  }

  @Test func nearestMatchesBruteForceGeodesic() {
    var generator = SeededGenerator(seed: 31)
    // Points clustered around the antimeridian and spread over the globe.
    var places: [GeoCoordinates] = (0..<600).map { _ in randomCoordinates(using: &generator) }
    for _ in 0..<600 {
      places.append(
        GeoCoordinates(
          uncheckedLatitude: Double.random(in: -20...20, using: &generator),
          longitude: 180 + Double.random(in: -2...2, using: &generator)))
    }
    let tree = RTree(places.enumerated().map { (box: RTreeBox($0.element), payload: $0.offset) })
    for _ in 0..<60 {
      let query: GeoCoordinates
      if Bool.random(using: &generator) {
        query = randomCoordinates(using: &generator)
      } else {
        query = GeoCoordinates(
          uncheckedLatitude: Double.random(in: -20...20, using: &generator),
          longitude: 180 + Double.random(in: -3...3, using: &generator))
      }
      for (k, maxDistance) in [(1, Double.infinity), (10, .infinity), (50, 300_000.0)] {
        let found = tree.nearest(to: query, k: k, maxDistanceInMeters: maxDistance) {
          query.distance(to: places[$0])
        }
        let distances: [(Int, Double)] = places.indices.map { ($0, query.distance(to: places[$0])) }
        let sorted = distances.filter { $0.1 <= maxDistance }.sorted { a, b in
          a.1 < b.1 || (a.1 == b.1 && a.0 < b.0)
        }
        let expected = Array(sorted.prefix(k))
        #expect(found.map(\.distanceInMeters) == expected.map { $0.1 })
        #expect(found.map(\.payload) == expected.map { $0.0 })
      }
    }
  }
}
