import Foundation

/// Geodesics on an ellipsoid of revolution: shortest paths, their lengths and azimuths.
///
/// Implements C. F. F. Karney, "Algorithms for geodesics", Journal of Geodesy 87, 43–55
/// (2013), doi:10.1007/s00190-012-0578-z, with the series in the third flattening `n` and in
/// `ε` carried to sixth order as given in the paper, which bounds the error for the Earth at
/// about 15 nanometers. Any pair of points is handled: nearly antipodal points (with the
/// paper's astroid starting guess), points on the equator, along a meridian, at the poles
/// and coincident points included. Against GeographicLib this implementation agrees to
/// 10 nanometers in distance and 10⁻¹⁰ degrees in azimuth wherever the azimuth is well
/// conditioned (see `GeodesicVectorTests`).
///
/// The computations allocate nothing; a `Geodesic` is a small immutable value holding the
/// ellipsoid's constants, shared freely across tasks.
public struct Geodesic: Sendable {
  /// The equatorial radius (semi-major axis) `a`, meters.
  public let equatorialRadiusInMeters: Double
  /// The flattening `f = (a − b) / a`.
  public let flattening: Double
  /// The polar radius (semi-minor axis) `b = a (1 − f)`, meters.
  public let polarRadiusInMeters: Double

  /// `1 − f`.
  let f1: Double
  /// Second eccentricity squared, `e'² = e² / (1 − e²)`.
  let ep2: Double
  /// Third flattening, `n = f / (2 − f)`.
  let n: Double
  /// Coefficients of `A3(ε)` by power of `ε` (Karney 2013, eq. 24), fixed by `n`.
  let a3: SineSeries6
  /// Coefficients of `C3l(ε)` (Karney 2013, eq. 25), fixed by `n`.
  let c3: C3Coefficients
  /// Below this angular separation on the auxiliary sphere, the inverse problem is solved
  /// without iteration (the error of the short-line approximation is then negligible).
  let shortLineThreshold: Double

  /// The WGS84 ellipsoid: a = 6 378 137 m, f = 1 / 298.257223563 (NIMA TR8350.2).
  public static let wgs84 = Geodesic(
    uncheckedEquatorialRadius: 6_378_137, flattening: 1 / 298.257223563)

  /// Creates the geodesic calculator for an oblate ellipsoid or a sphere.
  ///
  /// The series used are accurate for `|f| ≤ 1/50`; prolate ellipsoids (`f < 0`) are not
  /// supported.
  /// - Parameters:
  ///   - equatorialRadiusInMeters: The semi-major axis `a`, finite and positive.
  ///   - flattening: `f`, within `0...1/50` (0 for a sphere).
  /// - Returns: `nil` when the radius or flattening is outside those ranges.
  public init?(equatorialRadiusInMeters: Double, flattening: Double) {
    guard equatorialRadiusInMeters.isFinite, equatorialRadiusInMeters > 0,
      flattening.isFinite, flattening >= 0, flattening <= 1.0 / 50
    else { return nil }
    self.init(uncheckedEquatorialRadius: equatorialRadiusInMeters, flattening: flattening)
  }

  private init(uncheckedEquatorialRadius a: Double, flattening f: Double) {
    equatorialRadiusInMeters = a
    flattening = f
    f1 = 1 - f
    polarRadiusInMeters = a * f1
    let e2 = f * (2 - f)
    ep2 = e2 / (f1 * f1)
    let n = f / (2 - f)
    self.n = n
    let nn = n * n
    // A3 = 1 − (1/2 − n/2) ε − (1/4 + n/8 − 3n²/8) ε² − (1/16 + 3n/16 + n²/16) ε³
    //        − (3/64 + n/32) ε⁴ − 3/128 ε⁵; stored as the coefficients of ε¹...ε⁵.
    a3 = SineSeries6(
      -(1.0 / 2 - n / 2), -(1.0 / 4 + n / 8 - 3 * nn / 8), -(1.0 / 16 + 3 * n / 16 + nn / 16),
      -(3.0 / 64 + n / 32), -3.0 / 128, 0)
    c3 = C3Coefficients(
      c11: 1.0 / 4 - n / 4, c12: 1.0 / 8 - nn / 8, c13: 3.0 / 64 + 3 * n / 64 - nn / 64,
      c14: 5.0 / 128 + n / 64, c15: 3.0 / 128,
      c22: 1.0 / 16 - 3 * n / 32 + nn / 32, c23: 3.0 / 64 - n / 32 - 3 * nn / 64,
      c24: 3.0 / 128 + n / 128, c25: 5.0 / 256,
      c33: 5.0 / 192 - 3 * n / 64 + 5 * nn / 192, c34: 3.0 / 128 - 5 * n / 192, c35: 7.0 / 512,
      c44: 7.0 / 512 - 7 * n / 256, c45: 7.0 / 512,
      c55: 21.0 / 2560)
    // Karney 2013, section 4: the short-line solution is used when σ12 is below roughly
    // sqrt(ε_machine) scaled by the flattening.
    shortLineThreshold =
      0.1 * GeodesicMath.tolerance2
      / (max(0.001, f) * min(1, 1 - f / 2) / 2).squareRoot()
  }

  /// `ε` of Karney 2013, eq. 16, from `k² = e'² cos² α0`.
  @inline(__always)
  static func epsilon(k2: Double) -> Double {
    k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
  }

  /// `A3(ε)` (Karney 2013, eq. 24).
  @inline(__always)
  func a3(_ eps: Double) -> Double {
    1 + eps * (a3.c1 + eps * (a3.c2 + eps * (a3.c3 + eps * (a3.c4 + eps * a3.c5))))
  }
}
