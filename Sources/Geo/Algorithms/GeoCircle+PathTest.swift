import Foundation

extension GeoCircle {
  /// The test of `GeoPolyline.intersects(_:)` for one circle, with what depends on the
  /// circle alone (its box, the local plane, the bow factor) worked out once: a query
  /// tests many paths against the same circle.
  ///
  /// Filter and refine: near the center (circles up to 10 km, segments within 10 km of it,
  /// latitudes within ±70°) a segment is first measured in a ``LocalPlane``, whose error
  /// there stays below 0.5 % plus the bow of a geodesic against a straight line; only a
  /// segment whose planar distance falls within a margin of twice that bound around the
  /// radius is measured geodesically. Answers are those of the geodesic test.
  package struct PathTest: Sendable {
    package let circle: GeoCircle
    private let box: GeoBox
    private let plane: LocalPlane?
    /// The bow of a geodesic of length L against the plane's straight line is below
    /// L² (1 + tan φ) / 4R; this is that factor of L².
    private let bowPerSquareMeter: Double

    package init(_ circle: GeoCircle) {
      self.circle = circle
      box = circle.boundingBox
      plane =
        circle.radiusInMeters <= GeoPolyline.planarFilterRange
          && abs(circle.center.latitude) <= 70
        ? LocalPlane(origin: circle.center) : nil
      bowPerSquareMeter =
        (1 + abs(tan(circle.center.latitude * .pi / 180))) / (4 * 6_356_752)
    }

    /// Whether any point of the path through `vertices` (at least two) lies within the
    /// circle.
    ///
    /// - Complexity: O(n); segments whose bounding box misses the circle's are skipped
    ///   without geodesic work, and most others take a planar distance only.
    func meets<Path: RandomAccessCollection<GeoCoordinates>>(_ vertices: Path) -> Bool {
      vertices.containsSegment { a, b in meets(a, b) }
    }

    /// Whether the segment from `a` to `b` meets the circle.
    func meets(_ a: GeoCoordinates, _ b: GeoCoordinates) -> Bool {
      guard GeoBox.enclosingSegment(a, b).intersects(box) else { return false }
      let radius = circle.radiusInMeters
      if let plane,
        let inside = GeoPolyline.planarVerdict(
          a, b, plane: plane, radius: radius, bowPerSquareMeter: bowPerSquareMeter)
      {
        return inside
      }
      return SegmentGeometry.closestPoint(on: a, b, to: circle.center).distance <= radius
    }
  }
}
