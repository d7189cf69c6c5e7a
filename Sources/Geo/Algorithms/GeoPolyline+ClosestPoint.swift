extension GeoPolyline {
  /// Where a path passes nearest to a point.
  public struct ClosestPoint: Hashable, Sendable {
    /// The nearest point on the path (on a segment, not only a vertex).
    public let coordinates: GeoCoordinates
    /// Geodesic distance from the query point to `coordinates`, meters.
    public let distanceInMeters: Double
    /// Index of the segment holding the point: segment i joins vertices i and i + 1.
    public let segmentIndex: Int
    /// Distance along the path from its first vertex to `coordinates`, meters.
    public let distanceAlongInMeters: Double
  }

  /// The point of the path nearest to `point`, measured to the segments, not only to the
  /// vertices.
  ///
  /// Each segment's nearest parameter is found in a local plane and, for segments longer
  /// than 5 km, refined by a golden-section search on geodesic distances; the distance
  /// reported is the geodesic distance to that point.
  /// - Complexity: O(n) geodesic computations.
  public func closestPoint(to point: GeoCoordinates) -> ClosestPoint {
    var best: ClosestPoint?
    var along = 0.0
    for i in 1..<vertices.count {
      let candidate = SegmentGeometry.closestPoint(on: vertices[i - 1], vertices[i], to: point)
      if best == nil || candidate.distance < best?.distanceInMeters ?? .infinity {
        best = ClosestPoint(
          coordinates: candidate.coordinates, distanceInMeters: candidate.distance,
          segmentIndex: i - 1, distanceAlongInMeters: along + candidate.fraction * candidate.length)
      }
      along += candidate.length
    }
    // `vertices` has at least two elements, so the loop ran and `best` is set.
    return best
      ?? ClosestPoint(
        coordinates: vertices[0], distanceInMeters: vertices[0].distance(to: point),
        segmentIndex: 0, distanceAlongInMeters: 0)
  }

  /// The geodesic distance from `point` to the nearest point of the path, meters.
  ///
  /// - Complexity: O(n) geodesic computations.
  public func distance(to point: GeoCoordinates) -> Double {
    var best = Double.infinity
    for i in 1..<vertices.count {
      best = min(
        best, SegmentGeometry.closestPoint(on: vertices[i - 1], vertices[i], to: point).distance)
      if best == 0 { break }
    }
    return best
  }
}

/// Nearest-point and crossing computations on single geodesic segments.
package enum SegmentGeometry {
  /// Segments longer than this get their nearest parameter refined geodesically.
  static let refinementLength = 5_000.0

  /// The nearest point to `p` on the geodesic segment from `a` to `b`.
  ///
  /// - Returns: the parameter `fraction` (0...1) along the segment, the point, its geodesic
  ///   distance from `p`, and the segment's length.
  package static func closestPoint(
    on a: GeoCoordinates, _ b: GeoCoordinates, to p: GeoCoordinates
  ) -> (fraction: Double, coordinates: GeoCoordinates, distance: Double, length: Double) {
    let length = a.distance(to: b)
    guard length > 0 else { return (0, a, p.distance(to: a), 0) }
    let plane = LocalPlane(origin: p)
    let pa = plane.project(a), pb = plane.project(b)
    let dx = pb.x - pa.x, dy = pb.y - pa.y
    let squared = dx * dx + dy * dy
    var t = squared > 0 ? min(1, max(0, -(pa.x * dx + pa.y * dy) / squared)) : 0
    if length > refinementLength {
      let bracket = length > 200_000 ? 1.0 : 0.1
      t = goldenSection(lower: max(0, t - bracket), upper: min(1, t + bracket)) { f in
        p.distance(to: GeoPolyline.interpolate(a, b, fraction: f, length: length))
      }
    }
    let q = GeoPolyline.interpolate(a, b, fraction: t, length: length)
    return (t, q, p.distance(to: q), length)
  }

  /// The minimiser of a unimodal function on an interval, to about 1e-9 of its width.
  static func goldenSection(
    lower: Double, upper: Double, _ f: (Double) -> Double
  ) -> Double {
    let ratio = (5.0.squareRoot() - 1) / 2
    var lo = lower, hi = upper
    var x1 = hi - ratio * (hi - lo), x2 = lo + ratio * (hi - lo)
    var f1 = f(x1), f2 = f(x2)
    for _ in 0..<44 {
      if f1 <= f2 {
        hi = x2
        x2 = x1
        f2 = f1
        x1 = hi - ratio * (hi - lo)
        f1 = f(x1)
      } else {
        lo = x1
        x1 = x2
        f1 = f2
        x2 = lo + ratio * (hi - lo)
        f2 = f(x2)
      }
    }
    // The ends are candidates too: a minimum at an end is common (the foot lies outside).
    let middle = (lo + hi) / 2
    let candidates = [lower, middle, upper]
    return candidates.min { f($0) < f($1) } ?? middle
  }

  /// Whether segment a-b and segment c-d cross or touch, decided in a local plane at `a`.
  package static func segmentsCross(
    _ a: GeoCoordinates, _ b: GeoCoordinates, _ c: GeoCoordinates, _ d: GeoCoordinates
  ) -> Bool {
    let plane = LocalPlane(origin: a)
    let pa = plane.project(a), pb = plane.project(b), pc = plane.project(c), pd = plane.project(d)
    func orientation(
      _ p: (x: Double, y: Double), _ q: (x: Double, y: Double), _ r: (x: Double, y: Double)
    ) -> Double {
      (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
    }
    let o1 = orientation(pa, pb, pc), o2 = orientation(pa, pb, pd)
    let o3 = orientation(pc, pd, pa), o4 = orientation(pc, pd, pb)
    if (o1 > 0 && o2 < 0 || o1 < 0 && o2 > 0) && (o3 > 0 && o4 < 0 || o3 < 0 && o4 > 0) {
      return true
    }
    // Collinear or touching cases are caught by the endpoint distances the callers compute.
    return false
  }
}
