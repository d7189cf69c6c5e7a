import Foundation

/// One maneuver of a section (HERE SDK `Maneuver`, HERE Routing v8 `actions`): what the
/// driver does where, and the stretch driven from there to the next maneuver.
public struct RouteManeuver: Hashable, Sendable {
  /// The kind of maneuver, by its v8 name.
  public enum Action: String, Hashable, Sendable, CaseIterable {
    /// Leave the start of the section.
    case depart
    /// Reach the end of the section.
    case arrive
    /// Go on straight where the road changes its name or number.
    case `continue`
    /// Turn into another road, or bend sharply on the same one.
    case turn
    /// Turn back into the opposite direction of the road.
    case uTurn
    /// Take a link road (ramp) off a road that is not a motorway.
    case ramp
    /// Leave a motorway or trunk road by a link road.
    case exit
    /// Drive into a roundabout and leave it by the ``RouteManeuver/exit``-th exit (placed
    /// where the roundabout is entered, where a driver needs to know).
    case roundaboutExit
  }

  /// Which way a maneuver turns (v8 `direction`).
  public enum Direction: String, Hashable, Sendable, CaseIterable {
    case left, right, middle
  }

  /// How sharply a turn turns (v8 `severity`): light below 60°, quite up to 120°, heavy
  /// beyond.
  public enum Severity: String, Hashable, Sendable, CaseIterable {
    case light, quite, heavy
  }

  /// A road's name and number, as the network has them (OpenStreetMap `name` and `ref`).
  public struct Road: Hashable, Sendable {
    /// The name (OpenStreetMap `name`).
    public var name: String?
    /// The number (OpenStreetMap `ref`: "B 3", "A10").
    public var number: String?

    /// A road with a name or a number, or `nil` for neither.
    public init?(name: String?, number: String?) {
      let name = name?.isEmpty == false ? name : nil
      let number = number?.isEmpty == false ? number : nil
      guard name != nil || number != nil else { return nil }
      self.name = name
      self.number = number
    }

    /// The road as an instruction names it: `Name (number)`, the name or the number.
    public var label: String {
      switch (name, number) {
      case (let name?, let number?): return "\(name) (\(number))"
      case (let name?, nil): return name
      case (nil, let number?): return number
      case (nil, nil): return ""
      }
    }
  }

  /// What the driver does.
  public var action: Action
  /// For turns, U-turns, ramps and exits: which way.
  public var direction: Direction?
  /// For turns: how sharply.
  public var severity: Severity?
  /// Where along the section the maneuver is, meters.
  public var offsetInMeters: Double
  /// Meters from here to the next maneuver (0 for the arrival).
  public var lengthInMeters: Double
  /// Seconds from here to the next maneuver, with the traffic the route was found with.
  public var durationInSeconds: Double
  /// The road driven before the maneuver (`nil` at the departure, or without name and number).
  public var fromRoad: Road?
  /// The road driven after it (at the arrival, the road arrived on).
  public var road: Road?
  /// For the departure: the compass heading, degrees clockwise from north.
  public var headingInDegrees: Double?
  /// For a roundabout: which exit, counting from 1 the roads leaving it after the entry.
  public var exit: Int?

  /// Creates a maneuver.
  public init(
    action: Action, direction: Direction? = nil, severity: Severity? = nil,
    offsetInMeters: Double, lengthInMeters: Double, durationInSeconds: Double,
    fromRoad: Road? = nil, road: Road? = nil, headingInDegrees: Double? = nil, exit: Int? = nil
  ) {
    self.action = action
    self.direction = direction
    self.severity = severity
    self.offsetInMeters = offsetInMeters
    self.lengthInMeters = lengthInMeters
    self.durationInSeconds = durationInSeconds
    self.fromRoad = fromRoad
    self.road = road
    self.headingInDegrees = headingInDegrees
    self.exit = exit
  }

  /// The instruction in English, as HERE words it: "Turn right onto Chausseestraße. Go for
  /// 320 m." (``instruction(language:)`` for other languages).
  public var instruction: String { instruction(language: "en") }

}
