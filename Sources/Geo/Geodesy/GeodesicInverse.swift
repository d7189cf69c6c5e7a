/// The solution of the inverse geodesic problem: the shortest path between two points.
public struct GeodesicInverse: Hashable, Sendable {
  /// Length of the geodesic, meters.
  public var distanceInMeters: Double
  /// Azimuth of the geodesic at the first point, degrees clockwise from true north, 0..<360.
  ///
  /// Between coincident points, or for a point at a pole, the direction is a convention
  /// (Karney 2013): the value is that of the limit as the points or the pole are approached.
  public var initialBearing: Double
  /// Azimuth of the geodesic where it arrives at the second point, degrees clockwise from
  /// true north, 0..<360 (the forward direction, not the bearing back to the first point).
  public var finalBearing: Double

  /// Creates a solution from its parts.
  public init(distanceInMeters: Double, initialBearing: Double, finalBearing: Double) {
    self.distanceInMeters = distanceInMeters
    self.initialBearing = initialBearing
    self.finalBearing = finalBearing
  }
}
