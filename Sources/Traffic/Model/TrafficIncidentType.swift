/// The category of a traffic incident, as in the HERE SDK and HERE Traffic API v7.
///
/// The Swift case names are the v7 wire names (`type=accident,construction`), except
/// `unknown`, which the SDK uses for a category the source did not give or this version does
/// not know, and which has no wire name. Map icons are named after the case.
public enum TrafficIncidentType: String, CaseIterable, Hashable, Sendable, Codable {
  /// A collision; shown with a red crash icon.
  case accident
  /// Heavy or stationary traffic without a more specific cause; shown as a red queue icon.
  case congestion
  /// Roadworks or maintenance; shown with an orange roadworks sign.
  case construction
  /// A broken-down or stranded vehicle; shown with a grey car-with-warning icon.
  case disabledVehicle
  /// A disruption of public transport (trains, buses, ferries); shown with a blue transit icon.
  case massTransit
  /// A scheduled event (fair, sports match, parade) affecting traffic; shown with a calendar icon.
  case plannedEvent
  /// An obstruction or danger on the road (object, animal, slippery surface); shown with a
  /// yellow warning triangle.
  case roadHazard
  /// Weather affecting driving (snow, ice, fog, wind, flooding); shown with a weather icon.
  case weather
  /// The road is closed; shown with a red no-entry sign.
  case roadClosure
  /// One or more lanes are closed; shown with an orange lane-closed sign.
  case laneRestriction
  /// Any other incident; shown with a generic information icon.
  case other
  /// The category is not known (not given by the source, or newer than this library);
  /// shown with the generic information icon. Has no v7 wire name.
  case unknown

  /// The name used in HERE Traffic API v7 (`type` parameter and `incidentDetails.type`);
  /// `nil` for `unknown`.
  public var wireName: String? {
    self == .unknown ? nil : rawValue
  }

  /// The type with the v7 wire name `wireName`, or `nil` when the name is not a v7 type.
  ///
  /// - Parameter wireName: A v7 type name such as `"disabledVehicle"` (case-sensitive, as in
  ///   the API).
  public init?(wireName: String) {
    guard let type = TrafficIncidentType(rawValue: wireName), type != .unknown else {
      return nil
    }
    self = type
  }
}
