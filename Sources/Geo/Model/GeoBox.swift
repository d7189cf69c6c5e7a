/// An area bounded by two parallels and two meridians, given by its south-west and
/// north-east corners.
///
/// When the western longitude is greater than the eastern one the box crosses the
/// antimeridian: `GeoBox(southWest: (-10, 170), northEast: (10, -170))` spans 20 degrees of
/// longitude around 180.
public struct GeoBox: Hashable, Sendable, CustomStringConvertible {
  /// The corner with the smallest latitude and the western longitude.
  public let southWestCorner: GeoCoordinates
  /// The corner with the largest latitude and the eastern longitude.
  public let northEastCorner: GeoCoordinates

  /// Creates a box from its corners.
  ///
  /// - Throws: `GeoError.invalidBox` when the south-west corner lies north of the
  ///   north-east corner. A western longitude east of the eastern one is valid: the box
  ///   then crosses the antimeridian.
  public init(southWestCorner: GeoCoordinates, northEastCorner: GeoCoordinates) throws(GeoError) {
    guard southWestCorner.latitude <= northEastCorner.latitude else {
      throw .invalidBox(south: southWestCorner.latitude, north: northEastCorner.latitude)
    }
    self.southWestCorner = southWestCorner
    self.northEastCorner = northEastCorner
  }

  /// Creates a box from its edges in degrees (the order of HERE's `bbox:` parameter).
  ///
  /// - Throws: `GeoError` for an edge outside the valid range or south > north.
  public init(west: Double, south: Double, east: Double, north: Double) throws(GeoError) {
    try self.init(
      southWestCorner: GeoCoordinates(latitude: south, longitude: west),
      northEastCorner: GeoCoordinates(latitude: north, longitude: east))
  }

  @inlinable
  package init(uncheckedWest west: Double, south: Double, east: Double, north: Double) {
    southWestCorner = GeoCoordinates(uncheckedLatitude: south, longitude: west)
    northEastCorner = GeoCoordinates(uncheckedLatitude: north, longitude: east)
  }

  /// Southern edge, degrees.
  public var south: Double { southWestCorner.latitude }
  /// Northern edge, degrees.
  public var north: Double { northEastCorner.latitude }
  /// Western edge, degrees.
  public var west: Double { southWestCorner.longitude }
  /// Eastern edge, degrees.
  public var east: Double { northEastCorner.longitude }

  /// Whether the box spans the 180th meridian (its western edge lies east of its eastern).
  public var crossesAntimeridian: Bool { west > east }

  /// Extent in longitude, degrees (0...360), measured eastwards from the western edge.
  public var widthInDegrees: Double { crossesAntimeridian ? east - west + 360 : east - west }

  /// Extent in latitude, degrees.
  public var heightInDegrees: Double { north - south }

  /// The point halfway between the edges (in degrees, eastwards from the western edge).
  public var center: GeoCoordinates {
    GeoCoordinates(
      uncheckedLatitude: (south + north) / 2, longitude: west + widthInDegrees / 2)
  }

  /// The longitude ranges the box covers, split at the antimeridian: one range normally,
  /// two when the box crosses it. Each range has `lowerBound <= upperBound`.
  package var longitudeRanges: [ClosedRange<Double>] {
    crossesAntimeridian ? [west...180, -180...east] : [west...east]
  }

  /// Whether the point lies inside the box or on its edge.
  ///
  /// - Complexity: O(1).
  public func contains(_ coordinates: GeoCoordinates) -> Bool {
    guard (south...north).contains(coordinates.latitude) else { return false }
    return containsLongitude(coordinates.longitude)
  }

  @inlinable
  package func containsLongitude(_ longitude: Double) -> Bool {
    if crossesAntimeridian { return longitude >= west || longitude <= east }
    if longitude >= west && longitude <= east { return true }
    // -180 and 180 name the same meridian.
    if longitude == -180 { return east == 180 }
    if longitude == 180 { return west == -180 }
    return false
  }

  /// Whether the two boxes share at least one point (edges included).
  ///
  /// - Complexity: O(1).
  public func intersects(_ other: GeoBox) -> Bool {
    guard south <= other.north, other.south <= north else { return false }
    // Neither crosses the antimeridian (nearly always): one range each, no arrays.
    if west <= east && other.west <= other.east {
      if west <= other.east && other.west <= east { return true }
      return (east == 180 && other.west == -180) || (west == -180 && other.east == 180)
    }
    for a in longitudeRanges {
      for b in other.longitudeRanges {
        if a.overlaps(b) { return true }
        // Ranges ending and starting at the antimeridian touch there.
        if a.upperBound == 180 && b.lowerBound == -180 { return true }
        if a.lowerBound == -180 && b.upperBound == 180 { return true }
      }
    }
    return false
  }

