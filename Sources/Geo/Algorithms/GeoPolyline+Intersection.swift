import Foundation

extension GeoPolyline {
  /// Whether any point of the path lies within the circle (geodesic distance from the
  /// center to the nearest point of a segment <= radius).
  ///
  /// Filter and refine: near the center (circles up to 10 km, segments within 10 km of it,
  /// latitudes within ±70°) a segment is first measured in a ``LocalPlane``, whose error
  /// there stays below 0.5 % plus the bow of a geodesic against a straight line; only a
  /// segment whose planar distance falls within a margin of twice that bound around the
  /// radius is measured geodesically. Answers are those of the geodesic test.
  /// - Complexity: O(n); segments whose bounding box misses the circle's are skipped
  ///   without geodesic work, and most others take a planar distance only.
  public func intersects(_ circle: GeoCircle) -> Bool {
    GeoCircle.PathTest(circle).meets(vertices)
  }

  /// How far from a circle's center (and how large a radius) the planar filter is used.
  static let planarFilterRange = 10_000.0

  /// Whether the segment meets the circle around the plane's origin, decided in the plane
  /// when its distance is clearly below or above the radius; `nil` when it is too close to
  /// call (or the segment reaches beyond the filter's range).
  static func planarVerdict(
    _ a: GeoCoordinates, _ b: GeoCoordinates, plane: LocalPlane, radius: Double,
    bowPerSquareMeter: Double
  ) -> Bool? {
    let (ax, ay) = plane.project(a)
    let (bx, by) = plane.project(b)
    let range = planarFilterRange
    guard abs(ax) <= range, abs(ay) <= range, abs(bx) <= range, abs(by) <= range else {
      return nil
    }
    let dx = bx - ax, dy = by - ay
    let lengthSquared = dx * dx + dy * dy
    let t = lengthSquared > 0 ? min(1, max(0, -(ax * dx + ay * dy) / lengthSquared)) : 0
    let px = ax + t * dx, py = ay + t * dy
    let distance = (px * px + py * py).squareRoot()
    // 1 % of the radius (twice the plane's bound at 10 km and 70°), a metre, and the bow.
    let margin = 0.01 * radius + 1 + lengthSquared * bowPerSquareMeter
    if distance <= radius - margin { return true }
    if distance >= radius + margin { return false }
    return nil
  }

  /// Whether any point of the path lies inside the box, edges included.
  ///
  /// Segments are taken as straight lines in latitude/longitude, the same space the box is
  /// defined in; a segment is followed the short way round across the antimeridian.
  /// - Complexity: O(n).
  public func intersects(_ box: GeoBox) -> Bool {
    Self.path(vertices, meets: box)
  }

  /// `intersects(_ box:)` of the path through `vertices` (at least two).
  package static func path<Path: RandomAccessCollection<GeoCoordinates>>(
    _ vertices: Path, meets box: GeoBox
  ) -> Bool {
    for vertex in vertices where box.contains(vertex) { return true }
    let ranges = box.longitudeRanges
    return vertices.containsSegment { a, b in
      var bLng = b.longitude
      if bLng - a.longitude > 180 { bLng -= 360 } else if bLng - a.longitude < -180 { bLng += 360 }
      for shift in [-360.0, 0, 360] {
        for range in ranges
        where GeoPolyline.segmentIntersectsRectangle(
          x0: a.longitude + shift, y0: a.latitude, x1: bLng + shift, y1: b.latitude,
          minX: range.lowerBound, minY: box.south, maxX: range.upperBound, maxY: box.north)
        {
          return true
        }
      }
      return false
    }
  }

  /// Whether any point of the path lies within the corridor's half width of its center
  /// line: the geodesic distance between the two paths is <= `halfWidthInMeters`.
  ///
  /// - Complexity: O(n x m) for n path and m corridor segments in the worst case; pairs
  ///   whose bounding boxes are farther apart than the half width are skipped cheaply.
  public func intersects(_ corridor: GeoCorridor) -> Bool {
    let halfWidth = corridor.halfWidthInMeters
    guard boundingBox.intersects(corridor.boundingBox) else { return false }
    let path = corridor.polyline
    let reaches = corridor.segmentReaches
    for i in 1..<vertices.count {
      let a = vertices[i - 1], b = vertices[i]
      let box = GeoBox.enclosingSegment(a, b)
      for j in 1..<path.count where reaches[j - 1].intersects(box) {
        let c = path[j - 1], d = path[j]
        if SegmentGeometry.segmentsCross(a, b, c, d) { return true }
        if SegmentGeometry.closestPoint(on: c, d, to: a).distance <= halfWidth
          || SegmentGeometry.closestPoint(on: c, d, to: b).distance <= halfWidth
          || SegmentGeometry.closestPoint(on: a, b, to: c).distance <= halfWidth
          || SegmentGeometry.closestPoint(on: a, b, to: d).distance <= halfWidth
        {
          return true
        }
      }
    }
    return false
  }

  /// Liang-Barsky clipping: whether the segment meets the closed rectangle.
  static func segmentIntersectsRectangle(
    x0: Double, y0: Double, x1: Double, y1: Double,
    minX: Double, minY: Double, maxX: Double, maxY: Double
  ) -> Bool {
    var t0 = 0.0, t1 = 1.0
    let dx = x1 - x0, dy = y1 - y0
    for (p, q) in [(-dx, x0 - minX), (dx, maxX - x0), (-dy, y0 - minY), (dy, maxY - y0)] {
      if p == 0 {
        if q < 0 { return false }
        continue
      }
      let r = q / p
      if p < 0 {
        if r > t1 { return false }
        t0 = max(t0, r)
      } else {
        if r < t0 { return false }
        t1 = min(t1, r)
      }
    }
    return t0 <= t1
  }
}
