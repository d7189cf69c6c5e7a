/// An axis-aligned rectangle in the plane of an `RTree`: `minX...maxX` by `minY...maxY`.
///
/// For geographic data x is the longitude and y the latitude, both in degrees. A box that
/// crosses the antimeridian can be given unwrapped (`minX` 170, `maxX` 190): the geographic
/// nearest-neighbour search measures longitudes modulo 360, while planar box searches see
/// exactly the numbers given (use `covering(_:)` to split a `GeoBox` for those).
public struct RTreeBox: Hashable, Sendable, CustomStringConvertible {
  /// The smallest x (western longitude), inclusive.
  public let minX: Double
  /// The smallest y (southern latitude), inclusive.
  public let minY: Double
  /// The largest x (eastern longitude), inclusive.
  public let maxX: Double
  /// The largest y (northern latitude), inclusive.
  public let maxY: Double

  /// Creates a box from its edges.
  ///
  /// - Parameters:
  ///   - minX: Smallest x.
  ///   - minY: Smallest y.
  ///   - maxX: Largest x, at least `minX`.
  ///   - maxY: Largest y, at least `minY`.
  /// - Throws: `GeoError.malformed` when an edge is not finite or a minimum exceeds its
  ///   maximum.
  public init(minX: Double, minY: Double, maxX: Double, maxY: Double) throws(GeoError) {
    guard minX.isFinite, minY.isFinite, maxX.isFinite, maxY.isFinite else {
      throw .malformed(
        format: "box", position: nil, reason: "edges \(minX),\(minY),\(maxX),\(maxY) must be finite"
      )
    }
    guard minX <= maxX, minY <= maxY else {
      throw .malformed(
        format: "box", position: nil,
        reason: "minimum exceeds maximum in \(minX),\(minY),\(maxX),\(maxY)")
    }
    self.init(uncheckedMinX: minX, minY: minY, maxX: maxX, maxY: maxY)
  }

  /// Creates the zero-size box of one point.
  ///
  /// - Throws: `GeoError.malformed` when a coordinate is not finite.
  public init(x: Double, y: Double) throws(GeoError) {
    try self.init(minX: x, minY: y, maxX: x, maxY: y)
  }

  /// Creates the zero-size box of one geographic point (x = longitude, y = latitude).
  public init(_ coordinates: GeoCoordinates) {
    self.init(
      uncheckedMinX: coordinates.longitude, minY: coordinates.latitude,
      maxX: coordinates.longitude, maxY: coordinates.latitude)
  }

  /// Creates a box from edges the caller has validated (finite, minimum <= maximum).
  @inlinable
  package init(uncheckedMinX minX: Double, minY: Double, maxX: Double, maxY: Double) {
    self.minX = minX
    self.minY = minY
    self.maxX = maxX
    self.maxY = maxY
  }

  /// The planar boxes that together cover a geographic box: one box normally, two (one on
  /// each side of the antimeridian, within -180...180) when it crosses it.
  ///
  /// - Complexity: O(1).
  public static func covering(_ box: GeoBox) -> [RTreeBox] {
    if box.crossesAntimeridian {
      return [
        RTreeBox(uncheckedMinX: box.west, minY: box.south, maxX: 180, maxY: box.north),
        RTreeBox(uncheckedMinX: -180, minY: box.south, maxX: box.east, maxY: box.north),
      ]
    }
    return [RTreeBox(uncheckedMinX: box.west, minY: box.south, maxX: box.east, maxY: box.north)]
  }

  /// Whether the two boxes share at least one point (edges included).
  ///
  /// - Complexity: O(1).
  @inlinable
  public func intersects(_ other: RTreeBox) -> Bool {
    other.minX <= maxX && other.minY <= maxY && other.maxX >= minX && other.maxY >= minY
  }

  /// Whether `other` lies entirely inside this box (edges included).
  ///
  /// - Complexity: O(1).
  @inlinable
  public func contains(_ other: RTreeBox) -> Bool {
    minX <= other.minX && minY <= other.minY && maxX >= other.maxX && maxY >= other.maxY
  }

  /// The planar (Euclidean) distance from a point to the nearest point of the box; 0 when
  /// the point is inside.
  ///
  /// - Complexity: O(1).
  @inlinable
  public func distance(toX x: Double, y: Double) -> Double {
    distanceSquared(toX: x, y: y).squareRoot()
  }

  /// The square of `distance(toX:y:)`, cheaper when only comparisons are needed.
  ///
  /// - Complexity: O(1).
  @inlinable
  public func distanceSquared(toX x: Double, y: Double) -> Double {
    let dx = x < minX ? minX - x : (x > maxX ? x - maxX : 0)
    let dy = y < minY ? minY - y : (y > maxY ? y - maxY : 0)
    return dx * dx + dy * dy
  }

  /// `"minX,minY,maxX,maxY"`.
  public var description: String { "\(minX),\(minY),\(maxX),\(maxY)" }
}
