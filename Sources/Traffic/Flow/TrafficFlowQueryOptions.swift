/// Filters of a flow query, as HERE's `TrafficFlowQueryOptions` and the v7 `minJamFactor`,
/// `maxJamFactor` and `functionalClasses` parameters.
public struct TrafficFlowQueryOptions: Hashable, Sendable {
  /// Only flows with a jam factor at least this (0...10); `nil` for no lower bound.
  public var minJamFactor: Double?
  /// Only flows with a jam factor at most this (0...10); `nil` for no upper bound.
  public var maxJamFactor: Double?
  /// Only roads of these functional classes (1...5); empty for all.
  public var functionalClasses: Set<Int>

  /// Creates options; the defaults filter nothing.
  public init(
    minJamFactor: Double? = nil, maxJamFactor: Double? = nil, functionalClasses: Set<Int> = []
  ) {
    self.minJamFactor = minJamFactor
    self.maxJamFactor = maxJamFactor
    self.functionalClasses = functionalClasses
  }

  /// Checks the ranges.
  ///
  /// - Throws: `TrafficQueryError.invalidFilterOptions` for a jam factor outside 0...10 or
  ///   not a number, a minimum above the maximum, or a functional class outside 1...5.
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
