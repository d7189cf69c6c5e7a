import Codec
import Foundation
import Roads

extension TrafficEngine {
  // MARK: Flow queries

  /// The traffic flow on the road segments that meet `area`, as HERE's
  /// `queryForFlow(inside:queryOptions:)`.
  ///
  /// Every directed segment of the engine's network that meets the area is reported: with
  /// live values when probes or feeds cover it (confidence > 0.7), else at its typical speed
  /// for now (its typical week learned from probes of every age and from feeds; confidence
  /// 0.6...0.7, jam factor against free flow), else at free flow — the segment's learned
  /// free flow (0.6) or its speed limit (0.5), as providers do. `queryOptions.at` asks for
  /// the typical picture of another time. An engine without a network returns no flow.
  ///
  /// - Parameters:
  ///   - area: A `GeoCircle`, `GeoBox` or `GeoCorridor` within `limits`.
  ///   - queryOptions: Jam factor and functional class filters.
  /// - Returns: One flow per directed segment, ordered by segment id.
  /// - Throws: `TrafficQueryError.invalidGeometry` beyond a limit, `.invalidFilterOptions`
  ///   for bad filters, `.operationCancelled` when the task is cancelled.
  /// - Complexity: O(log n + k·v) for k segments of v vertices meeting the area's box.
  public func queryForFlow(
    inside area: some GeoArea,
    queryOptions: TrafficFlowQueryOptions = TrafficFlowQueryOptions()
  ) async throws(TrafficQueryError) -> [TrafficFlow] {
    guard !Task.isCancelled else { throw .operationCancelled }
    if let remote {
      try limits.check(area)
      try queryOptions.validate()
      return try await remote.flow(inside: area, options: queryOptions)
    }
    return try flow(inside: area, options: queryOptions)
  }

  /// `queryForFlow(inside:queryOptions:)` with a completion handler, as in the HERE SDK.
  ///
  /// - Parameter completion: Called exactly once, from a background task: with the flows,
  ///   or with the error (`operationCancelled` after `TaskHandle.cancel()`).
  /// - Returns: A handle to cancel the query.
  @discardableResult
  public func queryForFlow(
    inside area: some GeoArea,
    queryOptions: TrafficFlowQueryOptions = TrafficFlowQueryOptions(),
    completion: @escaping @Sendable (TrafficQueryError?, [TrafficFlow]?) -> Void
  ) -> TaskHandle {
    run(completion) { () async throws(TrafficQueryError) in
      try await self.queryForFlow(inside: area, queryOptions: queryOptions)
    }
  }

  /// `queryForFlow` without the async wrapper (the HTTP server calls this).
  ///
  /// - Throws: as ``queryForFlow(inside:queryOptions:)``.
  /// - Complexity: as ``queryForFlow(inside:queryOptions:)``.
  ///
  /// - Parameter bounded: Whether more than `limits.maxFlowResults` segments are refused
  ///   (answers); a picture of the area (a tile, a map view) draws them all.
  package func flow(
    inside area: some GeoArea, options: TrafficFlowQueryOptions, bounded: Bool = true
  ) throws(TrafficQueryError) -> [TrafficFlow] {
    try limits.check(area)
    try options.validate()
    guard let flowState else { return [] }
    let now = clock()
    let snapshot =
      options.at.map { flowState.snapshot(at: $0, now: now, incidents: currentSnapshot) }
      ?? flowState.snapshot(now: now, incidents: currentSnapshot)
    let network = flowState.index.network
    let flows = Array(
      flowState.index.segments(meeting: area).lazy
        .map { snapshot.flow(of: network.segments[$0]) }
        .filter { options.matches($0) })
    if bounded { try limits.check(flowResults: flows.count) }
    return flows
  }

  /// When the flow data last changed (HERE v7's `sourceUpdated` of flow responses): the time
  /// of the newest probe or feed observation held, or `nil`; on a remote engine the
  /// server's, as its last flow answer gave it (`nil` before one).
  public var flowLastUpdate: Date? {
    if let remote { return remote.sourceUpdated.withLock { $0.flow } }
    guard let flowState else { return nil }
    return flowState.snapshot(now: clock(), incidents: currentSnapshot).sourceUpdated
  }

