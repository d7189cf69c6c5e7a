/// Which flow a flow tile shows.
public enum FlowTileMode: String, CaseIterable, Hashable, Sendable {
  /// Every colour, green included (`mode=withFreeFlow`).
  case withFreeFlow
  /// Only roads with a jam factor of 4 or more (`mode=withoutFreeFlow`).
  case withoutFreeFlow

  var featureMode: MapFeatureModes {
    switch self {
    case .withFreeFlow: return .trafficFlowWithFreeFlow
    case .withoutFreeFlow: return .trafficFlowWithoutFreeFlow
    }
  }
}
