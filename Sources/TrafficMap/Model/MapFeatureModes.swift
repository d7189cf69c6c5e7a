/// How an enabled `MapFeatures` layer is shown, named as in the HERE SDK.
public struct MapFeatureModes: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The mode's name.
  public let rawValue: String

  /// A mode by name.
  ///
  /// - Parameter rawValue: The name.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// The feature's usual look (for `trafficIncidents`).
  public static let defaultMode = MapFeatureModes(rawValue: "defaultMode")
  /// Flow with every colour, green (free flow) included.
  public static let trafficFlowWithFreeFlow = MapFeatureModes(rawValue: "trafficFlowWithFreeFlow")
  /// Flow without green: only roads with a jam factor of 4 or more are drawn.
  public static let trafficFlowWithoutFreeFlow = MapFeatureModes(
    rawValue: "trafficFlowWithoutFreeFlow")

  /// The name.
  public var description: String { rawValue }
}
