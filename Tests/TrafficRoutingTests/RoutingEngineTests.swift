import Foundation
import Geo
import Roads
import Synchronization
import Testing
import Traffic
import TrafficRouting
import TrafficTestSupport

/// The routing engine against an independent reference (Roads' Dijkstra on the same
/// network), and on live traffic: closures avoided, slow roads left for faster ones.
@Suite struct RoutingEngineTests {
  static let liechtenstein: RoadNetwork? = try? OSMImporter.importNetwork(
    from: Fixtures.liechtenstein(), options: OSMImportOptions(countryCode: "LI"))

  static let now = Date(timeIntervalSince1970: 1_800_000_000)

  static func engine(
    network: RoadNetwork, incidents: [TrafficIncident] = []
  ) throws
    -> TrafficEngine
  {
    let store = InMemoryTrafficStore()
    try store.apply(IncidentBatch(upserts: incidents))
    return try TrafficEngine(store: store, clock: { now }, network: network)
  }

  /// The positions the engine snaps a point to: the nearest segment and those within 15 m
  /// of it, at most six (or, when those have no route, within 100 m, at most 12).
  static func positions(
    _ point: GeoCoordinates, _ network: RoadNetwork, within meters: Double = 15
  ) throws -> [RoadPosition] {
    let candidates = try network.segments(near: point, withinMeters: 1_000)
    let nearest = try #require(candidates.first)
    return candidates.prefix(meters > 15 ? 12 : 6)
      .filter { $0.distanceInMeters <= nearest.distanceInMeters + meters }
      .map { RoadPosition(segmentID: $0.segmentID, offsetInMeters: $0.offsetInMeters) }
  }

  /// The least cost (seconds for `.travelTime`, meters for `.length`) Roads' Dijkstra finds
  /// between the positions the engine snaps the points to (within 15 m, else 100 m).
  static func reference(
    from origin: GeoCoordinates, to destination: GeoCoordinates, network: RoadNetwork,
    graph: RoutingGraph, metric: RoutingGraph.Metric
  ) throws -> Double {
    var reference = Double.infinity
    for meters in [15.0, 100] where reference == .infinity {
      for source in try positions(origin, network, within: meters) {
        for target in try positions(destination, network, within: meters) {
          if let route = try graph.shortestPath(from: source, to: target, metric: metric) {
            reference = min(
              reference, metric == .length ? route.lengthInMeters : route.travelTimeInSeconds)
          }
        }
      }
    }
    return reference
  }

