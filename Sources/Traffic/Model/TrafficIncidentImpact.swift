/// How strongly an incident affects traffic, as in the HERE SDK (v7 `criticality`).
public enum TrafficIncidentImpact: String, CaseIterable, Hashable, Sendable, Codable {
  /// Traffic is blocked or nearly so; drawn in dark red.
  case critical
  /// Long delays are likely; drawn in red.
  case major
  /// Short delays are likely; drawn in orange.
  case minor
  /// Little or no effect on traffic; drawn in yellow. v7 calls it `lowImpact`.
  case low
  /// The source gave no criticality; drawn in grey. Has no v7 wire name.
  case unknown

  /// The v7 `criticality` name (`critical`, `major`, `minor`, `lowImpact`); `nil` for
  /// `unknown`.
  public var wireName: String? {
    switch self {
    case .critical: return "critical"
    case .major: return "major"
    case .minor: return "minor"
    case .low: return "lowImpact"
    case .unknown: return nil
    }
  }

  /// The impact with the v7 criticality name `wireName`, or `nil` when it is not one.
  ///
  /// - Parameter wireName: `critical`, `major`, `minor` or `lowImpact` (case-sensitive).
  public init?(wireName: String) {
    guard let impact = TrafficIncidentImpact.allCases.first(where: { $0.wireName == wireName })
    else { return nil }
    self = impact
  }
}
