import Foundation
import Geo
import Roads
import Synchronization
import Testing
import Traffic
import TrafficTestSupport

/// Road networks and probe drives for the network and flow tests of the SQLite store.
enum NetworkFixtures {
  static let start = Date(timeIntervalSince1970: 1_800_000_000)

  /// A clock tests move by hand.
  final class Clock: Sendable {
    private let time = Mutex(NetworkFixtures.start)
    var now: Date { time.withLock { $0 } }
    func set(_ date: Date) { time.withLock { $0 = date } }
    func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
  }

  /// A `size` × `size` grid of junctions 300 m apart near Vaduz, joined by two-way roads
  /// (each direction a segment), with names, refs, lanes and classes varying by road.
  static func grid(size: Int = 4) throws -> RoadNetwork {
    let step = 300.0 / 111_200
    var nodes: [RoadNode] = []
    for row in 0..<size {
      for column in 0..<size {
        nodes.append(
          RoadNode(
            id: nodes.count, sourceID: "\(row * 100 + column)",
            coordinates: try GeoCoordinates(
              latitude: 47.1 + Double(row) * step, longitude: 9.5 + Double(column) * step * 1.47)))
      }
    }
    var segments: [RoadSegment] = []
    func road(_ a: Int, _ b: Int) throws {
      let id = segments.count
      let k = id / 2
      let middle = try GeoCoordinates(
        latitude: (nodes[a].coordinates.latitude + nodes[b].coordinates.latitude) / 2 + 0.0001,
        longitude: (nodes[a].coordinates.longitude + nodes[b].coordinates.longitude) / 2)
      let line = try GeoPolyline(vertices: [nodes[a].coordinates, middle, nodes[b].coordinates])
      let roadClass: RoadClass = k % 3 == 0 ? .primary : k % 3 == 1 ? .residential : .secondary
      let limit = SpeedLimit(metersPerSecond: k % 2 == 0 ? 13.89 : 22.22, source: .posted)
      for (direction, geometry) in [line, try GeoPolyline(vertices: line.vertices.reversed())]
        .enumerated()
      {
        segments.append(
          RoadSegment(
            id: id + direction, sourceID: "\(5000 + k)", fromNode: direction == 0 ? a : b,
            toNode: direction == 0 ? b : a, geometry: geometry,
            name: k % 4 == 3 ? nil : "Strasse \(k)", ref: k % 5 == 0 ? "\(k)" : nil,
            roadClass: roadClass, speedLimit: limit, laneCount: k % 2 == 0 ? 1 : nil,
            isReversed: direction == 1, oppositeID: id + 1 - direction))
      }
    }
    for row in 0..<size {
      for column in 0..<size {
        let here = row * size + column
        if column + 1 < size { try road(here, here + 1) }
        if row + 1 < size { try road(here, here + size) }
      }
    }
    return try RoadNetwork(nodes: nodes, segments: segments)
  }

  /// The Liechtenstein network (`Tests/Fixtures/osm`); `nil` only if its import fails.
  static let liechtenstein: RoadNetwork? = try? OSMImporter.importNetwork(
    from: Fixtures.liechtenstein(), options: OSMImportOptions(countryCode: "LI"))

  /// A path of up to `count` connected segments starting with `first`, never turning back.
  static func path(from first: Int, count: Int, in network: RoadNetwork) -> [Int] {
    var path = [first]
    var visited: Set<Int> = [network.segments[first].fromNode]
    while path.count < count, let last = path.last {
      let segment = network.segments[last]
      visited.insert(segment.toNode)
      guard
        let next = network.segments.first(where: {
          $0.fromNode == segment.toNode && !visited.contains($0.toNode)
        })
      else { break }
      path.append(next.id)
    }
    return path
  }

  /// Probes of one vehicle driving `path` at `speed`, one every 5 s, the last at `end`.
  static func drive(
    _ vehicleID: String, path: [Int], speed: Double, end: Date, network: RoadNetwork
  ) -> [Probe] {
    let lengths = path.map { network.segments[$0].lengthInMeters }
    let total = lengths.reduce(0, +)
    let count = Int(total / (speed * 5))
    var probes: [Probe] = []
    for k in 0...count {
      var along = Double(k) * speed * 5
      var index = 0
      while index < lengths.count - 1, along > lengths[index] {
        along -= lengths[index]
        index += 1
      }
      let segment = network.segments[path[index]]
      probes.append(
        Probe(
          vehicleID: vehicleID, time: end - Double(count - k) * 5,
          coordinates: segment.geometry.coordinates(atDistance: along),
          speedInMetersPerSecond: speed))
    }
    return probes
  }

  /// Short history buckets, so that free flow is learned within a test's half hour.
  static func configuration() -> FlowConfiguration {
    var configuration = FlowConfiguration()
    configuration.historyBucketInSeconds = 60
    configuration.minimumHistoryBuckets = 3
    return configuration
  }

  /// Half an hour of fleets on two paths (free flow learned on the first, a jam on the
  /// second at the end), then a feed observation on a third segment.
  static func drive(
    _ engine: TrafficEngine, clock: Clock, paths: [[Int]], observed: Int
  ) throws {
    let network = try #require(engine.roadNetwork)
    for round in 0..<6 {
      let end = start + Double(round) * 120
      clock.set(end)
      engine.ingest(
        probes: (0..<2).flatMap { vehicle in
          drive(
            "r\(round)-\(vehicle)", path: paths[0], speed: 11 - Double(vehicle),
            end: end - Double(vehicle) * 9, network: network)
        })
      engine.flushProbes()
    }
    let end = start + 900
    clock.set(end)
    engine.ingest(
      probes: (0..<3).flatMap { vehicle in
        drive(
          "jam-\(vehicle)", path: paths[1], speed: 3 + Double(vehicle),
          end: end - Double(vehicle) * 7,
          network: network)
      })
    engine.flushProbes()
    engine.ingest(observations: [
      FlowObservation(
        polyline: network.segments[observed].geometry, speedInMetersPerSecond: 2.5,
        time: end - 20)
    ])
  }

  /// A box holding every segment of `network`.
  static func everywhere(_ network: RoadNetwork) throws -> GeoBox {
    let box = try #require(GeoBox.enclosing(network.nodes.map(\.coordinates)))
    return box.expandedUnchecked(byMeters: 100)
  }
}
