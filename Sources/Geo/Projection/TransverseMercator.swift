import Foundation

/// The transverse Mercator projection on an ellipsoid, by Krüger's series to sixth order in
/// the third flattening n, following Karney (2011), "Transverse Mercator with an accuracy of
/// a few nanometers", J. Geodesy 85(8), 475-485 (equations 7-12 forward, 15-17 inverse,
/// with the Newton iteration of section 2 for the latitude).
///
/// Accurate to a few nanometers within 3,900 km of the central meridian, far beyond a UTM
/// zone's 6 degrees; SUMO networks use UTM (`+proj=utm +zone=Z`) or plain `+proj=tmerc`.
package struct TransverseMercator: Sendable, Hashable {
  /// Equatorial radius, meters.
  package let semiMajorAxis: Double
  /// Flattening.
  package let flattening: Double
  /// Central meridian, degrees.
  package let centralMeridian: Double
  /// Latitude of origin, degrees.
  package let latitudeOfOrigin: Double
  /// Scale on the central meridian.
  package let scale: Double
  /// False easting, meters.
  package let falseEasting: Double
  /// False northing, meters.
  package let falseNorthing: Double

  private let eccentricity: Double
  private let rectifyingRadius: Double
  private let alpha: [Double]
  private let beta: [Double]
  private let originNorthing: Double

  /// WGS84 semi-major axis, meters.
  package static let wgs84SemiMajorAxis = 6_378_137.0
  /// WGS84 flattening.
  package static let wgs84Flattening = 1 / 298.257223563

  package init(
    semiMajorAxis: Double = wgs84SemiMajorAxis, flattening: Double = wgs84Flattening,
    centralMeridian: Double, latitudeOfOrigin: Double = 0, scale: Double = 0.9996,
    falseEasting: Double = 500_000, falseNorthing: Double = 0
  ) {
    self.semiMajorAxis = semiMajorAxis
    self.flattening = flattening
    self.centralMeridian = centralMeridian
    self.latitudeOfOrigin = latitudeOfOrigin
    self.scale = scale
    self.falseEasting = falseEasting
    self.falseNorthing = falseNorthing
    let n = flattening / (2 - flattening)
    let n2 = n * n
    let n3 = n2 * n
    let n4 = n3 * n
    let n5 = n4 * n
    let n6 = n5 * n
    eccentricity = (flattening * (2 - flattening)).squareRoot()
    rectifyingRadius = semiMajorAxis / (1 + n) * (1 + n2 / 4 + n4 / 64 + n6 / 256)
    alpha = [
      n / 2 - 2 * n2 / 3 + 5 * n3 / 16 + 41 * n4 / 180 - 127 * n5 / 288 + 7891 * n6 / 37800,
      13 * n2 / 48 - 3 * n3 / 5 + 557 * n4 / 1440 + 281 * n5 / 630 - 1_983_433 * n6 / 1_935_360,
      61 * n3 / 240 - 103 * n4 / 140 + 15061 * n5 / 26880 + 167_603 * n6 / 181_440,
      49561 * n4 / 161_280 - 179 * n5 / 168 + 6_601_661 * n6 / 7_257_600,
      34729 * n5 / 80640 - 3_418_889 * n6 / 1_995_840,
      212_378_941 * n6 / 319_334_400,
    ]
    beta = [
      n / 2 - 2 * n2 / 3 + 37 * n3 / 96 - n4 / 360 - 81 * n5 / 512 + 96199 * n6 / 604_800,
      n2 / 48 + n3 / 15 - 437 * n4 / 1440 + 46 * n5 / 105 - 1_118_711 * n6 / 3_870_720,
      17 * n3 / 480 - 37 * n4 / 840 - 209 * n5 / 4480 + 5569 * n6 / 90720,
      4397 * n4 / 161_280 - 11 * n5 / 504 - 830_251 * n6 / 7_257_600,
      4583 * n5 / 161_280 - 108_847 * n6 / 3_991_680,
      20_648_693 * n6 / 638_668_800,
    ]
    // The northing of the latitude of origin (0 for UTM): on the central meridian η' = 0
    // and ξ' is the conformal latitude.
    let xiPrime = atan(
      Self.conformalTangent(tan(latitudeOfOrigin * .pi / 180), eccentricity: eccentricity))
    var xi = xiPrime
    for j in 1...6 { xi += alpha[j - 1] * sin(2 * Double(j) * xiPrime) }
    originNorthing = scale * rectifyingRadius * xi
  }

  /// The projection of a UTM zone (1...60), northern or southern hemisphere, on WGS84.
  package static func utm(zone: Int, south: Bool = false) -> TransverseMercator {
    TransverseMercator(
      centralMeridian: Double(zone) * 6 - 183, falseNorthing: south ? 10_000_000 : 0)
  }

  /// Projects geographic coordinates (degrees) to easting and northing (meters).
  package func project(latitude: Double, longitude: Double) -> (easting: Double, northing: Double) {
    let phi = latitude * .pi / 180
    var lambda = (longitude - centralMeridian) * .pi / 180
    lambda = remainder(lambda, 2 * .pi)
    let tau = tan(phi)
    let tauPrime = Self.conformalTangent(tau, eccentricity: eccentricity)
    let xiPrime = atan2(tauPrime, cos(lambda))
    let etaPrime = asinh(
      sin(lambda) / (tauPrime * tauPrime + cos(lambda) * cos(lambda)).squareRoot())
    var xi = xiPrime
    var eta = etaPrime
    for j in 1...6 {
      let k = 2 * Double(j)
      xi += alpha[j - 1] * sin(k * xiPrime) * cosh(k * etaPrime)
      eta += alpha[j - 1] * cos(k * xiPrime) * sinh(k * etaPrime)
    }
    return (
      falseEasting + scale * rectifyingRadius * eta,
      falseNorthing + scale * rectifyingRadius * xi - originNorthing
    )
  }

  /// Converts easting and northing (meters) back to latitude and longitude (degrees).
  package func unproject(easting: Double, northing: Double) -> (latitude: Double, longitude: Double)
  {
    let xi = (northing - falseNorthing + originNorthing) / (scale * rectifyingRadius)
    let eta = (easting - falseEasting) / (scale * rectifyingRadius)
    var xiPrime = xi
    var etaPrime = eta
    for j in 1...6 {
      let k = 2 * Double(j)
      xiPrime -= beta[j - 1] * sin(k * xi) * cosh(k * eta)
      etaPrime -= beta[j - 1] * cos(k * xi) * sinh(k * eta)
    }
    let sinhEta = sinh(etaPrime)
    let cosXi = cos(xiPrime)
    let tauPrime = sin(xiPrime) / (sinhEta * sinhEta + cosXi * cosXi).squareRoot()
    let tau = Self.geographicTangent(tauPrime, eccentricity: eccentricity)
    let latitude = atan(tau) * 180 / .pi
    let longitude = centralMeridian + atan2(sinhEta, cosXi) * 180 / .pi
    return (latitude, longitude)
  }

  /// τ' = tan χ of the conformal latitude χ for τ = tan φ (Karney 2011, eq. 7-9).
  static func conformalTangent(_ tau: Double, eccentricity e: Double) -> Double {
    let sigma = sinh(e * atanh(e * tau / (1 + tau * tau).squareRoot()))
    return tau * (1 + sigma * sigma).squareRoot() - sigma * (1 + tau * tau).squareRoot()
  }

  /// Inverts ``conformalTangent(_:eccentricity:)`` by Newton's method (Karney 2011, eq. 19-21).
  static func geographicTangent(_ tauPrime: Double, eccentricity e: Double) -> Double {
    let e2m = 1 - e * e
    var tau = tauPrime / e2m
    for _ in 0..<8 {
      let candidate = conformalTangent(tau, eccentricity: e)
      let step =
        (tauPrime - candidate) / (1 + candidate * candidate).squareRoot()
        * (1 + e2m * tau * tau) / (e2m * (1 + tau * tau).squareRoot())
      tau += step
      if abs(step) <= 1e-14 * max(1, abs(tau)) { break }
    }
    return tau
  }
}
