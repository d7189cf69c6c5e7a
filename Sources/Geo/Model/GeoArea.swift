/// An area that traffic can be queried in: a `GeoCircle`, a `GeoBox` or a `GeoCorridor`.
public protocol GeoArea: Sendable {
  /// The smallest latitude/longitude box that holds the area, for index look-ups.
  var boundingBox: GeoBox { get }
  /// Whether the point lies in the area (edges included).
  func contains(_ coordinates: GeoCoordinates) -> Bool
  /// Whether any part of the path lies in the area: an exact test of the segments, not of
  /// their bounding boxes.
  func intersects(_ polyline: GeoPolyline) -> Bool
}

extension GeoBox: GeoArea {
  /// The box itself.
  public var boundingBox: GeoBox { self }
  /// Whether any part of the path lies in the box; see `GeoPolyline.intersects(_:)`.
  public func intersects(_ polyline: GeoPolyline) -> Bool { polyline.intersects(self) }
}

extension GeoCircle: GeoArea {
  /// Whether any part of the path lies in the circle; see `GeoPolyline.intersects(_:)`.
  public func intersects(_ polyline: GeoPolyline) -> Bool { polyline.intersects(self) }
}

extension GeoCorridor: GeoArea {
  /// Whether any part of the path lies in the corridor; see `GeoPolyline.intersects(_:)`.
  public func intersects(_ polyline: GeoPolyline) -> Bool { polyline.intersects(self) }
}
