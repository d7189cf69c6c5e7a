extension TileID {
  /// The tiles at a zoom level that hold some part of a box.
  ///
  /// A tile is included when some point of the box (edges included) lies in it, with the
  /// tile's own edges assigned as described on `TileID`: a box whose eastern edge lies
  /// exactly on a tile boundary also includes the tiles east of that boundary. A box that
  /// crosses the antimeridian gets the columns on both sides of it; latitudes beyond
  /// ±`WebMercator.maximumLatitude` are clamped into the first or last row.
  ///
  /// The result can be huge (every tile of the world at zoom 30 is 2^60 tiles): call
  /// `coveringCount(_:zoom:)` first to refuse a request before allocating it.
  /// - Parameters:
  ///   - box: The area to cover.
  ///   - zoom: 0...`WebMercator.maximumZoom`.
  /// - Returns: The tiles, ordered by row (`y`) then column (`x`), ascending, each once.
  /// - Throws: `GeoError.invalidTile` for a zoom outside 0...`WebMercator.maximumZoom`.
  /// - Complexity: O(number of tiles returned).
  public static func covering(_ box: GeoBox, zoom: Int) throws(GeoError) -> [TileID] {
    let (rows, columns) = try coveringRanges(box, zoom: zoom)
    var tiles: [TileID] = []
    tiles.reserveCapacity(rows.count * columns.reduce(0) { $0 + $1.count })
    for y in rows {
      for range in columns {
        for x in range { tiles.append(TileID(uncheckedZoom: zoom, x: x, y: y)) }
      }
    }
    return tiles
  }

  /// The number of tiles `covering(_:zoom:)` returns, computed without listing them.
  ///
  /// - Throws: `GeoError.invalidTile` for a zoom outside 0...`WebMercator.maximumZoom`.
  /// - Complexity: O(1).
  public static func coveringCount(_ box: GeoBox, zoom: Int) throws(GeoError) -> Int {
    let (rows, columns) = try coveringRanges(box, zoom: zoom)
    // At most 2^30 rows times 2^30 columns: the product fits in a 64-bit Int.
    return rows.count * columns.reduce(0) { $0 + $1.count }
  }

  /// The rows and the (one or two, disjoint, ascending) column ranges a box covers.
  private static func coveringRanges(
    _ box: GeoBox, zoom: Int
  ) throws(GeoError)
    -> (rows: ClosedRange<Int>, columns: [ClosedRange<Int>])
  {
    let count = try tilesPerSide(zoom: zoom)
    func column(_ longitude: Double) -> Int {
      index(WebMercator.normalizedX(longitude: longitude), count: count)
    }
    // Row numbers grow southwards.
    let rows =
      index(
        WebMercator.normalizedY(latitude: box.north), count: count)...index(
        WebMercator.normalizedY(latitude: box.south), count: count)
    let first = column(box.west), last = column(box.east)
    if !box.crossesAntimeridian { return (rows, [first...last]) }
    // Across the antimeridian the box covers `first` to the end and the start to `last`;
    // when those two runs meet or overlap they are every column.
    if last + 1 >= first { return (rows, [0...(count - 1)]) }
    return (rows, [0...last, first...(count - 1)])
  }
}
