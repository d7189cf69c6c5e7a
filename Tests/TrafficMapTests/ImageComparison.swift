import Foundation
import Testing
import TrafficTestSupport

@testable import TrafficMap

/// Compares rendered images with stored golden PNGs, pixel by pixel with a tolerance (Cairo
/// versions may differ in antialiasing by a few levels).
///
/// Set `TRAFFICMAP_UPDATE_GOLDEN=1` to write the goldens from the current rendering instead
/// (then look at them before committing).
enum ImageComparison {
  static let folder = Fixtures.repositoryRoot.appendingPathComponent("Tests/TrafficMapTests/Golden")
  static var updating: Bool {
    ProcessInfo.processInfo.environment["TRAFFICMAP_UPDATE_GOLDEN"] == "1"
  }

  /// A channel may differ by this much before a pixel counts as different.
  static let channelTolerance = 24
  /// At most this share of the pixels may differ.
  static let differingShare = 0.002

  static func expectMatchesGolden(
    _ png: Data, named name: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let url = folder.appendingPathComponent("\(name).png")
    if updating {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try png.write(to: url)
      return
    }
    guard let stored = try? Data(contentsOf: url) else {
      Issue.record(
        "no golden \(url.path); run with TRAFFICMAP_UPDATE_GOLDEN=1", sourceLocation: sourceLocation
      )
      return
    }
    let expected = try RasterImage.decodePNG(stored)
    let actual = try RasterImage.decodePNG(png)
    #expect(
      expected.width == actual.width && expected.height == actual.height,
      sourceLocation: sourceLocation)
    guard expected.width == actual.width, expected.height == actual.height else { return }
    var differing = 0
    for (a, b) in zip(expected.pixels, actual.pixels) where a != b {
      let worst =
        stride(from: 0, to: 32, by: 8).map { shift in
          abs(Int((a >> UInt32(shift)) & 0xFF) - Int((b >> UInt32(shift)) & 0xFF))
        }.max() ?? 0
      if worst > channelTolerance { differing += 1 }
    }
    let allowed = Int(Double(expected.pixels.count) * differingShare)
    #expect(
      differing <= allowed, "\(name): \(differing) pixels differ (at most \(allowed) may)",
      sourceLocation: sourceLocation)
  }

  /// `nil` when a pixel is within `tolerance` per channel of an opaque colour, else a
  /// description of the pixel found (short, unlike the image itself in a failed `#expect`).
  static func mismatch(
    _ image: RasterImage, _ point: Point2D, _ rgb: UInt32, tolerance: Int = 30
  ) -> String? {
    if isColor(image, point, rgb, tolerance: tolerance) { return nil }
    let pixel = image.rgba(x: Int(point.x), y: Int(point.y))
    return
      "at \(point): \(pixel.map { "rgba(\($0.red), \($0.green), \($0.blue), \($0.alpha))" } ?? "outside")"
  }

  /// Whether a pixel is within `tolerance` per channel of an opaque colour.
  static func isColor(
    _ image: RasterImage, _ point: Point2D, _ rgb: UInt32, tolerance: Int = 30
  ) -> Bool {
    guard let pixel = image.rgba(x: Int(point.x), y: Int(point.y)) else { return false }
    return abs(pixel.red - Int((rgb >> 16) & 0xFF)) <= tolerance
      && abs(pixel.green - Int((rgb >> 8) & 0xFF)) <= tolerance
      && abs(pixel.blue - Int(rgb & 0xFF)) <= tolerance && pixel.alpha > 200
  }
}
