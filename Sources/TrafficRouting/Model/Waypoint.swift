import Foundation
import Geo

/// A via point with its options (HERE SDK `Waypoint`, v8 `via=LAT,LNG!stopDuration=S` and
/// `!passThrough=true`).
public struct Waypoint: Hashable, Sendable {
  /// Where the route passes.
  public var coordinates: GeoCoordinates
  /// Seconds the trip stops there before it goes on (a stopover; 0 by default).
  public var stopDurationInSeconds: Double
  /// Whether the route only passes there: no section ends at it, and it cannot have a stop.
  public var isPassThrough: Bool

  /// A via point.
  public init(
    _ coordinates: GeoCoordinates, stopDurationInSeconds: Double = 0, isPassThrough: Bool = false
  ) {
    self.coordinates = coordinates
    self.stopDurationInSeconds = stopDurationInSeconds
    self.isPassThrough = isPassThrough
  }

  /// The most a stop may last, seconds (a day).
  public static let maximumStopDurationInSeconds = 86_400.0

  /// Checks the options.
  func validate(index: Int) throws(RoutingError) {
    guard stopDurationInSeconds.isFinite, stopDurationInSeconds >= 0,
      stopDurationInSeconds <= Self.maximumStopDurationInSeconds
    else {
      throw .invalidOption(
        "via \(index): stopDuration must be 0...\(Int(Self.maximumStopDurationInSeconds)) s")
    }
    guard !isPassThrough || stopDurationInSeconds == 0 else {
      throw .invalidOption("via \(index): a pass-through point cannot have a stop")
    }
  }
}
