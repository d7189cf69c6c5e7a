import Foundation
import Traffic

/// A few incidents around Berlin's Sachsendamm, the place of the guide's German example, so
/// that the examples run without a feed.
func sampleEngine(now: Date = Date()) throws -> TrafficEngine {
  func point(_ latitude: Double, _ longitude: Double) throws -> GeoCoordinates {
    try GeoCoordinates(latitude: latitude, longitude: longitude)
  }
  let roadworks = try TrafficIncident(
    id: "sachsendamm-1", originalId: "sachsendamm", type: .construction, impact: .minor,
    startTime: now - 86_400, endTime: now + 30 * 86_400,
    location: TrafficLocation(
      polyline: GeoPolyline(vertices: [
        try point(52.4850, 13.3656), try point(52.4836, 13.3611), try point(52.4808, 13.3528),
      ])),
    details: TrafficIncidentDetails(
      countryCode: "DE", area: "Berlin", roadName: "Sachsendamm", fromJunction: "Gotenstraße",
      toJunction: "Priesterweg", lanesClosed: 1, totalLanes: 2, queueRisk: true,
      eventKind: .roadworks, timeZone: TimeZone(identifier: "Europe/Berlin")))
  let accident = try TrafficIncident(
    id: "a100-1", originalId: "a100-innsbrucker-platz", type: .accident, impact: .major,
    startTime: now - 600, endTime: now + 3600,
    location: TrafficLocation(point: try point(52.4783, 13.3432)),
    details: TrafficIncidentDetails(
      countryCode: "DE", area: "Berlin", roadNumber: "A100", towards: "Neukölln",
      atJunction: "Innsbrucker Platz", lanesClosed: 1, eventKind: .accident))
  let store = InMemoryTrafficStore()
  try store.apply(IncidentBatch(upserts: [roadworks, accident]))
  return try TrafficEngine(store: store, clock: { now })
}
