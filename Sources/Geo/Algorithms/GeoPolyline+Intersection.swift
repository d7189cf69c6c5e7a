extension GeoPolyline {
  /// Whether any point of the path lies within the circle (geodesic distance from the
  /// center to the nearest point of a segment <= radius).
  ///
  /// - Complexity: O(n); segments whose bounding box misses the circle's are skipped
  ///   without geodesic work.
  public func intersects(_ circle: GeoCircle) -> Bool {
    let circleBox = circle.boundingBox
    for i in 1..<vertices.count {
      let a = vertices[i - 1], b = vertices[i]
      guard GeoBox.enclosingSegment(a, b).intersects(circleBox) else { continue }
      if SegmentGeometry.closestPoint(on: a, b, to: circle.center).distance <= circle.radiusInMeters
      {
        return true
      }
    }
    return false
  }

  /// Whether any point of the path lies inside the box, edges included.
  ///
  /// Segments are taken as straight lines in latitude/longitude, the same space the box is
  /// defined in; a segment is followed the short way round across the antimeridian.
  /// - Complexity: O(n).
  public func intersects(_ box: GeoBox) -> Bool {
    for vertex in vertices where box.contains(vertex) { return true }
    let ranges = box.longitudeRanges
    for i in 1..<vertices.count {
      let a = vertices[i - 1], b = vertices[i]
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
    }
    return false
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
