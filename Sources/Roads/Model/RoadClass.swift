/// The kind of road, from OpenStreetMap's `highway` key (SUMO's `highway.*` edge types map
/// to the same values).
///
/// Only classes open to motor traffic appear in a network; the importer drops foot, cycle,
/// and construction ways before they become segments.
public enum RoadClass: String, CaseIterable, Hashable, Sendable, Codable {
  /// A controlled-access motorway (Autobahn, autoroute).
  case motorway
  /// A motorway slip road or interchange ramp.
  case motorwayLink = "motorway_link"
  /// An expressway or major road that is not a motorway.
  case trunk
  /// A trunk road's slip road.
  case trunkLink = "trunk_link"
  /// A main road linking large towns.
  case primary
  /// A primary road's slip road.
  case primaryLink = "primary_link"
  /// A road linking towns.
  case secondary
  /// A secondary road's slip road.
  case secondaryLink = "secondary_link"
  /// A road linking villages or districts.
  case tertiary
  /// A tertiary road's slip road.
  case tertiaryLink = "tertiary_link"
  /// A minor public road below tertiary, not primarily residential.
  case unclassified
  /// A street giving access to homes.
  case residential
  /// A shared street where pedestrians have priority (walking pace).
  case livingStreet = "living_street"
  /// An access road: driveways, yards, parking lot lanes.
  case service
  /// A road of unknown class (`highway=road`).
  case road
  /// A farm or forest track that the data opens to motor vehicles.
  case track
  /// A pedestrian street that the data opens to motor vehicles.
  case pedestrian
  /// A busway or bus-only road (kept only when the data opens it to motor vehicles).
  case busway

  /// Creates the class for an OpenStreetMap `highway` value, or `nil` for values that are not
  /// roads for motor traffic in this model.
  ///
  /// - Parameter highway: the tag value, e.g. `"primary_link"`.
  public init?(highway: String) {
    self.init(rawValue: highway)
  }

  /// The OpenStreetMap `highway` value.
  public var highway: String { rawValue }

  /// The functional road class, 1 (most important) to 5, as digital maps number them.
  ///
  /// The mapping follows the road hierarchy: motorway and trunk 1, primary 2, secondary 3,
  /// tertiary 4, everything else 5. A link (slip road) has its parent's class, as in HERE's
  /// and TomTom's FRC, which class ramps with the road they serve.
  public var functionalClass: Int {
    switch self {
    case .motorway, .motorwayLink, .trunk, .trunkLink: return 1
    case .primary, .primaryLink: return 2
    case .secondary, .secondaryLink: return 3
    case .tertiary, .tertiaryLink: return 4
    case .unclassified, .residential, .livingStreet, .service, .road, .track, .pedestrian,
      .busway:
      return 5
    }
  }

  /// Whether this class is a slip road (`*_link`).
  public var isLink: Bool { rawValue.hasSuffix("_link") }

  /// Whether OpenStreetMap implies `oneway=yes` for this class when the tag is absent.
  var impliesOneway: Bool { self == .motorway }
}
