import Dispatch
import Foundation
import Geo
import Roads
import Synchronization
import Traffic

/// Travel-time matrices: the fastest routes from many origins to many destinations, on the
/// same picture of the engine as routes; one time-dependent search per origin
/// (``RouteSearch/fastestToEach(from:to:times:scratch:)``) for small tables, the bucket
/// search on the routing hierarchy (``BucketTable``) for large ones.
extension RoutingEngine {
  /// The seconds and meters of the fastest route from each origin to each destination.
  ///
  /// A small table (fewer than ``bucketTableWork`` origins × network segments, or a network
  /// whose segments leave out the ways across junctions) gets each cell as
  /// ``calculateRoute(from:to:via:options:)`` would find it: the same snapping (within 15 m
  /// of the nearest road, 100 m for a pair without a route there; a heading picks the side
  /// of the road), time-dependent speeds (each segment at its speed when it is reached),
  /// turn rules and closures.
  ///
  /// A large one (100 × 100 on a region-size network, where one search per origin settles
  /// most of the network each) is answered as OSRM's table and HERE's matrix without
  /// time-dependence are: every cell drives each segment at its speed *at the departure*
  /// (the live picture then, closures applied, for the whole trip), on the routing
  /// hierarchy customised with those seconds (once per flow snapshot and departure minute;
  /// on a large network a customisation at most five minutes older answers while the next
  /// is made in the background, so a live speed change reaches tables within the flow
  /// refresh and a customisation, a second or two). Its ways follow the node graph, which
  /// knows no turn rules: they may turn where a restriction forbids it or turn back at a
  /// junction where a route would go round, so a cell is never slower than the route's on
  /// the same speeds, and on free flow almost always equal. The snapping is the same.
  /// Before the network's hierarchy is built (in the background on a large network), a
  /// table of at least ``originsWorthTheHierarchy`` origins waits for it; a smaller one is
  /// searched per origin.
  ///
  /// - Throws: ``RoutingError/placeOffNetwork(index:_:radiusInMeters:)`` for a waypoint off
  ///   the network (its index counts the origins, then the destinations);
  ///   ``RoutingError/invalidOption(_:)`` for no origins or destinations, more than
  ///   ``RouteMatrix/maximumCells`` cells, an option a matrix cannot honour (alternatives,
  ///   an arrival time, the shortest routes), or a stop or pass-through waypoint.
  ///
  /// A remote engine asks its server (`POST /v8/matrix?async=false`, HERE Matrix Routing
  /// v8): the seconds and meters come rounded to whole ones, the places as the points
  /// asked for (v8 answers have no snapped places), without headings (a waypoint with one
  /// is refused); the server's failures are ``RoutingError/remote(_:)`` (no road network
  /// there: ``RoutingError/noRoadNetwork``), a waypoint it cannot match
  /// ``RoutingError/placeOffNetwork(index:_:radiusInMeters:)``, and no traffic at all
  /// (``RouteOptions/TrafficOptimization/disabled``) cannot be asked of it.
  public func calculateMatrix(
    origins: [Waypoint], destinations: [Waypoint], options: RouteOptions = RouteOptions()
  ) async throws(RoutingError) -> RouteMatrix {
    if trafficEngine.isRemote {
      try Self.validateMatrix(
        origins: origins, destinations: destinations, options: options,
        maximumCells: RouteMatrix.maximumCells)
      return try await remoteMatrix(
        origins: origins, destinations: destinations, options: options)
    }
    return try matrix(origins: origins, destinations: destinations, options: options)
  }

  /// The seconds and meters of the fastest route from each origin to each destination, in
  /// any direction of travel there.
  ///
  /// - Throws: ``RoutingError`` as the matrix of ``Waypoint``s.
  public func calculateMatrix(
    origins: [GeoCoordinates], destinations: [GeoCoordinates],
    options: RouteOptions = RouteOptions()
  ) async throws(RoutingError) -> RouteMatrix {
    try await calculateMatrix(
      origins: origins.map { Waypoint($0) }, destinations: destinations.map { Waypoint($0) },
      options: options)
  }

  /// ``calculateMatrix(origins:destinations:options:)`` on the caller's thread (the HTTP
  /// server's), with a limit of `maximumCells` cells.
  ///
  /// - Parameter method: How the cells are searched (``MatrixMethod/automatic``: the rule of
  ///   ``calculateMatrix(origins:destinations:options:)``).
  /// - Parameter snappingRadii: how far each waypoint's road may be, meters (the origins',
  ///   then the destinations'; none: ``snappingRadiusInMeters``).
  package func matrix(
    origins: [Waypoint], destinations: [Waypoint], options: RouteOptions,
    maximumCells: Int = RouteMatrix.maximumCells, method: MatrixMethod = .automatic,
    snappingRadii: [Double?] = []
  ) throws(RoutingError) -> RouteMatrix {
    try computeMatrix(
      origins: origins, destinations: destinations, options: options,
      maximumCells: maximumCells, excluding: nil, method: method, snappingRadii: snappingRadii
    ).matrix
  }

