import Foundation

// The series of Karney 2013 ("Algorithms for geodesics", J. Geodesy 87, 43–55), truncated
// at sixth order in ε as in the paper. Coefficients live in fixed-size structs so that the
// hot path never allocates.

/// Six coefficients `c1...c6` of a series `Σ c_l sin(2 l σ)`.
struct SineSeries6 {
  var c1, c2, c3, c4, c5, c6: Double

  @inline(__always)
  init(_ c1: Double, _ c2: Double, _ c3: Double, _ c4: Double, _ c5: Double, _ c6: Double) {
    (self.c1, self.c2, self.c3, self.c4, self.c5, self.c6) = (c1, c2, c3, c4, c5, c6)
  }

  /// `Σ c_l sin(2 l σ)` from `sin σ` and `cos σ`, by Clenshaw summation.
  @inline(__always)
  func sum(sin s: Double, cos c: Double) -> Double {
    let twiceCos2 = 2 * (c - s) * (c + s)
    let y6 = c6
    let y5 = c5 + twiceCos2 * y6
    let y4 = c4 + twiceCos2 * y5 - y6
    let y3 = c3 + twiceCos2 * y4 - y5
    let y2 = c2 + twiceCos2 * y3 - y4
    let y1 = c1 + twiceCos2 * y2 - y3
    return 2 * s * c * y1
  }

  /// `A1 − 1` (Karney 2013, eq. 17).
  @inline(__always)
  static func a1m1(_ eps: Double) -> Double {
    let e2 = eps * eps
    let t = e2 * (1.0 / 4 + e2 * (1.0 / 64 + e2 / 256))
    return (t + eps) / (1 - eps)
  }

  /// `C1l` (Karney 2013, eq. 18): `I1(σ) = A1 (σ + Σ C1l sin 2lσ)`.
  @inline(__always)
  static func c1(_ eps: Double) -> SineSeries6 {
    let e2 = eps * eps
    let d2 = e2, d3 = e2 * eps, d4 = e2 * e2, d5 = d4 * eps, d6 = d4 * e2
    return SineSeries6(
      eps * (-1.0 / 2 + e2 * (3.0 / 16 - e2 / 32)),
      d2 * (-1.0 / 16 + e2 * (1.0 / 32 - 9 * e2 / 2048)),
      d3 * (-1.0 / 48 + 3 * e2 / 256),
      d4 * (-5.0 / 512 + 3 * e2 / 512),
      d5 * (-7.0 / 1280),
      d6 * (-7.0 / 2048))
  }

  /// `C1'l` (Karney 2013, eq. 21): the reversion `σ = τ + Σ C1'l sin 2lτ`.
  @inline(__always)
  static func c1Prime(_ eps: Double) -> SineSeries6 {
    let e2 = eps * eps
    let d2 = e2, d3 = e2 * eps, d4 = e2 * e2, d5 = d4 * eps, d6 = d4 * e2
    return SineSeries6(
      eps * (1.0 / 2 + e2 * (-9.0 / 32 + 205 * e2 / 1536)),
      d2 * (5.0 / 16 + e2 * (-37.0 / 96 + 1335 * e2 / 4096)),
      d3 * (29.0 / 96 - 75 * e2 / 128),
      d4 * (539.0 / 1536 - 2391 * e2 / 2560),
      d5 * (3467.0 / 7680),
      d6 * (38081.0 / 61440))
  }

  /// `A2 − 1` (Karney 2013, eq. 42): `A2 = (1 − ε)(1 + ε²/4 + 9ε⁴/64 + 25ε⁶/256)`.
  @inline(__always)
  static func a2m1(_ eps: Double) -> Double {
    let e2 = eps * eps
    let u = e2 * (1.0 / 4 + e2 * (9.0 / 64 + 25 * e2 / 256))
    return u - eps * (1 + u)
  }

  /// `C2l` (Karney 2013, eq. 43): `I2(σ) = A2 (σ + Σ C2l sin 2lσ)`.
  @inline(__always)
  static func c2(_ eps: Double) -> SineSeries6 {
    let e2 = eps * eps
    let d2 = e2, d3 = e2 * eps, d4 = e2 * e2, d5 = d4 * eps, d6 = d4 * e2
    return SineSeries6(
      eps * (1.0 / 2 + e2 * (1.0 / 16 + e2 / 32)),
      d2 * (3.0 / 16 + e2 * (1.0 / 32 + 35 * e2 / 2048)),
      d3 * (5.0 / 48 + 5 * e2 / 256),
      d4 * (35.0 / 512 + 7 * e2 / 512),
      d5 * (63.0 / 1280),
      d6 * (77.0 / 2048))
  }
}

/// The coefficients of `C3l(ε)` (Karney 2013, eq. 25) after substituting the ellipsoid's
/// `n`: `cLK` multiplies `ε^K` in `C3L`.
struct C3Coefficients {
  let c11, c12, c13, c14, c15: Double
  let c22, c23, c24, c25: Double
  let c33, c34, c35: Double
  let c44, c45: Double
  let c55: Double

  /// `C3l(ε)` for l = 1...5 (the sixth is 0 at this order).
  @inline(__always)
  func callAsFunction(_ eps: Double) -> SineSeries6 {
    let e2 = eps * eps, e3 = e2 * eps, e4 = e2 * e2, e5 = e4 * eps
    return SineSeries6(
      eps * (c11 + eps * (c12 + eps * (c13 + eps * (c14 + eps * c15)))),
      e2 * (c22 + eps * (c23 + eps * (c24 + eps * c25))),
      e3 * (c33 + eps * (c34 + eps * c35)),
      e4 * (c44 + eps * c45),
      e5 * c55,
      0)
  }
}
