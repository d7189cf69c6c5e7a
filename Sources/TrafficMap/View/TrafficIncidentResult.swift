import Foundation
import Traffic

/// A traffic incident found by a pick, as HERE's `PickTrafficIncidentResult`: what the
/// incident layer knows of it. As in the HERE SDK the description is empty; look the
/// incident up by `originalId` (`TrafficEngine.lookupIncident(with:lookupOptions:)`) for its
/// texts in the language you want.
public struct TrafficIncidentResult: Hashable, Sendable {
  /// The incident's category.
  public var type: TrafficIncidentType
  /// How strongly traffic is affected.
  public var impact: TrafficIncidentImpact
  /// The stable id to look the incident up by.
  public var originalId: String
  /// Where the incident begins (where its icon is drawn).
  public var coordinates: GeoCoordinates
  /// When it began, if known.
  public var startTime: Date?
  /// When it is expected to end, if known.
  public var endTime: Date?
  /// Always empty, as in the HERE SDK: look the incident up for its description.
  public var description: String

  init(_ incident: TrafficIncident) {
    type = incident.type
    impact = incident.impact
    originalId = incident.originalId
    coordinates = incident.location.polyline.vertices[0]
    startTime = incident.startTime
    endTime = incident.endTime
    description = ""
  }
}
