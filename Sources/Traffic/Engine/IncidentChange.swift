/// A change to the set of incidents, as delivered by `TrafficEngine.incidentChanges(inside:)`.
public struct IncidentChange: Hashable, Sendable {
  /// What happened to the incident.
  public enum Kind: String, Hashable, Sendable {
    /// A new incident, or one that moved into the watched area.
    case added
    /// A new version of an incident already in the area (a new `id`, the same `originalId`).
    case updated
    /// The incident was deleted or purged, or moved out of the watched area.
    case removed
  }

  /// What happened.
  public let kind: Kind
  /// The incident: its new version, or for `removed` its last version.
  public let incident: TrafficIncident

  /// Creates a change.
  public init(kind: Kind, incident: TrafficIncident) {
    self.kind = kind
    self.incident = incident
  }
}

/// Why a `TrafficEngine` could not be created.
public enum TrafficEngineError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The store could not be opened or read; the store's error says why.
  case storeUnavailable(TrafficStoreError)
  /// A setting is out of range; the detail names it.
  case invalidConfiguration(String)

  /// A sentence saying why.
  public var description: String {
    switch self {
    case .storeUnavailable(let error): return "traffic engine cannot start: \(error)"
    case .invalidConfiguration(let detail): return "invalid traffic engine configuration: \(detail)"
    }
  }
}

/// The distance from a place to an incident, as `TrafficEngine.nearestIncident` finds it.
public struct TrafficIncidentDistance: Hashable, Sendable {
  /// The incident.
  public let incident: TrafficIncident
  /// Geodesic distance from the place to the nearest point of the incident's polylines,
  /// meters (measured to segments, not only vertices).
  public let distanceInMeters: Double
}
