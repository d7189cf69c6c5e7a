import Foundation
import Traffic

/// An image for a `MapMarker`: decoded from PNG bytes, as HERE's
/// `MapImage(pixelData:imageFormat:)`, or drawn as vectors by the library (a pin, a dot, an
/// incident icon).
public struct MapImage: Hashable, Sendable {
  /// The image formats a `MapImage` can be made from.
  public enum ImageFormat: Hashable, Sendable {
    /// Portable Network Graphics.
    case png
  }

  let raster: RasterImage

  /// Width, pixels.
  public var width: Int { raster.width }
  /// Height, pixels.
  public var height: Int { raster.height }

  /// Decodes an image.
  ///
  /// - Parameters:
  ///   - pixelData: The file's bytes.
  ///   - imageFormat: Their format; PNG.
  /// - Throws: `MapError.invalidImage` when the bytes are not a readable PNG or the image is
  ///   larger than 1024 pixels on a side.
  /// - Complexity: O(n) in the number of pixels.
  public init(pixelData: Data, imageFormat: ImageFormat = .png) throws(MapError) {
    let raster = try RasterImage.decodePNG(pixelData)
    guard raster.width <= 1024, raster.height <= 1024 else {
      throw .invalidImage("\(raster.width)x\(raster.height) pixels; at most 1024 per side")
    }
    self.raster = raster
  }

  init(raster: RasterImage) { self.raster = raster }

  /// A map pin: a teardrop with a white centre, its tip at the bottom middle (use
  /// `Anchor2D.bottomCenter`).
  ///
  /// - Parameters:
  ///   - color: The pin's colour.
  ///   - heightInPixels: Its height, 12...256 pixels (clamped).
  /// - Returns: The image, `0.75 × height` wide.
  public static func pin(color: MapColor, heightInPixels: Int = 36) -> MapImage {
    let height = min(256, max(12, heightInPixels))
    let width = Int((Double(height) * 0.75).rounded())
    return drawn(width: width, height: height) { canvas in
      let w = Double(width), h = Double(height)
      let r = w / 2 - 1
      canvas.polygon(
        [
          Point2D(x: w / 2, y: h - 0.5), Point2D(x: w / 2 - r * 0.8, y: r * 1.6),
          Point2D(x: w / 2 + r * 0.8, y: r * 1.6),
        ], fill: color)
      canvas.circle(
        center: Point2D(x: w / 2, y: r + 1), radius: r, fill: color, stroke: .white, strokeWidth: 1)
      canvas.circle(center: Point2D(x: w / 2, y: r + 1), radius: r * 0.4, fill: .white)
    }
  }

  /// A filled circle with an outline (use `Anchor2D.center`).
  ///
  /// - Parameters:
  ///   - diameterInPixels: 2...256 pixels (clamped).
  ///   - fill: The inside.
  ///   - outline: The rim, 2 pixels wide.
  /// - Returns: The image.
  public static func dot(
    diameterInPixels: Int = 16, fill: MapColor, outline: MapColor = .white
  )
    -> MapImage
  {
    let size = min(256, max(2, diameterInPixels))
    return drawn(width: size, height: size) { canvas in
      let r = Double(size) / 2
      canvas.circle(
        center: Point2D(x: r, y: r), radius: r - 1, fill: fill, stroke: outline, strokeWidth: 2)
    }
  }

  /// The icon the incident layer draws for a type (for a legend, or to mark an incident
  /// yourself; use `Anchor2D.center`).
  ///
  /// - Parameters:
  ///   - type: The incident type.
  ///   - standsOut: Draw it as for a closure or a critical incident (larger, ringed).
  /// - Returns: The image, 26 or 32 pixels square.
  public static func incidentIcon(_ type: TrafficIncidentType, standsOut: Bool = false) -> MapImage
  {
    let radius: Double = standsOut ? 13 : 10
    let size = Int(2 * radius + 6)
    return drawn(width: size, height: size) { canvas in
      IncidentIcon.draw(
        type: type, standsOut: standsOut, at: Point2D(x: Double(size) / 2, y: Double(size) / 2),
        radius: radius, on: canvas)
    }
  }

  private static func drawn(width: Int, height: Int, _ body: (CairoCanvas) -> Void) -> MapImage {
    // Sizes are clamped above, so the canvas and its copy cannot fail short of memory
    // exhaustion; an empty image stands in then.
    guard let canvas = try? CairoCanvas(width: width, height: height) else {
      return MapImage(raster: RasterImage(width: 1, height: 1, pixels: [0]))
    }
    body(canvas)
    let raster = (try? canvas.image()) ?? RasterImage(width: 1, height: 1, pixels: [0])
    return MapImage(raster: raster)
  }
}