  /// ``matrix(origins:destinations:options:maximumCells:)`` that leaves out, rather than
  /// fails on, the waypoints it cannot route: those of `excluding` (their indices count the
  /// origins, then the destinations) and those off the network. Their cells are `nil`, their
  /// places where they were asked for, at an infinite distance from the road.
  ///
  /// - Returns: The matrix, and the indices of the waypoints left out (`excluding` and those
  ///   off the network).
  package func matrix(
    origins: [Waypoint], destinations: [Waypoint], options: RouteOptions,
    maximumCells: Int = RouteMatrix.maximumCells, excluding: Set<Int>
  ) throws(RoutingError) -> (matrix: RouteMatrix, unmatched: Set<Int>) {
    try computeMatrix(
      origins: origins, destinations: destinations, options: options,
      maximumCells: maximumCells, excluding: excluding, method: .automatic, snappingRadii: [])
  }

  /// The matrix; `excluding` `nil`: a waypoint off the network fails it.
  private func computeMatrix(
    origins: [Waypoint], destinations: [Waypoint], options: RouteOptions,
    maximumCells: Int, excluding: Set<Int>?, method: MatrixMethod, snappingRadii: [Double?]
  ) throws(RoutingError) -> (matrix: RouteMatrix, unmatched: Set<Int>) {
    try Self.validateMatrix(
      origins: origins, destinations: destinations, options: options, maximumCells: maximumCells)
    guard let current = trafficEngine.routingView() else { throw .noRoadNetwork }
    let departure = options.departureTime ?? current.now
    // As for routes: beyond the live horizon (or as far in the past), the typical picture
    // of the departure's time.
    var later: RoutingView?
    if abs(departure.timeIntervalSince(current.now)) > TravelTimes.typicalHorizon,
      options.trafficOptimization != .disabled
    {
      later = trafficEngine.routingView(at: departure)
    }
    let view = later ?? current
    let gapped = hasJunctionGaps(view)
    let bucketed =
      method == .buckets
      || (method == .automatic && !gapped
        && Self.usesBuckets(origins: origins.count, segments: view.network.segments.count))
    let bounds = bucketed ? bucketBounds(for: view, origins: origins.count) : bounds(for: view)
    var travel = TravelTimes(
      view: view, departure: departure,
      usesTraffic: options.trafficOptimization == .timeDependent,
      closures: Self.closures(options),
      // The table routes use (with bounds, their caps), so that the speeds are the same.
      segments: bounds?.segments ?? plainSegments(view))
    let excluded = excludedSegments(options.avoidedFeatures, view: view)
    travel.excluded = excluded
    let closed = Self.closedSegments(Self.closures(options), view: view)
    let times = travel
    let all = origins + destinations
    let limits = all.indices.map { $0 < snappingRadii.count ? snappingRadii[$0] : nil }
    // The roads near each waypoint, measured once (on every core) for both looks below.
    let nearby = NearbyRoads(
      all.map(\.coordinates), limits: limits, defaultLimit: snappingRadiusInMeters,
      skipping: excluding ?? [], network: view.network)
    // As for routes: a waypoint in a tiny part of the network takes a big one's road.
    let big = snapsToBigComponents(
      all.map(\.coordinates), view: view, limits: limits, skipping: excluding ?? [],
      excluded: excluded, closed: closed, nearby: nearby)
    var snapped: [[Snap]] = []
    snapped.reserveCapacity(all.count)
    var skipped = Set<Int>()
    for index in all.indices {
      if excluding?.contains(index) == true {
        snapped.append([])
        skipped.insert(index)
        continue
      }
      do throws(RoutingError) {
        snapped.append(
          try snap(
            all[index], index: index, view: view, within: 15, arriving: index >= origins.count,
            limit: limits[index], bigComponent: big[index], excluded: excluded,
            closed: closed, nearby: nearby))
      } catch {
        guard excluding != nil, case .placeOffNetwork = error else { throw error }
        snapped.append([])
        skipped.insert(index)
      }
    }
    let narrow = snapped
    let unmatched = skipped
    if bucketed, let bounds {
      let weights = tableWeights(times: times, bounds: bounds, departure: departure)
      let columns = origins.count..<all.count
      var found = bucketRows(
        sources: Array(narrow[..<origins.count]), targets: Array(narrow[columns]), times: times,
        weights: weights)
      // The pairs without a way again from the roads within 100 m, as for a route's leg.
      let rows = found.indices.filter { found[$0].contains(nil) }
      let missing = destinations.indices.filter { column in
        rows.contains { found[$0][column] == nil }
      }
      if !rows.isEmpty {
        func widened(_ index: Int) -> [Snap] {
          if unmatched.contains(index) { return [] }
          return
            (try? snap(
              all[index], index: index, view: view, within: 100, arriving: index >= origins.count,
              limit: limits[index], bigComponent: big[index], excluded: excluded,
              closed: closed))
            ?? narrow[index]
        }
        let retried = bucketRows(
          sources: rows.map(widened), targets: missing.map { widened(origins.count + $0) },
          times: times, weights: weights)
        for (k, row) in rows.enumerated() {
          for (j, column) in missing.enumerated() where found[row][column] == nil {
            found[row][column] = retried[k][j]
          }
        }
      }
      return (
        matrix(found, origins: origins, destinations: destinations, narrow: narrow, view: view),
        unmatched
      )
    }
    // The rows on every core, each worker with its own scratch, every `workers`-th row.
    let rows = Mutex([[RouteSearch.Reached?]](repeating: [], count: origins.count))
    let workers = max(1, min(origins.count, ProcessInfo.processInfo.activeProcessorCount))
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
      let scratch = takeScratch(segmentCount: view.network.segments.count)
      defer { returnScratch(scratch) }
      // Wider snaps for the pairs whose nearest roads lead nowhere, as for a route's leg.
      var wide: [Int: [Snap]] = [:]
      func widened(_ index: Int) -> [Snap] {
        if let known = wide[index] { return known }
        if unmatched.contains(index) { return [] }
        let made =
          (try? snap(
            all[index], index: index, view: view, within: 100, arriving: index >= origins.count,
            limit: limits[index], bigComponent: big[index], excluded: excluded,
            closed: closed))
          ?? narrow[index]
        wide[index] = made
        return made
      }
      let columns = origins.count..<all.count
      for row in stride(from: worker, to: origins.count, by: workers) {
        guard !unmatched.contains(row) else {
          rows.withLock { $0[row] = Array(repeating: nil, count: destinations.count) }
          continue
        }
        var found = RouteSearch.fastestToEach(
          from: narrow[row], to: columns.map { narrow[$0] }, times: times,
          junctionGaps: gapped, scratch: scratch)
        let missing = found.indices.filter { found[$0] == nil }
        if !missing.isEmpty {
          let retried = RouteSearch.fastestToEach(
            from: widened(row), to: missing.map { widened(columns.lowerBound + $0) },
            times: times, junctionGaps: gapped, scratch: scratch)
          for (column, reached) in zip(missing, retried) { found[column] = reached }
        }
        rows.withLock { $0[row] = found }
      }
    }
    return (
      matrix(
        rows.withLock { $0 }, origins: origins, destinations: destinations, narrow: narrow,
        view: view),
      unmatched
    )
  }

  /// The matrix of the cells found, with the places where the origins and destinations
  /// meet the network (their nearest snaps; a waypoint left out where it was asked for, at
  /// an infinite distance from the road).
  private func matrix(
    _ found: [[RouteSearch.Reached?]], origins: [Waypoint], destinations: [Waypoint],
    narrow: [[Snap]], view: RoutingView
  ) -> RouteMatrix {
    let all = origins + destinations
    func place(_ index: Int) -> RouteMatrix.Place {
      guard let nearest = narrow[index].first else {
        return RouteMatrix.Place(
          location: all[index].coordinates, originalLocation: all[index].coordinates,
          distanceInMeters: .infinity)
      }
      let segment = view.network.segments[nearest.segmentID]
      return RouteMatrix.Place(
        location: nearest.point, originalLocation: all[index].coordinates,
        distanceInMeters: nearest.distanceInMeters, roadName: segment.name ?? segment.ref)
    }
    return RouteMatrix(
      travelTimesInSeconds: found.map { $0.map { $0?.seconds } },
      distancesInMeters: found.map { $0.map { $0?.meters } },
      origins: origins.indices.map(place), destinations: (origins.count..<all.count).map(place))
  }

  /// Checks a matrix's size, waypoints and options.
  static func validateMatrix(
    origins: [Waypoint], destinations: [Waypoint], options: RouteOptions, maximumCells: Int
  ) throws(RoutingError) {
    try options.validateTimes()
    guard !origins.isEmpty, !destinations.isEmpty else {
      throw .invalidOption(
        "a matrix needs at least one origin and one destination, got \(origins.count) "
          + "origins and \(destinations.count) destinations")
    }
    guard origins.count * destinations.count <= maximumCells else {
      throw .invalidOption(
        "a matrix of \(origins.count) origins × \(destinations.count) destinations has "
          + "\(origins.count * destinations.count) cells, more than the \(maximumCells) allowed")
    }
    guard options.alternatives == 0, options.arrivalTime == nil, options.routingMode == .fast
    else {
      throw .invalidOption(
        "a matrix is of the fastest routes from a departure time: no alternatives, arrival "
          + "time or shortest routes")
    }
    for (index, waypoint) in (origins + destinations).enumerated() {
      let name = index < origins.count ? "origin \(index)" : "destination \(index - origins.count)"
      guard waypoint.stopDurationInSeconds == 0, !waypoint.isPassThrough else {
        throw .invalidOption("\(name) cannot have a stop or be passed through")
      }
      try Waypoint.validate(
        heading: waypoint.headingInDegrees, range: waypoint.headingRangeInDegrees, name: name)
    }
  }
}
