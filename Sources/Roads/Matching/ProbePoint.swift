import Foundation
import Geo

/// One position report of a vehicle, as the map matcher reads it.
public struct ProbePoint: Hashable, Sendable {
  /// Where the receiver was.
  public var coordinates: GeoCoordinates
  /// When, UTC.
  public var time: Date
  /// The reported ground speed, meters per second, when known.
  public var speedInMetersPerSecond: Double?
  /// The reported heading, degrees clockwise from true north, when known.
  public var headingInDegrees: Double?
  /// The receiver's horizontal accuracy (one standard deviation), meters, when known.
  public var accuracyInMeters: Double?

  /// Creates a probe point.
  public init(
    coordinates: GeoCoordinates, time: Date, speedInMetersPerSecond: Double? = nil,
    headingInDegrees: Double? = nil, accuracyInMeters: Double? = nil
  ) {
    self.coordinates = coordinates
    self.time = time
    self.speedInMetersPerSecond = speedInMetersPerSecond
    self.headingInDegrees = headingInDegrees
    self.accuracyInMeters = accuracyInMeters
  }
}

/// A probe placed on the road network by the map matcher.
public struct MatchedPoint: Hashable, Sendable {
  /// The vehicle that sent the probe.
  public let vehicleID: String
  /// The probe as received.
  public let probe: ProbePoint
  /// Where on the network the vehicle was.
  public let position: RoadPosition
  /// The point of the segment the probe was placed on.
  public let coordinates: GeoCoordinates
  /// Distance from the probe to ``coordinates``, meters.
  public let distanceInMeters: Double
  /// The segments driven from the previous matched point of the same trace to this one, in
  /// order: the previous point's segment first, this point's segment last (one element when
  /// both lie on the same segment); empty at the start of a trace.
  public let pathFromPrevious: [Int]
  /// The distance driven from the previous matched point of the trace, meters; `nil` at the
  /// start of a trace.
  public let routeDistanceFromPreviousInMeters: Double?

  /// Of the time since the previous matched point, how long the vehicle stood at that point
  /// (its probes there were skipped as stationary), seconds; 0 at the start of a trace.
  public let secondsStoppedAtPrevious: Double

  /// When the vehicle stood here after this probe: the time of its last probe skipped as
  /// stationary at this point, if any.
  public let standingUntil: Date?

  /// Where the vehicle stood after this probe, when it did (``standingUntil``): the mean of
  /// its probes there, whose GPS noise shrinks with their number, placed on this point's
  /// segment — or at the end of the segment before it when the mean lies within its noise
  /// of the junction between them (queues stand before junctions). `nil` when it did not
  /// stand.
  public let standingPosition: RoadPosition?

  /// Whether this point starts a trace (the first of a vehicle, or the first after a break).
  public var startsTrace: Bool { routeDistanceFromPreviousInMeters == nil }
}
