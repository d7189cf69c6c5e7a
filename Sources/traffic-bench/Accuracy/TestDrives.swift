import Foundation
import Roads
import Synchronization
import TrafficRouting

/// Test drives: the ETA of a route judged by driving that route. SUMO simulates "today"
/// once more, with the same demand and seed, and each sampled trip's vehicle now follows
/// the route we gave it when it departed (its own first edge, our route, its own last edge;
/// no rerouting on the way), as a driver following our navigation would. Our ETA, and every
/// reference beside it, is then judged against the time SUMO's vehicle took on our route.
///
/// Judging a route's ETA against the time of a trip that took another route (the first
/// simulation's) mixes the ETA's error with the difference of routes: SUMO's vehicles
/// reroute on SUMO's own estimates and often drive other streets than ours.
enum TestDrives {
  /// A sampled trip to drive on our route.
  struct Plan: Sendable {
    /// The judged span of the trip as the first simulation drove it (second to
    /// last-but-one edge).
    var trip: SimulatedDay.Trip
    /// The SUMO route the vehicle is given: its own first edge, our route's edges, its own
    /// last edge.
    var route: [String]
    /// Our ETA at departure.
    var eta: Double
    /// Our route's time at free flow.
    var free: Double
  }

  /// Relative errors of the estimates of one test drive's time.
  struct Errors: Sendable {
    var ours: Double
    var free: Double
    var clairvoyant: Double
    var lastRuns: Double
    /// The probe vehicles' last runs by the turn taken at each edge's end.
    var lastRunsByTurn: Double
    /// The clairvoyant by the turn taken at each edge's end.
    var clairvoyantByTurn: Double
    /// The drive's seconds, and the first simulation's trip's on its own route.
    var seconds: Double
    var ownSeconds: Double
  }

  /// What the test drives of one fleet gave.
  struct Outcome: Sendable {
    var drives: [Errors] = []
    /// Routes not driven: not planned (they do not begin and end where the trip's span
    /// does), or drives SUMO did not complete on our route (teleported, or the route left).
    var failed = 0
    /// Drives whose free-flow time is off by more than 40 %.
    var congested: [Errors] { drives.filter { $0.free > 0.4 } }

    /// The cells of the harness's table: all drives ours and free flow; congested drives
    /// ours, free flow, clairvoyant, probes' last runs and how many; the drives' total time
    /// against the trips' own on their own routes.
    var cells: [String] {
      let p = AccuracyOutcome.percent
      let m = AccuracyOutcome.median
      let c = congested
      let own = drives.reduce(0) { $0 + $1.ownSeconds }
      let gain = own > 0 ? drives.reduce(0) { $0 + $1.seconds } / own - 1 : .nan
      return [
        "\(p(m(drives.map(\.ours)))) %", "\(p(m(drives.map(\.free)))) %",
        AccuracyOutcome.boldMedian(c.map(\.ours)), "\(p(m(c.map(\.free)))) %",
        "\(p(m(c.map(\.clairvoyant)))) %", "\(p(m(c.map(\.lastRuns)))) %",
        "\(c.count) of \(drives.count) (\(failed) not driven)",
        "\(gain > 0 ? "+" : "")\(p(gain)) %",
      ]
    }

    var line: String {
      let c = cells
      return "test drives: ETA all \(c[0]) (free \(c[1])); congested \(c[2]) (free \(c[3]), "
        + "clairvoyant \(c[4]), probes' last runs \(c[5])) of \(c[6]); drives' total time "
        + "against the trips' own \(c[7]); congested, probes' last runs by turn "
        + "\(AccuracyOutcome.percent(AccuracyOutcome.median(congested.map(\.lastRunsByTurn)))) %, "
        + "clairvoyant by turn "
        + "\(AccuracyOutcome.percent(AccuracyOutcome.median(congested.map(\.clairvoyantByTurn)))) %"
    }
  }

