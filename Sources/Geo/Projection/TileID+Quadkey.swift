extension TileID {
  /// The tile's quadkey: one digit 0-3 per zoom level, from the coarsest to this one
  /// (Microsoft, "Bing Maps Tile System").
  ///
  /// Digit `i` (counting from 1) is `xBit + 2 × yBit`, the bits of `x` and `y` at place
  /// `zoom - i`; tile x = 3, y = 5 at zoom 3 has quadkey `"213"`. The quadkey's length is
  /// the zoom level, so the zoom-0 tile has the empty quadkey, and a tile's quadkey starts
  /// with its parent's.
  /// - Complexity: O(zoom).
  public var quadkey: String {
    var digits: [UInt8] = []
    digits.reserveCapacity(zoom)
    for level in stride(from: zoom, to: 0, by: -1) {
      let mask = 1 << (level - 1)
      var digit: UInt8 = UInt8(ascii: "0")
      if x & mask != 0 { digit += 1 }
      if y & mask != 0 { digit += 2 }
      digits.append(digit)
    }
    return String(decoding: digits, as: UTF8.self)
  }

  /// Decodes a quadkey (see `quadkey`).
  ///
  /// - Parameter quadkey: Digits 0-3, at most `WebMercator.maximumZoom` of them; the empty
  ///   string is the zoom-0 tile.
  /// - Throws: `GeoError.malformed(format: "quadkey", ...)` with the position of a
  ///   character that is not a digit 0-3; `GeoError.invalidTile` for a quadkey longer than
  ///   the deepest zoom level.
  /// - Complexity: O(length of `quadkey`).
  public init(quadkey: String) throws(GeoError) {
    var zoom = 0, x = 0, y = 0
    for scalar in quadkey.unicodeScalars {
      guard zoom < WebMercator.maximumZoom else {
        throw .invalidTile(
          "quadkey of \(quadkey.unicodeScalars.count) digits is deeper than zoom "
            + "\(WebMercator.maximumZoom)")
      }
      guard ("0"..."3").contains(scalar) else {
        throw .malformed(
          format: "quadkey", position: zoom,
          reason: "\"\(scalar.escaped(asASCII: true))\" is not a digit 0-3")
      }
      let digit = Int(scalar.value - Unicode.Scalar("0").value)
      x = (x << 1) | (digit & 1)
      y = (y << 1) | (digit >> 1)
      zoom += 1
    }
    self.init(uncheckedZoom: zoom, x: x, y: y)
  }
}
