/// What a pick found under a rectangle of a view, topmost first in each list (HERE SDK
/// `PickMapContentResult`, with the markers and polylines of `PickMapItemsResult`).
public struct PickMapContentResult: Sendable {
  /// Incidents of the incident layer (empty when the layer is off).
  public var trafficIncidents: [TrafficIncidentResult]
  /// Markers the caller added whose image meets the rectangle.
  public var mapMarkers: [MapMarker]
  /// Polylines the caller added that pass within the pick tolerance of the rectangle.
  public var mapPolylines: [MapPolyline]

  /// An empty result.
  public init(
    trafficIncidents: [TrafficIncidentResult] = [], mapMarkers: [MapMarker] = [],
    mapPolylines: [MapPolyline] = []
  ) {
    self.trafficIncidents = trafficIncidents
    self.mapMarkers = mapMarkers
    self.mapPolylines = mapPolylines
  }

  /// Whether nothing was found.
  public var isEmpty: Bool {
    trafficIncidents.isEmpty && mapMarkers.isEmpty && mapPolylines.isEmpty
  }
}
