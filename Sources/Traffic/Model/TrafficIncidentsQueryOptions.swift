import Codec
import Foundation

/// Options of an incident query, as in the HERE SDK, plus sorting and a limit.
///
/// HERE's semantics: an empty filter lets everything through (`typeFilter = []` means all
/// types), a `nil` option sets no condition.
///
/// **Time.** An incident is in effect over `[startTime, endTime)`, a missing end being open.
/// A query asks for the incidents in effect at some instant of a closed window:
///
/// | `earliestStartTime` | `latestEndTime` | window |
/// |---|---|---|
/// | `nil` | `nil` | `[now, now]`: only incidents active now (the default) |
/// | `E` | `nil` | `[E, max(E, now)]`: also those active since `E` (E in the past), or those active at `E` (E in the future) |
/// | `nil` | `L` | `[min(now, L), L]`: active now or beginning by `L` (planned ones), or active at `L` when `L` is past |
/// | `E` | `L` | `[E, L]`; `L < E` is an error (`invalidFilterOptions`) |
///
/// An incident is returned when its interval meets the window:
/// `startTime <= window.upperBound` and `endTime > window.lowerBound`.
public struct TrafficIncidentsQueryOptions: Hashable, Sendable {
  /// The incident types to return; empty returns all types.
  public var typeFilter: [TrafficIncidentType]
  /// The impacts to return; empty returns all impacts.
  public var impactFilter: [TrafficIncidentImpact]
  /// The start of the time window (see the type's documentation); `nil` is now.
  public var earliestStartTime: Date?
  /// The end of the time window (see the type's documentation); `nil` is now.
  public var latestEndTime: Date?
  /// The language of `description` and `summary`; `nil` uses the language of each
  /// incident's country.
  public var languageCode: LanguageCode?
  /// When set, results are ordered by distance from this place, nearest first (an addition
  /// to HERE's options); otherwise the order is unspecified.
  public var sortOrigin: GeoCoordinates?
  /// The largest number of results (an addition to HERE's options); `nil` for no limit.
  public var limit: Int?

  /// Creates options; every argument defaults to "no condition".
  ///
  /// - Parameters:
  ///   - typeFilter: Types to return; empty for all.
  ///   - impactFilter: Impacts to return; empty for all.
  ///   - earliestStartTime: The start of the time window.
  ///   - latestEndTime: The end of the time window.
  ///   - languageCode: The language of texts.
  ///   - sortOrigin: Sort by distance from here.
  ///   - limit: The largest number of results, >= 1.
  public init(
    typeFilter: [TrafficIncidentType] = [], impactFilter: [TrafficIncidentImpact] = [],
    earliestStartTime: Date? = nil, latestEndTime: Date? = nil,
    languageCode: LanguageCode? = nil, sortOrigin: GeoCoordinates? = nil, limit: Int? = nil
  ) {
    self.typeFilter = typeFilter
    self.impactFilter = impactFilter
    self.earliestStartTime = earliestStartTime
    self.latestEndTime = latestEndTime
    self.languageCode = languageCode
    self.sortOrigin = sortOrigin
    self.limit = limit
  }

  /// A copy of these options that orders results by distance from `origin`, nearest first.
  ///
  /// - Parameter origin: The place to measure from.
  /// - Returns: The options with `sortOrigin` set.
  public func sortedByDistance(from origin: GeoCoordinates) -> TrafficIncidentsQueryOptions {
    var copy = self
    copy.sortOrigin = origin
    return copy
  }

  /// Checks the options that can be wrong by themselves.
  ///
  /// - Throws: `TrafficQueryError.invalidFilterOptions` when `latestEndTime` lies before
  ///   `earliestStartTime`; `.invalidParameter` when `limit` is below 1.
  public func validate() throws(TrafficQueryError) {
    if let earliestStartTime, let latestEndTime, latestEndTime < earliestStartTime {
      throw .invalidFilterOptions(
        "latestEndTime \(Self.rfc3339(latestEndTime)) lies before earliestStartTime "
          + Self.rfc3339(earliestStartTime))
    }
    if let limit, limit < 1 {
      throw .invalidParameter("limit \(limit) must be at least 1")
    }
  }

  /// The closed time window the query asks about (see the type's documentation).
  ///
  /// - Parameter now: The current time.
  /// - Returns: The window, or `nil` when `latestEndTime` lies before `earliestStartTime`.
  public func timeWindow(now: Date) -> ClosedRange<Date>? {
    let lower: Date
    let upper: Date
    switch (earliestStartTime, latestEndTime) {
    case (nil, nil): (lower, upper) = (now, now)
    case (let earliest?, nil): (lower, upper) = (earliest, max(earliest, now))
    case (nil, let latest?): (lower, upper) = (min(now, latest), latest)
    case (let earliest?, let latest?): (lower, upper) = (earliest, latest)
    }
    return lower <= upper ? lower...upper : nil
  }

  /// Whether `incident` passes the type, impact and time conditions (not the area, which the
  /// engine tests).
  ///
  /// - Parameters:
  ///   - incident: The incident to test.
  ///   - now: The current time.
  /// - Returns: `true` when the incident's type and impact are in the filters (or the filters
  ///   are empty) and it is in effect during `timeWindow(now:)`.
  /// - Complexity: O(t + i), the lengths of the two filters.
  public func matches(_ incident: TrafficIncident, now: Date) -> Bool {
    matches(
      type: incident.type, impact: incident.impact, startTime: incident.startTime,
      endTime: incident.endTime, window: timeWindow(now: now))
  }

  /// `matches(_:now:)` on the fields it reads, with the window computed once per query.
  package func matches(
    type: TrafficIncidentType, impact: TrafficIncidentImpact, startTime: Date?, endTime: Date?,
    window: ClosedRange<Date>?
  ) -> Bool {
    if !typeFilter.isEmpty, !typeFilter.contains(type) { return false }
    if !impactFilter.isEmpty, !impactFilter.contains(impact) { return false }
    guard let window else { return false }
    // As `TrafficIncident.isActive(during:)`.
    if let startTime, startTime > window.upperBound { return false }
    if let endTime, endTime <= window.lowerBound { return false }
    return true
  }

  private static func rfc3339(_ date: Date) -> String {
    RFC3339.format(date)
  }
}

/// Options of an incident lookup by original id, as in the HERE SDK.
public struct TrafficIncidentLookupOptions: Hashable, Sendable {
  /// The language of `description` and `summary`; `nil` uses the language of the
  /// incident's country.
  public var languageCode: LanguageCode?

  /// Creates lookup options.
  ///
  /// - Parameter languageCode: The language of texts; `nil` for the incident's country's.
  public init(languageCode: LanguageCode? = nil) {
    self.languageCode = languageCode
  }
}
