/// The address of a square tile in the Web Mercator tile pyramid: zoom level, column and row.
///
/// At zoom `z` the world is split into `2^z × 2^z` tiles; column `x` counts eastwards from
/// longitude -180 and row `y` southwards from the map's northern edge
/// (`WebMercator.maximumLatitude`), the scheme of Google, Bing, OpenStreetMap ("XYZ" or
/// "slippy map" tiles; OpenStreetMap wiki, "Slippy map tilenames"). TMS row numbering,
/// which counts northwards, is not used.
///
/// A tile covers the longitudes from its western edge up to, but not including, its eastern
/// edge, and the latitudes from its northern edge down to, but not including, its southern
/// edge, so that every place lies in exactly one tile per zoom level; the last column and
/// row also hold the eastern and southern edges of the world.
public struct TileID: Hashable, Sendable, CustomStringConvertible {
  /// The zoom level, 0...`WebMercator.maximumZoom`.
  public let zoom: Int
  /// The column, counted eastwards from longitude -180, 0..<2^zoom.
  public let x: Int
  /// The row, counted southwards from the map's northern edge, 0..<2^zoom.
  public let y: Int

  /// Creates a tile address, rejecting one outside the pyramid.
  ///
  /// - Parameters:
  ///   - zoom: 0...`WebMercator.maximumZoom`.
  ///   - x: The column, 0..<2^zoom.
  ///   - y: The row, 0..<2^zoom.
  /// - Throws: `GeoError.invalidTile` saying which value is out of range.
  public init(zoom: Int, x: Int, y: Int) throws(GeoError) {
    let count = try TileID.tilesPerSide(zoom: zoom)
    guard (0..<count).contains(x) else {
      throw .invalidTile("x \(x) is outside 0..<\(count) at zoom \(zoom)")
    }
    guard (0..<count).contains(y) else {
      throw .invalidTile("y \(y) is outside 0..<\(count) at zoom \(zoom)")
    }
    self.init(uncheckedZoom: zoom, x: x, y: y)
  }

  /// Creates a tile address the caller has already validated or derived from a valid one.
  @inlinable
  package init(uncheckedZoom zoom: Int, x: Int, y: Int) {
    self.zoom = zoom
    self.x = x
    self.y = y
  }

  /// The tile holding a place at a zoom level.
  ///
  /// Latitudes beyond ±`WebMercator.maximumLatitude` fall in the first or last row;
  /// longitude 180 falls in the last column, as -180 falls in the first.
  /// - Throws: `GeoError.invalidTile` for a zoom outside 0...`WebMercator.maximumZoom`.
  /// - Complexity: O(1).
  public init(containing coordinates: GeoCoordinates, zoom: Int) throws(GeoError) {
    let count = try TileID.tilesPerSide(zoom: zoom)
    self.init(
      uncheckedZoom: zoom,
      x: TileID.index(WebMercator.normalizedX(longitude: coordinates.longitude), count: count),
      y: TileID.index(WebMercator.normalizedY(latitude: coordinates.latitude), count: count))
  }

  /// The number of tiles along each side of the world at a zoom level, 2^zoom.
  ///
  /// - Throws: `GeoError.invalidTile` for a zoom outside 0...`WebMercator.maximumZoom`.
  public static func tilesPerSide(zoom: Int) throws(GeoError) -> Int {
    guard (0...WebMercator.maximumZoom).contains(zoom) else {
      throw .invalidTile("zoom \(zoom) is outside 0...\(WebMercator.maximumZoom)")
    }
    return 1 << zoom
  }

  /// The tile index holding a position in the unit square, for `count` tiles per side.
  @inlinable
  package static func index(_ normalized: Double, count: Int) -> Int {
    let scaled = (normalized * Double(count)).rounded(.down)
    // Clamped as a Double first, so that the conversion to Int can never trap.
    return Int(min(Double(count - 1), max(0, scaled)))
  }

  /// The area the tile covers (see the type's documentation for which edges belong to it).
  ///
  /// - Complexity: O(1).
  public var boundingBox: GeoBox {
    let count = Double(1 << zoom)
    // Neither edge can throw: the normalized positions lie within 0...1.
    let west = Double(x) / count * 360 - 180
    let east = Double(x + 1) / count * 360 - 180
    let north = TileID.latitude(normalizedY: Double(y) / count)
    let south = TileID.latitude(normalizedY: Double(y + 1) / count)
    return GeoBox(uncheckedWest: west, south: south, east: east, north: north)
  }

  /// The latitude of a row edge given as a position down the unit square, 0...1.
  private static func latitude(normalizedY y: Double) -> Double {
    (try? WebMercator.coordinates(normalizedX: 0.5, normalizedY: y).latitude) ?? 0
  }

  /// The tile one zoom level up that holds this one, or `nil` at zoom 0.
  public var parent: TileID? {
    guard zoom > 0 else { return nil }
    return TileID(uncheckedZoom: zoom - 1, x: x >> 1, y: y >> 1)
  }

  /// The four tiles one zoom level down that make up this one, in quadkey digit order
  /// (north-west, north-east, south-west, south-east); empty at the deepest zoom level.
  public var children: [TileID] {
    guard zoom < WebMercator.maximumZoom else { return [] }
    return (0..<4).map { digit in
      TileID(uncheckedZoom: zoom + 1, x: (x << 1) | (digit & 1), y: (y << 1) | (digit >> 1))
    }
  }

  /// `"zoom/x/y"`, the order of tile URLs.
  public var description: String { "\(zoom)/\(x)/\(y)" }
}

extension TileID: Codable {
  private enum CodingKeys: String, CodingKey {
    case zoom = "z"
    case x
    case y
  }

  /// Decodes `{"z", "x", "y"}`, validated.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(
      zoom: container.decode(Int.self, forKey: .zoom),
      x: container.decode(Int.self, forKey: .x),
      y: container.decode(Int.self, forKey: .y))
  }

  /// Encodes `{"z", "x", "y"}`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(zoom, forKey: .zoom)
    try container.encode(x, forKey: .x)
    try container.encode(y, forKey: .y)
  }
}
