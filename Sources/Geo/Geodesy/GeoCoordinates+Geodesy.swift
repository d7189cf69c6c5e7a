import Foundation

// TEMPORARY spherical stand-in; replaced by the ellipsoidal (Karney) implementation.
extension GeoCoordinates {
  /// Geodesic distance in meters on the WGS84 ellipsoid.
  public func distance(to other: GeoCoordinates) -> Double {
    let r = 6_371_008.8
    let p1 = latitude * .pi / 180, p2 = other.latitude * .pi / 180
    let dp = p2 - p1, dl = (other.longitude - longitude) * .pi / 180
    let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
    return 2 * r * atan2(sqrt(a), sqrt(max(0, 1 - a)))
  }

  /// Initial bearing in degrees clockwise from true north, 0..<360.
  public func bearing(to other: GeoCoordinates) -> Double {
    let p1 = latitude * .pi / 180, p2 = other.latitude * .pi / 180
    let dl = (other.longitude - longitude) * .pi / 180
    let y = sin(dl) * cos(p2)
    let x = cos(p1) * sin(p2) - sin(p1) * cos(p2) * cos(dl)
    let b = atan2(y, x) * 180 / .pi
    return b < 0 ? b + 360 : b
  }

  /// The point reached by travelling `distanceInMeters` along the geodesic that starts
  /// here with `bearing` (degrees clockwise from true north).
  public func destination(bearing: Double, distanceInMeters: Double) -> GeoCoordinates {
    let r = 6_371_008.8
    let d = distanceInMeters / r
    let t = bearing * .pi / 180
    let p1 = latitude * .pi / 180, l1 = longitude * .pi / 180
    let p2 = asin(sin(p1) * cos(d) + cos(p1) * sin(d) * cos(t))
    let l2 = l1 + atan2(sin(t) * sin(d) * cos(p1), cos(d) - sin(p1) * sin(p2))
    return GeoCoordinates(uncheckedLatitude: p2 * 180 / .pi, longitude: l2 * 180 / .pi)
  }

  /// Fast approximate distance for hot paths.
  public func fastDistance(to other: GeoCoordinates) -> Double { distance(to: other) }
}
