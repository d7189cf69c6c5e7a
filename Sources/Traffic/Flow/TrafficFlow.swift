import Foundation

/// Whether vehicles can drive a stretch of road (HERE v7 `traversability`).
public enum Traversability: String, CaseIterable, Hashable, Sendable, Codable {
  /// Open to traffic.
  case open
  /// Closed: a road-closure incident covers it, or a feed reports it blocked. Drawn as a
  /// closure (black and red stripes on HERE-style maps).
  case closed
  /// A reversible lane currently open in the other direction: not routable this way.
  case reversibleNotRoutable
}

/// Where congestion is heading (`jamTendency`).
public enum JamTendency: String, CaseIterable, Hashable, Sendable, Codable {
  /// The jam factor rose by more than one point across the aggregation window.
  case rising
  /// The jam factor changed by at most one point.
  case stable
  /// The jam factor fell by more than one point.
  case falling
}

/// How traffic flows on one directed stretch of road now, as in the HERE SDK's `TrafficFlow`
/// and the `currentFlow` of HERE Traffic API v7.
///
/// Speeds are meters per second. `jamFactor` is 0 (free flow) to 10 (blocked); `confidence`
/// says where the numbers come from: above 0.7 real-time probes or feeds, 0.5...0.7
/// historical (the segment's learned free flow), 0.5 and below the speed limit only.
public struct TrafficFlow: Hashable, Sendable {
  /// The stretch of road, in the direction of travel.
  public var location: GeoPolyline
  /// Its length, meters.
  public var lengthInMeters: Double
  /// The road's name or number, when known (v7 `location.description`).
  public var roadName: String?
  /// The functional road class, 1 (motorways) to 5 (local roads).
  public var functionalClass: Int
  /// The current average speed, capped at the legal limit, meters per second.
  public var speedInMetersPerSecond: Double
  /// The current average speed as measured, meters per second (may exceed the limit).
  public var speedUncappedInMetersPerSecond: Double
  /// The speed of traffic without congestion, meters per second.
  public var freeFlowSpeedInMetersPerSecond: Double
  /// Congestion, 0.0...10.0; 10 only for a blocked or closed road.
  public var jamFactor: Double
  /// The quality of the values, 0...1: > 0.7 real time, 0.5...0.7 historical, <= 0.5 speed
  /// limit only.
  public var confidence: Double
  /// Whether the road can be driven.
  public var traversability: Traversability
  /// The trend of congestion, when enough recent data shows one.
  public var jamTendency: JamTendency?
  /// The network segment this flow belongs to (an index into the engine's `RoadNetwork`).
  public var segmentID: Int
  /// The segment's id in the source data (OpenStreetMap way id or SUMO edge id).
  public var sourceID: String

  /// Creates a flow value.
  public init(
    location: GeoPolyline, lengthInMeters: Double, roadName: String?, functionalClass: Int,
    speedInMetersPerSecond: Double, speedUncappedInMetersPerSecond: Double,
    freeFlowSpeedInMetersPerSecond: Double, jamFactor: Double, confidence: Double,
    traversability: Traversability, jamTendency: JamTendency?, segmentID: Int, sourceID: String
  ) {
    self.location = location
    self.lengthInMeters = lengthInMeters
    self.roadName = roadName
    self.functionalClass = functionalClass
    self.speedInMetersPerSecond = speedInMetersPerSecond
    self.speedUncappedInMetersPerSecond = speedUncappedInMetersPerSecond
    self.freeFlowSpeedInMetersPerSecond = freeFlowSpeedInMetersPerSecond
    self.jamFactor = jamFactor
    self.confidence = confidence
    self.traversability = traversability
    self.jamTendency = jamTendency
    self.segmentID = segmentID
    self.sourceID = sourceID
  }
}
