/// A geometry as exchanged in GeoJSON (RFC 7946) and Well-Known Text: a point, a path, an
/// area, or a collection of one of these.
///
/// The decoders (`GeoJSON`, `WKT`) only produce valid geometries: a line string has at least
/// two positions, a polygon at least one ring and every ring at least four positions with the
/// last equal to the first. The encoders check the same rules, since a value built by hand may
/// break them.
public enum GeoGeometry: Hashable, Sendable {
  /// One position.
  case point(GeoCoordinates)
  /// Several unconnected positions.
  case multiPoint([GeoCoordinates])
  /// A path of two or more positions.
  case lineString([GeoCoordinates])
  /// Several paths.
  case multiLineString([[GeoCoordinates]])
  /// An area: the outer ring, then the rings of any holes, each closed (last == first).
  case polygon([[GeoCoordinates]])
  /// Several areas, each as in `.polygon`.
  case multiPolygon([[[GeoCoordinates]]])

  /// Every path of the geometry as a polyline: a point becomes a zero-length polyline, a line
  /// string one polyline, a polygon one closed polyline per ring.
  ///
  /// A line string of one position (only possible in a hand-built value) becomes a zero-length
  /// polyline; an empty one is skipped.
  ///
  /// - Complexity: O(n) in the number of positions.
  public var polylines: [GeoPolyline] {
    switch self {
    case .point(let point):
      return [GeoPolyline(point: point)]
    case .multiPoint(let points):
      return points.map(GeoPolyline.init(point:))
    case .lineString(let line):
      return GeoGeometry.polyline(line).map { [$0] } ?? []
    case .multiLineString(let lines), .polygon(let lines):
      return lines.compactMap(GeoGeometry.polyline)
    case .multiPolygon(let polygons):
      return polygons.flatMap { $0.compactMap(GeoGeometry.polyline) }
    }
  }

  private static func polyline(_ vertices: [GeoCoordinates]) -> GeoPolyline? {
    switch vertices.count {
    case 0: return nil
    case 1: return GeoPolyline(point: vertices[0])
    default: return GeoPolyline(uncheckedVertices: vertices)
    }
  }

  /// Whether `point` lies inside one of the geometry's polygons and not in one of its holes
  /// (even-odd over the rings, with straight edges in longitude and latitude as RFC 7946
  /// draws them); never for a geometry without polygons.
  ///
  /// - Complexity: O(n) in the number of positions.
  package func surrounds(_ point: GeoCoordinates) -> Bool {
    switch self {
    case .polygon(let rings): return Self.oddCrossings(of: point, rings: rings)
    case .multiPolygon(let polygons):
      return polygons.contains { Self.oddCrossings(of: point, rings: $0) }
    default: return false
    }
  }

  private static func oddCrossings(of point: GeoCoordinates, rings: [[GeoCoordinates]]) -> Bool {
    let x = point.longitude, y = point.latitude
    var inside = false
    for ring in rings {
      for (a, b) in zip(ring, ring.dropFirst())
      where (a.latitude > y) != (b.latitude > y) {
        let crossing =
          a.longitude + (y - a.latitude) / (b.latitude - a.latitude) * (b.longitude - a.longitude)
        if x < crossing { inside.toggle() }
      }
    }
    return inside
  }

  /// The first structural rule the geometry breaks, as a GeoJSON-style path below
  /// `coordinates` (e.g. `"[2]"`) and a reason; `nil` when it is valid.
  ///
  /// - Complexity: O(n) in the number of positions.
  func structuralProblem() -> (path: String, reason: String)? {
    switch self {
    case .point:
      return nil
    case .multiPoint(let points):
      return points.isEmpty ? ("", "a multipoint needs at least 1 position, got 0") : nil
    case .lineString(let line):
      return GeoGeometry.lineProblem(line).map { ("", $0) }
    case .multiLineString(let lines):
      if lines.isEmpty { return ("", "a multilinestring needs at least 1 line, got 0") }
      for (index, line) in lines.enumerated() {
        if let reason = GeoGeometry.lineProblem(line) { return ("[\(index)]", reason) }
      }
      return nil
    case .polygon(let rings):
      return GeoGeometry.polygonProblem(rings)
    case .multiPolygon(let polygons):
      if polygons.isEmpty { return ("", "a multipolygon needs at least 1 polygon, got 0") }
      for (index, rings) in polygons.enumerated() {
        if let (path, reason) = GeoGeometry.polygonProblem(rings) {
          return ("[\(index)]" + path, reason)
        }
      }
      return nil
    }
  }

  static func lineProblem(_ line: [GeoCoordinates]) -> String? {
    line.count < 2 ? "a line string needs at least 2 positions, got \(line.count)" : nil
  }

  static func ringProblem(_ ring: [GeoCoordinates]) -> String? {
    if ring.count < 4 { return "a linear ring needs at least 4 positions, got \(ring.count)" }
    if ring.first != ring.last { return "a linear ring must end at its first position" }
    return nil
  }

  static func polygonProblem(_ rings: [[GeoCoordinates]]) -> (path: String, reason: String)? {
    if rings.isEmpty { return ("", "a polygon needs at least 1 ring, got 0") }
    for (index, ring) in rings.enumerated() {
      if let reason = ringProblem(ring) { return ("[\(index)]", reason) }
    }
    return nil
  }
}
