import CCairo
import Foundation

/// A Cairo image surface and its drawing context: the only place that talks to Cairo while
/// drawing. Not thread-safe; one canvas draws one image.
final class CairoCanvas {
  /// How the ends of a stroked line look.
  enum LineCap {
    case butt, round
  }

  let width: Int
  let height: Int
  private let surface: OpaquePointer
  private let context: OpaquePointer

  /// A transparent canvas.
  ///
  /// - Throws: `MapError.invalidSize` for sides outside 1...8192, `.renderingFailed` when
  ///   Cairo cannot allocate the surface.
  init(width: Int, height: Int) throws(MapError) {
    guard (1...8192).contains(width), (1...8192).contains(height) else {
      throw .invalidSize("\(width)x\(height) pixels; each side must be within 1...8192")
    }
    guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
    else { throw .renderingFailed("no surface") }
    let status = cairo_surface_status(surface)
    guard status == CAIRO_STATUS_SUCCESS, let context = cairo_create(surface) else {
      cairo_surface_destroy(surface)
      throw .renderingFailed(String(cString: cairo_status_to_string(status)))
    }
    self.width = width
    self.height = height
    self.surface = surface
    self.context = context
    cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
  }

  deinit {
    cairo_destroy(context)
    cairo_surface_destroy(surface)
  }

  private func setColor(_ color: MapColor) {
    cairo_set_source_rgba(context, color.red, color.green, color.blue, color.alpha)
  }

  /// Paints the whole canvas.
  func fill(_ color: MapColor) {
    setColor(color)
    cairo_paint(context)
  }

  /// Strokes a polyline of view points.
  func stroke(
    _ points: [Point2D], width: Double, color: MapColor, cap: LineCap = .round,
    dash: [Double] = []
  ) {
    guard points.count >= 2, width > 0 else { return }
    cairo_new_path(context)
    cairo_move_to(context, points[0].x, points[0].y)
    for point in points.dropFirst() { cairo_line_to(context, point.x, point.y) }
    cairo_set_line_width(context, width)
    cairo_set_line_cap(context, cap == .round ? CAIRO_LINE_CAP_ROUND : CAIRO_LINE_CAP_BUTT)
    dash.withUnsafeBufferPointer { cairo_set_dash(context, $0.baseAddress, Int32($0.count), 0) }
    setColor(color)
    cairo_stroke(context)
    cairo_set_dash(context, nil, 0, 0)
  }

  /// Fills (and optionally outlines) a circle.
  func circle(
    center: Point2D, radius: Double, fill: MapColor, stroke: MapColor? = nil,
    strokeWidth: Double = 1
  ) {
    cairo_new_path(context)
    cairo_arc(context, center.x, center.y, radius, 0, 2 * .pi)
    fillAndStroke(fill: fill, stroke: stroke, strokeWidth: strokeWidth)
  }

  /// Fills (and optionally outlines) a closed polygon.
  func polygon(
    _ points: [Point2D], fill: MapColor?, stroke: MapColor? = nil, strokeWidth: Double = 1
  ) {
    guard points.count >= 3 else { return }
    cairo_new_path(context)
    cairo_move_to(context, points[0].x, points[0].y)
    for point in points.dropFirst() { cairo_line_to(context, point.x, point.y) }
    cairo_close_path(context)
    fillAndStroke(fill: fill, stroke: stroke, strokeWidth: strokeWidth)
  }

  /// Fills (and optionally outlines) a rectangle with rounded corners.
  func roundedRectangle(
    x: Double, y: Double, width: Double, height: Double, radius: Double, fill: MapColor?,
    stroke: MapColor? = nil, strokeWidth: Double = 1
  ) {
    let r = min(radius, width / 2, height / 2)
    cairo_new_path(context)
    cairo_arc(context, x + width - r, y + r, r, -.pi / 2, 0)
    cairo_arc(context, x + width - r, y + height - r, r, 0, .pi / 2)
    cairo_arc(context, x + r, y + height - r, r, .pi / 2, .pi)
    cairo_arc(context, x + r, y + r, r, .pi, 3 * .pi / 2)
    cairo_close_path(context)
    fillAndStroke(fill: fill, stroke: stroke, strokeWidth: strokeWidth)
  }

  private func fillAndStroke(fill: MapColor?, stroke: MapColor?, strokeWidth: Double) {
    if let fill {
      setColor(fill)
      if stroke != nil { cairo_fill_preserve(context) } else { cairo_fill(context) }
    }
    if let stroke {
      setColor(stroke)
      cairo_set_line_width(context, strokeWidth)
      cairo_stroke(context)
    }
    cairo_new_path(context)
  }

  /// Draws an image with its top-left corner at `origin`.
  func draw(_ image: RasterImage, at origin: Point2D) {
    guard
      let source = cairo_image_surface_create(
        CAIRO_FORMAT_ARGB32, Int32(image.width), Int32(image.height))
    else { return }
    defer { cairo_surface_destroy(source) }
    guard cairo_surface_status(source) == CAIRO_STATUS_SUCCESS,
      let base = cairo_image_surface_get_data(source)
    else { return }
    cairo_surface_flush(source)
    let stride = Int(cairo_image_surface_get_stride(source))
    image.pixels.withUnsafeBufferPointer { pixels in
      for row in 0..<image.height {
        let target = UnsafeMutableRawPointer(base + row * stride)
        for column in 0..<image.width {
          target.storeBytes(
            of: pixels[row * image.width + column], toByteOffset: column * 4, as: UInt32.self)
        }
      }
    }
    cairo_surface_mark_dirty(source)
    cairo_set_source_surface(context, source, origin.x, origin.y)
    cairo_paint(context)
  }

  /// Saves and restores the drawing state around `body` (translations, rotations).
  func withState(translatedTo origin: Point2D, rotatedBy radians: Double = 0, _ body: () -> Void) {
    cairo_save(context)
    cairo_translate(context, origin.x, origin.y)
    if radians != 0 { cairo_rotate(context, radians) }
    body()
    cairo_restore(context)
  }

  /// The pixels drawn so far.
  func image() throws(MapError) -> RasterImage {
    try RasterImage(surface: surface)
  }

  /// The canvas as PNG bytes (Cairo's own encoder, so the same drawing always gives the
  /// same bytes with the same Cairo).
  ///
  /// - Throws: `MapError.renderingFailed` with Cairo's status.
  func pngData() throws(MapError) -> Data {
    cairo_surface_flush(surface)
    let writer = PNGWriter()
    let unmanaged = Unmanaged.passRetained(writer)
    defer { unmanaged.release() }
    let status = cairo_surface_write_to_png_stream(
      surface,
      { closure, bytes, length in
        guard let closure else { return CAIRO_STATUS_WRITE_ERROR }
        let writer = Unmanaged<PNGWriter>.fromOpaque(closure).takeUnretainedValue()
        if let bytes, length > 0 { writer.data.append(bytes, count: Int(length)) }
        return CAIRO_STATUS_SUCCESS
      }, unmanaged.toOpaque())
    guard status == CAIRO_STATUS_SUCCESS else {
      throw .renderingFailed(String(cString: cairo_status_to_string(status)))
    }
    return writer.data
  }
}

/// Collects the PNG bytes Cairo's write callback hands out.
private final class PNGWriter {
  var data = Data()
}
