/// A layer of map content that can be switched on with `MapScene.enableFeatures(_:)`, named
/// as in the HERE SDK.
public struct MapFeatures: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The feature's name.
  public let rawValue: String

  /// A feature by name.
  ///
  /// - Parameter rawValue: The name.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// Real-time traffic flow: each road drawn in the colour of its jam factor (modes
  /// `trafficFlowWithFreeFlow`, `trafficFlowWithoutFreeFlow`).
  public static let trafficFlow = MapFeatures(rawValue: "trafficFlow")
  /// Traffic incidents: their polylines and an icon per incident type (mode `defaultMode`).
  public static let trafficIncidents = MapFeatures(rawValue: "trafficIncidents")

  /// The name.
  public var description: String { rawValue }
}
