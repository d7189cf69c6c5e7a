import Foundation
import Traffic

/// Web Mercator from geographic coordinates to the pixels of a view and back: the world is
/// `256 × 2^zoom` pixels square, the camera target sits in the middle of the view, and the
/// map is turned so that the camera's bearing points up.
struct ViewProjection: Sendable {
  /// The view's size, pixels.
  let width: Double
  let height: Double
  /// The world's size at this zoom, pixels.
  let worldSize: Double
  /// The camera target in world pixels.
  let centerX: Double
  let centerY: Double
  /// The zoom level.
  let zoom: Double
  private let cosBearing: Double
  private let sinBearing: Double

  /// A projection centred on `center`.
  ///
  /// - Parameters:
  ///   - center: The camera target.
  ///   - zoom: The zoom level, 0...22.
  ///   - bearingInDegrees: Degrees clockwise from true north that point up.
  ///   - width: View width, pixels.
  ///   - height: View height, pixels.
  init(
    center: GeoCoordinates, zoom: Double, bearingInDegrees: Double, width: Double, height: Double
  ) {
    self.width = width
    self.height = height
    self.zoom = zoom
    worldSize = 256 * exp2(zoom)
    centerX = WebMercator.normalizedX(longitude: center.longitude) * worldSize
    centerY = WebMercator.normalizedY(latitude: center.latitude) * worldSize
    let radians = bearingInDegrees * .pi / 180
    cosBearing = cos(radians)
    sinBearing = sin(radians)
  }

  /// The projection of a tile: the tile fills a square view of `pixels` pixels, north up.
  ///
  /// - Parameters:
  ///   - tile: The tile.
  ///   - pixels: The rendered size, pixels (256 × scale).
  init(tile: TileID, pixels: Double) {
    width = pixels
    height = pixels
    let zoom = Double(tile.zoom) + log2(pixels / 256)
    self.zoom = zoom
    worldSize = pixels * Double(1 << tile.zoom)
    centerX = (Double(tile.x) + 0.5) * pixels
    centerY = (Double(tile.y) + 0.5) * pixels
    cosBearing = 1
    sinBearing = 0
  }

  /// Where `coordinates` appear in the view, taking the copy of the world nearest to
  /// `nearX` (a view x) when given, else nearest to the centre.
  func point(_ coordinates: GeoCoordinates, nearX: Double? = nil) -> Point2D {
    let worldX = WebMercator.normalizedX(longitude: coordinates.longitude) * worldSize
    let worldY = WebMercator.normalizedY(latitude: coordinates.latitude) * worldSize
    var dx = worldX - centerX
    let dy = worldY - centerY
    dx -= (dx / worldSize).rounded() * worldSize
    var point = rotate(dx: dx, dy: dy)
    if let nearX {
      // Keep a line continuous across the antimeridian: shift by whole worlds towards the
      // previous vertex (exact only without bearing, where a world shift is horizontal).
      let shift = ((point.x - nearX) / worldSize).rounded() * worldSize
      if shift != 0, sinBearing == 0 { point.x -= shift }
    }
    return point
  }

  /// The view points of a polyline, continuous across the antimeridian.
  func points(_ polyline: GeoPolyline) -> [Point2D] {
    var result: [Point2D] = []
    result.reserveCapacity(polyline.vertices.count)
    var previous: Double?
    for vertex in polyline.vertices {
      let point = point(vertex, nearX: previous)
      result.append(point)
      previous = point.x
    }
    return result
  }

  private func rotate(dx: Double, dy: Double) -> Point2D {
    Point2D(
      x: dx * cosBearing + dy * sinBearing + width / 2,
      y: -dx * sinBearing + dy * cosBearing + height / 2)
  }

  /// The coordinates under a view point, or `nil` above or below the world (beyond the
  /// Web Mercator latitude limit); longitudes wrap.
  func coordinates(_ point: Point2D) -> GeoCoordinates? {
    guard point.x.isFinite, point.y.isFinite else { return nil }
    let x = point.x - width / 2, y = point.y - height / 2
    let dx = x * cosBearing - y * sinBearing
    let dy = x * sinBearing + y * cosBearing
    let worldY = centerY + dy
    guard worldY >= 0, worldY <= worldSize else { return nil }
    var normalizedX = ((centerX + dx) / worldSize).truncatingRemainder(dividingBy: 1)
    if normalizedX < 0 { normalizedX += 1 }
    return try? WebMercator.coordinates(normalizedX: normalizedX, normalizedY: worldY / worldSize)
  }

  /// The geographic box holding the view grown by `marginInPixels` on every side, or
  /// several boxes when it spans the antimeridian; clamped to the world.
  func coveringBox(marginInPixels margin: Double) -> GeoBox {
    let corners = [
      (-margin, -margin), (width + margin, -margin), (-margin, height + margin),
      (width + margin, height + margin),
    ]
    var minX = Double.infinity, maxX = -Double.infinity
    var minY = Double.infinity, maxY = -Double.infinity
    for (x, y) in corners {
      let cx = x - width / 2, cy = y - height / 2
      let dx = cx * cosBearing - cy * sinBearing
      let dy = cx * sinBearing + cy * cosBearing
      minX = min(minX, centerX + dx)
      maxX = max(maxX, centerX + dx)
      minY = min(minY, centerY + dy)
      maxY = max(maxY, centerY + dy)
    }
    let west: Double, east: Double
    if maxX - minX >= worldSize {
      west = -180
      east = 180
    } else {
      west = GeoCoordinates.wrappedLongitude(minX / worldSize * 360 - 180)
      east = GeoCoordinates.wrappedLongitude(maxX / worldSize * 360 - 180)
    }
    let north = ViewProjection.latitude(worldY: max(0, minY) / worldSize)
    let south = ViewProjection.latitude(worldY: min(worldSize, maxY) / worldSize)
    return GeoBox(uncheckedWest: west, south: south, east: east == -180 ? 180 : east, north: north)
  }

  private static func latitude(worldY y: Double) -> Double {
    (try? WebMercator.coordinates(normalizedX: 0.5, normalizedY: min(1, max(0, y))).latitude) ?? 0
  }

  /// Meters on the ground per view pixel at a latitude.
  func metersPerPixel(atLatitude latitude: Double) -> Double {
    2 * WebMercator.maximumProjectedMeters * cos(latitude * .pi / 180) / worldSize
  }
}
