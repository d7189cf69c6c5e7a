/// What happened, finer than `TrafficIncidentType`; used to word localised descriptions.
///
/// Feeds map their event codes to these (DATEX II `roadworks`, Alert-C event 701 "roadworks",
/// WZDx `work-zone`...). When an incident has no kind, the description words its type.
public enum TrafficEventKind: String, CaseIterable, Hashable, Sendable, Codable {
  /// Construction work on the road ("roadworks", "Bauarbeiten").
  case roadworks
  /// Maintenance work (resurfacing, mowing, cleaning).
  case maintenanceWork
  /// A collision.
  case accident
  /// A collision involving several vehicles.
  case multiVehicleAccident
  /// Traffic standing still.
  case stationaryTraffic
  /// Traffic queuing, stop and go.
  case queuingTraffic
  /// Slow traffic.
  case slowTraffic
  /// A broken-down vehicle.
  case brokenDownVehicle
  /// A vehicle on fire.
  case vehicleFire
  /// A vehicle driving against the direction of traffic.
  case wrongWayDriver
  /// Objects or lost cargo on the road.
  case objectOnRoad
  /// Animals on the road.
  case animalsOnRoad
  /// People on the road.
  case peopleOnRoad
  /// Water on the road.
  case flooding
  /// Ice or black ice.
  case ice
  /// Snow on the road.
  case snow
  /// Fog reducing visibility.
  case fog
  /// Strong winds.
  case strongWinds
  /// A major event (sports, fair, concert).
  case majorEvent
  /// A demonstration or march.
  case demonstration
  /// Disruption of public transport.
  case transitDisruption
}
