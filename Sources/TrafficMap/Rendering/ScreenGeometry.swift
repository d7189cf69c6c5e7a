import Foundation

/// Plane geometry in view pixels: offsetting lines, and distances for picking.
enum ScreenGeometry {
  /// The polyline moved `distance` pixels to the right of its direction (y grows down, so
  /// "right" of a line heading east is south). Corners are mitred up to twice the distance.
  static func offset(_ points: [Point2D], by distance: Double) -> [Point2D] {
    guard points.count >= 2, distance != 0 else { return points }
    var normals: [Point2D] = []
    normals.reserveCapacity(points.count - 1)
    for i in 0..<(points.count - 1) {
      let dx = points[i + 1].x - points[i].x, dy = points[i + 1].y - points[i].y
      let length = (dx * dx + dy * dy).squareRoot()
      normals.append(length > 0 ? Point2D(x: -dy / length, y: dx / length) : Point2D(x: 0, y: 0))
    }
    var result: [Point2D] = []
    result.reserveCapacity(points.count)
    for (i, point) in points.enumerated() {
      let a = normals[max(0, i - 1)], b = normals[min(normals.count - 1, i)]
      var nx = a.x + b.x, ny = a.y + b.y
      let length = (nx * nx + ny * ny).squareRoot()
      if length < 1e-9 {
        nx = b.x
        ny = b.y
      } else {
        nx /= length
        ny /= length
      }
      // Mitre: scale so that both adjacent edges move by `distance`.
      let cosine = nx * b.x + ny * b.y
      let scale = cosine > 0.5 ? 1 / cosine : 2
      result.append(Point2D(x: point.x + nx * distance * scale, y: point.y + ny * distance * scale))
    }
    return result
  }

  /// The distance from a point to a segment.
  static func distance(from p: Point2D, toSegment a: Point2D, _ b: Point2D) -> Double {
    let dx = b.x - a.x, dy = b.y - a.y
    let lengthSquared = dx * dx + dy * dy
    var t = lengthSquared > 0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / lengthSquared : 0
    t = min(1, max(0, t))
    let x = a.x + t * dx - p.x, y = a.y + t * dy - p.y
    return (x * x + y * y).squareRoot()
  }

  /// The distance from a point to a rectangle (0 inside).
  static func distance(from p: Point2D, to rect: Rectangle2D) -> Double {
    let dx = max(rect.origin.x - p.x, 0, p.x - rect.maxX)
    let dy = max(rect.origin.y - p.y, 0, p.y - rect.maxY)
    return (dx * dx + dy * dy).squareRoot()
  }

  /// The distance from a polyline to a rectangle (0 when they meet).
  static func distance(from points: [Point2D], to rect: Rectangle2D) -> Double {
    guard let first = points.first else { return .infinity }
    if points.count == 1 { return distance(from: first, to: rect) }
    let corners = [
      rect.origin, Point2D(x: rect.maxX, y: rect.origin.y), Point2D(x: rect.maxX, y: rect.maxY),
      Point2D(x: rect.origin.x, y: rect.maxY),
    ]
    var best = Double.infinity
    for i in 0..<(points.count - 1) {
      let a = points[i], b = points[i + 1]
      if segmentMeets(a, b, rect) { return 0 }
      best = min(best, distance(from: a, to: rect), distance(from: b, to: rect))
      for corner in corners { best = min(best, distance(from: corner, toSegment: a, b)) }
    }
    return best
  }

  /// Whether segment a-b meets the rectangle (Liang–Barsky clipping).
  static func segmentMeets(_ a: Point2D, _ b: Point2D, _ rect: Rectangle2D) -> Bool {
    clip(a, b, minX: rect.origin.x, minY: rect.origin.y, maxX: rect.maxX, maxY: rect.maxY) != nil
  }

  /// The part of segment a-b inside an axis-aligned box, as parameters `t0...t1` along it,
  /// or `nil` when it misses (Liang & Barsky 1984, "A new concept and method for line
  /// clipping").
  static func clip(
    _ a: Point2D, _ b: Point2D, minX: Double, minY: Double, maxX: Double, maxY: Double
  ) -> (t0: Double, t1: Double)? {
    let dx = b.x - a.x, dy = b.y - a.y
    var t0 = 0.0, t1 = 1.0
    for (p, q) in [(-dx, a.x - minX), (dx, maxX - a.x), (-dy, a.y - minY), (dy, maxY - a.y)] {
      if p == 0 {
        if q < 0 { return nil }
      } else {
        let r = q / p
        if p < 0 {
          if r > t1 { return nil }
          t0 = max(t0, r)
        } else {
          if r < t0 { return nil }
          t1 = min(t1, r)
        }
      }
    }
    return (t0, t1)
  }
}