  /// The road network flow is computed on, when the engine has one (a remote engine has
  /// none: its server's is not sent).
  public var roadNetwork: RoadNetwork? { flowState?.index.network }

  // MARK: Ingest

  /// Feeds vehicle probes to the flow pipeline: map matching, then aggregation per segment.
  ///
  /// Each probe is ingested once: one whose vehicle already reported its time — in any
  /// earlier batch, and, with a store that keeps flow, in any earlier process or node — is
  /// rejected as a duplicate (``ProbeIngestReport/duplicates``), and one inside a span of
  /// time its vehicle already reported, at a time it did not report, as out of order
  /// (``ProbeIngestReport/outOfOrder``). Probes may come in any order across calls: those
  /// earlier than their vehicle's latest (an earlier trip, an older history file) are matched
  /// on a trace of their own. A probe's position is decided a few probes later (fixed-lag
  /// matching) or when its vehicle goes quiet; ``flushProbes()`` decides all pending
  /// positions at once.
  ///
  /// - Parameter probes: The probes.
  /// - Returns: What happened to them, or an empty report when the engine has no network.
  /// - Complexity: O(p·k·s log s) for p probes, k candidates each, s segments per route
  ///   search. The next read publishes the new values: O(a + v·w) for the a segments with
  ///   live data and v vehicles with w undecided positions each.
  @discardableResult
  public func ingest(probes: [Probe]) -> ProbeIngestReport {
    ingest(probes: probes, flush: false)
  }

  /// Feeds vehicle probes to the flow pipeline, then decides every pending position when
  /// `flush` is set: ``ingest(probes:)`` followed by ``flushProbes()``.
  ///
  /// On a store shared by several nodes (the PostgreSQL store) the batch is first passed on
  /// to the other nodes, which ingest it too, so every node computes flow from all probes.
  /// A batch that cannot be passed on (the database is unreachable) still counts here.
  ///
  /// - Parameters:
  ///   - probes: The probes.
  ///   - flush: Whether to decide every pending position afterwards.
  /// - Returns: What happened to them; `decided` includes the positions the flush decided.
  /// - Complexity: as ``ingest(probes:)``, plus one write to a shared store.
  @discardableResult
  public func ingest(probes: [Probe], flush: Bool) -> ProbeIngestReport {
    ingest(probes: probes, flush: flush, progress: nil)
  }

  /// Decides every pending matched position (for example at the end of a file import) and
  /// publishes the values.
  ///
  /// - Returns: The number of positions decided.
  @discardableResult
  public func flushProbes() -> Int {
    guard let flowState else { return 0 }
    let decided = flowState.flush(now: clock())
    _ = try? saveFlowIfDue()
    return decided
  }

  /// Blends flow observations from feeds (Waze jams, HERE v7 flow) into the segments their
  /// polylines cover (matched to the network); an observation counts for
  /// ``FlowConfiguration/observationLifetimeInSeconds``.
  ///
  /// - Parameter observations: The observations.
  /// - Returns: The number of segments that received an observation.
  @discardableResult
  public func ingest(observations: [FlowObservation]) -> Int {
    guard let flowState else { return 0 }
    let segments = flowState.ingest(observations, now: clock(), incidents: currentSnapshot)
    _ = try? saveFlowIfDue()
    return segments
  }

  /// The flow configuration (matching, window, free flow learning).
  public var flowConfiguration: FlowConfiguration {
    flowState?.configuration ?? FlowConfiguration()
  }

  /// Replaces the flow configuration; probes and observations received so far are dropped.
  ///
  /// - Throws: `TrafficEngineError.invalidConfiguration` for a value out of range.
  public func configureFlow(_ configuration: FlowConfiguration) throws(TrafficEngineError) {
    try configuration.validate()
    try flowState?.configure(configuration)
  }

  // MARK: Traffic on a route

