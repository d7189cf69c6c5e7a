import Foundation

extension Geodesic {
  /// Solves the inverse geodesic problem: the shortest path from `start` to `end`.
  ///
  /// Karney 2013, sections 4–6: the problem is mapped to the auxiliary sphere, the initial
  /// azimuth is guessed from the spherical solution (or, for nearly antipodal points, from the
  /// astroid approximation of section 6) and refined by Newton's method on the longitude
  /// difference, with bisection as a fallback. Meridional and equatorial lines are solved
  /// directly. Altitudes are ignored.
  /// - Parameters:
  ///   - start: The first point.
  ///   - end: The second point.
  /// - Returns: The distance in meters and the azimuths at both ends, degrees clockwise
  ///   from true north in 0..<360.
  /// - Complexity: O(1): typically two or three Newton iterations, never more than 83.
  public func inverse(from start: GeoCoordinates, to end: GeoCoordinates) -> GeodesicInverse {
    let solution = solveInverse(
      lat1: start.latitude, lon1: start.longitude, lat2: end.latitude, lon2: end.longitude)
    return GeodesicInverse(
      distanceInMeters: solution.distance,
      initialBearing: GeodesicMath.bearing(
        degrees: GeodesicMath.atan2Degrees(solution.salp1, solution.calp1)),
      finalBearing: GeodesicMath.bearing(
        degrees: GeodesicMath.atan2Degrees(solution.salp2, solution.calp2)))
  }

  /// The length in meters of the shortest path from `start` to `end`.
  ///
  /// The same computation as `inverse(from:to:)` without converting the azimuths to
  /// degrees.
  /// - Parameters:
  ///   - start: The first point.
  ///   - end: The second point.
  /// - Returns: The geodesic distance, meters.
  /// - Complexity: O(1).
  public func distanceInMeters(from start: GeoCoordinates, to end: GeoCoordinates) -> Double {
    solveInverse(
      lat1: start.latitude, lon1: start.longitude, lat2: end.latitude, lon2: end.longitude
    ).distance
  }

  /// The inverse solution with azimuths as unnormalised (sin, cos) pairs.
  struct InverseSolution {
    var distance: Double
    var salp1, calp1, salp2, calp2: Double
  }

