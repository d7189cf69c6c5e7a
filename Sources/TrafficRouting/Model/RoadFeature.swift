import Roads

/// A kind of road a route can be told to avoid (``RouteOptions/avoidedFeatures``): the
/// classes that OSRM's stock car profile lets `exclude=` leave out, under their OSRM names.
///
/// HERE Routing v8's `avoid[features]` names them `controlledAccessHighway`, `tollRoad` and
/// `ferry` (``hereName``).
public enum RoadFeature: String, CaseIterable, Hashable, Sendable, Comparable {
  /// Motorways and their slip roads (OpenStreetMap `highway=motorway` and `motorway_link`,
  /// as OSRM's car profile classes them).
  case motorway
  /// Roads on which a toll is paid in the direction driven (``RoadSegment/isToll``: `toll=yes`,
  /// or `toll:forward` / `toll:backward`). A network imported before tolls were stored knows
  /// none, so avoiding them there leaves every road in.
  case toll
  /// Ferries. No network of this engine holds any (the importer keeps roads only, and a
  /// `route=ferry` way is no road), so every route already avoids them.
  case ferry

  /// HERE Routing v8's name of the feature in `avoid[features]`.
  public var hereName: String {
    switch self {
    case .motorway: return "controlledAccessHighway"
    case .toll: return "tollRoad"
    case .ferry: return "ferry"
    }
  }

  /// The feature of a HERE Routing v8 `avoid[features]` name, `nil` for a name not supported.
  public init?(hereName: String) {
    guard let feature = Self.allCases.first(where: { $0.hereName == hereName }) else {
      return nil
    }
    self = feature
  }

  /// Whether `segment` is a road of this kind.
  public func contains(_ segment: RoadSegment) -> Bool {
    switch self {
    case .motorway: return segment.roadClass == .motorway || segment.roadClass == .motorwayLink
    case .toll: return segment.isToll
    case .ferry: return false
    }
  }

  /// Features order as ``allCases`` lists them (the order they are written in queries).
  public static func < (lhs: RoadFeature, rhs: RoadFeature) -> Bool {
    allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
  }
}
