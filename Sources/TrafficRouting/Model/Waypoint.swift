import Foundation
import Geo

/// A waypoint with its options (HERE SDK `Waypoint`): v8 `LAT,LNG;course=DEGREES` for any
/// waypoint, and for a via point `!stopDuration=S` and `!passThrough=true`.
public struct Waypoint: Hashable, Sendable {
  /// Where the route passes.
  public var coordinates: GeoCoordinates
  /// Seconds the trip stops there before it goes on (a stopover; 0 by default).
  public var stopDurationInSeconds: Double
  /// Whether the route only passes there: no section ends at it, and it cannot have a stop.
  public var isPassThrough: Bool
  /// The direction of travel there, degrees clockwise from north (0 ..< 360; v8 `course`):
  /// an origin is left that way, a destination reached that way, a via point passed that
  /// way. The route starts or ends on the roads within ``headingToleranceInDegrees`` of it
  /// where there are any (the other side of a two-way street is not taken), else ignores
  /// it. `nil`: any direction.
  public var headingInDegrees: Double?
  /// How far a road's direction may differ from ``headingInDegrees``, degrees (0...180; OSRM's
  /// bearing range); `nil`: ``headingToleranceInDegrees``. A remote engine's server takes
  /// its default (v8's `course` has no range).
  public var headingRangeInDegrees: Double? = nil

  /// A waypoint.
  public init(
    _ coordinates: GeoCoordinates, stopDurationInSeconds: Double = 0, isPassThrough: Bool = false,
    headingInDegrees: Double? = nil
  ) {
    self.coordinates = coordinates
    self.stopDurationInSeconds = stopDurationInSeconds
    self.isPassThrough = isPassThrough
    self.headingInDegrees = headingInDegrees
  }

  /// How far a road's direction may differ from a waypoint's heading, degrees.
  public static let headingToleranceInDegrees = 45.0

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
    try Self.validate(heading: headingInDegrees, range: headingRangeInDegrees, name: "via \(index)")
  }

  /// Checks a heading (finite, 0 ..< 360) and its range (0...180).
  static func validate(heading: Double?, range: Double? = nil, name: String) throws(RoutingError) {
    if let range, !(range.isFinite && range >= 0 && range <= 180) {
      throw .invalidOption("\(name): the heading's range must be 0...180 degrees, got \(range)")
    }
    guard let heading else { return }
    guard heading.isFinite, heading >= 0, heading < 360 else {
      throw .invalidOption("\(name): course must be 0...359 degrees, got \(heading)")
    }
  }
}
