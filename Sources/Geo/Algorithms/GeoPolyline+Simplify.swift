extension GeoPolyline {
  /// The path with vertices removed that lie within `toleranceInMeters` of the simplified
  /// line (Douglas & Peucker 1973, "Algorithms for the reduction of the number of points
  /// required to represent a digitized line or its caricature").
  ///
  /// The first and last vertices are always kept. Offsets are measured in a local plane at
  /// each candidate vertex, which is exact to well under 0.1 % for segments of tens of km.
  /// - Throws: `GeoError.invalidDistance` for a negative or non-finite tolerance.
  /// - Complexity: O(n log n) typical, O(n^2) worst case.
  public func simplified(toleranceInMeters: Double) throws(GeoError) -> GeoPolyline {
    try GeoError.checkDistance(toleranceInMeters, name: "tolerance")
    guard vertices.count > 2 else { return self }
    var keep = [Bool](repeating: false, count: vertices.count)
    keep[0] = true
    keep[vertices.count - 1] = true
    var stack = [(0, vertices.count - 1)]
    while let (first, last) = stack.popLast() {
      guard last - first > 1 else { continue }
      var farthest = first
      var farthestOffset = -1.0
      for i in (first + 1)..<last {
        let offset = GeoPolyline.planarOffset(
          of: vertices[i], from: vertices[first], vertices[last])
        if offset > farthestOffset {
          farthestOffset = offset
          farthest = i
        }
      }
      if farthestOffset > toleranceInMeters {
        keep[farthest] = true
        stack.append((first, farthest))
        stack.append((farthest, last))
      }
    }
    var kept: [GeoCoordinates] = []
    for (i, vertex) in vertices.enumerated() where keep[i] { kept.append(vertex) }
    return GeoPolyline(uncheckedVertices: kept)
  }

  /// Distance from `p` to segment a-b in a local plane at `p`, meters.
  static func planarOffset(
    of p: GeoCoordinates, from a: GeoCoordinates, _ b: GeoCoordinates
  )
    -> Double
  {
    let plane = LocalPlane(origin: p)
    let pa = plane.project(a), pb = plane.project(b)
    let dx = pb.x - pa.x, dy = pb.y - pa.y
    let squared = dx * dx + dy * dy
    let t = squared > 0 ? min(1, max(0, -(pa.x * dx + pa.y * dy) / squared)) : 0
    let x = pa.x + t * dx, y = pa.y + t * dy
    return (x * x + y * y).squareRoot()
  }
}
