import Foundation
import Geo
import Roads
import Synchronization
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficRouting

/// The bucket search of large travel-time tables (forced here on small networks) against an
/// independent reference: a plain Dijkstra over the node graph with each segment's seconds
/// at the departure; beside the exact time-dependent table on free flow; and on live
/// traffic after a flow refresh.
@Suite struct BucketMatrixTests {
  /// One cell of the reference: least seconds, the meters of that way, and whether another
  /// way within a microsecond has other meters (then the meters are not compared).
  struct Cell {
    var seconds: Double
    var meters: Double
    var tied: Bool
  }

  struct Entry {
    var seconds: Double
    var node: Int
  }

  /// A binary min-heap of entries by seconds.
  struct Frontier {
    var entries: [Entry] = []

    mutating func insert(_ entry: Entry) {
      entries.append(entry)
      var k = entries.count - 1
      while k > 0, entries[(k - 1) / 2].seconds > entries[k].seconds {
        entries.swapAt(k, (k - 1) / 2)
        k = (k - 1) / 2
      }
    }

    mutating func popFirst() -> Entry? {
      guard !entries.isEmpty else { return nil }
      entries.swapAt(0, entries.count - 1)
      let first = entries.removeLast()
      var k = 0
      while true {
        var least = k
        for child in [2 * k + 1, 2 * k + 2]
        where child < entries.count && entries[child].seconds < entries[least].seconds {
          least = child
        }
        if least == k { return first }
        entries.swapAt(k, least)
        k = least
      }
    }
  }

  /// The reference table: for each origin a Dijkstra over the nodes from its snaps' segment
  /// ends (after the rest of the segment), each destination reached at its snaps' segment
  /// starts plus the part before them, or along an origin's segment; `seconds[id]` per
  /// segment (`nil`: not driven).
  static func reference(
    origins: [[Snap]], destinations: [[Snap]], network: RoadNetwork, seconds: [Double?]
  ) -> [[Cell?]] {
    var leaving = [[Int]](repeating: [], count: network.nodes.count)
    for (id, segment) in network.segments.enumerated() where seconds[id] != nil {
      leaving[segment.fromNode].append(id)
    }
    let tolerance = 1e-6
    func better(_ cell: Cell, than known: Cell?) -> Cell {
      guard let known else { return cell }
      if abs(cell.seconds - known.seconds) <= tolerance {
        let tied = known.tied || cell.tied || abs(cell.meters - known.meters) > 1e-6
        let kept = cell.seconds < known.seconds ? cell : known
        return Cell(seconds: kept.seconds, meters: kept.meters, tied: tied)
      }
      return cell.seconds < known.seconds ? cell : known
    }
    return origins.map { sources in
      var best = [Cell?](repeating: nil, count: network.nodes.count)
      var done = [Bool](repeating: false, count: network.nodes.count)
      var heap = Frontier()
      for snap in sources {
        guard let whole = seconds[snap.segmentID] else { continue }
        let segment = network.segments[snap.segmentID]
        let rest = max(0, segment.lengthInMeters - snap.offsetInMeters)
        let cell = Cell(seconds: whole * rest / segment.lengthInMeters, meters: rest, tied: false)
        best[segment.toNode] = better(cell, than: best[segment.toNode])
        heap.insert(Entry(seconds: cell.seconds, node: segment.toNode))
      }
      while let entry = heap.popFirst() {
        guard !done[entry.node], let here = best[entry.node] else { continue }
        done[entry.node] = true
        for id in leaving[entry.node] {
          let segment = network.segments[id]
          guard let time = seconds[id] else { continue }
          let cell = Cell(
            seconds: here.seconds + time, meters: here.meters + segment.lengthInMeters,
            tied: here.tied)
          guard !done[segment.toNode] else { continue }
          let before = best[segment.toNode]
          best[segment.toNode] = better(cell, than: before)
          if before.map({ cell.seconds < $0.seconds }) ?? true {
            heap.insert(Entry(seconds: cell.seconds, node: segment.toNode))
          }
        }
      }
      return destinations.map { targets in
        var cell: Cell?
        for target in targets {
          guard let whole = seconds[target.segmentID] else { continue }
          let segment = network.segments[target.segmentID]
          let part = whole * target.offsetInMeters / segment.lengthInMeters
          if let start = best[segment.fromNode] {
            cell = better(
              Cell(
                seconds: start.seconds + part, meters: start.meters + target.offsetInMeters,
                tied: start.tied), than: cell)
          }
          for source in sources
          where source.segmentID == target.segmentID
            && target.offsetInMeters >= source.offsetInMeters
          {
            let meters = target.offsetInMeters - source.offsetInMeters
            cell = better(
              Cell(seconds: whole * meters / segment.lengthInMeters, meters: meters, tied: false),
              than: cell)
          }
        }
        return cell
      }
    }
  }

