import Foundation

/// The spherical Mercator projection of web maps (EPSG:3857, "Web Mercator"), and its
/// pixel and tile grid.
///
/// Geographic coordinates are projected as if the WGS84 latitude and longitude lay on a
/// sphere of radius 6 378 137 m (the WGS84 semi-major axis), as Google, Bing, OpenStreetMap
/// and Mapbox tiles do (OGP/EPSG Guidance Note 7-2, "Popular Visualisation Pseudo
/// Mercator", method 1024). The map is the square whose latitudes run to
/// ±`maximumLatitude`; points nearer the poles are clamped onto its edge.
///
/// World pixel coordinates have their origin at the north-west corner of the map
/// (longitude -180, latitude `maximumLatitude`), x growing eastwards and y southwards; at
/// zoom `z` the world is `tileSize × 2^z` pixels wide (Microsoft, "Bing Maps Tile System";
/// OpenStreetMap wiki, "Slippy map tilenames").
public enum WebMercator {
  /// The sphere's radius, meters: the WGS84 semi-major axis.
  public static let earthRadiusInMeters = 6_378_137.0

  /// The latitude of the map's northern edge, degrees: `atan(sinh(π))`, which makes the
  /// projected world square. The southern edge is its negative.
  public static let maximumLatitude = 85.05112877980659

  /// Half the width (and height) of the projected world, meters: `π × earthRadiusInMeters`.
  public static let maximumProjectedMeters = Double.pi * earthRadiusInMeters

  /// The width of a tile in pixels used when none is given (raster tiles); vector tile
  /// styles commonly use 512.
  public static let defaultTileSize = 256

  /// The deepest zoom level accepted, so that tile indices and pixel coordinates stay
  /// exact in 64-bit integers and doubles.
  public static let maximumZoom = 30

  /// A position in a plane: world pixels (x east, y south from the north-west corner) or
  /// projected meters (x east, y north from latitude 0, longitude 0), as documented where
  /// it is returned.
  public struct Point: Hashable, Sendable, CustomStringConvertible {
    /// The eastward coordinate.
    public var x: Double
    /// The second coordinate: southward for pixels, northward for projected meters.
    public var y: Double

    /// Creates a point.
    public init(x: Double, y: Double) {
      self.x = x
      self.y = y
    }

    /// `"x,y"`.
    public var description: String { "\(x),\(y)" }
  }

  /// The latitude limited to the map's extent, ±`maximumLatitude`.
  public static func clampedLatitude(_ latitude: Double) -> Double {
    min(maximumLatitude, max(-maximumLatitude, latitude))
  }

  /// The width and height of the world at a zoom level, pixels: `tileSize × 2^zoom`.
  ///
  /// - Parameters:
  ///   - zoom: The zoom level, 0...`maximumZoom`; fractional levels are allowed.
  ///   - tileSize: The width of a tile in pixels, > 0.
  /// - Throws: `GeoError.invalidTile` for a zoom that is not finite or outside
  ///   0...`maximumZoom`, or a tile size that is not positive.
  public static func worldSizeInPixels(
    zoom: Double, tileSize: Int = defaultTileSize
  )
    throws(GeoError) -> Double
  {
    guard zoom.isFinite, zoom >= 0, zoom <= Double(maximumZoom) else {
      throw .invalidTile("zoom \(zoom) is outside 0...\(maximumZoom)")
    }
    guard tileSize > 0 else { throw .invalidTile("tile size \(tileSize) is not positive") }
    return Double(tileSize) * exp2(zoom)
  }

  /// The world pixel coordinates of a place at a zoom level.
  ///
  /// Latitudes beyond ±`maximumLatitude` are clamped to the map's edge. Longitude -180 maps
  /// to x = 0 and longitude 180 to x = world size (the same meridian on the other side).
  /// - Parameters:
  ///   - coordinates: The place.
  ///   - zoom: The zoom level, 0...`maximumZoom`; fractional levels are allowed.
  ///   - tileSize: The width of a tile in pixels, > 0.
  /// - Returns: x in 0...world size growing eastwards, y in 0...world size growing
  ///   southwards.
  /// - Throws: `GeoError.invalidTile` for an invalid zoom or tile size.
  /// - Complexity: O(1).
  public static func pixel(
    for coordinates: GeoCoordinates, zoom: Double, tileSize: Int = defaultTileSize
  ) throws(GeoError) -> Point {
    let size = try worldSizeInPixels(zoom: zoom, tileSize: tileSize)
    return Point(
      x: normalizedX(longitude: coordinates.longitude) * size,
      y: normalizedY(latitude: coordinates.latitude) * size)
  }

