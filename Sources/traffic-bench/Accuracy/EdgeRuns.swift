import Foundation
import Roads
import Synchronization
import Traffic
import TrafficRouting
import TrafficTestSupport

extension Array {
  subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

extension SimulatedDay.Trip {
  /// The span the harness judges: from where the trip enters its second edge to where it
  /// leaves its last but one (at least three edges).
  var judgedSpan: SimulatedDay.Trip {
    SimulatedDay.Trip(
      vehicle: vehicle, depart: exitTimes[0], arrival: exitTimes[edges.count - 2],
      edges: Array(edges[1..<(edges.count - 1)]),
      exitTimes: Array(exitTimes[1..<(edges.count - 1)]), teleported: teleported)
  }

  /// Each edge with its seconds, "edge:seconds" (for the diagnostics).
  var edgeSeconds: String {
    var parts: [String] = []
    var entered = depart
    for (edge, exit) in zip(edges, exitTimes) {
      parts.append("\(edge):\(Int(exit - entered))")
      entered = exit
    }
    return parts.joined(separator: " ")
  }

  /// The trip's time with each of its edges timed by `seconds` (given the edge's place in
  /// the trip, the edge, when the trip entered it and its own seconds there; `nil` keeps
  /// its own). The judged trips are already cut to their second to last-but-one edges, the
  /// span our route covers, so every edge of them is estimated, as our ETA estimates it.
  func retimed(
    _ seconds: (_ k: Int, _ edge: String, _ entered: Double, _ own: Double) -> Double?
  ) -> Double {
    var total = 0.0
    var entered = depart
    for (k, (edge, exit)) in zip(edges, exitTimes).enumerated() {
      let own = exit - entered
      total += seconds(k, edge, entered, own) ?? own
      entered = exit
    }
    return total
  }
}

/// Every vehicle's drive of a day as seconds per edge (SUMO's exit times).
struct EdgeRuns {
  struct Run {
    var entered: Double
    var seconds: Double
    /// The edge the vehicle left this one for (`nil` at the end of its trip).
    var next: String? = nil
  }
  /// Runs of the reporting vehicles by edge, by the time they left it.
  private var probeRuns: [String: [Run]] = [:]
  /// Runs of every vehicle by edge, by the time they entered it.
  private var allRuns: [String: [Run]] = [:]

  init(trips: [SimulatedDay.Trip], reporting: Set<String>) {
    for trip in trips where !trip.teleported {
      var entered = trip.depart
      let reports = reporting.contains(trip.vehicle)
      for (k, (edge, exit)) in zip(trip.edges, trip.exitTimes).enumerated() {
        let run = Run(
          entered: entered, seconds: exit - entered,
          next: k + 1 < trip.edges.count ? trip.edges[k + 1] : nil)
        allRuns[edge, default: []].append(run)
        if reports { probeRuns[edge, default: []].append(run) }
        entered = exit
      }
    }
    probeRuns = probeRuns.mapValues { runs in
      runs.sorted { $0.entered + $0.seconds < $1.entered + $1.seconds }
    }
    allRuns = allRuns.mapValues { runs in runs.sorted { $0.entered < $1.entered } }
  }

  /// The trip's time with each edge at the mean time of the other
  /// vehicles that entered it within 150 s of the trip (SUMO's interval mean where none
  /// did): what knowing every other vehicle's times on the trip's own route gives.
  /// `byMovement`: only the runs that left the edge for the trip's next edge, where there
  /// are others.
  func clairvoyant(
    _ trip: SimulatedDay.Trip, edgeData: [[String: SimulatedDay.EdgeInterval]],
    byMovement: Bool = false
  ) -> Double {
    trip.retimed { k, edge, entered, own in
      let next = byMovement && k + 1 < trip.edges.count ? trip.edges[k + 1] : nil
      let turns: [String?] = next.map { [$0, nil] } ?? [nil]
      for turn in turns {
        var sum = 0.0, count = 0
        for run in allRuns[edge] ?? []
        where abs(run.entered - entered) <= 150 && (turn == nil || run.next == turn) {
          sum += run.seconds
          count += 1
        }
        // The trip's own run is among them once.
        if count > 1 { return (sum - own) / Double(count - 1) }
      }
      return edgeData[safe: Int(entered / AccuracyProfile.intervalSeconds)]?[edge]?.traveltime
    }
  }

  /// The time of a route of ours as the vehicles drove its edges: each piece (its edge,
  /// meters driven of it, the edge's length) at the mean time of the runs that entered the
  /// edge within 150 s of when the route reaches it, in proportion to the meters; `nil`
  /// when an edge has no such run or no SUMO edge.
  func driven(
    _ pieces: [(edge: String?, meters: Double, length: Double)], from depart: Double
  )
    -> Double?
  {
    var clock = depart
    for piece in pieces {
      guard let edge = piece.edge, piece.length > 0 else { return nil }
      let runs = (allRuns[edge] ?? []).filter { abs($0.entered - clock) <= 150 }
      guard !runs.isEmpty else { return nil }
      let mean = runs.reduce(0) { $0 + $1.seconds } / Double(runs.count)
      clock += mean * min(1, piece.meters / piece.length)
    }
    return clock - depart
  }

  /// The trip's time with each edge at the mean of the last
  /// three runs of probe vehicles that left it before the trip departed, or at the speed
  /// limit where none did: what the probe vehicles' own latest drives on the trip's route
  /// say at departure.
  ///
  /// `byMovement`: only the runs that left the edge for the trip's next edge, where there
  /// are any (the last edge of the trip by all runs): what knowing each turn's own time
  /// would add.
  func lastProbeRuns(
    _ trip: SimulatedDay.Trip, roads: RoadNetwork, segments: [String: Int],
    byMovement: Bool = false
  ) -> Double {
    trip.retimed { k, edge, _, _ in
      let done = (probeRuns[edge] ?? []).filter { $0.entered + $0.seconds <= trip.depart }
      let next = byMovement && k + 1 < trip.edges.count ? trip.edges[k + 1] : nil
      let turning = next.map { next in done.filter { $0.next == next } } ?? []
      let recent = (turning.isEmpty ? done : turning).suffix(3)
      if !recent.isEmpty { return recent.reduce(0) { $0 + $1.seconds } / Double(recent.count) }
      return segments[edge].map { roads.segments[$0].travelTimeInSeconds }
    }
  }
}
