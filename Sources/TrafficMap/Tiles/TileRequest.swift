import Traffic

/// One tile to make: kind, position and pixel scale.
public struct TileRequest: Hashable, Sendable, CustomStringConvertible {
  /// The kind.
  public let kind: TileKind
  /// The position in the tile pyramid.
  public let tile: TileID
  /// Device pixels per tile pixel: 1 gives 256 × 256 pixels, 2 gives 512 × 512 (high-DPI).
  /// Always 1 for vector tiles.
  public let scale: Int

  /// Creates a request.
  ///
  /// - Parameters:
  ///   - kind: The kind.
  ///   - tile: The position.
  ///   - scale: 1 or 2 (raster tiles); vector tiles accept only 1.
  /// - Throws: `MapError.invalidTile` for another scale.
  public init(kind: TileKind, tile: TileID, scale: Int = 1) throws(MapError) {
    let allowed = kind == .trafficVector ? 1...1 : 1...2
    guard allowed.contains(scale) else {
      throw .invalidTile("scale \(scale) is not supported for \(kind) tiles; use \(allowed)")
    }
    self.kind = kind
    self.tile = tile
    self.scale = scale
  }

  /// `kind/z/x/y@scale`.
  public var description: String { "\(kind)/\(tile)@\(scale)x" }
}
