import Foundation

/// A flat east/north frame in meters around an origin, scaled by the WGS84 radii of
/// curvature at the origin's latitude (an equirectangular projection fitted locally).
///
/// Geometry code uses it to decide *where* on a segment something happens (the parameter of
/// a closest point, whether two segments cross); distances that are reported are then
/// measured geodesically. Its relative distance error grows with the distance from the
/// origin, about (d / 6 400 km) x tan(latitude) plus the meridian-convergence term, which
/// is below 0.1 % within 10 km at 60 degrees of latitude.
package struct LocalPlane: Sendable {
  package let originLatitude: Double
  package let originLongitude: Double
  package let metersPerDegreeLatitude: Double
  package let metersPerDegreeLongitude: Double

  package init(origin: GeoCoordinates) {
    originLatitude = origin.latitude
    originLongitude = origin.longitude
    metersPerDegreeLatitude = LocalPlane.metersPerDegreeLatitude(at: origin.latitude)
    metersPerDegreeLongitude = LocalPlane.metersPerDegreeLongitude(at: origin.latitude)
  }

  /// East and north offsets of `point` from the origin, meters; longitudes are unwrapped
  /// so that a point just across the antimeridian lands next to the origin.
  @inlinable
  package func project(_ point: GeoCoordinates) -> (x: Double, y: Double) {
    var dLng = point.longitude - originLongitude
    if dLng > 180 { dLng -= 360 } else if dLng < -180 { dLng += 360 }
    return (
      dLng * metersPerDegreeLongitude, (point.latitude - originLatitude) * metersPerDegreeLatitude
    )
  }

  static let semiMajorAxis = 6_378_137.0
  static let flattening = 1 / 298.257223563
  static let eccentricitySquared = flattening * (2 - flattening)

  /// Length of one degree of latitude at `latitude` (meridional radius of curvature).
  package static func metersPerDegreeLatitude(at latitude: Double) -> Double {
    let s = sin(latitude * .pi / 180)
    let w = 1 - eccentricitySquared * s * s
    return semiMajorAxis * (1 - eccentricitySquared) / (w * w.squareRoot()) * .pi / 180
  }

  /// Length of one degree of longitude at `latitude` (prime-vertical radius x cos).
  package static func metersPerDegreeLongitude(at latitude: Double) -> Double {
    let phi = latitude * .pi / 180
    let s = sin(phi)
    return semiMajorAxis / (1 - eccentricitySquared * s * s).squareRoot() * cos(phi) * .pi / 180
  }
}