  /// The traffic along a route: spans with their speeds, jam factors and delays, and the
  /// incidents on the route with their offsets.
  ///
  /// The route polyline is sampled every 15 m and map matched to the network; each segment
  /// stretch driven is a span, valued from the current flow. Delay per span is `length /
  /// traffic speed − length / free flow`. Incidents are those active now whose geometry
  /// meets the corridor of `corridorHalfWidthInMeters` around the route; their offset is
  /// where their first point within the corridor projects onto the route.
  ///
  /// Like the other synchronous reads (``roadNetwork``, ``flowLastUpdate``), this reads the
  /// engine's own network, flow and incidents only: a remote engine (``isRemote``) holds
  /// none, so it answers no spans, no incidents and zero durations. Ask
  /// ``queryForTrafficOnRoute(_:corridorHalfWidthInMeters:)``, which asks a remote engine's
  /// server and answers the same as this on an embedded engine.
  ///
  /// - Parameters:
  ///   - route: The route, in driving order.
  ///   - corridorHalfWidthInMeters: How far from the route an incident may be, meters.
  /// - Returns: The spans (none when the engine has no network), incidents and totals.
  /// - Throws: `TrafficQueryError.invalidGeometry` for a negative or non-finite half width.
  /// - Complexity: O(p·k·s log s) to match p samples, plus O(log n + m) for the incidents.
  public func trafficOnRoute(
    _ route: GeoPolyline, corridorHalfWidthInMeters: Double = 30
  ) throws(TrafficQueryError) -> TrafficOnRoute {
    try Self.checkCorridorHalfWidth(corridorHalfWidthInMeters)
    let now = clock()
    let incidentIndex = currentSnapshot
    var valued = TrafficOnRoute(
      spans: [], incidents: [], lengthInMeters: route.lengthInMeters, baseDurationInSeconds: 0,
      trafficDurationInSeconds: 0, totalDelayInSeconds: 0, isBlocked: false)
    if let flowState {
      let snapshot = flowState.snapshot(now: now, incidents: incidentIndex)
      valued = Self.valued(
        flowState.index.pieces(along: route), network: flowState.index.network,
        snapshot: snapshot, lengthInMeters: route.lengthInMeters)
    }
    valued.incidents = Self.incidents(
      along: route, corridorHalfWidthInMeters: corridorHalfWidthInMeters, in: incidentIndex,
      at: now)
    return valued
  }

  /// The traffic along a route, as ``trafficOnRoute(_:corridorHalfWidthInMeters:)``
  /// computes it; a remote engine asks its server (`POST /v1/route/traffic`).
  ///
  /// The answer of a remote engine comes at the precision of the wire: lengths, offsets,
  /// durations and delays to 0.1 (m, s), speeds and confidences to 0.01, jam factors to 0.1;
  /// its spans carry no speed limit nor functional class. The server checks its limits
  /// (points, length, half width) and answers beyond them with the error it names.
  ///
  /// - Parameters:
  ///   - route: The route, in driving order.
  ///   - corridorHalfWidthInMeters: How far from the route an incident may be, meters.
  /// - Returns: The spans (none when the engine or the server has no network), incidents
  ///   and totals.
  /// - Throws: `TrafficQueryError.invalidGeometry` for a negative or non-finite half width
  ///   (before any request), `.operationCancelled` when the task is cancelled; remotely, the
  ///   server's error (`invalidParameter`, `httpError`...) or the transport's
  ///   (`serverUnreachable`, `timedOut`...).
  /// - Complexity: as ``trafficOnRoute(_:corridorHalfWidthInMeters:)``, or one request.
  public func queryForTrafficOnRoute(
    _ route: GeoPolyline, corridorHalfWidthInMeters: Double = 30
  ) async throws(TrafficQueryError) -> TrafficOnRoute {
    guard !Task.isCancelled else { throw .operationCancelled }
    if let remote {
      try Self.checkCorridorHalfWidth(corridorHalfWidthInMeters)
      return try await remote.trafficOnRoute(
        route, corridorHalfWidthInMeters: corridorHalfWidthInMeters)
    }
    return try trafficOnRoute(route, corridorHalfWidthInMeters: corridorHalfWidthInMeters)
  }

