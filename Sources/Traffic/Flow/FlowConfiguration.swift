import Foundation
import Roads

/// How the engine turns probes into flow: map matching, the aggregation window, and how
/// free flow and confidence are judged.
public struct FlowConfiguration: Hashable, Sendable {
  /// Map matching parameters.
  public var matching = MapMatchingOptions()
  /// Probe speeds older than this no longer count, seconds (a sliding window).
  public var windowInSeconds: Double = 300
  /// The length of the history buckets a segment's free flow is learned from, seconds.
  public var historyBucketInSeconds: Double = 300
  /// The number of history buckets kept per segment (288 × 5 min = one day).
  public var historyCapacity: Int = 288
  /// A segment learns its free flow once it has this many history buckets; before, its
  /// free flow is the speed limit.
  public var minimumHistoryBuckets: Int = 6
  /// The percentile of history speeds taken as free flow (the segment's fast periods).
  public var freeFlowPercentile: Double = 0.85
  /// Probe vehicles needed in the window for a real-time value.
  public var minimumVehicles: Int = 1
  /// A vehicle faster than this times max(speed limit, the segment's 95th percentile) on a
  /// segment is dropped as an outlier.
  public var outlierFactor: Double = 1.5
  /// Speeds above this are physically implausible for road vehicles and dropped, m/s.
  public var maxPlausibleSpeedInMetersPerSecond: Double = 70
  /// A feed observation counts for this long, seconds.
  public var observationLifetimeInSeconds: Double = 600
  /// A feed observation weighs as much as this many probe vehicles when blended.
  public var observationWeight: Double = 2
  /// How far a segment's speed on a given day strays from its typical speed for that time
  /// (one standard deviation of the natural logarithm of their ratio): the prior's spread
  /// when live evidence is fused with the typical week.
  public var typicalSpreadInLogSpeed: Double = 0.25
  /// How far one probe vehicle's speed over a segment strays from the mean of all its
  /// vehicles (one standard deviation, natural logarithm): the weight of each vehicle's
  /// evidence when fused with the typical week.
  public var vehicleSpreadInLogSpeed: Double = 0.45
  /// The prior share of days on which a segment is far from its typical week (a queue, an
  /// incident): the fusion's prior mixes the typical spread with
  /// `unusualSpreadInLogSpeed` in this share, so that evidence far from the typical speed
  /// is believed rather than pulled back to it.
  public var unusualShare: Double = 0.2
  /// The spread of a segment's speed on an unusual day around its typical speed (natural
  /// logarithm).
  public var unusualSpreadInLogSpeed: Double = 1.0
  /// The prior share of days on which a segment's speed has nothing to do with its typical
  /// week (a road that locks up on some days and flows on others: a typical 0.2 m/s where
  /// the vehicles drive at 30 today), with `farSpreadInLogSpeed`. Without this heavy tail
  /// the unusual day's Gaussian pulls evidence back in proportion to its distance: two
  /// vehicles at 30 m/s against a typical 0.2 answered 19 m/s (SUMO's `highway` network,
  /// docs/performance-log.md). With the defaults it only weighs beyond about 15 times the
  /// typical speed or a fifteenth of it.
  public var farShare: Double = 0.02
  /// The spread of such a day's speed around the typical speed (natural logarithm).
  public var farSpreadInLogSpeed: Double = 3.0
  /// Queries rebuild the live values when they are older than this, seconds.
  public var refreshIntervalInSeconds: Double = 30
  /// How many past samples a bin of a typical week averages before older ones fade (an
  /// exponential moving average of weight `1 / memory` after that; see `TypicalWeek`),
  /// 1...16.
  public var typicalMemoryInSamples: Int = 8
  /// The time zone typical weeks count weekdays and hours in; `nil` for the road network's
  /// own (`RoadNetwork.localTimeZone`).
  public var timeZone: TimeZone?
  /// A road-closure incident closes segments whose midpoint lies within this distance of
  /// its geometry (and run its way), meters.
  public var closureMatchDistanceInMeters: Double = 20

  /// The default configuration.
  public init() {}

  /// Checks the values.
  ///
  /// - Throws: `TrafficEngineError.invalidConfiguration` naming the first bad value.
  public func validate() throws(TrafficEngineError) {
    do { try matching.validate() } catch { throw .invalidConfiguration(error.description) }
    let positives: [(String, Double)] = [
      ("windowInSeconds", windowInSeconds), ("historyBucketInSeconds", historyBucketInSeconds),
      ("outlierFactor", outlierFactor),
      ("maxPlausibleSpeedInMetersPerSecond", maxPlausibleSpeedInMetersPerSecond),
      ("observationLifetimeInSeconds", observationLifetimeInSeconds),
      ("observationWeight", observationWeight),
      ("refreshIntervalInSeconds", refreshIntervalInSeconds),
      ("typicalSpreadInLogSpeed", typicalSpreadInLogSpeed),
      ("vehicleSpreadInLogSpeed", vehicleSpreadInLogSpeed),
      ("unusualSpreadInLogSpeed", unusualSpreadInLogSpeed),
      ("farSpreadInLogSpeed", farSpreadInLogSpeed),
      ("closureMatchDistanceInMeters", closureMatchDistanceInMeters),
    ]
    for (name, value) in positives where !(value.isFinite && value > 0) {
      throw .invalidConfiguration("\(name) \(value) must be a finite number > 0")
    }
    guard historyCapacity >= 1, minimumHistoryBuckets >= 1, minimumVehicles >= 1 else {
      throw .invalidConfiguration(
        "historyCapacity, minimumHistoryBuckets and minimumVehicles must be >= 1")
    }
    guard (1...16).contains(typicalMemoryInSamples) else {
      throw .invalidConfiguration(
        "typicalMemoryInSamples \(typicalMemoryInSamples) must be within 1...16")
    }
    guard unusualShare >= 0, farShare >= 0, unusualShare + farShare < 1 else {
      throw .invalidConfiguration(
        "unusualShare \(unusualShare) and farShare \(farShare) must be >= 0 with a sum below 1")
    }
    guard freeFlowPercentile > 0, freeFlowPercentile <= 1 else {
      throw .invalidConfiguration("freeFlowPercentile \(freeFlowPercentile) must be in (0, 1]")
    }
  }
}
