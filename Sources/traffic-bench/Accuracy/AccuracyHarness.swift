import Foundation
import Roads
import Synchronization
import Traffic
import TrafficRouting
import TrafficTestSupport

/// The accuracy harness (`make accuracy`, `traffic-bench --accuracy`): SUMO drives each
/// network over several days (a morning each, demand following a daily profile and varying
/// by seed and level); the earlier days are history, learned as typical weeks; then two
/// "todays" unlike the usual day (busier; a lane closed) are replayed through the public API
/// with the default configuration — probes ingested as they come, flow asked every five
/// minutes, a route asked when each sampled trip departs — and compared with SUMO's own
/// per-edge mean speeds and trip times, at 5, 15 and 40 % of the vehicles as probes.
enum AccuracyHarness {
  /// Probe shares, percent of all vehicles; each fleet is a subset of the next, chosen by a
  /// hash of the vehicle id.
  static let rates = [5, 15, 40]
  /// The probe share run once more with the induction loops' readings as a detector feed.
  static let loopRate = 15
  /// History days before "today", a week apart (the same weekday): their demand levels.
  static let historyLevels = [0.9, 1.0, 1.1]

  /// An edge is judged in an interval when at least this many vehicles entered it.
  static let minimumVehicles = 5
  /// Trips routed per today.
  static let maximumTrips = 300
  /// TRAFFIC_ACCURACY_DIAGNOSTICS prints every judged edge-interval on standard output.
  static let diagnostics =
    ProcessInfo.processInfo.environment["TRAFFIC_ACCURACY_DIAGNOSTICS"] != nil

  static let networks: [AccuracyNetwork] = [
    AccuracyNetwork(
      name: "Braunschweig", kind: "city streets, traffic lights",
      source: .sumo(.braunschweigNetwork), demand: .randomTrips, peakRate: 0.45),
    AccuracyNetwork(
      name: "Berlin", kind: "city streets, trams, crossings", source: .sumo(.drtNetwork),
      demand: .randomTrips, peakRate: 0.8),
    AccuracyNetwork(
      name: "Liechtenstein", kind: "a country's roads (OpenStreetMap 2013, netconvert)",
      source: .openStreetMap(Fixtures.liechtenstein("osm.bz2")), demand: .randomTrips,
      peakRate: 1.0),
  ]

  /// Monday 2 November 2026, 06:30 in Berlin (05:30 UTC): the first history day.
  static let firstDay = Date(timeIntervalSince1970: 1_793_597_400)
  static let week = 7 * 86_400.0

  /// Whether vehicle `name` reports in the fleet of `rate` percent of all vehicles.
  static func reports(_ name: String, rate: Int) -> Bool {
    SUMOVehicles.percentile(name) < rate
  }

