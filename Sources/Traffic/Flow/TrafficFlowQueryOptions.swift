import Foundation

/// Filters of a flow query, as HERE's `TrafficFlowQueryOptions` and the v7 `minJamFactor`,
/// `maxJamFactor` and `functionalClasses` parameters, and the time of the picture asked for
/// (this project's `at`).
public struct TrafficFlowQueryOptions: Hashable, Sendable {
  /// Only flows with a jam factor at least this (0...10); `nil` for no lower bound.
  public var minJamFactor: Double?
  /// Only flows with a jam factor at most this (0...10); `nil` for no upper bound.
  public var maxJamFactor: Double?
  /// Only roads of these functional classes (1...5); empty for all.
  public var functionalClasses: Set<Int>
  /// The time of the picture: `nil` (or a time within the live window of now) for the
  /// current flow, live where live; another time for the typical flow of that weekday and
  /// time of day (each segment's typical week, else its free flow), with the road closures
  /// active then.
  public var at: Date?

  /// Creates options; the defaults filter nothing and ask for the current flow.
  public init(
    minJamFactor: Double? = nil, maxJamFactor: Double? = nil, functionalClasses: Set<Int> = [],
    at: Date? = nil
  ) {
    self.minJamFactor = minJamFactor
    self.maxJamFactor = maxJamFactor
    self.functionalClasses = functionalClasses
    self.at = at
  }

  /// A day before the first second of the year 0 (UTC): the earliest four-digit year with
  /// any offset.
  static let earliestTime = -62_167_305_600.0
  /// The first second of the year 5000 (UTC): the end of the times a picture is asked for.
  static let latestTime = 95_617_584_000.0

  /// Checks the ranges.
  ///
  /// - Throws: `TrafficQueryError.invalidFilterOptions` for a jam factor outside 0...10 or
  ///   not a number, a minimum above the maximum, a functional class outside 1...5, or a
  ///   time `at` that is not finite or beyond the year 5000.
  public func validate() throws(TrafficQueryError) {
    for (name, value) in [("minJamFactor", minJamFactor), ("maxJamFactor", maxJamFactor)] {
      if let value, !(value >= 0 && value <= 10) {
        throw .invalidFilterOptions("\(name) \(value) must be within 0...10")
      }
    }
    if let low = minJamFactor, let high = maxJamFactor, low > high {
      throw .invalidFilterOptions("minJamFactor \(low) is above maxJamFactor \(high)")
    }
    if let bad = functionalClasses.sorted().first(where: { !(1...5).contains($0) }) {
      throw .invalidFilterOptions("functional class \(bad) must be within 1...5")
    }
    if let at,
      !(at.timeIntervalSince1970 >= Self.earliestTime && at.timeIntervalSince1970 < Self.latestTime)
    {
      throw .invalidFilterOptions("at must lie before the year 5000 and not before the year 0000")
    }
  }

  /// Whether a flow passes the filters.
  public func matches(_ flow: TrafficFlow) -> Bool {
    if let low = minJamFactor, flow.jamFactor < low { return false }
    if let high = maxJamFactor, flow.jamFactor > high { return false }
    if !functionalClasses.isEmpty, !functionalClasses.contains(flow.functionalClass) {
      return false
    }
    return true
  }
}
