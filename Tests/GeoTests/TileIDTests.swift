import Foundation
import Testing
import TrafficTestSupport

@testable import Geo

@Suite struct TileIDTests {
  // MARK: - Addresses

  /// Tiles from the OpenStreetMap wiki's "Slippy map tilenames" formulas (see
  /// `WebMercatorTests.slippyReferences` for the arithmetic): Berlin (52.52, 13.405) at
  /// zoom 12 is x = floor(2200.519) = 2200, y = floor(1343.304) = 1343.
  @Test(arguments: [
    (52.52, 13.405, 12, 2200, 1343),
    (-33.8688, 151.2093, 10, 942, 614),
    (40.7128, -74.0060, 15, 9647, 12320),
    (0.0, 0.0, 1, 1, 1),  // the corner point belongs to the tile south-east of it
    (-90.0, 180.0, 3, 7, 7),  // the world's last column and row hold its edges
    (90.0, -180.0, 3, 0, 0),
  ])
  func tileContainingPlace(
    latitude: Double, longitude: Double, zoom: Int, x: Int, y: Int
  )
    throws
  {
    let tile = try TileID(
      containing: GeoCoordinates(latitude: latitude, longitude: longitude), zoom: zoom)
    #expect(tile == (try TileID(zoom: zoom, x: x, y: y)))
  }

  @Test func boundingBoxOfBerlinTile() throws {
    // West/east: x / 4096 × 360 − 180; north/south: atan(sinh(π (1 − 2y / 4096))).
    let box = try TileID(zoom: 12, x: 2200, y: 1343).boundingBox
    #expect(box.west == 13.359375)
    #expect(box.east == 13.447265625)
    #expect(abs(box.north - 52.536273041459474) < 1e-12)
    #expect(abs(box.south - 52.48278022207821) < 1e-12)
    let world = try TileID(zoom: 0, x: 0, y: 0).boundingBox
    #expect(world.west == -180 && world.east == 180)
    #expect(abs(world.north - WebMercator.maximumLatitude) < 1e-12)
    #expect(abs(world.south + WebMercator.maximumLatitude) < 1e-12)
  }