  /// `queryForTrafficOnRoute(_:corridorHalfWidthInMeters:)` with a completion handler, as
  /// the other queries.
  ///
  /// - Parameter completion: Called exactly once, from a background task: with the traffic
  ///   on the route, or with the error (`operationCancelled` after `TaskHandle.cancel()`).
  /// - Returns: A handle to cancel the query.
  @discardableResult
  public func queryForTrafficOnRoute(
    _ route: GeoPolyline, corridorHalfWidthInMeters: Double = 30,
    completion: @escaping @Sendable (TrafficQueryError?, TrafficOnRoute?) -> Void
  ) -> TaskHandle {
    run(completion) { () async throws(TrafficQueryError) in
      try await self.queryForTrafficOnRoute(
        route, corridorHalfWidthInMeters: corridorHalfWidthInMeters)
    }
  }

  /// Fails unless `halfWidth` is a finite number of meters >= 0.
  private static func checkCorridorHalfWidth(_ halfWidth: Double) throws(TrafficQueryError) {
    guard halfWidth.isFinite, halfWidth >= 0 else {
      throw .invalidGeometry("corridor half width \(halfWidth) must be >= 0")
    }
  }

  /// The spans of the stretches of segments a route drives, valued from a flow snapshot,
  /// and the route's totals (no incidents).
  ///
  /// A span's length has the way across the junction before it
  /// (``RoadNetwork/junctionGap(from:to:)``, a SUMO network's; 0 on OpenStreetMap's), which
  /// its time counts at its speed: the spans follow one another along the route's geometry,
  /// and their lengths add up to it.
  ///
  /// - Complexity: O(p) for p pieces.
  package static func valued(
    _ pieces: [FlowIndex.Piece], network: RoadNetwork, snapshot: FlowSnapshot,
    lengthInMeters: Double
  ) -> TrafficOnRoute {
    var spans: [TrafficOnRoute.Span] = []
    spans.reserveCapacity(pieces.count)
    var base = 0.0, traffic = 0.0, delay = 0.0
    var blocked = false
    var offset = 0.0
    var previous: Int?
    for piece in pieces {
      let segment = network.segments[piece.segmentID]
      let flow = snapshot.flow(of: segment)
      // The way across the junction before the piece is driven at its speed, and is part of
      // its span.
      let gap =
        previous.map { $0 == segment.id ? 0 : network.junctionGap(from: $0, to: segment.id) } ?? 0
      let length = piece.lengthInMeters + gap
      previous = segment.id
      let free = flow.freeFlowSpeedInMetersPerSecond
      let speed = flow.speedUncappedInMetersPerSecond
      // Closed by an incident or blocked (jam factor 10, which `flow(of:)` gives only with
      // `.closed`); a standstill of the probes is a queue, driven at a crawl.
      let closed = flow.traversability == .closed
      let driven = max(speed, FlowSnapshot.crawlSpeedInMetersPerSecond)
      let baseTime = free > 0 ? length / free : 0
      var spanDelay: Double?
      if closed {
        blocked = true
      } else {
        let time = length / driven
        spanDelay = time - baseTime
        traffic += time
        delay += time - baseTime
      }
      base += baseTime
      spans.append(
        TrafficOnRoute.Span(
          offsetInMeters: offset, lengthInMeters: length, segmentID: segment.id,
          roadName: flow.roadName, baseSpeedInMetersPerSecond: free,
          trafficSpeedInMetersPerSecond: closed ? 0 : driven, jamFactor: flow.jamFactor,
          confidence: flow.confidence, traversability: closed ? .closed : flow.traversability,
          delayInSeconds: spanDelay,
          speedLimitInMetersPerSecond: segment.speedLimitInMetersPerSecond,
          functionalClass: segment.functionalClass))
      offset += length
    }
    return TrafficOnRoute(
      spans: spans, incidents: [], lengthInMeters: lengthInMeters, baseDurationInSeconds: base,
      trafficDurationInSeconds: traffic, totalDelayInSeconds: delay, isBlocked: blocked)
  }

