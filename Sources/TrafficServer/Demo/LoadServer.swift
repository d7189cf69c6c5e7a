import Foundation
import Geo
import Traffic

/// Builds servers on generated incidents for load tests and demonstrations.
package enum LoadServer {
  /// The center of generated incidents: Berlin, Alexanderplatz.
  package static let center = GeoCoordinates(uncheckedLatitude: 52.52, longitude: 13.41)

  /// A server on an in-memory engine holding `incidentCount` generated incidents spread
  /// over a 2 x 2 degree square around `center` (about 3 per square kilometre at 100,000).
  ///
  /// - Throws: `ServerError.invalidConfiguration` for a bad configuration or an engine that
  ///   cannot start.
  package static func make(
    incidentCount: Int, configuration: ServerConfiguration
  ) throws(ServerError) -> TrafficServer {
    let engine: TrafficEngine
    do {
      engine = try TrafficEngine(store: InMemoryTrafficStore())
      try engine.apply(
        IncidentBatch(upserts: DemoIncidents.generate(count: incidentCount, center: center)))
    } catch {
      throw .invalidConfiguration("the demo engine cannot start: \(error)")
    }
    return try TrafficServer(engine: engine, configuration: configuration)
  }
}
