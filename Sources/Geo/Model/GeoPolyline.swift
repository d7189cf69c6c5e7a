/// A path of at least two vertices joined by geodesic segments.
///
/// A point-like feature (an incident at one place) is a polyline whose two vertices are the
/// same coordinate; its length is 0.
public struct GeoPolyline: Hashable, Sendable {
  /// The vertices, in order of travel.
  public let vertices: [GeoCoordinates]

  /// Creates a polyline.
  ///
  /// - Throws: `GeoError.tooFewVertices` when fewer than two vertices are given.
  public init(vertices: [GeoCoordinates]) throws(GeoError) {
    guard vertices.count >= 2 else { throw .tooFewVertices(vertices.count) }
    self.vertices = vertices
  }

  /// A zero-length polyline at one place (two identical vertices).
  public init(point: GeoCoordinates) {
    vertices = [point, point]
  }

  package init(uncheckedVertices vertices: [GeoCoordinates]) {
    self.vertices = vertices
  }

  /// The sum of the geodesic lengths of the segments, meters.
  ///
  /// - Complexity: O(n) geodesic inverse computations.
  public var lengthInMeters: Double {
    var total = 0.0
    for i in 1..<vertices.count { total += vertices[i - 1].distance(to: vertices[i]) }
    return total
  }

  /// The smallest latitude/longitude box holding every vertex (crossing the antimeridian
  /// when the path does).
  ///
  /// - Complexity: O(n).
  public var boundingBox: GeoBox {
    // A polyline always has vertices, so `enclosing` always returns a box.
    GeoBox.enclosing(vertices)
      ?? GeoBox(uncheckedWest: 0, south: 0, east: 0, north: 0)
  }

  /// The point `distanceInMeters` along the path from its first vertex.
  ///
  /// Distances below 0 give the first vertex, beyond the length the last one. Within a
  /// segment the point lies on the segment's geodesic. Altitude, when both ends of the
  /// segment have one, is interpolated linearly.
  /// - Complexity: O(n).
  public func coordinates(atDistance distanceInMeters: Double) -> GeoCoordinates {
    guard distanceInMeters > 0 else { return vertices[0] }
    var remaining = distanceInMeters
    for i in 1..<vertices.count {
      let a = vertices[i - 1], b = vertices[i]
      let length = a.distance(to: b)
      if remaining <= length {
        return GeoPolyline.interpolate(
          a, b, fraction: length > 0 ? remaining / length : 0, length: length)
      }
      remaining -= length
    }
    return vertices[vertices.count - 1]
  }

  /// The point a `fraction` (0...1) of the way from `a` to `b` along their geodesic.
  package static func interpolate(
    _ a: GeoCoordinates, _ b: GeoCoordinates, fraction: Double, length: Double? = nil
  ) -> GeoCoordinates {
    if fraction <= 0 { return a }
    if fraction >= 1 { return b }
    let length = length ?? a.distance(to: b)
    let point = a.destination(bearing: a.bearing(to: b), distanceInMeters: length * fraction)
    guard let altA = a.altitude, let altB = b.altitude else { return point }
    return GeoCoordinates(
      uncheckedLatitude: point.latitude, longitude: point.longitude,
      altitude: altA + (altB - altA) * fraction)
  }
}