  /// The incidents active at `now` whose geometry meets the corridor around a route, with
  /// where their first point in the corridor projects onto the route, in route order.
  ///
  /// The route is taken in pieces of `IncidentIndex.corridorPieceSegments` segments: an
  /// incident's point in the corridor and its projection are looked for only on the pieces
  /// whose corridor's box holds the point (the nearest route point is within the corridor's
  /// half width), not along the whole route (a route across a town of 20,000 work zones
  /// spent seconds projecting every incident onto every segment). The answer is the whole
  /// route's.
  package static func incidents(
    along route: GeoPolyline, corridorHalfWidthInMeters: Double, in incidentIndex: IncidentIndex,
    at now: Date
  ) -> [TrafficOnRoute.IncidentOnRoute] {
    struct Piece {
      var polyline: GeoPolyline
      var corridor: GeoCorridor
      var offset: Double
    }
    let vertices = route.vertices
    let size = IncidentIndex.corridorPieceSegments
    var pieces: [Piece] = []
    var start = 0, offset = 0.0
    repeat {
      let end = min(start + size, vertices.count - 1)
      let polyline =
        start == 0 && end == vertices.count - 1
        ? route : GeoPolyline(uncheckedVertices: Array(vertices[start...end]))
      guard
        let corridor = try? GeoCorridor(
          polyline: polyline.vertices, halfWidthInMeters: corridorHalfWidthInMeters)
      else { return [] }
      pieces.append(Piece(polyline: polyline, corridor: corridor, offset: offset))
      // Summed as `closestPoint` sums its distances along, segment by segment.
      for k in start..<end { offset += vertices[k].distance(to: vertices[k + 1]) }
      start = end
    } while start < vertices.count - 1
    // The pieces whose corridor may hold `point`.
    func near(_ point: GeoCoordinates) -> [Piece] {
      pieces.filter { $0.corridor.boundingBox.contains(point) }
    }
    var onRoute: [TrafficOnRoute.IncidentOnRoute] = []
    var seen = Set<Int>()
    for piece in pieces {
      for position in incidentIndex.positions(meeting: piece.corridor)
      where seen.insert(position).inserted {
        let incident = incidentIndex.incidents[position]
        guard incident.isActive(at: now) else { continue }
        let points = incident.location.allPolylines.flatMap(\.vertices)
        let within = points.first { point in near(point).contains { $0.corridor.contains(point) } }
        let inside = within ?? points[0]
        // The nearest point of the route: for a point in the corridor, within the half
        // width, so on a piece whose corridor's box holds the point; else on any piece (an
        // incident crossing the corridor between its points).
        var best: (distance: Double, along: Double)?
        for candidate in within == nil ? pieces : near(inside) {
          let closest = candidate.polyline.closestPoint(to: inside)
          if best.map({ closest.distanceInMeters < $0.distance }) ?? true {
            best = (closest.distanceInMeters, candidate.offset + closest.distanceAlongInMeters)
          }
        }
        onRoute.append(
          TrafficOnRoute.IncidentOnRoute(incident: incident, offsetInMeters: best?.along ?? 0))
      }
    }
    onRoute.sort {
      ($0.offsetInMeters, $0.incident.originalId) < ($1.offsetInMeters, $1.incident.originalId)
    }
    return onRoute
  }

  // MARK: Routing

  /// What a router reads at one moment: the network and its turn tables, the flow snapshot
  /// and the incidents; `nil` when the engine has no road network.
  ///
  /// - Parameter time: `nil` for the current picture; another time for the typical picture
  ///   of that time (no live values, the closures active then; see
  ///   `TrafficFlowQueryOptions.at`).
  package func routingView(at time: Date? = nil) -> RoutingView? {
    guard let flowState else { return nil }
    let now = clock()
    let incidents = currentSnapshot
    let flow =
      time.map { flowState.snapshot(at: $0, now: now, incidents: incidents) }
      ?? flowState.snapshot(now: now, incidents: incidents)
    return RoutingView(
      now: now, network: flowState.index.network, graph: flowState.index.polylineMatcher.graph,
      flow: flow, incidents: incidents)
  }
}

/// One consistent picture for routing (see `TrafficEngine.routingView()`).
package struct RoutingView: Sendable {
  /// The engine's time when the view was taken.
  package let now: Date
  package let network: RoadNetwork
  /// The turn successors of each segment.
  package let graph: MatchingGraph
  /// Live, free-flow and closed segments.
  package let flow: FlowSnapshot
  /// The incidents.
  package let incidents: IncidentIndex
}
