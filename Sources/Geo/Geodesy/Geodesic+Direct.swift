import Foundation

extension Geodesic {
  /// Solves the direct geodesic problem: where a geodesic of a given length and initial
  /// azimuth ends.
  ///
  /// Karney 2013, section 3: the distance is converted to an arc length on the auxiliary
  /// sphere through the reverted series of eq. 21, and the longitude is corrected by the
  /// series of eqs. 23–25. Any finite distance is accepted: a negative distance travels
  /// backwards, and a distance longer than the ellipsoid's circumference wraps around.
  /// A bearing or distance that is not finite is treated as 0 (the result is the start).
  /// - Parameters:
  ///   - start: Where the geodesic starts (its altitude is ignored and not carried over).
  ///   - bearing: The initial azimuth, degrees clockwise from true north (any finite value).
  ///   - distanceInMeters: The length of the geodesic, meters.
  /// - Returns: The end point, longitude within -180...180, and the azimuth of the geodesic
  ///   where it arrives there, degrees clockwise from true north in 0..<360.
  /// - Complexity: O(1).
  public func direct(
    from start: GeoCoordinates, bearing: Double, distanceInMeters: Double
  )
    -> (coordinates: GeoCoordinates, finalBearing: Double)
  {
    let azimuth = bearing.isFinite ? bearing : 0
    guard distanceInMeters.isFinite, distanceInMeters != 0 else {
      return (
        GeoCoordinates(uncheckedLatitude: start.latitude, longitude: start.longitude),
        GeodesicMath.bearing(degrees: azimuth)
      )
    }
    let end = solveDirect(
      lat1: start.latitude, lon1: start.longitude, azi1: azimuth, s12: distanceInMeters)
    return (
      GeoCoordinates(uncheckedLatitude: end.lat2, longitude: end.lon2),
      GeodesicMath.bearing(degrees: end.azi2)
    )
  }

  /// Karney 2013, section 3 (eqs. 5–21 and 23–25), for finite inputs.
  func solveDirect(
    lat1: Double, lon1: Double, azi1: Double, s12: Double
  )
    -> (lat2: Double, lon2: Double, azi2: Double)
  {
    typealias M = GeodesicMath
    let (salp1, calp1) = M.sinCos(degrees: M.rounded(M.normalized(degrees: azi1)))
    var (sbet1, cbet1) = M.sinCos(degrees: M.rounded(min(90, max(-90, lat1))))
    sbet1 *= f1
    M.normalize(&sbet1, &cbet1)
    cbet1 = max(M.tiny, cbet1)

    // Azimuth at the equator crossing (eq. 5) and σ1, ω1 (eqs. 10–11).
    let salp0 = salp1 * cbet1
    let calp0 = (calp1 * calp1 + (salp1 * sbet1) * (salp1 * sbet1)).squareRoot()
    var ssig1 = sbet1
    var csig1 = sbet1 != 0 || calp1 != 0 ? cbet1 * calp1 : 1
    let somg1 = salp0 * sbet1, comg1 = csig1
    M.normalize(&ssig1, &csig1)

    let k2 = calp0 * calp0 * ep2
    let eps = Geodesic.epsilon(k2: k2)
    let a1m1 = SineSeries6.a1m1(eps)
    let c1 = SineSeries6.c1(eps), c1p = SineSeries6.c1Prime(eps)
    // τ1 = σ1 + Σ C1l sin 2lσ1, so that s / (b A1) = τ2 − τ1 (eq. 7, 15).
    let b11 = c1.sum(sin: ssig1, cos: csig1)
    let sb11 = sin(b11), cb11 = cos(b11)
    let stau1 = ssig1 * cb11 + csig1 * sb11
    let ctau1 = csig1 * cb11 - ssig1 * sb11
    let c3 = self.c3(eps)
    let a3c = -flattening * salp0 * a3(eps)
    let b31 = c3.sum(sin: ssig1, cos: csig1)

    let tau12 = s12 / (polarRadiusInMeters * (1 + a1m1))
    let stau12 = sin(tau12), ctau12 = cos(tau12)
    // σ2 = τ2 + Σ C1'l sin 2lτ2 (eq. 20).
    let b12 = -c1p.sum(
      sin: stau1 * ctau12 + ctau1 * stau12, cos: ctau1 * ctau12 - stau1 * stau12)
    var sig12 = tau12 - (b12 - b11)
    var ssig12 = sin(sig12), csig12 = cos(sig12)
    if flattening > 0.01 {
      // The reverted series loses accuracy for larger flattening; one Newton step on
      // s(σ) = b A1 (σ + B1(σ)) restores it.
      let ssig2 = ssig1 * csig12 + csig1 * ssig12
      let csig2 = csig1 * csig12 - ssig1 * ssig12
      let b12 = c1.sum(sin: ssig2, cos: csig2)
      let error = (1 + a1m1) * (sig12 + (b12 - b11)) - s12 / polarRadiusInMeters
      sig12 -= error / (1 + k2 * ssig2 * ssig2).squareRoot()
      ssig12 = sin(sig12)
      csig12 = cos(sig12)
    }

    let ssig2 = ssig1 * csig12 + csig1 * ssig12
    var csig2 = csig1 * csig12 - ssig1 * ssig12
    // sin β2 and cos β2 (eq. 13), cos β2 kept off 0 at a pole.
    let sbet2 = calp0 * ssig2
    var cbet2 = (salp0 * salp0 + (calp0 * csig2) * (calp0 * csig2)).squareRoot()
    if cbet2 == 0 {
      cbet2 = M.tiny
      csig2 = M.tiny
    }
    let salp2 = salp0, calp2 = calp0 * csig2  // eq. 14
    let somg2 = salp0 * ssig2, comg2 = csig2
    // ω12 reduced to -π...π: fine, since the longitude is wrapped at the end anyway.
    let omg12 = atan2(somg2 * comg1 - comg2 * somg1, comg2 * comg1 + somg2 * somg1)
    let b32 = c3.sum(sin: ssig2, cos: csig2)
    let lam12 = omg12 + a3c * (sig12 + (b32 - b31))
    let lon12 = lam12 / M.degree
    let lon2 = M.normalized(
      degrees: M.normalized(degrees: lon1) + M.normalized(degrees: lon12))
    let lat2 = M.atan2Degrees(sbet2, f1 * cbet2)
    let azi2 = M.atan2Degrees(salp2, calp2)
    return (lat2, lon2, azi2)
  }
}
