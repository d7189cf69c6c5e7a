import Foundation

/// One measurement of how traffic moves along a stretch of road, from a feed (a Waze jam, a
/// HERE v7 flow item) rather than from individual vehicle probes.
///
/// The flow pipeline matches `polyline` to the road network and blends the observation into
/// the segments it covers.
public struct FlowObservation: Hashable, Sendable {
  /// Where the observation applies, in the direction of travel.
  public var polyline: GeoPolyline
  /// The observed average speed, meters per second.
  public var speedInMetersPerSecond: Double?
  /// The speed traffic would move at without congestion, meters per second, when known.
  public var freeFlowSpeedInMetersPerSecond: Double?
  /// Congestion on HERE's 0...10 scale (10 = blocked), when the source gives it.
  public var jamFactor: Double?
  /// Extra travel time over free flow along `polyline`, seconds.
  public var delayInSeconds: Double?
  /// When the observation was made (or published), UTC.
  public var time: Date
  /// The feed's own identifier of the observation, when it has one.
  public var sourceId: String?

  /// Creates an observation.
  ///
  /// - Parameters:
  ///   - polyline: Where it applies, in the direction of travel.
  ///   - speedInMetersPerSecond: Observed average speed.
  ///   - freeFlowSpeedInMetersPerSecond: Uncongested speed.
  ///   - jamFactor: 0...10, 10 = blocked.
  ///   - delayInSeconds: Extra travel time along the polyline.
  ///   - time: When it was observed.
  ///   - sourceId: The feed's identifier.
  public init(
    polyline: GeoPolyline, speedInMetersPerSecond: Double? = nil,
    freeFlowSpeedInMetersPerSecond: Double? = nil, jamFactor: Double? = nil,
    delayInSeconds: Double? = nil, time: Date, sourceId: String? = nil
  ) {
    self.polyline = polyline
    self.speedInMetersPerSecond = speedInMetersPerSecond
    self.freeFlowSpeedInMetersPerSecond = freeFlowSpeedInMetersPerSecond
    self.jamFactor = jamFactor
    self.delayInSeconds = delayInSeconds
    self.time = time
    self.sourceId = sourceId
  }
}
