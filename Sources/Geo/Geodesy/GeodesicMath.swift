import Foundation

/// Angle arithmetic in degrees with exact argument reduction, and the tolerances of the
/// geodesic iterations (Karney 2013, sections 4–5).
///
/// Reducing degrees exactly before converting to radians makes sin 180° exactly 0 and keeps
/// full relative precision for angles near multiples of 90°, which the nearly antipodal and
/// meridional cases depend on.
enum GeodesicMath {
  /// The smallest value whose square is still a normal number; used instead of 0 for the
  /// cosine of a polar latitude so that azimuths stay defined.
  static let tiny = Double.leastNormalMagnitude.squareRoot()
  /// Machine epsilon.
  static let tolerance0 = Double.ulpOfOne
  /// Its square root.
  static let tolerance2 = Double.ulpOfOne.squareRoot()
  /// Astroid branch tolerance (Karney 2013, section 5).
  static let tolerance1 = 200 * tolerance0
  /// Astroid branch threshold in the scaled longitude.
  static let xThreshold = 1000 * tolerance2
  /// Bisection stops once the bracket on α1 is this narrow.
  static let bisectionTolerance = tolerance0 * tolerance2
  static let degree = Double.pi / 180
  /// Newton iterations allowed before falling back to bisection alone.
  static let maxIterations1 = 20
  /// Total iterations allowed (enough for bisection to exhaust double precision).
  static let maxIterations2 = maxIterations1 + Double.significandBitCount + 1 + 10

  /// `s + e = u + v` exactly, `s` the rounded sum (Knuth's TwoSum).
  @inline(__always)
  static func twoSum(_ u: Double, _ v: Double) -> (sum: Double, error: Double) {
    let s = u + v
    var up = s - v, vpp = s - up
    up -= u
    vpp -= v
    return (s, -(up + vpp))
  }

  /// `y − x` reduced to -180...180 as a rounded value `d` plus its exact error `e`, the
  /// sign of a difference of exactly 0 or ±180 following the unreduced difference.
  @inline(__always)
  static func reducedDifference(_ y: Double, _ x: Double) -> (Double, Double) {
    var (d, e) = twoSum(reduced(-x), reduced(y))
    (d, e) = twoSum(reduced(d), e)
    if d == 0 || abs(d) == 180 {
      // A non-zero error implies d = ±180, and then d and e have opposite signs.
      let sign = e == 0 ? y - x : -e
      d = sign.sign == .minus ? -abs(d) : abs(d)
    }
    return (d, e)
  }

  /// `x.remainder(dividingBy: 360)`, skipping the library call for the common in-range
  /// case (where the remainder is `x` itself, ±180 included).
  @inline(__always)
  static func reduced(_ x: Double) -> Double {
    abs(x) <= 180 ? x : x.remainder(dividingBy: 360)
  }

  /// `(sin x, cos x)` for `x` in degrees, exact at multiples of 90°.
  @inline(__always)
  static func sinCos(degrees x: Double) -> (sin: Double, cos: Double) {
    // IEEE remainder is exact; so is subtracting the nearest multiple of 90 (Sterbenz).
    var r = reduced(x)
    let q = (r / 90).rounded(.toNearestOrEven)
    r -= 90 * q
    r *= degree
    return rotated(sin: sin(r), cos: cos(r) + 0, quarterTurns: q)
  }

  /// `(sin, cos)` of `x + e` degrees, where `e` is a small correction to `x`.
  @inline(__always)
  static func sinCos(degrees x: Double, error e: Double) -> (sin: Double, cos: Double) {
    var r = reduced(x)
    let q = (r / 90).rounded(.toNearestOrEven)
    r = rounded((r - 90 * q) + e) * degree
    return rotated(sin: sin(r), cos: cos(r) + 0, quarterTurns: q)
  }

  /// `(sin, cos)` of an angle `q` quarter turns further.
  @inline(__always)
  private static func rotated(
    sin s: Double, cos c: Double, quarterTurns q: Double
  ) -> (sin: Double, cos: Double) {
    // q is within -2...2, or NaN for a non-finite angle (which must not trap).
    switch q.isNaN ? 0 : Int(q) & 3 {
    case 0: return (s, c)
    case 1: return (c, -s)
    case 2: return (-s, -c)
    default: return (-c, s)
    }
  }

  /// `atan2(y, x)` in degrees, within -180...180, exact at multiples of 90°.
  @inline(__always)
  static func atan2Degrees(_ y: Double, _ x: Double) -> Double {
    var y = y, x = x, quadrant = 0
    if abs(y) > abs(x) {
      swap(&x, &y)
      quadrant = 2
    }
    if x.sign == .minus {
      x = -x
      quadrant += 1
    }
    let angle = atan2(y, x) / degree
    switch quadrant {
    case 1: return (y.sign == .minus ? -180 : 180) - angle
    case 2: return 90 - angle
    case 3: return -90 + angle
    default: return angle
    }
  }

  /// Any finite angle in degrees reduced to -180...180 (-180 becomes 180).
  @inline(__always)
  static func normalized(degrees x: Double) -> Double {
    let r = reduced(x)
    return r == -180 ? 180 : r
  }

  /// An angle in degrees as a bearing within 0..<360.
  @inline(__always)
  static func bearing(degrees x: Double) -> Double {
    var r = x.remainder(dividingBy: 360)
    if r < 0 { r += 360 }
    // -1e-20 + 360 rounds to 360; adding 0 turns -0 into +0.
    return r >= 360 ? 0 : r + 0
  }

  /// Rounds values below about 1/16 ulp away, so that tiny angles become 0 rather than
  /// underflowing in the trigonometry (the rounding error is far below 1 nanometer).
  @inline(__always)
  static func rounded(_ x: Double) -> Double {
    let z = 1.0 / 16
    var y = abs(x)
    y = y < z ? z - (z - y) : y
    return x.sign == .minus ? -y : y
  }

  /// `x` if positive, else +0 (never -0, which would turn atan2's result into -π).
  @inline(__always)
  static func positivePart(_ x: Double) -> Double {
    x > 0 ? x : 0
  }

  /// Scales `(s, c)` to unit length.
  @inline(__always)
  static func normalize(_ s: inout Double, _ c: inout Double) {
    let r = (s * s + c * c).squareRoot()
    s /= r
    c /= r
  }
}