  @Test func rejectsAddressesOutsideThePyramid() {
    for (zoom, x, y) in [(-1, 0, 0), (31, 0, 0), (3, 8, 0), (3, 0, 8), (3, -1, 0), (0, 0, -1)] {
      let error = #expect(throws: GeoError.self) { try TileID(zoom: zoom, x: x, y: y) }
      guard case .invalidTile(let reason) = error else {
        Issue.record("\(zoom)/\(x)/\(y): expected invalidTile, got \(String(describing: error))")
        continue
      }
      #expect(!reason.isEmpty)
    }
    #expect(throws: GeoError.invalidTile("x 8 is outside 0..<8 at zoom 3")) {
      try TileID(zoom: 3, x: 8, y: 0)
    }
    #expect(throws: GeoError.self) {
      try TileID(containing: GeoCoordinates(latitude: 0, longitude: 0), zoom: 31)
    }
  }

  @Test func parentAndChildren() throws {
    let tile = try TileID(zoom: 3, x: 3, y: 5)
    #expect(tile.parent == (try TileID(zoom: 2, x: 1, y: 2)))
    #expect(try TileID(zoom: 0, x: 0, y: 0).parent == nil)
    let children = tile.children
    #expect(
      children == [
        try TileID(zoom: 4, x: 6, y: 10), try TileID(zoom: 4, x: 7, y: 10),
        try TileID(zoom: 4, x: 6, y: 11), try TileID(zoom: 4, x: 7, y: 11),
      ])
    for child in children {
      #expect(child.parent == tile)
      #expect(child.quadkey.hasPrefix(tile.quadkey))
    }
    // The children's boxes tile the parent's exactly.
    let box = tile.boundingBox
    #expect(children[0].boundingBox.west == box.west)
    #expect(children[0].boundingBox.north == box.north)
    #expect(children[3].boundingBox.east == box.east)
    #expect(children[3].boundingBox.south == box.south)
    #expect(children[0].boundingBox.east == children[1].boundingBox.west)
    #expect(children[0].boundingBox.south == children[2].boundingBox.north)
    #expect(try TileID(zoom: 30, x: 5, y: 5).children.isEmpty)
  }

  // MARK: - Quadkeys

  @Test func quadkeyOfBingExample() throws {
    // "Bing Maps Tile System": tile X = 3 (011), Y = 5 (101) at level 3 has quadkey 213.
    let tile = try TileID(zoom: 3, x: 3, y: 5)
    #expect(tile.quadkey == "213")
    #expect(try TileID(quadkey: "213") == tile)
    #expect(try TileID(zoom: 0, x: 0, y: 0).quadkey == "")
    #expect(try TileID(quadkey: "") == TileID(zoom: 0, x: 0, y: 0))
    #expect(try TileID(zoom: 1, x: 1, y: 1).quadkey == "3")
  }

  @Test func quadkeysRoundTrip() throws {
    for zoom in 0...4 {
      let side = 1 << zoom
      var seen = Set<String>()
      for x in 0..<side {
        for y in 0..<side {
          let tile = try TileID(zoom: zoom, x: x, y: y)
          #expect(tile.quadkey.count == zoom)
          #expect(try TileID(quadkey: tile.quadkey) == tile)
          seen.insert(tile.quadkey)
        }
      }
      #expect(seen.count == side * side)
    }
    var generator = SeededGenerator(seed: 23)
    for _ in 0..<500 {
      let zoom = Int.random(in: 0...30, using: &generator)
      let side = 1 << zoom
      let tile = try TileID(
        zoom: zoom, x: Int.random(in: 0..<side, using: &generator),
        y: Int.random(in: 0..<side, using: &generator))
      #expect(try TileID(quadkey: tile.quadkey) == tile)
    }
  }

  @Test func rejectsBadQuadkeys() throws {
    #expect(
      throws: GeoError.malformed(
        format: "quadkey", position: 2, reason: "\"4\" is not a digit 0-3")
    ) { try TileID(quadkey: "214") }
    for bad in ["2a", " 1", "1-", "0\u{663}", "12\u{0}", "01٣"] {
      let error = #expect(throws: GeoError.self) { try TileID(quadkey: bad) }
      guard case .malformed(format: "quadkey", _, _) = error else {
        Issue.record("\(bad.debugDescription): got \(String(describing: error))")
        continue
      }
    }
    let deep = String(repeating: "1", count: 31)
    let error = #expect(throws: GeoError.self) { try TileID(quadkey: deep) }
    guard case .invalidTile = error else {
      Issue.record("31 digits: got \(String(describing: error))")
      return
    }
    #expect(try TileID(quadkey: String(repeating: "3", count: 30)).x == (1 << 30) - 1)
  }

  // MARK: - Codable

  @Test func codableRoundTripAndValidation() throws {
    let tile = try TileID(zoom: 12, x: 2200, y: 1343)
    let data = try JSONEncoder().encode(tile)
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Int]
    #expect(object == ["z": 12, "x": 2200, "y": 1343])
    #expect(try JSONDecoder().decode(TileID.self, from: data) == tile)
    let bad = Data(#"{"z": 2, "x": 4, "y": 0}"#.utf8)
    #expect(throws: GeoError.invalidTile("x 4 is outside 0..<4 at zoom 2")) {
      try JSONDecoder().decode(TileID.self, from: bad)
    }
    #expect(tile.description == "12/2200/1343")
  }

  // MARK: - Coverings

  @Test func coveringAcrossTheAntimeridian() throws {
    // Around Fiji. Columns at zoom 3: 177° → 357/360 × 8 = 7.93 → 7; −178° → 0.04 → 0.
    // Rows: −15° → 4.34 and −20° → 4.45, both row 4.
    let box = try GeoBox(west: 177, south: -20, east: -178, north: -15)
    let tiles = try TileID.covering(box, zoom: 3)
    #expect(tiles == [try TileID(zoom: 3, x: 0, y: 4), try TileID(zoom: 3, x: 7, y: 4)])
    #expect(try TileID.coveringCount(box, zoom: 3) == 2)
    // Wide enough that the two runs of columns meet: every column, each once, in rows 1
    // (latitude 1 → 1.99) and 2 (latitude 0 → 2.0).
    let wide = try GeoBox(west: 10, south: 0, east: 5, north: 1)
    let all = try TileID.covering(wide, zoom: 2)
    #expect(all.map(\.x) == [0, 1, 2, 3, 0, 1, 2, 3])
    #expect(all.map(\.y) == [1, 1, 1, 1, 2, 2, 2, 2])
    #expect(try TileID.coveringCount(wide, zoom: 2) == 8)
  }

  @Test func coveringClampsPolarLatitudes() throws {
    let arctic = try GeoBox(west: -10, south: 86, east: 10, north: 90)
    #expect(
      try TileID.covering(arctic, zoom: 1) == [
        try TileID(zoom: 1, x: 0, y: 0), try TileID(zoom: 1, x: 1, y: 0),
      ])
    let world = try GeoBox(west: -180, south: -90, east: 180, north: 90)
    #expect(try TileID.coveringCount(world, zoom: 3) == 64)
    #expect(Set(try TileID.covering(world, zoom: 3)).count == 64)
    // Counting never allocates: the whole world at the deepest zoom.
    #expect(try TileID.coveringCount(world, zoom: 30) == 1 << 60)
    #expect(throws: GeoError.self) { try TileID.covering(world, zoom: 31) }
  }

  @Test func coveringOfAPointIsItsTile() throws {
    let point = try GeoCoordinates(latitude: 52.52, longitude: 13.405)
    let box = try GeoBox(southWestCorner: point, northEastCorner: point)
    for zoom in [0, 5, 12, 20, 30] {
      #expect(try TileID.covering(box, zoom: zoom) == [try TileID(containing: point, zoom: zoom)])
    }
  }

  /// Every tile whose area (west and north edges included, east and south edges excluded
  /// except at the world's edges) meets the box, found by checking all tiles.
  static func bruteForceCovering(_ box: GeoBox, zoom: Int) -> Set<TileID> {
    let side = 1 << zoom
    let longitudeRanges: [ClosedRange<Double>] =
      box.west > box.east ? [box.west...180, -180...box.east] : [box.west...box.east]
    func latitude(_ row: Int) -> Double {
      atan(sinh(.pi * (1 - 2 * Double(row) / Double(side)))) * 180 / .pi
    }
    var result = Set<TileID>()
    for y in 0..<side {
      let north = y == 0 ? 90 : latitude(y)
      let south = latitude(y + 1)
      let meetsRows = box.south <= north && (y == side - 1 || box.north > south)
      guard meetsRows else { continue }
      for x in 0..<side {
        let west = Double(x) / Double(side) * 360 - 180
        let east = Double(x + 1) / Double(side) * 360 - 180
        let meets = longitudeRanges.contains { range in
          (range.lowerBound < east || (x == side - 1 && range.lowerBound <= east))
            && west <= range.upperBound
        }
        if meets { result.insert(TileID(uncheckedZoom: zoom, x: x, y: y)) }
      }
    }
    return result
  }

  @Test func coveringMatchesBruteForce() throws {
    var generator = SeededGenerator(seed: 900_913)
    for _ in 0..<300 {
      let zoom = Int.random(in: 0...6, using: &generator)
      // Box sizes from a fraction of a tile to most of the world, some crossing 180.
      let width = pow(10, Double.random(in: -2...2.5, using: &generator))
      let height = pow(10, Double.random(in: -2...2, using: &generator))
      let west = Double.random(in: -180...180, using: &generator)
      let south = Double.random(in: -90...(90 - min(height, 179)), using: &generator)
      let box = try GeoBox(
        west: west, south: south, east: GeoCoordinates.wrappedLongitude(west + width),
        north: min(90, south + height))
      let tiles = try TileID.covering(box, zoom: zoom)
      #expect(Set(tiles) == Self.bruteForceCovering(box, zoom: zoom), "\(box) at zoom \(zoom)")
      #expect(Set(tiles).count == tiles.count)
      #expect(try TileID.coveringCount(box, zoom: zoom) == tiles.count)
      #expect(tiles == tiles.sorted { ($0.y, $0.x) < ($1.y, $1.x) })
    }
  }
}
