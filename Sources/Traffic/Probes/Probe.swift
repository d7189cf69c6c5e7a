import Foundation
import Roads

/// One position report of a vehicle: the raw material of traffic flow.
public struct Probe: Hashable, Sendable {
  /// The vehicle's identifier (stable for a trip; any string).
  public var vehicleID: String
  /// When the position was measured, UTC.
  public var time: Date
  /// Where the vehicle was.
  public var coordinates: GeoCoordinates
  /// Ground speed, meters per second, when reported.
  public var speedInMetersPerSecond: Double?
  /// Heading, degrees clockwise from true north, when reported.
  public var headingInDegrees: Double?
  /// Horizontal accuracy (one standard deviation), meters, when reported.
  public var accuracyInMeters: Double?

  /// Creates a probe.
  public init(
    vehicleID: String, time: Date, coordinates: GeoCoordinates,
    speedInMetersPerSecond: Double? = nil, headingInDegrees: Double? = nil,
    accuracyInMeters: Double? = nil
  ) {
    self.vehicleID = vehicleID
    self.time = time
    self.coordinates = coordinates
    self.speedInMetersPerSecond = speedInMetersPerSecond
    self.headingInDegrees = headingInDegrees
    self.accuracyInMeters = accuracyInMeters
  }

  /// The probe as the map matcher reads it.
  var point: ProbePoint {
    ProbePoint(
      coordinates: coordinates, time: time, speedInMetersPerSecond: speedInMetersPerSecond,
      headingInDegrees: headingInDegrees, accuracyInMeters: accuracyInMeters)
  }
}
