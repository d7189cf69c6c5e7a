/// How far a camera looks from: a zoom level or a distance, as HERE's `MapMeasure`.
public struct MapMeasure: Hashable, Sendable {
  /// What `value` measures.
  public enum Kind: Hashable, Sendable {
    /// A Web Mercator zoom level, 0 (the world in 256 pixels) ... 22.
    case zoomLevel
    /// The distance from the camera to its target, meters (see `MapCamera`).
    case distanceInMeters
  }

  /// What `value` measures.
  public var kind: Kind
  /// The zoom level or the distance in meters.
  public var value: Double

  /// Creates a measure.
  ///
  /// - Parameters:
  ///   - kind: A zoom level or a distance.
  ///   - value: The zoom level, or the distance in meters.
  public init(kind: Kind, value: Double) {
    self.kind = kind
    self.value = value
  }
}
