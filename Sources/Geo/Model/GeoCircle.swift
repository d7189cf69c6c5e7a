/// The area within a distance of a center point, measured along the ellipsoid.
public struct GeoCircle: Hashable, Sendable, CustomStringConvertible {
  /// The center.
  public let center: GeoCoordinates
  /// The radius in meters, >= 0.
  public let radiusInMeters: Double

  /// Creates a circle.
  ///
  /// - Throws: `GeoError.invalidDistance` for a negative or non-finite radius.
  public init(center: GeoCoordinates, radiusInMeters: Double) throws(GeoError) {
    try GeoError.checkDistance(radiusInMeters, name: "radius")
    self.center = center
    self.radiusInMeters = radiusInMeters
  }

  /// The smallest latitude/longitude box that holds the circle.
  ///
  /// - Complexity: O(1).
  public var boundingBox: GeoBox {
    GeoBox(
      uncheckedWest: center.longitude, south: center.latitude,
      east: center.longitude, north: center.latitude
    )
    .expandedUnchecked(byMeters: radiusInMeters)
  }

  /// Whether the point lies within the radius (geodesic distance).
  public func contains(_ coordinates: GeoCoordinates) -> Bool {
    center.distance(to: coordinates) <= radiusInMeters
  }

  /// `"lat,lng;r=meters"`, the form of HERE's `in=circle:` parameter.
  public var description: String { "\(center.latitude),\(center.longitude);r=\(radiusInMeters)" }
}

/// The area within `halfWidthInMeters` of a path: HERE's corridor, the area along a route.
public struct GeoCorridor: Hashable, Sendable {
  /// The path's vertices (at least two).
  public let polyline: [GeoCoordinates]
  /// The distance from the path that still belongs to the corridor, meters.
  public let halfWidthInMeters: Double
  /// The smallest latitude/longitude box that holds the whole corridor.
  public let boundingBox: GeoBox
  /// Per segment of the path, the box of everything within the half width of it: computed
  /// once, so that testing many polylines against the corridor costs box checks only.
  package let segmentReaches: [GeoBox]

  /// Creates a corridor; the half width defaults to 30 m as in the HERE SDK.
  ///
  /// - Throws: `GeoError.tooFewVertices` for fewer than two vertices,
  ///   `GeoError.invalidDistance` for a negative or non-finite half width.
  public init(polyline: [GeoCoordinates], halfWidthInMeters: Double = 30) throws(GeoError) {
    guard polyline.count >= 2 else { throw .tooFewVertices(polyline.count) }
    try GeoError.checkDistance(halfWidthInMeters, name: "half width")
    self.polyline = polyline
    self.halfWidthInMeters = halfWidthInMeters
    segmentReaches = (1..<polyline.count).map {
      GeoBox.enclosingSegment(polyline[$0 - 1], polyline[$0])
        .expandedUnchecked(byMeters: halfWidthInMeters)
    }
    boundingBox = GeoPolyline(uncheckedVertices: polyline).boundingBox
      .expandedUnchecked(byMeters: halfWidthInMeters)
  }

  /// The path as a `GeoPolyline`.
  public var path: GeoPolyline { GeoPolyline(uncheckedVertices: polyline) }

  /// Whether the point lies within the half width of the path.
  public func contains(_ coordinates: GeoCoordinates) -> Bool {
    path.distance(to: coordinates) <= halfWidthInMeters
  }
}
