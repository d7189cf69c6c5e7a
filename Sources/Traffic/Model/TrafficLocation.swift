/// Where a traffic incident lies, as in the HERE SDK: its geometry, its length and a short
/// text.
///
/// The geometry is one polyline in the direction of travel, plus further polylines when the
/// incident spans disconnected pieces (both carriageways, a detour). An incident at one place
/// uses `GeoPolyline(point:)`, a two-vertex polyline of the same coordinate, length 0.
public struct TrafficLocation: Hashable, Sendable {
  /// The main geometry, in the direction of travel.
  public var polyline: GeoPolyline
  /// Further pieces of the geometry; usually empty.
  public var additionalPolylines: [GeoPolyline]
  /// The length of the affected road, meters (v7 `location.length`).
  public private(set) var lengthInMeters: Double
  /// A short description of the place (a road name, a stretch), when known.
  public var description: String?

  /// Creates a location.
  ///
  /// - Parameters:
  ///   - polyline: The main geometry.
  ///   - additionalPolylines: Further pieces; empty by default.
  ///   - lengthInMeters: The affected length in meters as the source states it; `nil`
  ///     computes it as the geodesic length of all polylines.
  ///   - description: A short text naming the place.
  /// - Throws: `TrafficModelError.invalidValue` when `lengthInMeters` is negative or not
  ///   finite.
  /// - Complexity: O(n) in the number of vertices when the length is computed.
  public init(
    polyline: GeoPolyline, additionalPolylines: [GeoPolyline] = [],
    lengthInMeters: Double? = nil, description: String? = nil
  ) throws(TrafficModelError) {
    let length =
      lengthInMeters
      ?? additionalPolylines.reduce(polyline.lengthInMeters) { $0 + $1.lengthInMeters }
    guard length.isFinite, length >= 0 else {
      throw .invalidValue(field: "lengthInMeters", value: length, reason: "must be >= 0")
    }
    self.polyline = polyline
    self.additionalPolylines = additionalPolylines
    self.lengthInMeters = length
    self.description = description
  }

  /// A location at one place: a zero-length polyline at `coordinates`, length 0.
  ///
  /// - Parameters:
  ///   - coordinates: Where the incident is.
  ///   - description: A short text naming the place.
  public init(point coordinates: GeoCoordinates, description: String? = nil) {
    polyline = GeoPolyline(point: coordinates)
    additionalPolylines = []
    lengthInMeters = 0
    self.description = description
  }

  /// Every polyline of the location: `polyline` first, then `additionalPolylines`.
  public var allPolylines: [GeoPolyline] { [polyline] + additionalPolylines }
}

extension TrafficLocation: Codable {
  private enum CodingKeys: String, CodingKey {
    case polyline, additionalPolylines, lengthInMeters, description
  }

  /// Decodes `{"polyline": [{"lat","lng"}...], "additionalPolylines"?: [[...]],
  /// "lengthInMeters", "description"?}`, validating every coordinate and polyline.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let main = try GeoPolyline(vertices: container.decode([GeoCoordinates].self, forKey: .polyline))
    let more =
      try container.decodeIfPresent([[GeoCoordinates]].self, forKey: .additionalPolylines) ?? []
    var additional: [GeoPolyline] = []
    for vertices in more { additional.append(try GeoPolyline(vertices: vertices)) }
    try self.init(
      polyline: main, additionalPolylines: additional,
      lengthInMeters: container.decodeIfPresent(Double.self, forKey: .lengthInMeters),
      description: container.decodeIfPresent(String.self, forKey: .description))
  }

  /// Encodes the polylines as arrays of `{"lat","lng"}` objects.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(polyline.vertices, forKey: .polyline)
    if !additionalPolylines.isEmpty {
      try container.encode(additionalPolylines.map(\.vertices), forKey: .additionalPolylines)
    }
    try container.encode(lengthInMeters, forKey: .lengthInMeters)
    try container.encodeIfPresent(description, forKey: .description)
  }
}
