import Foundation
import Testing
import TrafficTestSupport

@testable import Geo

/// Properties of `Geodesic` that hold without a reference table: agreement with the exact
/// great-circle solution on a sphere, closed-form ellipsoid values, symmetry, direct/inverse
/// round trips and total behaviour on extreme input. Comparisons with GeographicLib are in
/// `GeodesicVectorTests`.
@Suite struct GeodesicTests {
  static func randomPoint(
    _ generator: inout SeededGenerator, maxLatitude: Double = 90
  )
    -> GeoCoordinates
  {
    GeoCoordinates(
      uncheckedLatitude: Double.random(in: -maxLatitude...maxLatitude, using: &generator),
      longitude: Double.random(in: -180...180, using: &generator))
  }

  /// Unit vector of a point on the sphere.
  static func unitVector(_ p: GeoCoordinates) -> (Double, Double, Double) {
    let phi = p.latitude * .pi / 180, lambda = p.longitude * .pi / 180
    return (cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi))
  }

  @Test func sphereMatchesGreatCircle() throws {
    let radius = 6_371_000.0
    let sphere = try #require(Geodesic(equatorialRadiusInMeters: radius, flattening: 0))
    var generator = SeededGenerator(seed: 1)
    for _ in 0..<500 {
      let a = Self.randomPoint(&generator), b = Self.randomPoint(&generator)
      let (ax, ay, az) = Self.unitVector(a), (bx, by, bz) = Self.unitVector(b)
      let cross = (ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx)
      let crossNorm = (cross.0 * cross.0 + cross.1 * cross.1 + cross.2 * cross.2).squareRoot()
      let angle = atan2(crossNorm, ax * bx + ay * by + az * bz)
      let solution = sphere.inverse(from: a, to: b)
      #expect(abs(solution.distanceInMeters - radius * angle) <= 1e-6, "\(a) -> \(b)")
      // Bearings are ill-conditioned toward the antipode; compare away from it.
      guard angle < 3, angle > 1e-6 else { continue }
      let phi1 = a.latitude * .pi / 180, phi2 = b.latitude * .pi / 180
      let dLambda = (b.longitude - a.longitude) * .pi / 180
      let expected =
        atan2(
          sin(dLambda) * cos(phi2), cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dLambda))
        * 180 / .pi
      #expect(angularDifference(solution.initialBearing, expected) <= 1e-9, "\(a) -> \(b)")
    }
  }

  @Test func closedFormEllipsoidValues() throws {
    let equator = try GeoCoordinates(latitude: 0, longitude: -90)
    // WGS84 quarter meridian, 10 001 965.729 m (NIMA TR8350.2 derived constants).
    let pole = try GeoCoordinates(latitude: 90, longitude: 10)
    #expect(abs(equator.distance(to: pole) - 10_001_965.729) <= 0.001)
    #expect(equator.bearing(to: pole) == 0)
    // Along the equator, shortest while the longitude difference is below (1 − f) 180°:
    // the distance is a λ.
    let east = try GeoCoordinates(latitude: 0, longitude: -90 + 179)
    let solution = Geodesic.wgs84.inverse(from: equator, to: east)
    #expect(abs(solution.distanceInMeters - 6_378_137 * 179 * .pi / 180) <= 1e-6)
    #expect(solution.initialBearing == 90 && solution.finalBearing == 90)
    #expect(Geodesic.wgs84.inverse(from: east, to: equator).initialBearing == 270)
    // Pole to pole is two quarter meridians.
    let south = try GeoCoordinates(latitude: -90, longitude: 0)
    #expect(abs(south.distance(to: pole) - 2 * 10_001_965.729) <= 0.002)
  }

  @Test func inverseIsSymmetric() {
    var generator = SeededGenerator(seed: 2)
    for _ in 0..<1000 {
      let a = Self.randomPoint(&generator), b = Self.randomPoint(&generator)
      let forward = Geodesic.wgs84.inverse(from: a, to: b)
      let backward = Geodesic.wgs84.inverse(from: b, to: a)
      #expect(abs(forward.distanceInMeters - backward.distanceInMeters) <= 1e-8, "\(a) \(b)")
      // The geodesic back leaves b opposite to the direction it arrived in.
      guard forward.distanceInMeters < 19_000_000 else { continue }
      #expect(
        angularDifference(backward.initialBearing, forward.finalBearing + 180) <= 1e-9,
        "\(a) \(b)")
      #expect(
        angularDifference(backward.finalBearing, forward.initialBearing + 180) <= 1e-9,
        "\(a) \(b)")
    }
  }

  /// `destination(bearing(to:), distance(to:))` arrives at the target, for any pair.
  @Test func destinationOfBearingAndDistanceRoundTrips() {
    var generator = SeededGenerator(seed: 3)
    for i in 0..<1000 {
      let a = Self.randomPoint(&generator)
      // Every other target is near a or near its antipode.
      let b: GeoCoordinates
      switch i % 3 {
      case 0: b = Self.randomPoint(&generator)
      case 1:
        b = GeoCoordinates(
          uncheckedLatitude: min(
            90, max(-90, a.latitude + .random(in: -0.01...0.01, using: &generator))),
          longitude: a.longitude + .random(in: -0.01...0.01, using: &generator))
      default:
        b = GeoCoordinates(
          uncheckedLatitude: min(
            90, max(-90, -a.latitude + .random(in: -0.5...0.5, using: &generator))),
          longitude: a.longitude + 180 + .random(in: -0.5...0.5, using: &generator))
      }
      let reached = a.destination(bearing: a.bearing(to: b), distanceInMeters: a.distance(to: b))
      let miss = separationBound(reached.latitude, reached.longitude, b.latitude, b.longitude)
      #expect(miss <= 0.001, "\(a) -> \(b) misses by \(miss) m")
      #expect(reached.altitude == nil)
    }
  }

  /// Solving the direct problem and then the inverse one gives the distance and azimuths
  /// back (distances stay below 15 000 km, well inside the cut locus, so the geodesic
  /// travelled is the shortest one).
  @Test func inverseOfDirectGivesTheGeodesicBack() {
    var generator = SeededGenerator(seed: 4)
    for _ in 0..<1000 {
      let a = Self.randomPoint(&generator)
      let bearing = Double.random(in: -360...720, using: &generator)
      let distance = exp(Double.random(in: log(0.001)...log(15_000_000), using: &generator))
      let (b, finalBearing) = Geodesic.wgs84.direct(
        from: a, bearing: bearing, distanceInMeters: distance)
      #expect((-90...90).contains(b.latitude) && (-180...180).contains(b.longitude))
      let solution = Geodesic.wgs84.inverse(from: a, to: b)
      #expect(abs(solution.distanceInMeters - distance) <= 0.001, "\(a) \(bearing) \(distance)")
      // Azimuths at a pole are conventions, and at a few millimeters the rounding of b's
      // coordinates (1e-14 degrees, about 1 nm) shows; compare elsewhere.
      guard abs(a.latitude) < 89.9999, abs(b.latitude) < 89.9999, distance > 1 else { continue }
      #expect(
        angularDifference(solution.initialBearing, bearing) <= 1e-7, "\(a) \(bearing) \(distance)")
      #expect(
        angularDifference(solution.finalBearing, finalBearing) <= 1e-7,
        "\(a) \(bearing) \(distance)")
    }
  }

  @Test func directAcceptsAnyNumberWithoutTrapping() throws {
    let start = try GeoCoordinates(latitude: 52.5, longitude: 13.4, altitude: 34)
    for bearing in [Double.nan, .infinity, -.infinity] {
      let result = Geodesic.wgs84.direct(from: start, bearing: bearing, distanceInMeters: 1000)
      // A non-finite bearing counts as due north.
      let north = Geodesic.wgs84.direct(from: start, bearing: 0, distanceInMeters: 1000)
      #expect(result.coordinates == north.coordinates && result.finalBearing == north.finalBearing)
    }
    for distance in [Double.nan, .infinity, -.infinity] {
      let result = Geodesic.wgs84.direct(from: start, bearing: 45, distanceInMeters: distance)
      #expect(result.coordinates.latitude == start.latitude)
      #expect(result.coordinates.longitude == start.longitude)
      #expect(result.finalBearing == 45)
    }
    let huge: [Double] = [
      1e300, -1e300, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
      .leastNonzeroMagnitude, 1e20, 40_075_016.686 * 1e6,
    ]
    for distance in huge {
      for bearing in [0, 90, 1e300, -1e300, .leastNonzeroMagnitude, -720.5] {
        for from in [start, try GeoCoordinates(latitude: 90, longitude: 180)] {
          let (end, finalBearing) = Geodesic.wgs84.direct(
            from: from, bearing: bearing, distanceInMeters: distance)
          #expect((-90...90).contains(end.latitude), "\(bearing) \(distance)")
          #expect((-180...180).contains(end.longitude), "\(bearing) \(distance)")
          #expect((0..<360).contains(finalBearing), "\(bearing) \(distance)")
        }
      }
    }
  }

  @Test func inverseIsDefinedForExtremeCoordinates() throws {
    let values: [(Double, Double)] = [
      (90, 180), (-90, -180), (90, 0), (-90, 0), (0, 180), (0, -180), (-0.0, -0.0),
      (Double.leastNonzeroMagnitude, 180), (-Double.leastNormalMagnitude, -180),
      (89.999_999_999_999_99, 179.999_999_999_999_97), (0, 1e-300),
    ]
    let points = try values.map { try GeoCoordinates(latitude: $0.0, longitude: $0.1) }
    for a in points {
      for b in points {
        let solution = Geodesic.wgs84.inverse(from: a, to: b)
        #expect(solution.distanceInMeters >= 0 && solution.distanceInMeters <= 20_004_000)
        #expect((0..<360).contains(solution.initialBearing), "\(a) \(b)")
        #expect((0..<360).contains(solution.finalBearing), "\(a) \(b)")
        let reached = a.destination(
          bearing: solution.initialBearing, distanceInMeters: solution.distanceInMeters)
        #expect(
          separationBound(reached.latitude, reached.longitude, b.latitude, b.longitude) <= 0.001,
          "\(a) \(b)")
      }
    }
  }

  @Test func initRejectsUnsupportedEllipsoids() throws {
    for radius in [0, -1, Double.nan, .infinity] {
      #expect(Geodesic(equatorialRadiusInMeters: radius, flattening: 0) == nil)
    }
    for flattening in [-0.001, 0.03, Double.nan, .infinity] {
      #expect(Geodesic(equatorialRadiusInMeters: 6_378_137, flattening: flattening) == nil)
    }
    let wgs84 = try #require(
      Geodesic(equatorialRadiusInMeters: 6_378_137, flattening: 1 / 298.257223563))
    #expect(wgs84.polarRadiusInMeters == Geodesic.wgs84.polarRadiusInMeters)
    #expect(abs(wgs84.polarRadiusInMeters - 6_356_752.314_245) < 1e-6)
  }

  /// The astroid root of Karney 2013, eq. 55, solves the quartic.
  @Test func astroidRootSolvesQuartic() {
    var generator = SeededGenerator(seed: 5)
    for _ in 0..<2000 {
      let x = Double.random(in: -3...0.5, using: &generator)
      let y = Double.random(in: -3...0, using: &generator)
      let k = Geodesic.astroid(x: x, y: y)
      #expect(k > 0, "x \(x) y \(y)")
      let residual =
        k * k * k * k + 2 * k * k * k - (x * x + y * y - 1) * k * k - 2 * y * y * k - y * y
      let scale = max(1, k * k * k * k, (x * x + y * y) * k * k)
      #expect(abs(residual) <= 1e-12 * scale, "x \(x) y \(y) k \(k)")
    }
  }

  @Test func degreeArithmeticIsExactAtQuadrants() {
    typealias M = GeodesicMath
    #expect(M.sinCos(degrees: 180) == (0, -1))
    #expect(M.sinCos(degrees: 90) == (1, 0))
    #expect(M.sinCos(degrees: -90) == (-1, 0))
    #expect(M.sinCos(degrees: 540) == (0, -1))
    #expect(M.sinCos(degrees: -270) == (1, 0))
    #expect(abs(M.sinCos(degrees: 30).sin - 0.5) <= 1e-16)
    #expect(M.atan2Degrees(0, -1) == 180)
    #expect(M.atan2Degrees(-0.0, -1) == -180)
    #expect(M.atan2Degrees(1, 0) == 90)
    #expect(M.atan2Degrees(-1, 0) == -90)
    #expect(M.atan2Degrees(1, 1) == 45)
    #expect(M.bearing(degrees: -1e-20) == 0)
    #expect(M.bearing(degrees: -0.0).sign == .plus)
    #expect(M.bearing(degrees: 360) == 0)
    #expect(M.bearing(degrees: 720.5) == 0.5)
    #expect(M.bearing(degrees: -90) == 270)
    #expect(M.normalized(degrees: -180) == 180)
    #expect(M.normalized(degrees: 190) == -170)
    // 179.5 − (−179.5) is −1 once reduced; the difference is exact.
    let (d, e) = M.reducedDifference(-179.5, 179.5)
    #expect(d == 1 && e == 0)
    let (sum, error) = M.twoSum(1, 1e-20)
    #expect(sum == 1 && error == 1e-20)
  }
}
