/// A position on the WGS84 ellipsoid: latitude and longitude in degrees, and an optional
/// altitude in meters above the ellipsoid.
///
/// Values are validated at construction: latitude within -90...90, longitude within
/// -180...180, altitude finite. A value of this type is therefore always a real place.
public struct GeoCoordinates: Hashable, Sendable, CustomStringConvertible {
  /// Degrees north of the equator, -90...90.
  public let latitude: Double
  /// Degrees east of the Greenwich meridian, -180...180.
  public let longitude: Double
  /// Meters above the WGS84 ellipsoid, when known.
  @inlinable public var altitude: Double? { storedAltitude.isNaN ? nil : storedAltitude }
  /// The altitude, NaN when unknown (a validated altitude is finite): 24 bytes a vertex
  /// instead of the 32 of an optional, in every polyline, network and probe.
  @usableFromInline let storedAltitude: Double

  /// Creates coordinates, rejecting values that are not a place on Earth.
  ///
  /// - Parameters:
  ///   - latitude: Degrees, -90...90.
  ///   - longitude: Degrees, -180...180.
  ///   - altitude: Meters above the ellipsoid; `nil` when unknown.
  /// - Throws: `GeoError.invalidLatitude`, `.invalidLongitude` or `.invalidAltitude`.
  public init(latitude: Double, longitude: Double, altitude: Double? = nil) throws(GeoError) {
    guard latitude.isFinite, (-90...90).contains(latitude) else {
      throw .invalidLatitude(latitude)
    }
    guard longitude.isFinite, (-180...180).contains(longitude) else {
      throw .invalidLongitude(longitude)
    }
    if let altitude, !altitude.isFinite { throw .invalidAltitude(altitude) }
    self.latitude = latitude
    self.longitude = longitude
    storedAltitude = altitude ?? .nan
  }

  /// Creates coordinates from values the caller has already validated or computed from
  /// valid coordinates; the longitude is wrapped into -180...180.
  @inlinable
  package init(uncheckedLatitude latitude: Double, longitude: Double, altitude: Double? = nil) {
    self.latitude = latitude
    self.longitude = GeoCoordinates.wrappedLongitude(longitude)
    storedAltitude = altitude ?? .nan
  }

  /// Whether the latitudes, longitudes and altitudes (both unknown, or equal) are equal:
  /// the public values, since a stored NaN is never equal to itself.
  @inlinable
  public static func == (a: GeoCoordinates, b: GeoCoordinates) -> Bool {
    a.latitude == b.latitude && a.longitude == b.longitude && a.altitude == b.altitude
  }

  /// Hashes the public values, as `==` compares them.
  @inlinable
  public func hash(into hasher: inout Hasher) {
    hasher.combine(latitude)
    hasher.combine(longitude)
    hasher.combine(altitude)
  }

  /// Wraps any finite longitude into -180...180 (180 stays 180).
  @inlinable
  package static func wrappedLongitude(_ longitude: Double) -> Double {
    if (-180...180).contains(longitude) { return longitude }
    var wrapped = (longitude + 180).truncatingRemainder(dividingBy: 360)
    if wrapped < 0 { wrapped += 360 }
    return wrapped - 180
  }

  /// `"lat,lng"` (and `",alt"` when there is an altitude), as used on the command line.
  public var description: String {
    if let altitude { return "\(latitude),\(longitude),\(altitude)" }
    return "\(latitude),\(longitude)"
  }
}

extension GeoCoordinates: Codable {
  private enum CodingKeys: String, CodingKey {
    case latitude = "lat"
    case longitude = "lng"
    case altitude = "alt"
  }

  /// Decodes `{"lat": .., "lng": .., "alt"?: ..}`, validating the values.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(
      latitude: container.decode(Double.self, forKey: .latitude),
      longitude: container.decode(Double.self, forKey: .longitude),
      altitude: container.decodeIfPresent(Double.self, forKey: .altitude))
  }

  /// Encodes `{"lat": .., "lng": ..}` plus `"alt"` when present.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(latitude, forKey: .latitude)
    try container.encode(longitude, forKey: .longitude)
    try container.encodeIfPresent(altitude, forKey: .altitude)
  }
}