  /// Runs every network; returns the report.
  static func run(log: @escaping (String) -> Void) async throws -> AccuracyReport {
    var report = AccuracyReport()
    let started = Date()
    // Bad settings are refused before anything runs.
    _ = try tuning()
    let chosen = try AccuracyNetwork.selected(from: networks)
    let levels = try historyDays()
    for network in chosen {
      let scratch = FileManager.default.temporaryDirectory
        .appendingPathComponent("traffic-accuracy-network-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: scratch) }
      let file = try network.sumoNetworkFile(in: scratch)
      let roads = try SUMONetworkImporter.importNetwork(from: file)
      let simulator = try AccuracySimulator(network: network, file: file, roads: roads)
      var history: [SimulatedDay] = []
      for (k, level) in levels.enumerated() {
        let day = AccuracyDay(
          label: "history \(k + 1)", seed: UInt64(1_000 + k), level: level, closure: nil,
          start: firstDay + Double(k) * week)
        let simulated = try simulator.simulate(day)
        history.append(simulated)
        log(summary(network, simulated))
      }
      let todayStart = firstDay + Double(levels.count) * week
      let closure = try closureSite(
        roads: roads, day: history[history.count / 2], carLanes: carLanes(in: file))
      log(
        "\(network.name), lane closed: lane \(closure.lane) of \(closure.edge), "
          + "published as lane \(closure.announced.place) of \(closure.announced.lanes) "
          + "from the left")
      let todays = [
        AccuracyDay(label: "busier", seed: 2_000, level: 1.3, closure: nil, start: todayStart),
        AccuracyDay(
          label: "lane closed", seed: 2_001, level: 1.0, closure: closure, start: todayStart),
      ]
      for day in todays {
        let today = try simulator.simulate(day)
        log(summary(network, today))
        let fleets = rates.map { ($0, false) } + [(loopRate, true)]
        for (rate, loops) in fleets {
          let outcome = try await evaluate(
            network: network, roads: roads, history: history, today: today, rate: rate,
            loops: loops)
          let probes = loops ? "\(rate) % + loops" : "\(rate) %"
          log(
            "\(network.name), \(day.label), \(probes): \(outcome.line) "
              + "(\(String(format: "%.0f", Date().timeIntervalSince(started))) s so far)")
          report.rows.append(
            AccuracyReport.Row(
              network: network.name, kind: network.kind, today: day.label, probes: probes,
              outcome: outcome))
        }
        // The test drives of each fleet's routes, in simulations of their own.
        let rows = Array(report.rows.indices.suffix(fleets.count))
        let drives = try TestDrives.drive(
          zip(rows, fleets).map { row, fleet in
            let reporting = Set(today.vehicleNames.filter { reports($0, rate: fleet.0) })
            return (
              report.rows[row].outcome.plans, report.rows[row].outcome.testDrives.failed,
              EdgeRuns(trips: today.trips, reporting: reporting)
            )
          }, day: day, simulator: simulator, roads: roads,
          segments: Dictionary(
            roads.segments.map { ($0.sourceID, $0.id) }, uniquingKeysWith: { a, _ in a }))
        for (row, outcome) in zip(rows, drives) {
          report.rows[row].outcome.testDrives = outcome
          log("\(network.name), \(day.label), \(report.rows[row].probes): \(outcome.line)")
        }
      }
    }
    report.seconds = Date().timeIntervalSince(started)
    return report
  }

  static func summary(_ network: AccuracyNetwork, _ day: SimulatedDay) -> String {
    let done = day.trips.count
    return "\(network.name), \(day.day.label): SUMO \(String(format: "%.1f", day.sumoSeconds)) s, "
      + "\(done) trips, \(day.teleports) teleported, \(day.records.count) FCD records"
  }

  /// The probes of the vehicles reporting at `rate` percent.
  static func probes(of day: SimulatedDay, rate: Int) -> [Probe] {
    let reporting = day.vehicleNames.map { reports($0, rate: rate) }
    var probes: [Probe] = []
    for record in day.records where reporting[Int(record.vehicle)] {
      guard
        let coordinates = try? GeoCoordinates(
          latitude: record.latitude, longitude: record.longitude)
      else { continue }
      probes.append(
        Probe(
          vehicleID: day.vehicleNames[Int(record.vehicle)],
          time: day.day.start + Double(record.second), coordinates: coordinates,
          speedInMetersPerSecond: Double(record.speed),
          headingInDegrees: Double(record.angle)))
    }
    return probes
  }

  /// One today at one probe rate: history, then the day replayed.
  static func evaluate(
    network: AccuracyNetwork, roads: RoadNetwork, history: [SimulatedDay],
    today: SimulatedDay, rate: Int, loops: Bool
  ) async throws -> AccuracyOutcome {
    let clock = Mutex(firstDay)
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { clock.withLock { $0 } }, network: roads)
    if let configuration = try tuning() { try engine.configureFlow(configuration) }
    let router = RoutingEngine(trafficEngine: engine)
    guard let box = GeoBox.enclosing(roads.nodes.map(\.coordinates)) else {
      throw AccuracyError("\(network.name) has no nodes")
    }
    let segmentOfEdge = Dictionary(
      roads.segments.map { ($0.sourceID, $0.id) }, uniquingKeysWith: { a, _ in a })

    // The loops' readings of a day as a detector feed: each minute an observation of the
    // edge's speed (what a DATEX II MeasuredDataPublication or a HERE or TomTom flow item
    // gives), through the same API as a feed's.
    func observations(_ day: SimulatedDay, in seconds: ClosedRange<Double>) -> [FlowObservation] {
      guard loops else { return [] }
      return day.loopReadings.compactMap { reading in
        guard seconds.contains(reading.end), let segment = segmentOfEdge[reading.edge] else {
          return nil
        }
        return FlowObservation(
          polyline: roads.segments[segment].geometry, speedInMetersPerSecond: reading.speed,
          time: day.day.start + reading.end, sourceId: "loop \(reading.edge)")
      }
    }

    // History: each day's probes as they came, a minute at a time.
    for day in history {
      let probes = Self.probes(of: day, rate: rate)
      var next = 0
      var second = 60.0
      while next < probes.count {
        let end = day.day.start + second
        let stop = probes[next...].firstIndex { $0.time > end } ?? probes.count
        clock.withLock { $0 = end }
        if stop > next { engine.ingest(probes: Array(probes[next..<stop])) }
        let readings = observations(day, in: (second - 59.5)...second)
        if !readings.isEmpty { engine.ingest(observations: readings) }
        next = stop
        second += 60
      }
      clock.withLock { $0 = day.day.start + AccuracyProfile.demandSeconds + 3_600 }
      engine.flushProbes()
      _ = try await engine.queryForFlow(inside: box)
    }

    var outcome = AccuracyOutcome()
    let probes = Self.probes(of: today, rate: rate)
    let start = today.day.start
    let reporting = Set(today.vehicleNames.filter { reports($0, rate: rate) })

    // Raw probes per interval and edge: the mean of the probe speeds SUMO recorded on it.
    var raw: [Int: [String: (sum: Double, count: Int)]] = [:]
    for record in today.records
    where record.edge >= 0 && reporting.contains(today.vehicleNames[Int(record.vehicle)]) {
      let interval = Int((Double(record.second) - 0.001) / AccuracyProfile.intervalSeconds)
      let edge = today.edgeNames[Int(record.edge)]
      raw[interval, default: [:]][edge, default: (0, 0)].sum += Double(record.speed)
      raw[interval, default: [:]][edge, default: (0, 0)].count += 1
    }

    // The trips to route: completed, not teleported, departing after the first 15 minutes
    // (the live picture has started) and 10 minutes before the end; each from where it
    // enters its second edge to where it leaves its last but one, at SUMO's times there. Its
    // first and last edges are left out: a random trip may start by turning back at a dead
    // end or end by driving round a block to reach the other side of a two-way street, and
    // a route asked from a point without a heading rightly does neither.
    let candidates = today.trips.compactMap { trip -> SimulatedDay.Trip? in
      guard !trip.teleported, trip.edges.count >= 4 else { return nil }
      let inner = trip.judgedSpan
      guard inner.duration >= 60, inner.depart >= 900,
        inner.depart <= AccuracyProfile.demandSeconds - 600,
        let firstEdge = inner.edges.first, let lastEdge = inner.edges.last,
        segmentOfEdge[firstEdge] != nil, segmentOfEdge[lastEdge] != nil
      else { return nil }
      return inner
    }.sorted { $0.depart < $1.depart }
    let stride = max(1, candidates.count / maximumTrips)
    let trips = Swift.stride(from: 0, to: candidates.count, by: stride).map { candidates[$0] }
    var etas: [Double?] = Array(repeating: nil, count: trips.count)
    // Our route's time as SUMO's vehicles drove its edges (nil: an edge without runs).
    var driven: [Double?] = Array(repeating: nil, count: trips.count)
    let edgeOfSegment = Dictionary(
      segmentOfEdge.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
    var ownRoute: [Double?] = Array(repeating: nil, count: trips.count)
    let original = Dictionary(today.trips.map { ($0.vehicle, $0) }, uniquingKeysWith: { a, _ in a })
    let lengthOfEdge = Dictionary(
      roads.segments.map { ($0.sourceID, $0.lengthInMeters) }, uniquingKeysWith: +)
    var nextTrip = 0
    let runs = EdgeRuns(trips: today.trips, reporting: reporting)

    var next = 0
    let step = 10.0
    var second = 0.0
    // The day's lane closure, published when it begins.
    var closure = try closureIncident(today.day, roads: roads, segments: segmentOfEdge)
    while second <= AccuracyProfile.demandSeconds {
      let now = start + second
      clock.withLock { $0 = now }
      if let incident = closure, let begins = incident.startTime, now >= begins {
        try engine.ingest([incident], from: "roadworks", isFullRefresh: false)
        closure = nil
      }
      let stop = probes[next...].firstIndex { $0.time > now } ?? probes.count
      if stop > next { engine.ingest(probes: Array(probes[next..<stop])) }
      let readings = observations(today, in: (second - step + 0.5)...second)
      if !readings.isEmpty { engine.ingest(observations: readings) }
      next = stop
      // Trips departing within the step are routed now, from what was sent until now.
      while nextTrip < trips.count, trips[nextTrip].depart < second + step {
        let trip = trips[nextTrip]
        if let picture = try engine.speedPicture(inside: nil, at: nil) {
          ownRoute[nextTrip] = onOwnRoute(trip, picture: picture, segments: segmentOfEdge)
        }
        if let (origin, destination) = ends(of: trip, roads: roads, segments: segmentOfEdge) {
          let route = try? await router.calculateRoute(from: origin, to: destination).first
          etas[nextTrip] = route?.durationInSeconds
          if let route {
            if let plan = TestDrives.plan(
              trip, original: original[trip.vehicle], route: route,
              edgeOfSegment: edgeOfSegment, lengthOfEdge: lengthOfEdge)
            {
              outcome.plans.append(plan)
            } else {
              outcome.testDrives.failed += 1
            }
            driven[nextTrip] = runs.driven(
              route.sections.flatMap(\.traffic.spans).map {
                (
                  edgeOfSegment[$0.segmentID], $0.lengthInMeters,
                  roads.segments[$0.segmentID].lengthInMeters
                )
              }, from: trip.depart)
          }
          if diagnostics, let route, let picture = try engine.speedPicture(inside: nil, at: nil) {
            // Our route's segments and speeds beside SUMO's route at our picture's speeds.
            let ours = route.sections.flatMap(\.traffic.spans).map {
              "\($0.segmentID):\(Int($0.lengthInMeters)):\(String(format: "%.1f", $0.trafficSpeedInMetersPerSecond))"
            }
            let theirs = trip.edges.compactMap { segmentOfEdge[$0] }.map {
              "\($0):\(Int(roads.segments[$0].lengthInMeters)):\(String(format: "%.1f", picture.flow($0).speedUncappedInMetersPerSecond))"
            }
            print(
              "ROUTE\t\(trip.vehicle)\t\(ours.joined(separator: " "))\t\(theirs.joined(separator: " "))"
            )
          }
          if diagnostics, let route {
            let sumoLength = trip.edges.compactMap { segmentOfEdge[$0] }.reduce(0.0) {
              $0 + roads.segments[$1].lengthInMeters
            }
            print(
              "TRIP\t\(trip.vehicle)\t\(trip.duration)\t\(route.durationInSeconds)\t"
                + "\(ownRoute[nextTrip] ?? -1)\t\(Int(route.lengthInMeters))\t\(Int(sumoLength))\t"
                + "\(trip.edges.first ?? "")\t\(trip.edges.last ?? "")\t\(route.sections.first?.departure.location.description ?? "")\t\(origin.coordinates)"
            )
          }
        }
        nextTrip += 1
      }
      let intervalEnd = second / AccuracyProfile.intervalSeconds
      if second >= 600, intervalEnd == intervalEnd.rounded() {
        let interval = Int(intervalEnd) - 1
        try await compareFlow(
          engine: engine, box: box, now: now, truth: today.edgeData[safe: interval] ?? [:],
          raw: raw[interval] ?? [:],
          fleet: today.fleetEdgeData[rate]?[safe: interval] ?? [:], roads: roads,
          segments: segmentOfEdge, label: "\(today.day.label)\t\(rate)\(loops ? "+loops" : "")",
          into: &outcome)
      }
      second += step
    }

    // ETAs against SUMO's trip times, beside free flow and the two references.
    for (k, trip) in trips.enumerated() {
      guard let eta = etas[k],
        let (origin, destination) = ends(of: trip, roads: roads, segments: segmentOfEdge),
        let free = try? await router.calculateRoute(
          from: origin, to: destination, options: RouteOptions(trafficOptimization: .disabled)
        ).first?.baseDurationInSeconds
      else {
        outcome.unrouted += 1
        continue
      }
      let duration = trip.duration
      let freeError = abs(free - duration) / duration
      let clairvoyant = runs.clairvoyant(trip, edgeData: today.edgeData)
      let lastRuns = runs.lastProbeRuns(trip, roads: roads, segments: segmentOfEdge)
      let errors = AccuracyOutcome.TripErrors(
        ours: abs(eta - duration) / duration, signed: (eta - duration) / duration,
        onOwnRoute: ownRoute[k].map { abs($0 - duration) / duration } ?? .nan, free: freeError,
        clairvoyant: abs(clairvoyant - duration) / duration,
        lastRuns: abs(lastRuns - duration) / duration,
        onOurRoute: driven[k].map { abs(eta - $0) / $0 } ?? .nan,
        routeGain: driven[k].map { ($0 - duration) / duration } ?? .nan)
      outcome.trips.append(errors)
      if diagnostics {
        // Every judged trip: its today and fleet, SUMO's time, ours, free flow, the two
        // references (seconds); bench/accuracy_references.py reads these lines.
        print(
          "ETA\t\(today.day.label)\t\(rate)\(loops ? "+loops" : "")\t\(trip.vehicle)\t\(Int(trip.depart))\t\(Int(duration))\t\(Int(eta))\t"
            + "\(Int(free))\t\(Int(clairvoyant))\t\(Int(lastRuns))")
      }
      if diagnostics, freeError > 0.4 {
        print(
          "CONGESTED\t\(trip.vehicle)\t\(Int(trip.depart))\t\(Int(duration))\t\(Int(eta))\t"
            + "\(Int(ownRoute[k] ?? -1))\t\(Int(clairvoyant))\t\(Int(lastRuns))\t\(Int(free))\t"
            + trip.edgeSeconds)
      }
    }
    return outcome
  }

  /// The trip's time with each edge at the speed of our picture at departure (the
  /// junctions between at the next edge's): our estimate without our choice of route.
  static func onOwnRoute(
    _ trip: SimulatedDay.Trip, picture: SpeedPicture, segments: [String: Int]
  ) -> Double? {
    let ids = trip.edges.map { segments[$0] }
    guard ids.allSatisfy({ $0 != nil }) else { return nil }
    return trip.retimed { k, _, _, _ in
      guard let segment = ids[k] else { return nil }
      let gap =
        k > 0 ? ids[k - 1].map { picture.network.junctionGap(from: $0, to: segment) } ?? 0 : 0
      return (picture.network.segments[segment].lengthInMeters + gap)
        / max(picture.flow(segment).speedUncappedInMetersPerSecond, 0.5)
    }
  }

  /// Where a trip is routed from and to: 5 m into its first edge, 5 m before the end of its
  /// last (at most half the edge's length).
  static func ends(
    of trip: SimulatedDay.Trip, roads: RoadNetwork, segments: [String: Int]
  ) -> (Waypoint, Waypoint)? {
    guard let firstEdge = trip.edges.first, let lastEdge = trip.edges.last,
      let first = segments[firstEdge], let last = segments[lastEdge]
    else { return nil }
    // Each end with the direction the vehicle drives there, as a navigation device on its
    // way would ask (a point near a junction alone could be any of the roads meeting there).
    func end(_ segment: RoadSegment, at offset: Double) -> Waypoint {
      let geometry = segment.geometry
      let ahead = min(segment.lengthInMeters, offset + 5), behind = max(0, offset - 5)
      return Waypoint(
        geometry.coordinates(atDistance: offset),
        headingInDegrees: geometry.coordinates(atDistance: behind).bearing(
          to: geometry.coordinates(atDistance: ahead)))
    }
    let a = roads.segments[first], b = roads.segments[last]
    return (
      end(a, at: min(5, a.lengthInMeters / 2)),
      end(b, at: b.lengthInMeters - min(5, b.lengthInMeters / 2))
    )
  }

  /// Compares the engine's flow now with SUMO's edge speeds over the interval that ends now.
  static func compareFlow(
    engine: TrafficEngine, box: GeoBox, now: Date,
    truth: [String: SimulatedDay.EdgeInterval], raw: [String: (sum: Double, count: Int)],
    fleet: [String: SimulatedDay.EdgeInterval], roads: RoadNetwork, segments: [String: Int],
    label: String, into outcome: inout AccuracyOutcome
  ) async throws {
    let flows = try await engine.queryForFlow(inside: box)
    var flowOfSegment: [Int: TrafficFlow] = [:]
    for flow in flows { flowOfSegment[flow.segmentID] = flow }
    let picture = try engine.speedPicture(inside: nil, at: nil)
    let typical = picture?.snapshot.typical
    let bin = picture?.clock?.bin(for: now) ?? 0
    let today = TypicalSpeeds.day(of: now)
    for (edge, sumo) in truth where sumo.entered >= minimumVehicles && sumo.speed > 0 {
      guard let segment = segments[edge], let flow = flowOfSegment[segment] else { continue }
      let limit = roads.segments[segment].speedLimitInMetersPerSecond
      func within(_ speed: Double) -> Bool { abs(speed - sumo.speed) <= 0.15 * sumo.speed }
      let rawSpeed = raw[edge].map { $0.sum / Double($0.count) } ?? limit
      let typicalSpeed = typical?.typical(segment, atBin: bin, today: today)?.speed ?? limit
      // The fleet's own mean speed over the interval where it drove the edge (SUMO's), else
      // the typical week: what a perfect estimator of that fleet's drives could know.
      let sampled = fleet[edge].flatMap { $0.speed > 0 ? $0.speed : nil } ?? typicalSpeed
      if diagnostics {
        let record = roads.segments[segment]
        print(
          "FLOW\t\(label)\t\(now.timeIntervalSince1970)\t\(edge)\t\(record.roadClass)\t\(Int(record.lengthInMeters))\t"
            + "\(limit)\t\(sumo.speed)\t\(sumo.entered)\t\(flow.speedUncappedInMetersPerSecond)\t"
            + "\(flow.confidence)\t\(raw[edge].map { $0.sum / Double($0.count) } ?? -1)\t"
            + "\(raw[edge]?.count ?? 0)\t\(typicalSpeed)\t\(fleet[edge]?.speed ?? -1)")
      }
      outcome.flow.add(
        ours: within(flow.speedUncappedInMetersPerSecond), raw: within(rawSpeed),
        typical: within(typicalSpeed), sampled: within(sampled), confidence: flow.confidence)
    }
  }
}
