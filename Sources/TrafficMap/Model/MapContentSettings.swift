import Foundation
import Traffic

/// Settings of the traffic content of a scene, as HERE's `MapContentSettings`: how often the
/// traffic layers fetch fresh data, and which incident types the incident layer shows.
///
/// A scene fetches the flow and incidents of its view from the engine when it first draws
/// or picks, and again when the view, the features or these settings change, or when the
/// data it holds is older than the refresh period — so a pick always matches the picture
/// last drawn, and a live view costs one query per period.
public struct MapContentSettings: Hashable, Sendable {
  /// The shortest refresh period allowed, seconds (HERE's minimum: one minute).
  public static let minimumRefreshPeriodInSeconds: Double = 60
  /// The longest refresh period allowed, seconds (five minutes).
  public static let maximumRefreshPeriodInSeconds: Double = 300

  /// How long traffic data is shown before it is fetched again, seconds (60...300).
  public private(set) var trafficRefreshPeriodInSeconds: Double
  /// The incident types the incident layer shows; empty shows every type (HERE's semantics
  /// for filters).
  public var incidentTypeFilter: Set<TrafficIncidentType>

  /// Creates settings.
  ///
  /// - Parameters:
  ///   - trafficRefreshPeriodInSeconds: 60...300 seconds; one minute by default.
  ///   - incidentTypeFilter: Types to show; empty (all) by default.
  /// - Throws: `MapError.invalidRefreshPeriod` outside 60...300 s or not a number.
  public init(
    trafficRefreshPeriodInSeconds: Double = 60, incidentTypeFilter: Set<TrafficIncidentType> = []
  ) throws(MapError) {
    try MapContentSettings.check(trafficRefreshPeriodInSeconds)
    self.trafficRefreshPeriodInSeconds = trafficRefreshPeriodInSeconds
    self.incidentTypeFilter = incidentTypeFilter
  }

  /// Sets the refresh period (HERE's `setTrafficRefreshPeriod`).
  ///
  /// - Parameter seconds: 60...300 seconds.
  /// - Throws: `MapError.invalidRefreshPeriod` outside the range or not a number; the
  ///   period is unchanged then.
  public mutating func setTrafficRefreshPeriod(_ seconds: Double) throws(MapError) {
    try MapContentSettings.check(seconds)
    trafficRefreshPeriodInSeconds = seconds
  }

  private static func check(_ seconds: Double) throws(MapError) {
    guard seconds >= minimumRefreshPeriodInSeconds, seconds <= maximumRefreshPeriodInSeconds
    else { throw .invalidRefreshPeriod(seconds: seconds) }
  }

  /// The defaults: one minute, every incident type.
  public static let standard = MapContentSettings(
    uncheckedPeriod: 60, incidentTypeFilter: [])

  private init(uncheckedPeriod: Double, incidentTypeFilter: Set<TrafficIncidentType>) {
    trafficRefreshPeriodInSeconds = uncheckedPeriod
    self.incidentTypeFilter = incidentTypeFilter
  }
}