  /// The place at world pixel coordinates at a zoom level.
  ///
  /// An x outside the world wraps round in longitude (x = -1 lies just west of the
  /// antimeridian); a y outside the world is clamped to the map's northern or southern edge.
  /// - Parameters:
  ///   - pixel: World pixel coordinates, x eastwards and y southwards from the north-west
  ///     corner.
  ///   - zoom: The zoom level, 0...`maximumZoom`; fractional levels are allowed.
  ///   - tileSize: The width of a tile in pixels, > 0.
  /// - Returns: The coordinates, latitude within ±`maximumLatitude`, longitude -180...180.
  /// - Throws: `GeoError.invalidTile` for an invalid zoom or tile size;
  ///   `GeoError.invalidLongitude` or `.invalidLatitude` when a pixel coordinate is not a
  ///   finite number.
  /// - Complexity: O(1).
  public static func coordinates(
    forPixel pixel: Point, zoom: Double, tileSize: Int = defaultTileSize
  ) throws(GeoError) -> GeoCoordinates {
    let size = try worldSizeInPixels(zoom: zoom, tileSize: tileSize)
    return try coordinates(normalizedX: pixel.x / size, normalizedY: pixel.y / size)
  }

  /// The ground distance one pixel spans at a latitude and zoom level, meters, measured
  /// along the parallel (the projection's scale is `cos(latitude)` there).
  ///
  /// Latitudes beyond ±`maximumLatitude` are clamped to the map's edge, where the map
  /// ends. At zoom 0 with 256-pixel tiles on the equator a pixel spans 156 543.034 m.
  /// - Parameters:
  ///   - latitude: Degrees, -90...90.
  ///   - zoom: The zoom level, 0...`maximumZoom`; fractional levels are allowed.
  ///   - tileSize: The width of a tile in pixels, > 0.
  /// - Throws: `GeoError.invalidLatitude` for a latitude outside -90...90 or not finite;
  ///   `GeoError.invalidTile` for an invalid zoom or tile size.
  /// - Complexity: O(1).
  public static func metersPerPixel(
    atLatitude latitude: Double, zoom: Double, tileSize: Int = defaultTileSize
  ) throws(GeoError) -> Double {
    guard latitude.isFinite, (-90...90).contains(latitude) else {
      throw .invalidLatitude(latitude)
    }
    let size = try worldSizeInPixels(zoom: zoom, tileSize: tileSize)
    let phi = clampedLatitude(latitude) * .pi / 180
    return 2 * maximumProjectedMeters * cos(phi) / size
  }

  /// The projected coordinates of a place in EPSG:3857, meters.
  ///
  /// - Parameter coordinates: The place; latitudes beyond ±`maximumLatitude` are clamped.
  /// - Returns: x eastwards from the Greenwich meridian and y northwards from the
  ///   equator, each within ±`maximumProjectedMeters`.
  /// - Complexity: O(1).
  public static func projectedMeters(for coordinates: GeoCoordinates) -> Point {
    Point(
      x: (normalizedX(longitude: coordinates.longitude) * 2 - 1) * maximumProjectedMeters,
      y: (1 - normalizedY(latitude: coordinates.latitude) * 2) * maximumProjectedMeters)
  }

  /// The place at EPSG:3857 projected coordinates.
  ///
  /// An x beyond ±`maximumProjectedMeters` wraps round in longitude; a y beyond it is
  /// clamped to the map's edge.
  /// - Parameter meters: x eastwards from the Greenwich meridian, y northwards from the
  ///   equator, meters.
  /// - Returns: The coordinates, latitude within ±`maximumLatitude`.
  /// - Throws: `GeoError.invalidLongitude` or `.invalidLatitude` when a coordinate is not a
  ///   finite number.
  /// - Complexity: O(1).
  public static func coordinates(
    forProjectedMeters meters: Point
  ) throws(GeoError)
    -> GeoCoordinates
  {
    try coordinates(
      normalizedX: (meters.x / maximumProjectedMeters + 1) / 2,
      normalizedY: (1 - meters.y / maximumProjectedMeters) / 2)
  }

  // MARK: - The unit square

  /// The longitude's position across the world, 0 at -180 to 1 at 180.
  @inlinable
  package static func normalizedX(longitude: Double) -> Double {
    (longitude + 180) / 360
  }

  /// The latitude's position down the world, 0 at the northern edge to 1 at the southern,
  /// clamped to that range.
  @inlinable
  package static func normalizedY(latitude: Double) -> Double {
    // The edges exactly, which the formula misses by a few ulps.
    if latitude >= maximumLatitude { return 0 }
    if latitude <= -maximumLatitude { return 1 }
    let phi = latitude * .pi / 180
    // y = (1 - ln(tan φ + sec φ) / π) / 2, with ln(tan φ + sec φ) = asinh(tan φ).
    let y = (1 - asinh(tan(phi)) / .pi) / 2
    return min(1, max(0, y))
  }

  /// The place at a position in the unit square (x wrapping, y clamped).
  package static func coordinates(
    normalizedX x: Double, normalizedY y: Double
  )
    throws(GeoError) -> GeoCoordinates
  {
    let longitude = x * 360 - 180
    guard longitude.isFinite else { throw .invalidLongitude(longitude) }
    // Checked before clamping: `max` and `min` would turn NaN into a number.
    guard y.isFinite else { throw .invalidLatitude(y) }
    let latitude = atan(sinh(.pi * (1 - 2 * min(1, max(0, y))))) * 180 / .pi
    return GeoCoordinates(
      uncheckedLatitude: clampedLatitude(latitude),
      longitude: GeoCoordinates.wrappedLongitude(longitude))
  }
}
