/// Where a traffic incident lies, as in the HERE SDK: its geometry, its length and a short
/// text.
///
/// The geometry is one polyline in the direction of travel, plus further polylines when the
/// incident spans disconnected pieces (both carriageways, a detour). An incident at one place
/// uses `GeoPolyline(point:)`, a two-vertex polyline of the same coordinate, length 0.
///
/// Besides its geometry a location keeps the location references its source gave: TMC
/// (ALERT-C) codes and binary OpenLR. They are carried unchanged through the stores and the
/// v7 API (`locationReferencing=tmc,olr`) for clients that resolve them on their own maps.
public struct TrafficLocation: Hashable, Sendable {
  /// The main geometry, in the direction of travel.
  public var polyline: GeoPolyline
  /// Further pieces of the geometry; usually empty.
  public var additionalPolylines: [GeoPolyline]
  /// The length of the affected road, meters (v7 `location.length`).
  public private(set) var lengthInMeters: Double
  /// A short description of the place (a road name, a stretch), when known.
  public var description: String?
  /// TMC (ALERT-C) location references of the place, in source order; usually empty.
  public var tmc: [TMCLocationReference]
  /// The place as a binary OpenLR location reference (white paper v1.5, version 3), base64
  /// text as the source gave it (white space removed); `nil` when the source gave none.
  /// `OpenLR.decode(base64:)` reads it.
  public var openLR: String?

  /// Creates a location.
  ///
  /// - Parameters:
  ///   - polyline: The main geometry.
  ///   - additionalPolylines: Further pieces; empty by default.
  ///   - lengthInMeters: The affected length in meters as the source states it; `nil`
  ///     computes it as the geodesic length of all polylines.
  ///   - description: A short text naming the place.
  ///   - tmc: TMC location references; none by default.
  ///   - openLR: A base64 binary OpenLR reference; none by default.
  /// - Throws: `TrafficModelError.invalidValue` when `lengthInMeters` is negative or not
  ///   finite.
  /// - Complexity: O(n) in the number of vertices when the length is computed.
  public init(
    polyline: GeoPolyline, additionalPolylines: [GeoPolyline] = [],
    lengthInMeters: Double? = nil, description: String? = nil,
    tmc: [TMCLocationReference] = [], openLR: String? = nil
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
    self.tmc = tmc
    self.openLR = openLR
  }

  /// A location at one place: a zero-length polyline at `coordinates`, length 0.
  ///
  /// - Parameters:
  ///   - coordinates: Where the incident is.
  ///   - description: A short text naming the place.
  ///   - tmc: TMC location references; none by default.
  ///   - openLR: A base64 binary OpenLR reference; none by default.
  public init(
    point coordinates: GeoCoordinates, description: String? = nil,
    tmc: [TMCLocationReference] = [], openLR: String? = nil
  ) {
    polyline = GeoPolyline(point: coordinates)
    additionalPolylines = []
    lengthInMeters = 0
    self.description = description
    self.tmc = tmc
    self.openLR = openLR
  }

  /// Every polyline of the location: `polyline` first, then `additionalPolylines`.
  public var allPolylines: [GeoPolyline] { [polyline] + additionalPolylines }
}

extension TrafficLocation: Codable {
  private enum CodingKeys: String, CodingKey {
    case polyline, additionalPolylines, lengthInMeters, description, tmc, openLR
  }

  /// Decodes `{"polyline": [{"lat","lng"}...], "additionalPolylines"?: [[...]],
  /// "lengthInMeters", "description"?, "tmc"?: [...], "openLR"?}`, validating every
  /// coordinate, polyline and TMC reference. Bodies stored before `tmc` and `openLR` existed
  /// decode with none.
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
      description: container.decodeIfPresent(String.self, forKey: .description),
      tmc: container.decodeIfPresent([TMCLocationReference].self, forKey: .tmc) ?? [],
      openLR: container.decodeIfPresent(String.self, forKey: .openLR))
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
    if !tmc.isEmpty { try container.encode(tmc, forKey: .tmc) }
    try container.encodeIfPresent(openLR, forKey: .openLR)
  }
}