  @Test("a route counts the way across a junction its network leaves out of its segments")
  func junctionGapsTakeTime() async throws {
    let network = try GappedNetwork.network(gap: 100)
    let router = RoutingEngine(trafficEngine: try Self.engine(network: network))
    let route = try #require(
      try await router.calculateRoute(
        from: CrossingNetwork.coordinates(east: 10), to: CrossingNetwork.coordinates(east: 990)
      ).first)
    // 980 m at the limit: the 100 m across the junction too, not only the 880 m of segments.
    let limit = CrossingNetwork.speedLimitInMetersPerSecond
    #expect(abs(route.durationInSeconds - 980 / limit) < 0.5)
    #expect(abs(route.baseDurationInSeconds - 980 / limit) < 0.5)
    // And 980 m long, as its geometry, which crosses the junction.
    #expect(abs(route.lengthInMeters - 980) < 0.5)
    #expect(abs(route.polyline.lengthInMeters - route.lengthInMeters) < 0.01)
  }

  @Test("without traffic, the fastest route takes the time Roads' Dijkstra finds")
  func matchesDijkstraOnARealNetwork() async throws {
    let network = try #require(Self.liechtenstein)
    let engine = try Self.engine(network: network)
    let router = RoutingEngine(trafficEngine: engine)
    let graph = RoutingGraph(network: network)
    var generator = SeededGenerator(seed: 17)
    let box = try #require(GeoBox.enclosing(network.nodes.map(\.coordinates)))
    var compared = 0
    for _ in 0..<40 {
      func randomPoint() -> GeoCoordinates {
        let nodes = network.nodes
        return nodes[Int.random(in: 0..<nodes.count, using: &generator)].coordinates
      }
      let origin = randomPoint(), destination = randomPoint()
      guard box.contains(origin), origin != destination else { continue }
      let reference = try Self.reference(
        from: origin, to: destination, network: network, graph: graph, metric: .travelTime)
      let options = RouteOptions(trafficOptimization: .disabled)
      if reference == .infinity {
        await #expect(throws: RoutingError.self) {
          try await router.calculateRoute(from: origin, to: destination, options: options)
        }
        continue
      }
      let routes = try await router.calculateRoute(
        from: origin, to: destination, options: options)
      let route = try #require(routes.first)
      #expect(abs(route.durationInSeconds - reference) < 1e-6 * max(1, reference))
      #expect(route.sections.count == 1)
      let section = route.sections[0]
      #expect(section.departure.time == Self.now)
      #expect(
        abs(section.arrival.time.timeIntervalSince(Self.now) - route.durationInSeconds) < 1e-6)
      #expect(abs(section.baseDurationInSeconds - reference) < 1e-6 * max(1, reference))
      // The geometry is as long as the driven length.
      #expect(abs(section.polyline.lengthInMeters - section.lengthInMeters) < 1)
      compared += 1
    }
    #expect(compared >= 20)
  }

  @Test("routingMode short finds the length Roads' Dijkstra finds, and times what it drives")
  func shortestMatchesDijkstraByLength() async throws {
    let network = try #require(Self.liechtenstein)
    let router = RoutingEngine(trafficEngine: try Self.engine(network: network))
    let graph = RoutingGraph(network: network)
    var generator = SeededGenerator(seed: 29)
    var compared = 0
    var shorter = 0
    for _ in 0..<40 {
      let nodes = network.nodes
      let origin = nodes[Int.random(in: 0..<nodes.count, using: &generator)].coordinates
      let destination = nodes[Int.random(in: 0..<nodes.count, using: &generator)].coordinates
      guard origin != destination else { continue }
      let reference = try Self.reference(
        from: origin, to: destination, network: network, graph: graph, metric: .length)
      guard reference < .infinity else { continue }
      var options = RouteOptions(trafficOptimization: .disabled)
      options.routingMode = .short
      let short = try #require(
        try await router.calculateRoute(from: origin, to: destination, options: options).first)
      #expect(abs(short.lengthInMeters - reference) < 1e-6 * max(1, reference) + 0.01)
      let fast = try #require(
        try await router.calculateRoute(
          from: origin, to: destination, options: RouteOptions(trafficOptimization: .disabled)
        ).first)
      #expect(short.lengthInMeters <= fast.lengthInMeters + 0.01)
      #expect(short.durationInSeconds >= fast.durationInSeconds - 1e-6)
      // The duration is the time driven, not the meters.
      #expect(short.durationInSeconds < short.lengthInMeters)
      if short.lengthInMeters < fast.lengthInMeters - 1 { shorter += 1 }
      compared += 1
    }
    #expect(compared >= 20)
    #expect(shorter >= 3)
  }

  @Test("a closed road is routed around, and a jammed one left for a faster way")
  func liveTrafficChangesTheRoute() async throws {
    // W(0) - C(500) - E(1000) with N and S arms: W to E goes straight through C.
    let network = try CrossingNetwork.network()
    let west = CrossingNetwork.coordinates(east: 0)
    let east = CrossingNetwork.coordinates(east: 1000)
    let free = try Self.engine(network: network)
    let straight = try await RoutingEngine(trafficEngine: free).calculateRoute(from: west, to: east)
    let direct = try #require(straight.first)
    #expect(abs(direct.lengthInMeters - 1000) < 2)
    #expect(abs(direct.durationInSeconds - 1000 / CrossingNetwork.speedLimitInMetersPerSecond) < 1)

    // The road from C to E closed: no other way leads to E.
    let closure = try TrafficIncident(
      id: "closed", type: .roadClosure, impact: .critical, isRoadClosed: true,
      location: TrafficLocation(
        polyline: GeoPolyline(vertices: [
          CrossingNetwork.coordinates(east: 600), CrossingNetwork.coordinates(east: 900),
        ])))
    let closed = try Self.engine(network: network, incidents: [closure])
    await #expect(throws: RoutingError.noRoute(fromIndex: 0, toIndex: 1)) {
      try await RoutingEngine(trafficEngine: closed).calculateRoute(from: west, to: east)
    }
    // Without traffic, the closed road is still driven.
    let ignoring = try await RoutingEngine(trafficEngine: closed).calculateRoute(
      from: west, to: east,
      options: RouteOptions(trafficOptimization: .disabled, avoidsClosures: false))
    #expect(abs((ignoring.first?.lengthInMeters ?? 0) - 1000) < 2)
  }

  @Test("a stop at a via point delays the next section; a pass-through point makes none")
  func viaStopsAndPassThrough() async throws {
    let network = try CrossingNetwork.network()
    let router = RoutingEngine(trafficEngine: try Self.engine(network: network))
    let west = CrossingNetwork.coordinates(east: 0), east = CrossingNetwork.coordinates(east: 1000)
    let middle = CrossingNetwork.coordinates(east: 700)
    let direct = try #require(try await router.calculateRoute(from: west, to: east).first)
    let stopping = try #require(
      try await router.calculateRoute(
        from: west, to: east, via: [Waypoint(middle, stopDurationInSeconds: 600)]
      ).first)
    #expect(stopping.sections.count == 2)
    let gap = stopping.sections[1].departure.time.timeIntervalSince(
      stopping.sections[0].arrival.time)
    #expect(abs(gap - 600) < 1e-6)
    #expect(abs(stopping.lengthInMeters - 1000) < 1)
    let passing = try #require(
      try await router.calculateRoute(
        from: west, to: east, via: [Waypoint(middle, isPassThrough: true)]
      ).first)
    #expect(passing.sections.count == 1)
    #expect(abs(passing.durationInSeconds - direct.durationInSeconds) < 1e-6)
    #expect(passing.sections[0].maneuvers.map(\.action) == [.depart, .continue, .arrive])
    #expect(
      passing.sections[0].polyline.vertices.count == direct.sections[0].polyline.vertices.count)
    for bad in [
      Waypoint(middle, stopDurationInSeconds: -1), Waypoint(middle, stopDurationInSeconds: .nan),
      Waypoint(middle, stopDurationInSeconds: 60, isPassThrough: true),
    ] {
      await #expect(throws: RoutingError.self) {
        try await router.calculateRoute(from: west, to: east, via: [bad])
      }
    }
  }

  @Test("a heading at the origin or destination picks the side of a two-way road driven")
  func headingsPickTheDirection() async throws {
    // W(0) - C(500) - E(1000), two-way: from 200 m heading west the vehicle drives to the
    // dead end at W and back (200 + 1000 m to E); heading east, straight on (800 m).
    let network = try CrossingNetwork.network()
    let router = RoutingEngine(trafficEngine: try Self.engine(network: network))
    let start = CrossingNetwork.coordinates(east: 200),
      end = CrossingNetwork.coordinates(east: 1000)
    func length(_ heading: Double?, to destination: Waypoint? = nil) async throws -> Double {
      try #require(
        try await router.calculateRoute(
          from: Waypoint(start, headingInDegrees: heading), to: destination ?? Waypoint(end)
        ).first
      ).lengthInMeters
    }
    #expect(abs(try await length(nil) - 800) < 2)
    #expect(abs(try await length(90) - 800) < 2)
    #expect(abs(try await length(270) - 1200) < 2)
    // Within the tolerance (45°) still east; a heading no road near has is ignored.
    #expect(abs(try await length(130) - 800) < 2)
    #expect(abs(try await length(0) - 800) < 2)
    // Reaching 800 m heading west: on to E's dead end and back (800 + 200 m).
    let westward = Waypoint(CrossingNetwork.coordinates(east: 800), headingInDegrees: 270)
    #expect(abs(try await length(90, to: westward) - 1000) < 2)
    // A via point passed heading west, on a trip from W to E: on to E's dead end and back
    // west past 700 m (1000 + 300), then on west to W's dead end and back to E (700 + 1000:
    // no U-turn at the crossing).
    let passedWest = try #require(
      try await router.calculateRoute(
        from: CrossingNetwork.coordinates(east: 0), to: end,
        via: [Waypoint(CrossingNetwork.coordinates(east: 700), headingInDegrees: 270)]
      ).first)
    #expect(passedWest.sections.map { ($0.lengthInMeters / 10).rounded() * 10 } == [1300, 1700])
    // Out of range, or a stop at an end: refused by name.
    for bad in [-1.0, 360, .nan] {
      await #expect(
        throws: RoutingError.invalidOption("origin: course must be 0...359 degrees, got \(bad)")
      ) {
        try await router.calculateRoute(
          from: Waypoint(start, headingInDegrees: bad), to: Waypoint(end))
      }
    }
    await #expect(throws: RoutingError.self) {
      try await router.calculateRoute(
        from: Waypoint(start, stopDurationInSeconds: 60), to: Waypoint(end))
    }
  }

  @Test("a vehicle with a heading just past a junction starts ahead, not on the road behind")
  func headingsStartPastTheJunction() async throws {
    // 5 m past the crossing C heading east, bound for N (north of C): the road behind ends
    // at C, 5 m away, within the snapping margin, but the vehicle is past it: on to E's dead
    // end and back (495 + 500), then north (500). Arriving 5 m before C heading east, from N:
    // west to W's dead end and back (500 + 495 after the 500 m from N).
    let network = try CrossingNetwork.network()
    let router = RoutingEngine(trafficEngine: try Self.engine(network: network))
    let north = CrossingNetwork.coordinates(east: 500, north: 500)
    let leaving = try #require(
      try await router.calculateRoute(
        from: Waypoint(CrossingNetwork.coordinates(east: 505), headingInDegrees: 90),
        to: Waypoint(north)
      ).first)
    #expect(abs(leaving.lengthInMeters - 1495) < 2)
    let arriving = try #require(
      try await router.calculateRoute(
        from: Waypoint(north),
        to: Waypoint(CrossingNetwork.coordinates(east: 495), headingInDegrees: 90)
      ).first)
    #expect(abs(arriving.lengthInMeters - 1495) < 2)
    // Without a heading any road within the margin will do: from C (the road behind) north.
    let anyWay = try #require(
      try await router.calculateRoute(
        from: Waypoint(CrossingNetwork.coordinates(east: 505)), to: Waypoint(north)
      ).first)
    #expect(abs(anyWay.lengthInMeters - 500) < 2)
  }

  @Test("an arrival time gives the departure from which the route arrives then")
  func arrivalTime() async throws {
    let network = try CrossingNetwork.network()
    let router = RoutingEngine(trafficEngine: try Self.engine(network: network))
    let arrival = Self.now.addingTimeInterval(7_200)
    let route = try #require(
      try await router.calculateRoute(
        from: CrossingNetwork.coordinates(east: 0), to: CrossingNetwork.coordinates(east: 1000),
        options: RouteOptions(arrivalTime: arrival)
      ).first)
    let section = try #require(route.sections.last)
    #expect(abs(section.arrival.time.timeIntervalSince(arrival)) < 1)
    // 1 km at the limit.
    let expected = 1000 / CrossingNetwork.speedLimitInMetersPerSecond
    #expect(
      abs(arrival.timeIntervalSince(route.sections[0].departure.time) - expected) < 1)
    await #expect(throws: RoutingError.self) {
      try await router.calculateRoute(
        from: CrossingNetwork.coordinates(east: 0), to: CrossingNetwork.coordinates(east: 1000),
        options: RouteOptions(departureTime: Self.now, arrivalTime: arrival))
    }
  }

  @Test("planning mode avoids closures of more than a day and drives through shorter ones")
  func planningModeKeepsLongTermClosuresOnly() async throws {
    let network = try CrossingNetwork.network()
    let west = CrossingNetwork.coordinates(east: 0)
    let east = CrossingNetwork.coordinates(east: 1000)
    let hour = 3_600.0, day = 86_400.0, now = Self.now
    // The road from C to E closed (no other way leads to E), for spans known or not.
    let cases: [(start: Date?, end: Date?, longTerm: Bool)] = [
      (now - hour, now + 2 * hour, false),  // planned for three hours
      (now - hour, now + 2 * day, true),  // planned for two days
      (now - 2 * day, nil, true),  // open-ended, in place for two days
      (now - hour, nil, false),  // open-ended, in place for an hour
      (nil, now + 2 * day, true),  // start unknown, two more days
      (nil, nil, false),  // nothing known
    ]
    let planning = RouteOptions(trafficOptimization: .longTermClosuresOnly)
    for (start, end, longTerm) in cases {
      let closure = try TrafficIncident(
        id: "closed", type: .roadClosure, impact: .critical, startTime: start, endTime: end,
        isRoadClosed: true,
        location: TrafficLocation(
          polyline: GeoPolyline(vertices: [
            CrossingNetwork.coordinates(east: 600), CrossingNetwork.coordinates(east: 900),
          ])))
      let router = RoutingEngine(
        trafficEngine: try Self.engine(network: network, incidents: [closure]))
      // Live traffic avoids every closure.
      await #expect(throws: RoutingError.noRoute(fromIndex: 0, toIndex: 1)) {
        try await router.calculateRoute(from: west, to: east)
      }
      if longTerm {
        await #expect(
          throws: RoutingError.noRoute(fromIndex: 0, toIndex: 1),
          "\(String(describing: start)) to \(String(describing: end))"
        ) {
          try await router.calculateRoute(from: west, to: east, options: planning)
        }
      } else {
        let route = try #require(
          try await router.calculateRoute(from: west, to: east, options: planning).first)
        #expect(
          abs(route.lengthInMeters - 1000) < 2,
          "\(String(describing: start)) to \(String(describing: end))")
        #expect(route.durationInSeconds == route.baseDurationInSeconds)
      }
    }
  }

  /// A departure in the past drives on the picture of its time: a road closed since an hour
  /// ago was open yesterday (today's closures were applied to every past departure), and
  /// one closed yesterday only is closed for a departure then.
  @Test func aPastDepartureMeetsTheClosuresOfItsTime() async throws {
    let network = try CrossingNetwork.network()
    let west = CrossingNetwork.coordinates(east: 0)
    let east = CrossingNetwork.coordinates(east: 1000)
    let hour = 3_600.0, day = 86_400.0, now = Self.now
    func closure(_ start: Date, _ end: Date) throws -> TrafficIncident {
      try TrafficIncident(
        id: "closed", type: .roadClosure, impact: .critical, startTime: start, endTime: end,
        isRoadClosed: true,
        location: TrafficLocation(
          polyline: GeoPolyline(vertices: [
            CrossingNetwork.coordinates(east: 600), CrossingNetwork.coordinates(east: 900),
          ])))
    }
    let today = RoutingEngine(
      trafficEngine: try Self.engine(
        network: network, incidents: [try closure(now - hour, now + day)]))
    await #expect(throws: RoutingError.noRoute(fromIndex: 0, toIndex: 1)) {
      try await today.calculateRoute(from: west, to: east)
    }
    let yesterday = try #require(
      try await today.calculateRoute(
        from: west, to: east, options: RouteOptions(departureTime: now - day)
      ).first)
    #expect(abs(yesterday.lengthInMeters - 1000) < 2)
    #expect(yesterday.sections.first?.departure.time == now - day)
    let matrix = try await today.calculateMatrix(
      origins: [west], destinations: [east], options: RouteOptions(departureTime: now - day))
    #expect(matrix.travelTimesInSeconds[0][0] != nil)

    let past = RoutingEngine(
      trafficEngine: try Self.engine(
        network: network, incidents: [try closure(now - day - hour, now - day + hour)]))
    #expect(try await past.calculateRoute(from: west, to: east).count == 1)
    await #expect(throws: RoutingError.noRoute(fromIndex: 0, toIndex: 1)) {
      try await past.calculateRoute(
        from: west, to: east, options: RouteOptions(departureTime: now - day))
    }
  }

  /// An engine on `network` (the crossing network) where three vehicles drove from W onto
  /// B→E and stood 200 m into it for the ten minutes before `now`.
  static func standingQueueEngine(network: RoadNetwork) throws -> TrafficEngine {
    let start = now.addingTimeInterval(-600)
    let clock = Mutex(start)
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { clock.withLock { $0 } }, network: network)
    clock.withLock { $0 = now }
    engine.ingest(probes: standingQueueProbes(endingAt: now))
    return engine
  }

  /// The probes of three vehicles driving from W onto B→E of the crossing network and
  /// standing 200 m into it for the ten minutes before `end`.
  static func standingQueueProbes(endingAt end: Date) -> [Probe] {
    let start = end.addingTimeInterval(-600)
    var probes: [Probe] = []
    for vehicle in 0..<3 {
      for second in stride(from: 0.0, through: 600, by: 5) {
        let east = min(10 * second, 700 - 8 * Double(vehicle))
        probes.append(
          Probe(
            vehicleID: "v\(vehicle)", time: start.addingTimeInterval(second),
            coordinates: CrossingNetwork.coordinates(east: east)))
      }
    }
    return probes
  }

  @Test("a queue whose probes stand still for the whole window is driven at a crawl, not closed")
  func aStandingQueueIsSlowNotClosed() async throws {
    // Three vehicles drive from W onto B→E and stop 200 m into it, where they stand for
    // ten minutes: the only way from W to E is through their queue.
    let engine = try Self.standingQueueEngine(network: CrossingNetwork.network())
    let view = try #require(engine.routingView())
    #expect(view.flow.live[2]?.speedUncapped == 0)
    #expect(view.flow.live[2]?.blocked == false)
    let routes = try await RoutingEngine(trafficEngine: engine).calculateRoute(
      from: CrossingNetwork.coordinates(east: 0), to: CrossingNetwork.coordinates(east: 1000))
    let route = try #require(routes.first)
    #expect(abs(route.lengthInMeters - 1000) < 2)
    // B→E at the crawl of 0.5 m/s, W→B at the limit.
    let expected = 500 / 0.5 + 500 / CrossingNetwork.speedLimitInMetersPerSecond
    #expect(abs(route.durationInSeconds - expected) < 0.02 * expected)
    // The spans say the same: open, at the crawl, and their times add up to the route's.
    let traffic = try #require(route.sections.first?.traffic)
    #expect(!traffic.isBlocked)
    let queue = try #require(traffic.spans.first { $0.segmentID == 2 })
    #expect(queue.traversability == .open)
    #expect(queue.trafficSpeedInMetersPerSecond == 0.5)
    #expect(abs(traffic.trafficDurationInSeconds - route.durationInSeconds) < 1)
  }

  @Test("bad waypoints and options are refused by name")
  func refusesBadInput() async throws {
    let network = try CrossingNetwork.network()
    let engine = try Self.engine(network: network)
    let router = RoutingEngine(trafficEngine: engine)
    let west = CrossingNetwork.coordinates(east: 0)
    let far = try GeoCoordinates(latitude: 10, longitude: 10)
    await #expect(throws: RoutingError.placeOffNetwork(index: 1, far, radiusInMeters: 1_000)) {
      try await router.calculateRoute(from: west, to: far)
    }
    await #expect(throws: RoutingError.invalidOption("alternatives must be 0...3, got 4")) {
      try await router.calculateRoute(
        from: west, to: CrossingNetwork.coordinates(east: 1000),
        options: RouteOptions(alternatives: 4))
    }
    let bare = try TrafficEngine(store: InMemoryTrafficStore())
    await #expect(throws: RoutingError.noRoadNetwork) {
      try await RoutingEngine(trafficEngine: bare).calculateRoute(from: west, to: far)
    }
  }

  @Test("via points make one section each; alternatives differ and come slowest last")
  func viaPointsAndAlternatives() async throws {
    let network = try #require(Self.liechtenstein)
    let engine = try Self.engine(network: network)
    let router = RoutingEngine(trafficEngine: engine)
    // Vaduz to Schaan through Triesen, and Vaduz to Balzers with alternatives.
    let vaduz = try GeoCoordinates(latitude: 47.1410, longitude: 9.5215)
    let triesen = try GeoCoordinates(latitude: 47.1070, longitude: 9.5280)
    let schaan = try GeoCoordinates(latitude: 47.1650, longitude: 9.5090)
    let balzers = try GeoCoordinates(latitude: 47.0660, longitude: 9.5020)
    let through = try await router.calculateRoute(from: vaduz, to: schaan, via: [triesen])
    let route = try #require(through.first)
    #expect(route.sections.count == 2)
    #expect(route.sections[0].arrival.time == route.sections[1].departure.time)
    #expect(route.sections[0].arrival.originalLocation == triesen)
    let direct = try await router.calculateRoute(from: vaduz, to: schaan)
    #expect(route.durationInSeconds > (direct.first?.durationInSeconds ?? 0))

    let choices = try await router.calculateRoute(
      from: vaduz, to: balzers, options: RouteOptions(alternatives: 2))
    #expect(!choices.isEmpty && choices.count <= 3)
    #expect(choices.map(\.durationInSeconds) == choices.map(\.durationInSeconds).sorted())
    let best = try await router.calculateRoute(from: vaduz, to: balzers)
    #expect(
      abs((choices.first?.durationInSeconds ?? 0) - (best.first?.durationInSeconds ?? 0)) < 1e-6)
  }

  /// With an arrival time every route arrives then, alternatives too: each leaves as much
  /// earlier as it is slower (they all left at the fastest one's departure and arrived late).
  @Test func everyAlternativeArrivesAtTheArrivalTime() async throws {
    let network = try #require(Self.liechtenstein)
    let router = RoutingEngine(trafficEngine: try Self.engine(network: network))
    let vaduz = try GeoCoordinates(latitude: 47.1410, longitude: 9.5215)
    let balzers = try GeoCoordinates(latitude: 47.0660, longitude: 9.5020)
    let arrival = Self.now.addingTimeInterval(3 * 3_600)
    let routes = try await router.calculateRoute(
      from: vaduz, to: balzers, options: RouteOptions(alternatives: 2, arrivalTime: arrival))
    #expect(routes.count >= 2)
    for route in routes {
      let first = try #require(route.sections.first)
      let last = try #require(route.sections.last)
      #expect(abs(last.arrival.time.timeIntervalSince(arrival)) < 1)
      #expect(
        abs(last.arrival.time.timeIntervalSince(first.departure.time) - route.durationInSeconds)
          < 1)
    }
    // The fastest is the route found without alternatives.
    let alone = try #require(
      try await router.calculateRoute(
        from: vaduz, to: balzers, options: RouteOptions(arrivalTime: arrival)
      ).first)
    #expect(
      abs((routes.first?.durationInSeconds ?? 0) - alone.durationInSeconds) < 1e-6)
  }

  /// Every route, alternatives too, goes on from a via point where it arrived there: an
  /// alternative arrived at one of the via point's roads and its next section started from
  /// another, 112 m away.
  @Test func alternativesGoOnFromWhereTheyReachAViaPoint() async throws {
    let network = try #require(Self.liechtenstein)
    let router = RoutingEngine(trafficEngine: try Self.engine(network: network))
    for (origin, via, destination) in [
      ((47.14, 9.52), (47.15, 9.52), (47.16, 9.51)),
      ((47.1410, 9.5215), (47.1070, 9.5280), (47.0660, 9.5020)),
      ((47.05, 9.49), (47.10, 9.52), (47.20, 9.54)),
    ] {
      let routes = try await router.calculateRoute(
        from: try GeoCoordinates(latitude: origin.0, longitude: origin.1),
        to: try GeoCoordinates(latitude: destination.0, longitude: destination.1),
        via: [try GeoCoordinates(latitude: via.0, longitude: via.1)],
        options: RouteOptions(alternatives: 2))
      #expect(!routes.isEmpty)
      for route in routes {
        #expect(route.sections.count == 2)
        let gap = route.sections[0].arrival.location.distance(
          to: route.sections[1].departure.location)
        #expect(gap < 1, "\(via): \(gap) m")
      }
    }
  }

  /// A via point where the route begins (or anywhere it is reached on a road that leads
  /// nowhere the next leg goes) does not make a route that exists without it impossible:
  /// the next leg may leave from another of the via point's roads.
  @Test func aViaPointAtTheOriginKeepsEveryRouteThatExists() async throws {
    let network = try #require(Self.liechtenstein)
    let router = RoutingEngine(trafficEngine: try Self.engine(network: network))
    var generator = SeededGenerator(seed: 7)
    var checked = 0
    for _ in 0..<40 {
      func point() throws -> GeoCoordinates {
        try GeoCoordinates(
          latitude: Double.random(in: 47.06...47.22, using: &generator),
          longitude: Double.random(in: 9.49...9.58, using: &generator))
      }
      let (origin, destination) = (try point(), try point())
      guard (try? await router.calculateRoute(from: origin, to: destination)) != nil else {
        continue
      }
      checked += 1
      let through = try? await router.calculateRoute(
        from: origin, to: destination, via: [origin])
      #expect(through?.first?.sections.count == 2, "\(origin) → \(destination)")
    }
    #expect(checked >= 20)
    // The case schemathesis found on the A10 junction: the origin 650 m from its road,
    // reached by the first leg on a road that leads nowhere the second one goes.
    let a10kw = try SUMONetworkImporter.importNetwork(
      from: URL(fileURLWithPath: try DebianFile.a10kwNetwork.require()))
    let a10 = RoutingEngine(trafficEngine: try Self.engine(network: a10kw))
    let start = try GeoCoordinates(latitude: 52.3050, longitude: 13.6200)
    let end = try GeoCoordinates(latitude: 52.3250, longitude: 13.5800)
    #expect(try await a10.calculateRoute(from: start, to: end).count == 1)
    let viaStart = try await a10.calculateRoute(from: start, to: end, via: [start])
    #expect(viaStart.first?.sections.count == 2)
  }
}
