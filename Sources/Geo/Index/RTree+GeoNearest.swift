import Foundation

extension RTree {
  /// The `k` items nearest to a place by geodesic distance, for a tree whose boxes are in
  /// degrees (x = longitude, y = latitude), nearest first.
  ///
  /// Nodes and items are ranked by `GeoLowerBound`, a distance in meters that never exceeds
  /// the geodesic distance from the place to any point of a box (longitudes are compared
  /// modulo 360, so boxes beside or across the antimeridian are handled); `distance` is
  /// called only for items whose box is close enough to matter.
  ///
  /// - Parameters:
  ///   - point: The place to search from.
  ///   - k: How many items at most; 0 or less gives none.
  ///   - maxDistanceInMeters: Items farther than this are left out.
  ///   - distance: The geodesic distance in meters from `point` to an item's geometry (for
  ///     example `point.distance(to:)` of its closest point), which lies inside its box.
  /// - Returns: Payloads with their distance in meters, sorted by distance; equal distances
  ///   in insertion order.
  /// - Complexity: O(k log n) box steps on typical data, plus one `distance` call per item
  ///   whose box bound is below the k-th result.
  @inlinable
  public func nearest(
    to point: GeoCoordinates, k: Int = 1, maxDistanceInMeters: Double = .infinity,
    distance: (Payload) -> Double
  ) -> [(payload: Payload, distanceInMeters: Double)] {
    let bound = GeoLowerBound(point)
    return nearest(
      k: k, maxDistance: maxDistanceInMeters, boxLowerBound: { bound.meters(to: $0) },
      itemDistance: { payload, _ in distance(payload) }
    ).map { ($0.payload, $0.distance) }
  }

  /// The `k` items `isIncluded` accepts whose boxes are nearest to a place, ranked by the
  /// lower bound of the geodesic distance to their box (see
  /// ``nearest(to:k:maxDistanceInMeters:distance:)``), nearest first.
  ///
  /// The bound is within about 0.5 % of the true distance, so for a place far from every
  /// item this finds items as near as any within that margin, without measuring each item
  /// inside it (for a place 5 000 km away, every item within 25 km of the nearest one).
  ///
  /// - Returns: Payloads with the bound, meters, sorted by it; equal bounds in insertion
  ///   order.
  /// - Complexity: O(k log n) box steps on typical data.
  @inlinable
  public func nearestBoxes(
    to point: GeoCoordinates, k: Int = 1, maxDistanceInMeters: Double = .infinity,
    where isIncluded: (Payload) -> Bool
  ) -> [(payload: Payload, boundInMeters: Double)] {
    let bound = GeoLowerBound(point)
    return nearest(
      k: k, maxDistance: maxDistanceInMeters, boxLowerBound: { bound.meters(to: $0) },
      itemDistance: { payload, box in isIncluded(payload) ? bound.meters(to: box) : .nan }
    ).map { ($0.payload, $0.distance) }
  }
}

/// A lower bound, in meters, of the geodesic distance on the WGS84 ellipsoid from a point to
/// any point of a longitude/latitude box.
///
/// Why it is a lower bound: scaling the two equatorial axes by b/a (b the polar, a the
/// equatorial semi-axis) maps the ellipsoid onto the sphere of radius b, taking a point of
/// geodetic latitude phi to the point of *reduced* latitude beta, tan(beta) = (1 - f) tan(phi),
/// at the same longitude (Karney 2013, "Algorithms for geodesics", section 2). The map
/// multiplies no length by more than 1, so it shortens every curve: the geodesic between two
/// points is at least b times their great-circle angle in reduced latitudes. The minimum of
/// that angle over a box is computed exactly on the sphere (beta is monotonic in phi, so the
/// box stays a box): within the box's longitudes it is the latitude gap; outside, the
/// nearest meridian edge holds the minimum, where the angle's cosine is A cos(beta - beta*)
/// and its maximum over the edge lies at an end or at beta*.
///
/// The result is further multiplied by R / a (R the mean radius, 6 371 008.8 m): the same
/// map also contracts the sphere of radius a with geodetic latitudes onto the sphere of
/// radius b, so the bound also holds for a spherical (haversine) distance of radius R, and a
/// caller may measure items either way. Last, a relative 1e-9 covers rounding.
@usableFromInline
struct GeoLowerBound: Sendable {
  @usableFromInline static let polarRadius = 6_356_752.314_245_179
  @usableFromInline static let flattening = 1 / 298.257_223_563
  @usableFromInline static let meanRadius = 6_371_008.8
  @usableFromInline static let equatorialRadius = 6_378_137.0
  /// b x (R / a), shaved by 1e-9 for rounding.
  @usableFromInline static let metersPerRadian =
    polarRadius * (meanRadius / equatorialRadius) * (1 - 1e-9)

  @usableFromInline let longitude: Double
  @usableFromInline let reducedLatitude: Double
  @usableFromInline let sinReducedLatitude: Double
  @usableFromInline let cosReducedLatitude: Double

  @usableFromInline
  init(_ point: GeoCoordinates) {
    longitude = point.longitude
    reducedLatitude = GeoLowerBound.reducedLatitude(point.latitude)
    sinReducedLatitude = sin(reducedLatitude)
    cosReducedLatitude = cos(reducedLatitude)
  }

  /// The reduced latitude, radians, of a geodetic latitude in degrees (clamped to +-90).
  @usableFromInline
  static func reducedLatitude(_ degrees: Double) -> Double {
    let phi = min(max(degrees, -90), 90) * .pi / 180
    return atan2((1 - flattening) * sin(phi), cos(phi))
  }

  /// The bound in meters from the point to `box` (x = longitude, y = latitude, degrees).
  ///
  /// - Complexity: O(1).
  @usableFromInline
  func meters(to box: RTreeBox) -> Double {
    let south = GeoLowerBound.reducedLatitude(box.minY)
    let north = GeoLowerBound.reducedLatitude(box.maxY)
    let width = box.maxX - box.minX
    // Eastward offset of the point from the box's western edge, 0..<360.
    var offset = (longitude - box.minX).truncatingRemainder(dividingBy: 360)
    if offset < 0 { offset += 360 }
    if !(width < 360) || offset <= width {
      return max(0, south - reducedLatitude, reducedLatitude - north)
        * GeoLowerBound.metersPerRadian
    }
    // Longitude gap to the nearer meridian edge, 0...180 degrees.
    let gap = min(offset - width, 360 - offset) * .pi / 180
    let sinHalfGap = sin(gap / 2)
    let havGap = sinHalfGap * sinHalfGap
    var best = min(haversine(to: south, havGap: havGap), haversine(to: north, havGap: havGap))
    let peak = atan2(sinReducedLatitude, cosReducedLatitude * cos(gap))
    if peak > south && peak < north { best = min(best, haversine(to: peak, havGap: havGap)) }
    return 2 * asin(min(1, best.squareRoot())) * GeoLowerBound.metersPerRadian
  }

  /// The haversine of the angle to the point at `latitude` (reduced, radians) `gap` away.
  @usableFromInline
  func haversine(to latitude: Double, havGap: Double) -> Double {
    let sinHalf = sin((latitude - reducedLatitude) / 2)
    return sinHalf * sinHalf + cosReducedLatitude * cos(latitude) * havGap
  }
}