  /// The box grown by `meters` on every side (clamped at the poles; a box that would
  /// wrap all the way round covers every longitude).
  ///
  /// - Throws: `GeoError.invalidDistance` for a negative or non-finite distance.
  public func expanded(byMeters meters: Double) throws(GeoError) -> GeoBox {
    try GeoError.checkDistance(meters, name: "expansion")
    return expandedUnchecked(byMeters: meters)
  }

  package func expandedUnchecked(byMeters meters: Double) -> GeoBox {
    let dLat = meters / LocalPlane.metersPerDegreeLatitude(at: 0) * 1.01
    let newSouth = max(-90, south - dLat)
    let newNorth = min(90, north + dLat)
    let widestLatitude = max(abs(newSouth), abs(newNorth))
    let metersPerDegree = LocalPlane.metersPerDegreeLongitude(at: widestLatitude)
    if widestLatitude >= 89.9 || metersPerDegree <= 0 {
      return GeoBox(uncheckedWest: -180, south: newSouth, east: 180, north: newNorth)
    }
    let dLng = meters / metersPerDegree * 1.01
    if widthInDegrees + 2 * dLng >= 360 {
      return GeoBox(uncheckedWest: -180, south: newSouth, east: 180, north: newNorth)
    }
    return GeoBox(
      uncheckedWest: GeoCoordinates.wrappedLongitude(west - dLng), south: newSouth,
      east: GeoCoordinates.wrappedLongitude(east + dLng), north: newNorth)
  }

  /// The smallest box holding every point, taking the shorter way round the globe
  /// between consecutive points (so a path across the antimeridian gives a box that
  /// crosses it).
  ///
  /// - Returns: `nil` for an empty sequence.
  /// - Complexity: O(n).
  public static func enclosing(_ points: some Sequence<GeoCoordinates>) -> GeoBox? {
    var iterator = points.makeIterator()
    guard let first = iterator.next() else { return nil }
    var south = first.latitude, north = first.latitude
    var previous = first.longitude
    var minLng = previous, maxLng = previous
    // The edges are the extreme points' own longitudes: wrapping the unwrapped values back
    // could round them off by an ulp and leave a vertex outside the box.
    var west = previous, east = previous
    while let point = iterator.next() {
      south = min(south, point.latitude)
      north = max(north, point.latitude)
      var lng = point.longitude
      // Unwrap so that consecutive vertices are never more than 180 degrees apart.
      while lng - previous > 180 { lng -= 360 }
      while lng - previous < -180 { lng += 360 }
      if lng < minLng {
        minLng = lng
        west = point.longitude
      }
      if lng > maxLng {
        maxLng = lng
        east = point.longitude
      }
      previous = lng
    }
    if maxLng - minLng >= 360 {
      return GeoBox(uncheckedWest: -180, south: south, east: 180, north: north)
    }
    // A box from 180 eastwards is the box from -180; one ending at -180 ends at 180.
    if west == 180 && minLng < maxLng { west = -180 }
    if east == -180 && minLng < maxLng { east = 180 }
    return GeoBox(uncheckedWest: west, south: south, east: east, north: north)
  }

  /// The box of one segment, taking the short way round across the antimeridian; the
  /// allocation-free form of `enclosing([a, b])` for hot loops.
  ///
  /// - Complexity: O(1).
  package static func enclosingSegment(_ a: GeoCoordinates, _ b: GeoCoordinates) -> GeoBox {
    let south = min(a.latitude, b.latitude), north = max(a.latitude, b.latitude)
    let delta = b.longitude - a.longitude
    if delta > 180 {  // shorter eastwards from b across 180
      return GeoBox(uncheckedWest: b.longitude, south: south, east: a.longitude, north: north)
    }
    if delta < -180 {
      return GeoBox(uncheckedWest: a.longitude, south: south, east: b.longitude, north: north)
    }
    return GeoBox(
      uncheckedWest: min(a.longitude, b.longitude), south: south,
      east: max(a.longitude, b.longitude), north: north)
  }

  /// `"west,south,east,north"`, the order of HERE's `in=bbox:` parameter.
  public var description: String { "\(west),\(south),\(east),\(north)" }
}

extension GeoBox: Codable {
  private enum CodingKeys: String, CodingKey { case west, south, east, north }

  /// Decodes `{"west", "south", "east", "north"}` (HERE v7's bbox object), validated.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(
      west: c.decode(Double.self, forKey: .west), south: c.decode(Double.self, forKey: .south),
      east: c.decode(Double.self, forKey: .east), north: c.decode(Double.self, forKey: .north))
  }

  /// Encodes `{"west", "south", "east", "north"}`.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(west, forKey: .west)
    try c.encode(south, forKey: .south)
    try c.encode(east, forKey: .east)
    try c.encode(north, forKey: .north)
  }
}
