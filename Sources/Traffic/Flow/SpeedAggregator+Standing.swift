import Foundation

/// Vehicles that stand on a segment while the traffic passes them: a probe parked with its
/// app on (a taxi at its rank, a delivery van), or waiting in a lane of its own for a turn
/// the others do not take. Counting their standing time would give the segment a jam that
/// the vehicles driving it do not meet: one parked probe among five passing at 12 m/s made
/// a 500 m segment 5 m/s.
extension SpeedAggregator {
  /// How long a vehicle must have stood still on the segment in the window for its standing
  /// to be weighed against the others' (longer than a red light's wait), seconds.
  static let standingSecondsToWeigh = 120.0
  /// How many other vehicles must have driven the segment, while it stood, at
  /// ``passingShareOfLimit`` of the speed limit or more, for it to be left out.
  static let passersToLeaveOut = 2
  /// How many passing vehicles it takes per vehicle standing at the same time (itself
  /// included): where as many stand as pass, the standing ones are a queue the traffic
  /// meets, not vehicles apart from it.
  static let passersPerStander = 2
  /// The share of the speed limit at which a vehicle passes freely.
  static let passingShareOfLimit = 0.5

  /// The vehicles left out of the segment's estimate: each stood still on it for
  /// ``standingSecondsToWeigh`` or more in the window, and while it stood at least
  /// ``passersToLeaveOut`` other vehicles drove a good part of the segment (`substantial`
  /// meters or more) at ``passingShareOfLimit`` of `limit` or faster, and at least
  /// ``passersPerStander`` times as many as stood there meanwhile (itself included). A
  /// queue, which the others join rather than pass, is never left out; nor is a wait at a
  /// red light.
  ///
  /// - Complexity: O(c + s × v) for c contributions, s standing vehicles and v vehicles.
  static func overtakenWhileStanding(
    _ contributions: [Contribution], from start: Date, to now: Date,
    byVehicle: [String: (meters: Double, seconds: Double)], limit: Double, substantial: Double
  ) -> Set<String> {
    // When each vehicle stood (0 m contributions: from `time - seconds` to `time`).
    var standing: [String: (seconds: Double, from: Date, to: Date)] = [:]
    for c in contributions where c.time > start && c.time <= now && c.meters == 0 {
      let began = c.time.addingTimeInterval(-c.seconds)
      if let known = standing[c.vehicleID] {
        standing[c.vehicleID] = (
          known.seconds + c.seconds, min(known.from, began), max(known.to, c.time)
        )
      } else {
        standing[c.vehicleID] = (c.seconds, began, c.time)
      }
    }
    let long = standing.filter { $0.value.seconds >= standingSecondsToWeigh }
    guard !long.isEmpty else { return [] }
    // The vehicles passing freely, and when they were on the segment.
    let fast = max(passingShareOfLimit * limit, FlowSnapshot.crawlSpeedInMetersPerSecond)
    var passing: [String: [Date]] = [:]
    for (vehicle, sums) in byVehicle
    where sums.meters >= substantial && sums.seconds > 0 && sums.meters / sums.seconds >= fast {
      passing[vehicle] = []
    }
    guard passing.count >= passersToLeaveOut else { return [] }
    for c in contributions where c.time > start && c.time <= now && c.meters > 0 {
      passing[c.vehicleID]?.append(c.time)
    }
    var parked: Set<String> = []
    for (vehicle, stand) in long {
      let passers = passing.count { other, times in
        other != vehicle && times.contains { $0 >= stand.from && $0 <= stand.to }
      }
      // Those standing beside it meanwhile: a queue in a lane of its own holds several.
      let standers = long.count { other, theirs in
        theirs.from <= stand.to && theirs.to >= stand.from
      }
      if passers >= passersToLeaveOut, passers >= passersPerStander * standers {
        parked.insert(vehicle)
      }
    }
    return parked
  }
}
