import Foundation
import Traffic

/// Builders shared by the Traffic tests.
enum TrafficFixtures {
  /// 2028-02-20 12:00 UTC (13:00 in Berlin).
  static let february20 = Date(timeIntervalSince1970: 1_834_660_800)

  static func place(_ latitude: Double, _ longitude: Double) throws -> GeoCoordinates {
    try GeoCoordinates(latitude: latitude, longitude: longitude)
  }

  /// The roadworks of HERE's German example, on the Sachsendamm in Berlin.
  static func sachsendamm(
    endTime: Date? = february20, sourceTexts: [LocalizedText] = [],
    countryCode: String? = "DE"
  ) throws -> TrafficIncident {
    let details = try TrafficIncidentDetails(
      countryCode: countryCode, area: "Berlin", roadName: "Sachsendamm",
      fromJunction: "Gotenstraße", toJunction: "Priesterweg", lanesClosed: 1, totalLanes: 2,
      queueRisk: true, eventKind: .roadworks, timeZone: TimeZone(identifier: "Europe/Berlin"))
    return try TrafficIncident(
      id: "v2", originalId: "sachsendamm", type: .construction, impact: .minor,
      startTime: Date(timeIntervalSince1970: 1_800_000_000), endTime: endTime,
      location: TrafficLocation(point: try place(52.4800, 13.3650)), details: details,
      sourceTexts: sourceTexts)
  }

  /// An incident with the given times and nothing else of note.
  static func incident(
    start: Date?, end: Date?, type: TrafficIncidentType = .accident,
    impact: TrafficIncidentImpact = .major
  ) throws -> TrafficIncident {
    try TrafficIncident(
      id: "i", type: type, impact: impact, startTime: start, endTime: end,
      location: TrafficLocation(point: try place(48, 11)))
  }
}