  /// The plan for a trip of `today` routed as `route`, `nil` when the route does not begin
  /// on the trip's second edge and end on its last but one (as asked from there it should;
  /// up to `margin` meters of the trip's short edges at either end may be left to the
  /// snapping), or crosses a segment of no SUMO edge.
  static func plan(
    _ trip: SimulatedDay.Trip, original: SimulatedDay.Trip?, route: Route,
    edgeOfSegment: [Int: String], lengthOfEdge: [String: Double], margin: Double = 15
  ) -> Plan? {
    guard let original, let first = original.edges.first, let last = original.edges.last
    else { return nil }
    var edges: [String] = []
    for span in route.sections.flatMap(\.traffic.spans) {
      guard let edge = edgeOfSegment[span.segmentID] else { return nil }
      if edges.last != edge { edges.append(edge) }
    }
    // A point 5 m into a short edge, or 5 m before the end of one, may lie at the junction
    // and be snapped onto an edge after it or before it: the vehicle drives those then.
    let span = trip.edges
    func length(_ part: ArraySlice<String>) -> Double {
      part.reduce(0) { $0 + (lengthOfEdge[$1] ?? .infinity) }
    }
    if let head = edges.first, head != span.first, let k = span.firstIndex(of: head),
      length(span[..<k]) <= margin
    {
      edges.insert(contentsOf: span[..<k], at: 0)
    }
    if let tail = edges.last, tail != span.last, let k = span.lastIndex(of: tail),
      length(span[(k + 1)...]) <= margin
    {
      edges.append(contentsOf: span[(k + 1)...])
    }
    guard edges.first == span.first, edges.last == span.last else {
      if AccuracyHarness.diagnostics {
        print(
          "UNPLANNED\t\(trip.vehicle)\t\(trip.edges.joined(separator: " "))\t\(edges.joined(separator: " "))"
        )
      }
      return nil
    }
    return Plan(
      trip: trip, route: [first] + edges + [last], eta: route.durationInSeconds,
      free: route.baseDurationInSeconds)
  }

  /// Runs the second simulation of `day` for each set of plans (two at a time, one per
  /// core) and judges each set's drives: ours, free flow and the clairvoyant of that
  /// simulation, and the probe vehicles' last runs of the first (what was known at
  /// departure) by the fleet that set's plans were routed with.
  static func drive(
    _ sets: [(plans: [Plan], unplanned: Int, lastRuns: EdgeRuns)], day: AccuracyDay,
    simulator: AccuracySimulator, roads: RoadNetwork, segments: [String: Int]
  ) throws -> [Outcome] {
    let results = Mutex<[Int: Result<SimulatedDay, AccuracyError>]>([:])
    let routes = sets.map { set in
      Dictionary(set.plans.map { ($0.trip.vehicle, $0.route) }, uniquingKeysWith: { a, _ in a })
    }
    DispatchQueue.concurrentPerform(iterations: sets.count) { k in
      // A set with nothing planned (a network whose trips are too short to judge) has
      // nothing to drive.
      guard !routes[k].isEmpty else { return }
      let result: Result<SimulatedDay, AccuracyError>
      do {
        result = .success(try simulator.simulate(day, routes: routes[k]))
      } catch {
        result = .failure(error as? AccuracyError ?? AccuracyError("\(error)"))
      }
      results.withLock { $0[k] = result }
    }
    let simulated = results.withLock { $0 }
    return try sets.indices.map { k in
      guard !routes[k].isEmpty else {
        var outcome = Outcome()
        outcome.failed = sets[k].unplanned
        return outcome
      }
      guard let run = simulated[k] else { throw AccuracyError("a test drive did not run") }
      let driven = try run.get()
      return judge(
        sets[k].plans, unplanned: sets[k].unplanned, driven: driven, lastRuns: sets[k].lastRuns,
        roads: roads,
        segments: segments)
    }
  }

  /// Judges the plans against the second simulation `driven`.
  static func judge(
    _ plans: [Plan], unplanned: Int = 0, driven: SimulatedDay, lastRuns: EdgeRuns,
    roads: RoadNetwork, segments: [String: Int]
  ) -> Outcome {
    let trips = Dictionary(
      driven.trips.map { ($0.vehicle, $0) }, uniquingKeysWith: { a, _ in a })
    let runs = EdgeRuns(trips: driven.trips, reporting: [])
    var outcome = Outcome()
    outcome.failed = unplanned
    for plan in plans {
      guard let trip = trips[plan.trip.vehicle], !trip.teleported, trip.edges == plan.route,
        trip.edges.count >= 3
      else {
        outcome.failed += 1
        continue
      }
      let inner = trip.judgedSpan
      let time = inner.duration
      guard time > 0 else {
        outcome.failed += 1
        continue
      }
      func error(_ estimate: Double) -> Double { abs(estimate - time) / time }
      if AccuracyHarness.diagnostics {
        print(
          "DRIVE\t\(trip.vehicle)\t\(Int(inner.depart))\t\(Int(time))\t\(Int(plan.eta))\t"
            + "\(Int(plan.free))\t\(Int(plan.trip.duration))\t" + inner.edgeSeconds)
      }
      outcome.drives.append(
        Errors(
          ours: error(plan.eta), free: error(plan.free),
          clairvoyant: error(runs.clairvoyant(inner, edgeData: driven.edgeData)),
          lastRuns: error(lastRuns.lastProbeRuns(inner, roads: roads, segments: segments)),
          lastRunsByTurn: error(
            lastRuns.lastProbeRuns(inner, roads: roads, segments: segments, byMovement: true)),
          clairvoyantByTurn: error(
            runs.clairvoyant(inner, edgeData: driven.edgeData, byMovement: true)),
          seconds: time, ownSeconds: plan.trip.duration))
    }
    return outcome
  }
}