  /// Karney 2013, sections 4–6. Angles are reduced exactly in degrees and |β1| = |β2| is
  /// made an exact symmetry, so that the special cases (meridians, the equator, antipodes)
  /// are recognised exactly rather than approximately.
  func solveInverse(
    lat1 lat1In: Double, lon1: Double, lat2 lat2In: Double, lon2: Double
  )
    -> InverseSolution
  {
    typealias M = GeodesicMath
    // Longitude difference d + e = lon2 − lon1 exactly, reduced to -180...180, then made
    // non-negative (lonSign restores the sign at the end).
    var (lon12, lon12Error) = M.reducedDifference(lon2, lon1)
    var lonSign: Double = lon12.sign == .minus ? -1 : 1
    lon12 = lonSign * M.rounded(lon12)
    lon12Error *= lonSign
    let lam12 = lon12 * M.degree
    let (slam12, clam12) = M.sinCos(degrees: lon12, error: lon12Error)
    // The supplement, 180° − λ12, decides when an equatorial line stops being shortest.
    let lon12Supplement = (180 - lon12) - lon12Error

    // Make |lat1| ≥ |lat2| (swap the points) and lat1 ≤ 0 (mirror in the equator).
    var lat1 = M.rounded(min(90, max(-90, lat1In)))
    var lat2 = M.rounded(min(90, max(-90, lat2In)))
    let swapped = abs(lat1) < abs(lat2)
    if swapped {
      lonSign = -lonSign
      swap(&lat1, &lat2)
    }
    let latSign: Double = lat1.sign == .minus ? 1 : -1
    lat1 *= latSign
    lat2 *= latSign

    // Reduced latitudes β (tan β = (1 − f) tan φ), with cos β kept away from 0 at the poles.
    var (sbet1, cbet1) = M.sinCos(degrees: lat1)
    sbet1 *= f1
    M.normalize(&sbet1, &cbet1)
    cbet1 = max(M.tiny, cbet1)
    var (sbet2, cbet2) = M.sinCos(degrees: lat2)
    sbet2 *= f1
    M.normalize(&sbet2, &cbet2)
    cbet2 = max(M.tiny, cbet2)
    // When |β2| = |β1| make the values agree exactly, so that the symmetric formulas below
    // see an exact symmetry.
    if cbet1 < -sbet1 {
      if cbet2 == cbet1 { sbet2 = sbet2.sign == .minus ? sbet1 : -sbet1 }
    } else if abs(sbet2) == -sbet1 {
      cbet2 = cbet1
    }
    let dn1 = (1 + ep2 * sbet1 * sbet1).squareRoot()
    let dn2 = (1 + ep2 * sbet2 * sbet2).squareRoot()

    var distance = Double.nan
    var salp1 = 0.0, calp1 = 0.0, salp2 = 0.0, calp2 = 0.0

    // Meridional geodesic (including a start at a pole): azimuth 0 or 180 along the way.
    var meridian = lat1 == -90 || slam12 == 0
    if meridian {
      calp1 = clam12
      salp1 = slam12
      calp2 = 1
      salp2 = 0
      let ssig1 = sbet1, csig1 = calp1 * cbet1
      let ssig2 = sbet2, csig2 = calp2 * cbet2
      var sig12 = atan2(
        GeodesicMath.positivePart(csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2)
      // Along a meridian k² = e'², so ε = n.
      var (s12b, m12b) = lengths(
        eps: n, sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1,
        ssig2: ssig2, csig2: csig2, dn2: dn2)
      // Beyond σ12 = 1 the meridian is shortest only while no conjugate point is passed.
      if sig12 < 1 || m12b >= 0 {
        if sig12 < 3 * M.tiny || (sig12 < M.tolerance0 && (s12b < 0 || m12b < 0)) {
          sig12 = 0
          s12b = 0
        }
        distance = s12b * polarRadiusInMeters
      } else {
        meridian = false
      }
    }

    if !meridian && sbet1 == 0 && lon12Supplement >= flattening * 180 {
      // Equatorial geodesic, shortest while λ12 ≤ (1 − f) π.
      salp1 = 1
      calp1 = 0
      salp2 = 1
      calp2 = 0
      distance = equatorialRadiusInMeters * lam12
    } else if !meridian {
      let start = inverseStart(
        sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
        lam12: lam12, slam12: slam12, clam12: clam12)
      salp1 = start.salp1
      calp1 = start.calp1
      if start.sig12 >= 0 {
        // Short line solved on the auxiliary sphere with a scaled longitude.
        salp2 = start.salp2
        calp2 = start.calp2
        distance = start.sig12 * polarRadiusInMeters * start.dnm
      } else {
        // Newton's method on λ12(α1) with a bracket [α1a, α1b] for bisection.
        var salp1a = M.tiny, calp1a = 1.0, salp1b = M.tiny, calp1b = -1.0
        var tripNewton = false, tripBisection = false
        var state = LambdaState()
        for iteration in 0..<M.maxIterations2 {
          state = lambda12(
            sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
            salp1: salp1, calp1: calp1, slam120: slam12, clam120: clam12)
          let v = state.v
          if tripBisection || !(abs(v) >= (tripNewton ? 8 : 1) * M.tolerance0) { break }
          // Update the bracket: λ12 grows with α1.
          if v > 0 && (iteration > M.maxIterations1 || calp1 / salp1 > calp1b / salp1b) {
            salp1b = salp1
            calp1b = calp1
          } else if v < 0
            && (iteration > M.maxIterations1 || calp1 / salp1 < calp1a / salp1a)
          {
            salp1a = salp1
            calp1a = calp1
          }
          let dv =
            iteration < M.maxIterations1
            ? lambda12Derivative(
              state, sbet1: sbet1, cbet1: cbet1, dn1: dn1, cbet2: cbet2, dn2: dn2)
            : 0
          if dv > 0 {
            let dalp1 = -v / dv
            if abs(dalp1) < .pi {
              let sdalp1 = sin(dalp1), cdalp1 = cos(dalp1)
              let nsalp1 = salp1 * cdalp1 + calp1 * sdalp1
              if nsalp1 > 0 {
                calp1 = calp1 * cdalp1 - salp1 * sdalp1
                salp1 = nsalp1
                M.normalize(&salp1, &calp1)
                // Near convergence the slope can vanish; then settle for a tolerance
                // based on ε rather than on its square root.
                tripNewton = abs(v) <= 16 * M.tolerance0
                continue
              }
            }
          }
          // Newton stepped outside (0, π) or is not converging: bisect.
          salp1 = (salp1a + salp1b) / 2
          calp1 = (calp1a + calp1b) / 2
          M.normalize(&salp1, &calp1)
          tripNewton = false
          tripBisection =
            abs(salp1a - salp1) + (calp1a - calp1) < M.bisectionTolerance
            || abs(salp1 - salp1b) + (calp1 - calp1b) < M.bisectionTolerance
        }
        distance =
          polarRadiusInMeters
          * Geodesic.arcLength(
            eps: state.eps, sig12: state.sig12, ssig1: state.ssig1, csig1: state.csig1,
            ssig2: state.ssig2, csig2: state.csig2)
        salp2 = state.salp2
        calp2 = state.calp2
      }
    }

    // Undo the swap and the reflections.
    if swapped {
      swap(&salp1, &salp2)
      swap(&calp1, &calp2)
    }
    let swapSign: Double = swapped ? -1 : 1
    salp1 *= swapSign * lonSign
    calp1 *= swapSign * latSign
    salp2 *= swapSign * lonSign
    calp2 *= swapSign * latSign
    return InverseSolution(
      distance: distance, salp1: salp1, calp1: calp1, salp2: salp2, calp2: calp2)
  }

  /// Distance `s12 / b` between two points of a geodesic (Karney 2013, eqs. 7, 15).
  @inline(__always)
  static func arcLength(
    eps: Double, sig12: Double, ssig1: Double, csig1: Double, ssig2: Double, csig2: Double
  ) -> Double {
    let c1 = SineSeries6.c1(eps)
    let b1 = c1.sum(sin: ssig2, cos: csig2) - c1.sum(sin: ssig1, cos: csig1)
    return (1 + SineSeries6.a1m1(eps)) * (sig12 + b1)
  }

  /// Distance `s12 / b` and reduced length `m12 / b` between two points of a geodesic
  /// (Karney 2013, eqs. 7, 15, 38–41).
  @inline(__always)
  func lengths(
    eps: Double, sig12: Double, ssig1: Double, csig1: Double, dn1: Double,
    ssig2: Double, csig2: Double, dn2: Double
  ) -> (s12b: Double, m12b: Double) {
    let a1m1 = SineSeries6.a1m1(eps), c1 = SineSeries6.c1(eps)
    let a2m1 = SineSeries6.a2m1(eps), c2 = SineSeries6.c2(eps)
    let b1 = c1.sum(sin: ssig2, cos: csig2) - c1.sum(sin: ssig1, cos: csig1)
    let b2 = c2.sum(sin: ssig2, cos: csig2) - c2.sum(sin: ssig1, cos: csig1)
    let a1 = 1 + a1m1, a2 = 1 + a2m1
    let s12b = a1 * (sig12 + b1)
    // J(σ2) − J(σ1) with J = I1 − I2 (eq. 40).
    let j12 = (a1m1 - a2m1) * sig12 + (a1 * b1 - a2 * b2)
    let m12b = dn2 * (csig1 * ssig2) - dn1 * (ssig1 * csig2) - csig1 * csig2 * j12
    return (s12b, m12b)
  }

  /// One evaluation of λ12(α1) − λ12, with what the derivative and the distance need.
  struct LambdaState {
    var v = 0.0
    var salp2 = 0.0, calp2 = 0.0, sig12 = 0.0
    var ssig1 = 0.0, csig1 = 0.0, ssig2 = 0.0, csig2 = 0.0, eps = 0.0
  }

  /// The longitude difference reached by the geodesic leaving point 1 with azimuth α1,
  /// minus the wanted one (Karney 2013, eqs. 5–8, 10–14, 23, 44–45).
  @inline(__always)
  func lambda12(
    sbet1: Double, cbet1: Double, dn1: Double, sbet2: Double, cbet2: Double, dn2: Double,
    salp1: Double, calp1 calp1In: Double, slam120: Double, clam120: Double
  ) -> LambdaState {
    typealias M = GeodesicMath
    var state = LambdaState()
    // An equatorial start heading due north/south would be degenerate; nudge it.
    let calp1 = sbet1 == 0 && calp1In == 0 ? -M.tiny : calp1In
    // Azimuth at the equator crossing, α0 (eq. 5).
    let salp0 = salp1 * cbet1
    let calp0 = (calp1 * calp1 + (salp1 * sbet1) * (salp1 * sbet1)).squareRoot()
    // σ1 and ω1 (eqs. 10–11).
    var ssig1 = sbet1, csig1 = calp1 * cbet1
    let somg1 = salp0 * sbet1, comg1 = calp1 * cbet1
    M.normalize(&ssig1, &csig1)
    // α2 from Clairaut's relation (eqs. 5, 45), written to avoid cancellation.
    let salp2 = cbet2 != cbet1 ? salp0 / cbet2 : salp1
    let calp2 =
      cbet2 != cbet1 || abs(sbet2) != -sbet1
      ? ((calp1 * cbet1) * (calp1 * cbet1)
        + (cbet1 < -sbet1
          ? (cbet2 - cbet1) * (cbet1 + cbet2) : (sbet1 - sbet2) * (sbet1 + sbet2)))
        .squareRoot() / cbet2
      : abs(calp1)
    var ssig2 = sbet2, csig2 = calp2 * cbet2
    let somg2 = salp0 * sbet2, comg2 = calp2 * cbet2
    M.normalize(&ssig2, &csig2)
    let sig12 = atan2(
      GeodesicMath.positivePart(csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2)
    let somg12 = GeodesicMath.positivePart(comg1 * somg2 - somg1 * comg2)
    let comg12 = comg1 * comg2 + somg1 * somg2
    // ω12 − λ12(wanted), as one angle to keep precision.
    let eta = atan2(
      somg12 * clam120 - comg12 * slam120, comg12 * clam120 + somg12 * slam120)
    let k2 = calp0 * calp0 * ep2
    let eps = Geodesic.epsilon(k2: k2)
    let c3 = self.c3(eps)
    let b312 = c3.sum(sin: ssig2, cos: csig2) - c3.sum(sin: ssig1, cos: csig1)
    // λ12 = ω12 − f A3 sin α0 (σ12 + I3 terms) (eqs. 8, 23).
    let domg12 = -flattening * a3(eps) * salp0 * (sig12 + b312)
    state.v = eta + domg12
    state.salp2 = salp2
    state.calp2 = calp2
    state.sig12 = sig12
    state.ssig1 = ssig1
    state.csig1 = csig1
    state.ssig2 = ssig2
    state.csig2 = csig2
    state.eps = eps
    return state
  }

  /// dλ12/dα1 = m12 / (a cos α2 cos β2) (Karney 2013, eq. 46), computed only when a Newton
  /// step is taken.
  @inline(__always)
  func lambda12Derivative(
    _ state: LambdaState, sbet1: Double, cbet1: Double, dn1: Double, cbet2: Double, dn2: Double
  ) -> Double {
    // At a vertex of the geodesic (α2 = ±90°) eq. 46 is 0/0; this is its limit.
    if state.calp2 == 0 { return -2 * f1 * dn1 / sbet1 }
    let m12b = lengths(
      eps: state.eps, sig12: state.sig12, ssig1: state.ssig1, csig1: state.csig1, dn1: dn1,
      ssig2: state.ssig2, csig2: state.csig2, dn2: dn2
    ).m12b
    return m12b * f1 / (state.calp2 * cbet2)
  }

  /// The starting guess for α1 (Karney 2013, sections 4 and 6).
  ///
  /// `sig12 ≥ 0` means the line is so short that the guess is the solution, with
  /// `salp2`/`calp2` and the scale `dnm` (eqs. 47–49).
  struct InverseStart {
    var sig12 = -1.0
    var salp1 = 0.0, calp1 = 0.0, salp2 = 0.0, calp2 = 0.0, dnm = 0.0
  }

  func inverseStart(
    sbet1: Double, cbet1: Double, dn1: Double, sbet2: Double, cbet2: Double, dn2: Double,
    lam12: Double, slam12: Double, clam12: Double
  ) -> InverseStart {
    typealias M = GeodesicMath
    var result = InverseStart()
    let sbet12 = sbet2 * cbet1 - cbet2 * sbet1  // sin(β2 − β1)
    let cbet12 = cbet2 * cbet1 + sbet2 * sbet1
    let sbet12a = sbet2 * cbet1 + cbet2 * sbet1  // sin(β2 + β1)
    let shortLine = cbet12 >= 0 && sbet12 < 0.5 && cbet2 * lam12 < 0.5
    var somg12: Double, comg12: Double
    if shortLine {
      // Scale the longitude by the mean w = sqrt(1 + e'² sin² β) (eq. 48).
      var sbetm2 = (sbet1 + sbet2) * (sbet1 + sbet2)
      sbetm2 /= sbetm2 + (cbet1 + cbet2) * (cbet1 + cbet2)
      result.dnm = (1 + ep2 * sbetm2).squareRoot()
      let omg12 = lam12 / (f1 * result.dnm)
      somg12 = sin(omg12)
      comg12 = cos(omg12)
    } else {
      somg12 = slam12
      comg12 = clam12
    }
    // Spherical azimuth (eq. 49), arranged to avoid cancellation.
    result.salp1 = cbet2 * somg12
    result.calp1 =
      comg12 >= 0
      ? sbet12 + cbet2 * sbet1 * somg12 * somg12 / (1 + comg12)
      : sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)
    let ssig12 = (result.salp1 * result.salp1 + result.calp1 * result.calp1).squareRoot()
    let csig12 = sbet1 * sbet2 + cbet1 * cbet2 * comg12

    if shortLine && ssig12 < shortLineThreshold {
      result.salp2 = cbet1 * somg12
      result.calp2 =
        sbet12 - cbet1 * sbet2 * (comg12 >= 0 ? somg12 * somg12 / (1 + comg12) : 1 - comg12)
      M.normalize(&result.salp2, &result.calp2)
      result.sig12 = atan2(ssig12, csig12)
    } else if abs(n) > 0.1 || csig12 >= 0 || ssig12 >= 6 * abs(n) * .pi * cbet1 * cbet1 {
      // Not nearly antipodal: the spherical guess is good enough.
    } else {
      // Nearly antipodal: scale to the astroid problem of section 6 (eqs. 53–57).
      let lam12x = atan2(-slam12, -clam12)  // λ12 − π
      let k2 = sbet1 * sbet1 * ep2
      let eps = Geodesic.epsilon(k2: k2)
      let lamScale = flattening * cbet1 * a3(eps) * .pi
      let betScale = lamScale * cbet1
      let x = lam12x / lamScale
      let y = sbet12a / betScale
      if y > -M.tolerance1 && x > -1 - M.xThreshold {
        // Points symmetric about the equator: the astroid degenerates to a line.
        result.salp1 = min(1, -x)
        result.calp1 = -(1 - result.salp1 * result.salp1).squareRoot()
      } else {
        // Estimate ω12 from the astroid root and use the spherical formula for α1,
        // which converges a little faster than taking α1 from eq. 57 directly.
        let k = Geodesic.astroid(x: x, y: y)
        let omg12a = lamScale * (-x * k / (1 + k))
        let somg = sin(omg12a), comg = -cos(omg12a)
        result.salp1 = cbet2 * somg
        result.calp1 = sbet12a - cbet2 * sbet1 * somg * somg / (1 - comg)
      }
    }
    if !(result.salp1 <= 0) {
      M.normalize(&result.salp1, &result.calp1)
    } else {
      result.salp1 = 1
      result.calp1 = 0
    }
    return result
  }

  /// The positive root `k` of `k⁴ + 2k³ − (x² + y² − 1)k² − 2y²k − y² = 0` (Karney 2013,
  /// eq. 55), solved in closed form with the cancellation-free arrangement of the paper.
  static func astroid(x: Double, y: Double) -> Double {
    let p = x * x, q = y * y
    let r = (p + q - 1) / 6
    guard !(q == 0 && r <= 0) else { return 0 }
    // The resolvent cubic's discriminant decides between Cardano and the trigonometric form.
    let s = p * q / 4
    let r2 = r * r, r3 = r * r2
    let disc = s * (s + 2 * r3)
    var u = r
    if disc >= 0 {
      var t3 = s + r3
      // Pick the sign that avoids cancellation.
      t3 += t3 < 0 ? -disc.squareRoot() : disc.squareRoot()
      let t = cbrt(t3)
      u += t + (t != 0 ? r2 / t : 0)
    } else {
      let angle = atan2((-disc).squareRoot(), -(s + r3))
      u += 2 * r * cos(angle / 3)
    }
    let v = (u * u + q).squareRoot()
    let uv = u < 0 ? q / (v - u) : u + v
    let w = (uv - q) / (2 * v)
    return uv / ((uv + w * w).squareRoot() + w)
  }
}