  /// Every cell of the bucket table of `points` to `points` on `router` against the
  /// reference over the seconds `router`'s tables drive at now; the number of cells with a
  /// way, and of those whose meters were compared.
  @discardableResult
  static func expectReference(
    _ matrix: RouteMatrix, points: [GeoCoordinates], router: RoutingEngine
  ) throws -> (reached: Int, meters: Int) {
    let view = try #require(router.trafficEngine.routingView())
    let bounds = try #require(router.bounds(for: view))
    let times = TravelTimes(
      view: view, departure: view.now, usesTraffic: true, closures: .all,
      segments: bounds.segments)
    let network = view.network
    let seconds = network.segments.map { times.seconds($0.id, meters: $0.lengthInMeters) }
    func snaps(within meters: Double) throws -> [[Snap]] {
      try points.enumerated().map { index, point in
        try router.snap(
          point, index: index, view: view, within: meters, heading: nil, arriving: false)
      }
    }
    let narrow = reference(
      origins: try snaps(within: 15), destinations: try snaps(within: 15), network: network,
      seconds: seconds)
    let wide = reference(
      origins: try snaps(within: 100), destinations: try snaps(within: 100), network: network,
      seconds: seconds)
    var reached = 0
    var compared = 0
    for row in points.indices {
      for column in points.indices {
        let expected = narrow[row][column] ?? wide[row][column]
        let found = matrix.travelTimesInSeconds[row][column]
        guard let expected else {
          #expect(found == nil, "\(row) to \(column): the reference found none")
          continue
        }
        reached += 1
        let foundSeconds = try #require(found, "\(row) to \(column): the reference found one")
        #expect(
          abs(foundSeconds - expected.seconds) <= 1e-6,
          "\(row) to \(column): \(foundSeconds) s, the reference \(expected.seconds) s")
        if !expected.tied {
          compared += 1
          let meters = try #require(matrix.distancesInMeters[row][column])
          #expect(
            abs(meters - expected.meters) <= 1e-6 * max(1, expected.meters),
            "\(row) to \(column): \(meters) m, the reference \(expected.meters) m")
        }
      }
    }
    return (reached, compared)
  }

  static func randomPoints(_ network: RoadNetwork, count: Int, seed: UInt64) -> [GeoCoordinates] {
    var generator = SeededGenerator(seed: seed)
    return (0..<count).map { _ in
      let segment = network.segments[Int.random(in: 0..<network.segments.count, using: &generator)]
      return segment.geometry.coordinates(
        atDistance: Double.random(in: 0...1, using: &generator) * segment.lengthInMeters)
    }
  }

  @Test("on a real network every bucket cell is the reference's over the seconds at departure")
  func bucketCellsAreTheReference() async throws {
    let network = try #require(RoutingEngineTests.liechtenstein)
    let router = RoutingEngine(trafficEngine: try RoutingEngineTests.engine(network: network))
    let points = Self.randomPoints(network, count: 30, seed: 12)
    let waypoints = points.map { Waypoint($0) }
    let matrix = try router.matrix(
      origins: waypoints, destinations: waypoints, options: RouteOptions(), method: .buckets)
    let (reached, meters) = try Self.expectReference(matrix, points: points, router: router)
    print("buckets against the reference: \(reached) cells with a way, \(meters) meters compared")
    #expect(reached > 500)
    #expect(meters > reached / 2)
  }

  @Test("on free flow the bucket cells are the exact ones but where a turn rule forbids the way")
  func bucketCellsAgreeWithTheExactOnFreeFlow() async throws {
    let network = try #require(RoutingEngineTests.liechtenstein)
    let router = RoutingEngine(trafficEngine: try RoutingEngineTests.engine(network: network))
    let points = Self.randomPoints(network, count: 30, seed: 5)
    let waypoints = points.map { Waypoint($0) }
    let exact = try router.matrix(
      origins: waypoints, destinations: waypoints, options: RouteOptions(), method: .exact)
    let buckets = try router.matrix(
      origins: waypoints, destinations: waypoints, options: RouteOptions(), method: .buckets)
    var equal = 0
    var both = 0
    for row in points.indices {
      for column in points.indices {
        let bucket = buckets.travelTimesInSeconds[row][column]
        guard let seconds = exact.travelTimesInSeconds[row][column] else { continue }
        // The node graph allows every way the turn rules do: never slower, never none.
        let found = try #require(bucket, "\(row) to \(column): the exact search found one")
        #expect(found <= seconds + 1e-6, "\(row) to \(column): \(found) s, exact \(seconds) s")
        both += 1
        if abs(found - seconds) <= 1e-6 * max(1, seconds) { equal += 1 }
      }
    }
    print("free flow: \(equal) of \(both) bucket cells equal the exact ones")
    #expect(both > 500)
    // Measured: the others turn back at a junction (a U-turn a route does not make) or
    // where a turn restriction forbids it.
    #expect(Double(equal) >= 0.9 * Double(both))
  }

  @Test("a live queue slows the bucket cells through it once the flow is refreshed")
  func liveTrafficReachesBucketTables() async throws {
    let network = try CrossingNetwork.network()
    let now = RoutingEngineTests.now
    let clock = Mutex(now.addingTimeInterval(-600))
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { clock.withLock { $0 } }, network: network)
    let router = RoutingEngine(trafficEngine: engine)
    let points = RouteMatrixTests.crossingPoints
    let waypoints = points.map { Waypoint($0) }
    let free = try router.matrix(
      origins: waypoints, destinations: waypoints, options: RouteOptions(), method: .buckets)
    try Self.expectReference(free, points: points, router: router)

    // Three vehicles drive from W onto B→E and stand 200 m into it for ten minutes.
    clock.withLock { $0 = now }
    engine.ingest(probes: RoutingEngineTests.standingQueueProbes(endingAt: now))
    let jammed = try router.matrix(
      origins: waypoints, destinations: waypoints, options: RouteOptions(), method: .buckets)
    try Self.expectReference(jammed, points: points, router: router)
    let before = try #require(free.travelTimesInSeconds[0][1])
    let after = try #require(jammed.travelTimesInSeconds[0][1])
    #expect(after > before + 500)
    #expect(jammed.travelTimesInSeconds[1][0] == free.travelTimesInSeconds[1][0])
    // As the exact table drives it (live speeds count fully for the first 15 minutes).
    let exact = try router.matrix(
      origins: waypoints, destinations: waypoints, options: RouteOptions(), method: .exact)
    let exactSeconds = try #require(exact.travelTimesInSeconds[0][1])
    #expect(abs(after - exactSeconds) <= 1e-6 * exactSeconds)
  }

  @Test("on a large network a new flow snapshot is customised in the background, then used")
  func weightsRefreshInTheBackground() async throws {
    let network = try CrossingNetwork.network()
    let now = RoutingEngineTests.now
    let clock = Mutex(now)
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { clock.withLock { $0 } }, network: network)
    let router = RoutingEngine(trafficEngine: engine)
    func weights() throws -> (TableWeights, TravelTimes) {
      let view = try #require(engine.routingView())
      let bounds = try #require(router.bounds(for: view))
      let times = TravelTimes(
        view: view, departure: view.now, usesTraffic: true, closures: .all,
        segments: bounds.segments)
      // Every network counts as large here.
      return (
        router.tableWeights(times: times, bounds: bounds, departure: view.now, backgroundFrom: 0),
        times
      )
    }
    // None cached: customised at once.
    let (first, times) = try weights()
    #expect(first.fits(times, bounds: first.bounds, departure: now))
    #expect(try weights().0 === first)
    // A minute on, a new flow snapshot: the cached weights answer while the next are made.
    clock.withLock { $0 = now.addingTimeInterval(60) }
    let (stale, later) = try weights()
    #expect(stale === first)
    #expect(!stale.fits(later, bounds: first.bounds, departure: now.addingTimeInterval(60)))
    var fresh = stale
    for _ in 0..<500 where fresh === first {
      try await Task.sleep(for: .milliseconds(10))
      fresh = try weights().0
    }
    #expect(fresh !== first)
    #expect(fresh.fits(later, bounds: first.bounds, departure: now.addingTimeInterval(60)))
    // Ten minutes on: too far from the cached ones, customised at once.
    clock.withLock { $0 = now.addingTimeInterval(660) }
    let (far, farTimes) = try weights()
    #expect(far.fits(farTimes, bounds: first.bounds, departure: now.addingTimeInterval(660)))
  }

  @Test("large tables use the bucket search, small ones the exact one")
  func methodRule() {
    #expect(!RoutingEngine.usesBuckets(origins: 100, segments: 5_391))
    #expect(!RoutingEngine.usesBuckets(origins: 10, segments: 50_000))
    #expect(RoutingEngine.usesBuckets(origins: 1, segments: 2_161_720))
    #expect(RoutingEngine.usesBuckets(origins: 100, segments: 100_000))
  }
}
