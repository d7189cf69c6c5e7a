import Foundation
import Traffic

/// Incidents and engines for the engine tests, around Berlin.
enum EngineFixtures {
  /// The engines' "now": 2027-06-01 12:00 UTC.
  static let now = Date(timeIntervalSince1970: 1_811_851_200)
  static let hour: TimeInterval = 3600

  /// An incident along the given (lat, lng) vertices, active from an hour ago for a day.
  static func incident(
    _ originalId: String, _ vertices: [(Double, Double)], type: TrafficIncidentType = .accident,
    impact: TrafficIncidentImpact = .major, start: Date? = now - hour,
    end: Date? = now + 24 * hour, version: Int = 1, additional: [[(Double, Double)]] = []
  ) throws -> TrafficIncident {
    let points = try vertices.map { try GeoCoordinates(latitude: $0.0, longitude: $0.1) }
    let polyline =
      points.count == 1 ? GeoPolyline(point: points[0]) : try GeoPolyline(vertices: points)
    let more = try additional.map { line in
      try GeoPolyline(vertices: line.map { try GeoCoordinates(latitude: $0.0, longitude: $0.1) })
    }
    return try TrafficIncident(
      id: "\(originalId)-v\(version)", originalId: originalId, type: type, impact: impact,
      description: LocalizedText(text: "\(originalId) text", language: .enUS),
      startTime: start, endTime: end,
      location: TrafficLocation(polyline: polyline, additionalPolylines: more))
  }

  /// An engine on a fresh in-memory store holding `incidents`, with a fixed clock.
  static func engine(
    _ incidents: [TrafficIncident], limits: TrafficQueryLimits = .here,
    clock: @escaping @Sendable () -> Date = { now }
  ) throws -> TrafficEngine {
    let store = InMemoryTrafficStore()
    try store.apply(IncidentBatch(upserts: incidents))
    return try TrafficEngine(store: store, limits: limits, clock: clock)
  }

  static func circle(_ latitude: Double, _ longitude: Double, _ radius: Double) throws -> GeoCircle
  {
    try GeoCircle(
      center: GeoCoordinates(latitude: latitude, longitude: longitude), radiusInMeters: radius)
  }
}

/// The `TrafficQueryError` a call throws, or `nil` when it succeeds or throws something else.
func queryError(_ body: () async throws -> Void) async -> TrafficQueryError? {
  do {
    try await body()
    return nil
  } catch let error as TrafficQueryError {
    return error
  } catch {
    return nil
  }
}
