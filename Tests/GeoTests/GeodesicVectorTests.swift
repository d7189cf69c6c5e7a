import Foundation
import Testing
import TrafficTestSupport

@testable import Geo

/// One row of `Vectors/geodesic_vectors.csv` (see `make_geodesic_vectors.py`): an inverse
/// problem with GeographicLib's solution and a direct problem from the same start.
struct GeodesicVector: Sendable, CustomStringConvertible {
  var line: Int
  var kind: String
  var lat1, lon1, lat2, lon2, s12, azi1, azi2, m12: Double
  var dazi1, ds12, dlat2, dlon2, dazi2: Double

  var start: GeoCoordinates { GeoCoordinates(uncheckedLatitude: lat1, longitude: lon1) }
  var end: GeoCoordinates { GeoCoordinates(uncheckedLatitude: lat2, longitude: lon2) }

  var description: String {
    "line \(line) (\(kind)): \(lat1),\(lon1) -> \(lat2),\(lon2)"
  }

  struct FormatError: Error, CustomStringConvertible {
    var line: Int
    var description: String { "geodesic_vectors.csv line \(line) is malformed" }
  }

  /// Every row of the vector file, read once.
  static let all: Result<[GeodesicVector], any Error> = Result {
    let text = try String(
      contentsOf: Fixtures.vectors("GeoTests", "geodesic_vectors.csv"), encoding: .utf8)
    var rows: [GeodesicVector] = []
    for (index, line) in text.split(separator: "\n").enumerated() {
      if line.hasPrefix("#") || line.hasPrefix("kind,") { continue }
      let fields = line.split(separator: ",", omittingEmptySubsequences: false)
      let numbers = fields.dropFirst().compactMap { Double($0) }
      guard fields.count == 14, numbers.count == 13 else { throw FormatError(line: index + 1) }
      rows.append(
        GeodesicVector(
          line: index + 1, kind: String(fields[0]),
          lat1: numbers[0], lon1: numbers[1], lat2: numbers[2], lon2: numbers[3],
          s12: numbers[4], azi1: numbers[5], azi2: numbers[6], m12: numbers[7],
          dazi1: numbers[8], ds12: numbers[9], dlat2: numbers[10], dlon2: numbers[11],
          dazi2: numbers[12]))
    }
    return rows
  }
}

/// The smallest difference between two angles in degrees, 0...180.
func angularDifference(_ a: Double, _ b: Double) -> Double {
  abs((a - b).remainder(dividingBy: 360))
}

/// An upper bound, in meters, on the distance between two nearby points: an equirectangular
/// measure with a radius (6 400 km) at least the Earth's largest radius of curvature.
func separationBound(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
  let radiansPerDegree = Double.pi / 180
  let north = (lat2 - lat1) * radiansPerDegree
  let east =
    (lon2 - lon1).remainder(dividingBy: 360) * radiansPerDegree
    * cos((lat1 + lat2) / 2 * radiansPerDegree)
  return 6_400_000 * (north * north + east * east).squareRoot()
}

@Suite struct GeodesicVectorTests {
  static let kinds = [
    "random", "short", "antipodal", "nearantipodal", "equatorial", "meridional", "polar",
    "coincident", "edge",
  ]

  @Test func fileHasEveryKind() throws {
    let rows = try GeodesicVector.all.get()
    #expect(rows.count > 3000)
    for kind in Self.kinds {
      #expect(rows.contains { $0.kind == kind }, "no \(kind) rows")
    }
  }

  /// Distances within 1 µm and azimuths within 1e-6 degrees of GeographicLib.
  ///
  /// The requirement is 1 mm; the two implementations agree to about 10 nm, and a 1 µm
  /// tolerance is what catches a wrong coefficient in the higher-order series terms, which
  /// are worth only micrometers.
  ///
  /// An azimuth is only as well defined as the geometry allows. Between coincident points
  /// it is a convention, so it is not compared. Near antipodal points a small change of the
  /// end point swings the azimuth by (change) / m12 radians, m12 being the reduced length
  /// (Karney 2013, eq. 46), which vanishes at the antipode; both implementations carry
  /// errors of some nanometers, so the tolerance there is 1e-6° + (1e-7 m / |m12|) in
  /// degrees. Exactly antipodal pairs have a whole family of shortest paths; for all rows
  /// the azimuth is additionally validated by checking that travelling the computed
  /// distance along it reaches the second point (`inverseSolutionsReachTheEnd`).
  @Test(arguments: kinds)
  func inverseMatchesGeographicLib(kind: String) throws {
    let rows = try GeodesicVector.all.get().filter { $0.kind == kind }
    try #require(!rows.isEmpty)
    for row in rows {
      let solution = Geodesic.wgs84.inverse(from: row.start, to: row.end)
      #expect(abs(solution.distanceInMeters - row.s12) <= 1e-6, "\(row)")
      #expect(row.start.distance(to: row.end) == solution.distanceInMeters, "\(row)")
      #expect((0..<360).contains(solution.initialBearing), "\(row)")
      #expect((0..<360).contains(solution.finalBearing), "\(row)")
      if kind == "coincident" {
        #expect(solution.distanceInMeters == 0, "\(row)")
        continue
      }
      let tolerance = 1e-6 + 1e-7 / abs(row.m12) * 180 / .pi
      #expect(
        angularDifference(solution.initialBearing, row.azi1) <= tolerance,
        "\(row): azi1 \(solution.initialBearing) vs \(row.azi1)")
      #expect(
        angularDifference(solution.finalBearing, row.azi2) <= tolerance,
        "\(row): azi2 \(solution.finalBearing) vs \(row.azi2)")
    }
  }

  /// The computed azimuth and distance really describe a geodesic from point 1 to point 2,
  /// however ill-conditioned the azimuth is.
  @Test(arguments: kinds)
  func inverseSolutionsReachTheEnd(kind: String) throws {
    let rows = try GeodesicVector.all.get().filter { $0.kind == kind }
    for row in rows {
      let solution = Geodesic.wgs84.inverse(from: row.start, to: row.end)
      let reached = Geodesic.wgs84.direct(
        from: row.start, bearing: solution.initialBearing,
        distanceInMeters: solution.distanceInMeters)
      let miss = separationBound(
        reached.coordinates.latitude, reached.coordinates.longitude, row.lat2, row.lon2)
      #expect(miss <= 0.001, "\(row): misses by \(miss) m")
    }
  }

  /// End points within 1 µm of GeographicLib (the requirement is 1 mm; see above), final
  /// azimuths within 1e-6 degrees.
  @Test(arguments: kinds)
  func directMatchesGeographicLib(kind: String) throws {
    let rows = try GeodesicVector.all.get().filter { $0.kind == kind }
    for row in rows {
      let (end, finalBearing) = Geodesic.wgs84.direct(
        from: row.start, bearing: row.dazi1, distanceInMeters: row.ds12)
      let miss = separationBound(end.latitude, end.longitude, row.dlat2, row.dlon2)
      #expect(miss <= 1e-6, "\(row): direct misses by \(miss) m")
      #expect((-180...180).contains(end.longitude), "\(row)")
      #expect((0..<360).contains(finalBearing), "\(row)")
      // At a pole the azimuth depends on the longitude convention, which swings wildly
      // within nanometers of it; compare elsewhere.
      if abs(row.dlat2) < 90 - 1e-6 {
        #expect(
          angularDifference(finalBearing, row.dazi2) <= 1e-6,
          "\(row): dazi2 \(finalBearing) vs \(row.dazi2)")
      }
    }
  }
}
