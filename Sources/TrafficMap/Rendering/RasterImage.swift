import CCairo
import Foundation

/// Pixels of an image: 32-bit premultiplied ARGB, row by row from the top (Cairo's
/// `CAIRO_FORMAT_ARGB32` in native byte order).
package struct RasterImage: Hashable, Sendable {
  /// Width, pixels.
  package let width: Int
  /// Height, pixels.
  package let height: Int
  /// `width × height` pixels, premultiplied ARGB.
  package let pixels: [UInt32]

  package init(width: Int, height: Int, pixels: [UInt32]) {
    self.width = width
    self.height = height
    self.pixels = pixels
  }

  /// One pixel with straight alpha, components 0...255, or `nil` outside the image.
  package func rgba(x: Int, y: Int) -> (red: Int, green: Int, blue: Int, alpha: Int)? {
    guard (0..<width).contains(x), (0..<height).contains(y) else { return nil }
    let pixel = pixels[y * width + x]
    let alpha = Int(pixel >> 24)
    func straight(_ shift: UInt32) -> Int {
      let value = Int((pixel >> shift) & 0xFF)
      return alpha == 0 ? 0 : min(255, (value * 255 + alpha / 2) / alpha)
    }
    return (straight(16), straight(8), straight(0), alpha)
  }

  /// Decodes PNG bytes through Cairo.
  ///
  /// - Parameter data: A PNG file.
  /// - Returns: The pixels.
  /// - Throws: `MapError.invalidImage` with Cairo's reason when the bytes are not a PNG it
  ///   can read.
  /// - Complexity: O(n) in the number of pixels.
  package static func decodePNG(_ data: Data) throws(MapError) -> RasterImage {
    let reader = PNGReader(data)
    let unmanaged = Unmanaged.passRetained(reader)
    defer { unmanaged.release() }
    guard
      let surface = cairo_image_surface_create_from_png_stream(
        { closure, buffer, length in
          guard let closure, let buffer else { return CAIRO_STATUS_READ_ERROR }
          let reader = Unmanaged<PNGReader>.fromOpaque(closure).takeUnretainedValue()
          return reader.read(into: buffer, count: Int(length))
            ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_READ_ERROR
        }, unmanaged.toOpaque())
    else { throw .invalidImage("Cairo returned no surface") }
    defer { cairo_surface_destroy(surface) }
    let status = cairo_surface_status(surface)
    guard status == CAIRO_STATUS_SUCCESS else {
      throw .invalidImage("not a readable PNG: \(String(cString: cairo_status_to_string(status)))")
    }
    return try RasterImage(surface: surface)
  }

  /// Copies the pixels out of an image surface, converting RGB24 to opaque ARGB.
  init(surface: OpaquePointer) throws(MapError) {
    cairo_surface_flush(surface)
    let width = Int(cairo_image_surface_get_width(surface))
    let height = Int(cairo_image_surface_get_height(surface))
    let stride = Int(cairo_image_surface_get_stride(surface))
    let format = cairo_image_surface_get_format(surface)
    guard format == CAIRO_FORMAT_ARGB32 || format == CAIRO_FORMAT_RGB24 else {
      throw .invalidImage("unsupported pixel format \(format.rawValue)")
    }
    guard width > 0, height > 0, let base = cairo_image_surface_get_data(surface) else {
      throw .invalidImage("empty image")
    }
    var pixels = [UInt32](repeating: 0, count: width * height)
    let opaque: UInt32 = format == CAIRO_FORMAT_RGB24 ? 0xFF00_0000 : 0
    pixels.withUnsafeMutableBufferPointer { target in
      for row in 0..<height {
        let source = UnsafeRawPointer(base + row * stride)
        for column in 0..<width {
          target[row * width + column] =
            source.loadUnaligned(fromByteOffset: column * 4, as: UInt32.self) | opaque
        }
      }
    }
    self.init(width: width, height: height, pixels: pixels)
  }
}

/// Hands PNG bytes to Cairo's read callback piece by piece.
private final class PNGReader {
  private let data: Data
  private var offset = 0

  init(_ data: Data) { self.data = data }

  func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
    guard count >= 0, count <= data.count - offset else { return false }
    let start = data.startIndex + offset
    data.copyBytes(to: buffer, from: start..<(start + count))
    offset += count
    return true
  }
}
