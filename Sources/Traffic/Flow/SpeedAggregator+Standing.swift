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

  /// The vehicles left out of the segment's estimate, with when they stood: each stood
  /// still on it for ``standingSecondsToWeigh`` or more in the window, and while it stood at
  /// least ``passersToLeaveOut`` other vehicles drove a good part of the segment
  /// (`substantial` meters or more) at ``passingShareOfLimit`` of `limit` or faster, and
  /// at least ``passersPerStander`` times as many as stood there meanwhile (itself
  /// included). A queue, which the others join rather than pass, is never left out; nor is a
  /// wait at a red light.
  ///
  /// - Complexity: O(c + s × v) for c contributions, s standing vehicles and v vehicles.
  static func overtakenWhileStanding(
    _ contributions: [Contribution], from start: Date, to now: Date,
    byVehicle: [String: (meters: Double, seconds: Double)], limit: Double, substantial: Double
  ) -> [String: (from: Date, to: Date)] {
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
    guard !long.isEmpty else { return [:] }
    // The vehicles passing freely, and when they were on the segment.
    let fast = max(passingShareOfLimit * limit, FlowSnapshot.crawlSpeedInMetersPerSecond)
    var passing: [String: [Date]] = [:]
    for (vehicle, sums) in byVehicle
    where sums.meters >= substantial && sums.seconds > 0 && sums.meters / sums.seconds >= fast {
      passing[vehicle] = []
    }
    guard passing.count >= passersToLeaveOut else { return [:] }
    for c in contributions where c.time > start && c.time <= now && c.meters > 0 {
      passing[c.vehicleID]?.append(c.time)
    }
    var parked: [String: (from: Date, to: Date)] = [:]
    for (vehicle, stand) in long {
      let passers = passing.count { other, times in
        other != vehicle && times.contains { $0 >= stand.from && $0 <= stand.to }
      }
      // Those standing beside it meanwhile: a queue in a lane of its own holds several.
      let standers = long.count { other, theirs in
        theirs.from <= stand.to && theirs.to >= stand.from
      }
      if passers >= passersToLeaveOut, passers >= passersPerStander * standers {
        parked[vehicle] = (stand.from, stand.to)
      }
    }
    return parked
  }

  /// Each vehicle's meters and seconds among `contributions` in (`start`, `end`], and the
  /// seconds stood still among them.
  static func vehicleSums(
    _ contributions: [Contribution], from start: Date, to end: Date
  ) -> (byVehicle: [String: (meters: Double, seconds: Double)], standingSeconds: Double) {
    var byVehicle: [String: (meters: Double, seconds: Double)] = [:]
    var standingSeconds = 0.0
    for c in contributions where c.time > start && c.time <= end {
      byVehicle[c.vehicleID, default: (0, 0)].meters += c.meters
      byVehicle[c.vehicleID, default: (0, 0)].seconds += c.seconds
      if c.meters == 0 { standingSeconds += c.seconds }
    }
    return (byVehicle, standingSeconds)
  }

  /// The meters a vehicle must drive on a segment to count as one of its probes (a good
  /// part of it; a few meters at an end are GPS noise at a junction).
  func substantialMeters(_ segment: Int) -> Double {
    min(20, 0.25 * network.segments[segment].lengthInMeters)
  }

  /// Finds the vehicles the live estimate leaves out as parked
  /// (``overtakenWhileStanding(_:from:to:byVehicle:limit:substantial:)``) over the window
  /// ending at the segment's latest contribution up to `now` (a state is pruned when it is
  /// due, which can be well after its last data), and remembers when they stood
  /// (`parkedStands`), so that their standing leaves the history with
  /// ``SegmentState/takeParkedOut(_:where:)``: the typical week learns the traffic, not a
  /// probe parked at the same hour every day (a taxi at its rank).
  func judgeParked(_ segment: Int, _ state: inout SegmentState, now: Date) {
    var end = Date.distantPast
    for c in state.contributions where c.time <= now { end = max(end, c.time) }
    let start = end.addingTimeInterval(-configuration.windowInSeconds)
    let byVehicle = Self.vehicleSums(state.contributions, from: start, to: end).byVehicle
    let parked = Self.overtakenWhileStanding(
      state.contributions, from: start, to: end, byVehicle: byVehicle,
      limit: network.segments[segment].speedLimitInMetersPerSecond,
      substantial: substantialMeters(segment))
    for (vehicle, stand) in parked {
      let known = state.parkedStands[vehicle] ?? stand
      state.parkedStands[vehicle] = (min(known.from, stand.from), max(known.to, stand.to))
    }
  }
}

extension SpeedAggregator.SegmentState {
  /// Takes the standing of parked vehicles (``parkedStands``) among the contributions
  /// matching `selected` out of their history buckets, when those are open for the first
  /// time. Called for the contributions leaving the state and for those of a bucket about
  /// to close, so each is taken out once; a restart keeps none of this in the saved state,
  /// and the restored contributions are weighed again.
  mutating func takeParkedOut(
    _ bucketIndex: (Date) -> Int, where selected: (SpeedAggregator.Contribution) -> Bool
  ) {
    for c in contributions where c.meters == 0 && selected(c) {
      guard let stand = parkedStands[c.vehicleID], c.time > stand.from, c.time <= stand.to
      else { continue }
      let bucket = bucketIndex(c.time)
      guard bucket > lastClosedBucket, let sums = openBuckets[bucket] else { continue }
      openBuckets[bucket] = (sums.meters, max(0, sums.seconds - c.seconds))
    }
  }

  /// Sums ``standingSeconds`` again from the contributions held (after some left, or after
  /// a restore).
  mutating func recountStanding() {
    standingSeconds = contributions.reduce(0) { $1.meters == 0 ? $0 + $1.seconds : $0 }
  }

  /// ``recountStanding()`` after contributions up to `cutoff` left, forgetting the stands
  /// none of whose standing is left.
  mutating func recountStanding(after cutoff: Date) {
    recountStanding()
    if !parkedStands.isEmpty { parkedStands = parkedStands.filter { $0.value.to > cutoff } }
  }
}
