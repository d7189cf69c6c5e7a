import Foundation
import Testing
import TrafficTestSupport

@testable import Geo

@Suite struct WebMercatorTests {
  /// Places with their tile-grid position at a zoom level, computed independently with the
  /// OpenStreetMap wiki's "Slippy map tilenames" formulas
  ///   x = (lon + 180) / 360 × 2^z,  y = (1 − ln(tan φ + sec φ) / π) / 2 × 2^z.
  /// Berlin (52.52, 13.405) at zoom 12, 2^12 = 4096:
  ///   x = 193.405 / 360 × 4096 = 2200.5191…
  ///   φ = 0.916647 rad, tan φ = 1.304168, sec φ = 1.643427, ln(2.947595) = 1.080990,
  ///   1.080990 / π = 0.344090, y = (1 − 0.344090) / 2 × 4096 = 1343.3043…
  static let slippyReferences:
    [(latitude: Double, longitude: Double, zoom: Int, x: Double, y: Double)] = [
      (52.52, 13.405, 12, 2200.519111111111, 1343.3043386700424),
      (-33.8688, 151.2093, 10, 942.1064533333333, 614.4944654937868),
      (40.7128, -74.0060, 15, 9647.809422222223, 12320.138797318428),
      (0, 0, 1, 1, 1),
      (-89, -180, 3, 0, 8),  // clamped to the southern edge of the map
    ]

  @Test(arguments: slippyReferences)
  func pixelMatchesSlippyMapFormulas(
    reference: (latitude: Double, longitude: Double, zoom: Int, x: Double, y: Double)
  ) throws {
    let place = try GeoCoordinates(latitude: reference.latitude, longitude: reference.longitude)
    for tileSize in [256, 512] {
      let pixel = try WebMercator.pixel(
        for: place, zoom: Double(reference.zoom), tileSize: tileSize)
      #expect(abs(pixel.x - reference.x * Double(tileSize)) < 1e-6)
      #expect(abs(pixel.y - reference.y * Double(tileSize)) < 1e-6)
    }
  }

  /// OGP/EPSG Guidance Note 7-2, example for method 1024 (Popular Visualisation Pseudo
  /// Mercator): 24°22'54.433"N, 100°20'00.000"W → E = −11 169 055.58 m, N = 2 800 000.00 m.
  @Test func projectedMetersMatchEPSGExample() throws {
    let place = try GeoCoordinates(
      latitude: 24 + 22 / 60 + 54.433 / 3600, longitude: -(100 + 20 / 60))
    let meters = WebMercator.projectedMeters(for: place)
    #expect(abs(meters.x - -11_169_055.58) < 0.01)
    #expect(abs(meters.y - 2_800_000.00) < 0.01)
    let back = try WebMercator.coordinates(forProjectedMeters: meters)
    #expect(abs(back.latitude - place.latitude) < 1e-9)
    #expect(abs(back.longitude - place.longitude) < 1e-9)
  }

  @Test func projectedWorldIsTheWellKnownSquare() throws {
    // The EPSG:3857 extent is ±20 037 508.342789244 m in both directions.
    let northEast = try GeoCoordinates(latitude: WebMercator.maximumLatitude, longitude: 180)
    let meters = WebMercator.projectedMeters(for: northEast)
    #expect(abs(meters.x - 20_037_508.342789244) < 1e-6)
    #expect(abs(meters.y - 20_037_508.342789244) < 1e-6)
    let pole = WebMercator.projectedMeters(for: try GeoCoordinates(latitude: -90, longitude: 0))
    #expect(abs(pole.y - -20_037_508.342789244) < 1e-6)
  }

  @Test func latitudeIsClampedToTheMapEdge() throws {
    let top = try WebMercator.pixel(
      for: GeoCoordinates(latitude: 89, longitude: 0), zoom: 2)
    let edge = try WebMercator.pixel(
      for: GeoCoordinates(latitude: WebMercator.maximumLatitude, longitude: 0), zoom: 2)
    #expect(top.y == 0)
    #expect(edge.y == 0)
    let bottom = try WebMercator.pixel(
      for: GeoCoordinates(latitude: -90, longitude: 0), zoom: 2)
    #expect(bottom.y == 1024)
    // Pixels beyond the world's top and bottom give the edge latitudes.
    let above = try WebMercator.coordinates(forPixel: .init(x: 0, y: -500), zoom: 2)
    let below = try WebMercator.coordinates(forPixel: .init(x: 0, y: 5000), zoom: 2)
    #expect(above.latitude == WebMercator.maximumLatitude)
    #expect(below.latitude == -WebMercator.maximumLatitude)
  }

