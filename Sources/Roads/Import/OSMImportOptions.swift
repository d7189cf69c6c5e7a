/// Choices for reading an OpenStreetMap file into a ``RoadNetwork``.
public struct OSMImportOptions: Hashable, Sendable {
  /// ISO 3166-1 alpha-2 code of the country the data covers (`"LI"`, `"DE"`), used for speed
  /// limits when a road has no `maxspeed` (see ``SpeedLimit/defaultSpeed(for:countryCode:)``);
  /// `nil` uses a generic European profile.
  public var countryCode: String?
  /// Whether `highway=service` roads are kept. Parking aisles, driveways and drive-throughs
  /// (`service=parking_aisle|driveway|drive-through|emergency_access`) are always left out:
  /// they carry no through traffic and would only attract map-matching errors.
  public var includesServiceRoads: Bool

  /// Creates options.
  public init(countryCode: String? = nil, includesServiceRoads: Bool = true) {
    self.countryCode = countryCode
    self.includesServiceRoads = includesServiceRoads
  }
}
