import Foundation
import Roads
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficServer

/// A small road network and probe drives for the flow routes.
///
/// Nodes W (0) — B (1) — E (2) on an east–west two-way road near Berlin (52° N, 13° E),
/// 500 m per side; B — N (3) two-way; B → S (4) one-way. Segments: 0 W→B, 1 B→W, 2 B→E,
/// 3 E→B, 4 B→N, 5 N→B, 6 B→S; primary roads (functional class 2) limited to 13.89 m/s.
enum FlowServerFixtures {
  static let limit = 13.89
  static let metersPerDegreeLatitude = 111_267.0
  static let metersPerDegreeLongitude = 68_677.0

  static func coordinates(east: Double, north: Double = 0) -> GeoCoordinates {
    GeoCoordinates(
      uncheckedLatitude: 52 + north / metersPerDegreeLatitude,
      longitude: 13 + east / metersPerDegreeLongitude)
  }

  static func network() throws -> RoadNetwork { try CrossingNetwork.network() }

  /// A server on the real clock (the probe decoder refuses times in the future of the
  /// system clock) with the network, the incidents of `ServerFixtures` moved to the
  /// crossing, or no network at all.
  static func server(
    network: Bool = true, incidents: [TrafficIncident] = [],
    configuration: ServerConfiguration = ServerFixtures.quiet()
  ) throws -> TrafficServer {
    let store = InMemoryTrafficStore()
    try store.apply(IncidentBatch(upserts: incidents))
    let engine = try TrafficEngine(
      store: store, clock: { Date() }, network: network ? try Self.network() : nil)
    return try TrafficServer(engine: engine, configuration: configuration)
  }

  /// CSV probes of `vehicles` vehicles driving east from W to E (segments 0 then 2) at
  /// `speed` m/s, one probe every 5 s, the last `endAgo` seconds before now.
  static func csvDrive(
    vehicles: Int, speed: Double, endAgo: Double = 2, prefix: String = "car"
  ) -> String {
    var lines = ["id,time,lat,lng,speed,heading"]
    let end = Date().timeIntervalSince1970 - endAgo
    let count = Int(1000 / (speed * 5))
    for vehicle in 0..<vehicles {
      let vehicleEnd = end - Double(vehicle) * 3
      for k in 0...count {
        let east = Double(k) * speed * 5
        let point = coordinates(east: east, north: Double(vehicle % 3) - 1)
        let time = vehicleEnd - Double(count - k) * 5
        lines.append(
          "\(prefix)\(vehicle),\(String(format: "%.3f", time)),\(point.latitude),"
            + "\(point.longitude),\(speed),90")
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The `currentFlow` of the result whose `segmentId` is `id`, from a flow response.
  static func currentFlow(
    _ response: HTTPResponse, segment id: Int, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> [String: Any]? {
    let results = try #require(
      try ServerFixtures.object(response.body)["results"] as? [[String: Any]],
      sourceLocation: sourceLocation)
    return results.first { ($0["location"] as? [String: Any])?["segmentId"] as? Int == id }?[
      "currentFlow"] as? [String: Any]
  }

  static let everywhere = "/v7/flow?in=circle:52,13.00728;r=2000"
}