  @Test func longitudeWrapsRound() throws {
    // Zoom 0: 256 pixels for 360 degrees.
    let west = try WebMercator.coordinates(forPixel: .init(x: -64, y: 128), zoom: 0)
    #expect(abs(west.longitude - 90) < 1e-12)
    #expect(abs(west.latitude) < 1e-12)
    let east = try WebMercator.coordinates(forPixel: .init(x: 256 + 64, y: 128), zoom: 0)
    #expect(abs(east.longitude - -90) < 1e-12)
    let antimeridian = try WebMercator.coordinates(forPixel: .init(x: 256, y: 128), zoom: 0)
    #expect(antimeridian.longitude == 180)
    let projected = try WebMercator.coordinates(
      forProjectedMeters: .init(x: 3 * WebMercator.maximumProjectedMeters / 2, y: 0))
    #expect(abs(projected.longitude - -90) < 1e-12)
    #expect(
      try WebMercator.pixel(for: GeoCoordinates(latitude: 0, longitude: -180), zoom: 0).x == 0)
    #expect(
      try WebMercator.pixel(for: GeoCoordinates(latitude: 0, longitude: 180), zoom: 0).x == 256)
  }

  @Test func metersPerPixel() throws {
    // 2π × 6 378 137 m / 256 pixels at zoom 0 on the equator.
    let equator = try WebMercator.metersPerPixel(atLatitude: 0, zoom: 0)
    #expect(abs(equator - 156_543.03392804097) < 1e-8)
    // Berlin at zoom 12: 156 543.034 × cos(52.52°) / 4096.
    let berlin = try WebMercator.metersPerPixel(atLatitude: 52.52, zoom: 12)
    #expect(abs(berlin - 23.25537191590414) < 1e-9)
    // 512-pixel tiles at zoom 12.5 halve the pixel once more and by √2.
    let vector = try WebMercator.metersPerPixel(atLatitude: 52.52, zoom: 12.5, tileSize: 512)
    #expect(abs(vector - 8.222015590375504) < 1e-9)
    // Beyond the map's edge the scale is the edge's.
    let pole = try WebMercator.metersPerPixel(atLatitude: 90, zoom: 0)
    let edge = try WebMercator.metersPerPixel(atLatitude: WebMercator.maximumLatitude, zoom: 0)
    #expect(pole == edge)
    #expect(abs(pole - 156_543.03392804097 * cos(WebMercator.maximumLatitude * .pi / 180)) < 1e-9)
  }

  @Test func metersPerPixelAgreesWithProjectedMeters() throws {
    // One pixel eastwards at zoom z spans metersPerPixel / cos(latitude) projected meters.
    let place = try GeoCoordinates(latitude: 48.1, longitude: 11.6)
    let a = try WebMercator.pixel(for: place, zoom: 14)
    let b = try WebMercator.coordinates(forPixel: .init(x: a.x + 1, y: a.y), zoom: 14)
    let dx = WebMercator.projectedMeters(for: b).x - WebMercator.projectedMeters(for: place).x
    let scale = try WebMercator.metersPerPixel(atLatitude: 48.1, zoom: 14)
    #expect(abs(dx * cos(48.1 * .pi / 180) - scale) < 1e-6)
  }

  @Test func roundTripsAtSeededRandomPoints() throws {
    var generator = SeededGenerator(seed: 3857)
    for _ in 0..<5_000 {
      let place = try GeoCoordinates(
        latitude: Double.random(in: -85...85, using: &generator),
        longitude: Double.random(in: -180...180, using: &generator))
      let zoom = Double.random(in: 0...30, using: &generator)
      let tileSize = [256, 512, 1][Int.random(in: 0..<3, using: &generator)]
      let pixel = try WebMercator.pixel(for: place, zoom: zoom, tileSize: tileSize)
      // The pixel agrees with the slippy-map formula written independently here.
      let size = Double(tileSize) * pow(2, zoom)
      let phi = place.latitude * .pi / 180
      let expectedY = (1 - log(tan(phi) + 1 / cos(phi)) / .pi) / 2 * size
      #expect(abs(pixel.y - expectedY) <= 1e-9 * size)
      let back = try WebMercator.coordinates(forPixel: pixel, zoom: zoom, tileSize: tileSize)
      #expect(abs(back.latitude - place.latitude) < 1e-9)
      #expect(abs(back.longitude - place.longitude) < 1e-9)
      let meters = WebMercator.projectedMeters(for: place)
      let fromMeters = try WebMercator.coordinates(forProjectedMeters: meters)
      #expect(abs(fromMeters.latitude - place.latitude) < 1e-9)
      #expect(abs(fromMeters.longitude - place.longitude) < 1e-9)
    }
  }

  @Test func rejectsInvalidArguments() throws {
    let place = try GeoCoordinates(latitude: 1, longitude: 2)
    for zoom in [-0.5, 30.5, .nan, .infinity] {
      let error = #expect(throws: GeoError.self) {
        try WebMercator.pixel(for: place, zoom: zoom)
      }
      guard case .invalidTile = error else {
        Issue.record("zoom \(zoom): expected invalidTile, got \(String(describing: error))")
        continue
      }
    }
    #expect(throws: GeoError.invalidTile("tile size 0 is not positive")) {
      try WebMercator.pixel(for: place, zoom: 1, tileSize: 0)
    }
    #expect(throws: GeoError.invalidLatitude(91)) {
      try WebMercator.metersPerPixel(atLatitude: 91, zoom: 1)
    }
    let nanX = #expect(throws: GeoError.self) {
      try WebMercator.coordinates(forPixel: .init(x: .nan, y: 0), zoom: 1)
    }
    guard case .invalidLongitude = nanX else {
      Issue.record("expected invalidLongitude, got \(String(describing: nanX))")
      return
    }
    let nanY = #expect(throws: GeoError.self) {
      try WebMercator.coordinates(forProjectedMeters: .init(x: 0, y: .nan))
    }
    guard case .invalidLatitude = nanY else {
      Issue.record("expected invalidLatitude, got \(String(describing: nanY))")
      return
    }
    #expect(throws: GeoError.self) {
      try WebMercator.coordinates(forPixel: .init(x: .infinity, y: 0), zoom: 1)
    }
  }
}
