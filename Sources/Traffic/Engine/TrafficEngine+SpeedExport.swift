import Foundation
import Geo
import Roads

/// One picture of the speeds of a network's segments, for exports to other routing engines
/// and for the typical-speeds file (see `TrafficFeeds`' `SpeedExports`).
package struct SpeedPicture: Sendable {
  /// The network.
  package let network: RoadNetwork
  /// The flow at the time asked for (live where live, else typical, else free flow).
  package let snapshot: FlowSnapshot
  /// The segments asked for (meeting the area, or all), ascending.
  package let segmentIDs: [Int]
  /// The time the picture is of.
  package let time: Date

  /// The flow of a segment in the picture.
  package func flow(_ segmentID: Int) -> TrafficFlow {
    snapshot.flow(of: network.segments[segmentID])
  }

  /// A segment's typical week, if it has one.
  package func typicalWeek(_ segmentID: Int) -> TypicalWeek? {
    snapshot.typical?.week(segmentID)
  }

  /// The clock typical weeks count in (the network's local time zone).
  package var clock: WeekClock? { snapshot.typical?.clock }
}

extension TrafficEngine {
  /// The speeds of the segments meeting `area` (all of them for `nil`) at `time` (now for
  /// `nil`; another time gives the typical picture of that time, as
  /// `TrafficFlowQueryOptions.at` does).
  ///
  /// - Returns: `nil` when the engine has no road network.
  /// - Throws: `TrafficQueryError.invalidGeometry` for an area beyond the query limits.
  package func speedPicture(
    inside area: (any GeoArea)?, at time: Date?
  ) throws(TrafficQueryError) -> SpeedPicture? {
    guard let flowState else { return nil }
    if let area { try limits.check(area) }
    let now = clock()
    let snapshot =
      time.map { flowState.snapshot(at: $0, now: now, incidents: currentSnapshot) }
      ?? flowState.snapshot(now: now, incidents: currentSnapshot)
    let network = flowState.index.network
    let ids = area.map { flowState.index.segments(meeting: $0) } ?? Array(network.segments.indices)
    return SpeedPicture(
      network: network, snapshot: snapshot, segmentIDs: ids.sorted(), time: time ?? now)
  }

  /// Replaces the typical weeks of segments (an import of profiles learned elsewhere), then
  /// saves the flow state to a store that keeps it.
  ///
  /// - Parameter weeks: Segment id and week; a segment outside the network is skipped.
  /// - Returns: The number of weeks set.
  /// - Throws: `TrafficStoreError` when the save fails.
  @discardableResult
  package func setTypicalWeeks(_ weeks: [(Int, TypicalWeek)]) throws(TrafficStoreError) -> Int {
    guard let flowState else { return 0 }
    let count = flowState.index.network.segments.count
    let valid = weeks.filter { $0.0 >= 0 && $0.0 < count && !$0.1.isEmpty }
    flowState.setTypicalWeeks(valid)
    try saveFlow()
    return valid.count
  }
}

extension FlowState {
  /// Replaces the typical weeks of the given segments; the next query publishes them.
  package func setTypicalWeeks(_ weeks: [(Int, TypicalWeek)]) {
    pipeline.withLock { pipeline in
      for (segment, week) in weeks { pipeline.aggregator.typical.set(segment: segment, week: week) }
    }
    published.withLock { $0.builtAt = .distantPast }
  }
}
