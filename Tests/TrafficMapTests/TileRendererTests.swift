import Foundation
import Testing
import Traffic

@testable import TrafficMap

@Suite struct TileRendererTests {
  /// The zoom 16 tile holding the jammed block of Main Street.
  static var jamTile: TileID {
    get throws { try TileID(containing: SyntheticCity.point(47.000, 9.5045), zoom: 16) }
  }

  @Test(arguments: [1, 2])
  func rasterTilesHave256PixelsTimesTheScale(scale: Int) throws {
    let renderer = TileRenderer(engine: try SyntheticCity.engine(), clock: { SyntheticCity.now })
    for kind in [TileKind.basemap, .flow(.withFreeFlow), .flow(.withoutFreeFlow), .incidents] {
      let tile = try renderer.tile(
        try TileRequest(kind: kind, tile: try TileRendererTests.jamTile, scale: scale))
      let image = try RasterImage.decodePNG(tile.data)
      #expect(image.width == 256 * scale && image.height == 256 * scale, "\(kind)")
      #expect(tile.contentType == "image/png")
    }
  }

  @Test func otherScalesAreRejected() throws {
    let tile = try TileRendererTests.jamTile
    #expect(throws: MapError.self) { try TileRequest(kind: .incidents, tile: tile, scale: 3) }
    #expect(throws: MapError.self) {
      try TileRequest(kind: .flow(.withFreeFlow), tile: tile, scale: 0)
    }
    #expect(throws: MapError.self) { try TileRequest(kind: .trafficVector, tile: tile, scale: 2) }
  }

  @Test func aFlowTileShowsTheJamWhereAViewDoes() throws {
    let renderer = TileRenderer(engine: try SyntheticCity.engine(), clock: { SyntheticCity.now })
    let tile = try TileRendererTests.jamTile
    let image = try RasterImage.decodePNG(
      try renderer.render(try TileRequest(kind: .flow(.withFreeFlow), tile: tile, scale: 2)))
    // The jam's place in the tile, then 3 device pixels × scale to the south.
    let projection = ViewProjection(tile: tile, pixels: 512)
    let center = projection.point(SyntheticCity.point(47.000, 9.5045))
    #expect(center.x >= 0 && center.x < 512 && center.y >= 0 && center.y < 512)
    #expect(nil == ImageComparison.mismatch(image, Point2D(x: center.x, y: center.y + 6), 0xE3161C))
    #expect(nil == ImageComparison.mismatch(image, Point2D(x: center.x, y: center.y - 6), 0x1EA94B))
    // Flow tiles are transparent away from roads.
    #expect(image.rgba(x: Int(center.x), y: Int(center.y) + 60)?.alpha == 0)
  }

  @Test func onlyTilesWhoseContentChangedAreRenderedAgain() throws {
    let engine = try SyntheticCity.engine(incidents: false)
    let renderer = TileRenderer(engine: engine, clock: { SyntheticCity.now })
    let network = try #require(engine.roadNetwork)
    let jam = try TileRequest(kind: .flow(.withFreeFlow), tile: try TileRendererTests.jamTile)
    // The east end of Main Street, three tiles further east at zoom 17.
    let westTile = try TileID(containing: SyntheticCity.point(47.000, 9.5015), zoom: 17)
    let eastTile = try TileID(containing: SyntheticCity.point(47.000, 9.5185), zoom: 17)
    #expect(westTile != eastTile)
    let west = try TileRequest(kind: .flow(.withFreeFlow), tile: westTile)
    let east = try TileRequest(kind: .flow(.withFreeFlow), tile: eastTile)
    let first = (try renderer.tile(west), try renderer.tile(east), try renderer.tile(jam))
    #expect(!first.0.fromCache && !first.1.fromCache)
    // Unchanged data: straight from the cache.
    let again = try renderer.tile(west)
    #expect(again.fromCache && again.etag == first.0.etag && again.data == first.0.data)
    #expect(renderer.cacheStatistics.renders == 3)
    // The westbound west block (in the west tile) becomes jammed; the east tile's roads
    // keep their colours.
    engine.ingest(observations: [
      FlowObservation(
        polyline: network.segments[SyntheticCity.freeWestbound].geometry, jamFactor: 9.5,
        time: SyntheticCity.now + 1)
    ])
    let changed = try renderer.tile(west)
    #expect(!changed.fromCache && changed.etag != first.0.etag)
    let kept = try renderer.tile(east)
    #expect(kept.fromCache && kept.etag == first.1.etag)
    #expect(renderer.cacheStatistics.renders == 4)
  }

  @Test func basemapTilesDrawTheNetwork() throws {
    let renderer = TileRenderer(engine: try SyntheticCity.engine(), clock: { SyntheticCity.now })
    let tile = try TileRendererTests.jamTile
    let image = try RasterImage.decodePNG(
      try renderer.render(try TileRequest(kind: .basemap, tile: tile)))
    let projection = ViewProjection(tile: tile, pixels: 256)
    let onRoad = projection.point(SyntheticCity.point(47.000, 9.5045))
    #expect(nil == ImageComparison.mismatch(image, onRoad, 0xFCE6A4, tolerance: 12))
    #expect(
      nil
        == ImageComparison.mismatch(
          image, Point2D(x: onRoad.x, y: onRoad.y + 40), 0xF2EFE9, tolerance: 2))
  }
}
