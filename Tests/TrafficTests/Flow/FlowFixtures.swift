import Foundation
import Roads
import Synchronization
import Traffic
import TrafficTestSupport

/// A crossing near Berlin and probe drives on it, for the flow tests.
///
/// Nodes W (0) — B (1) — E (2) on an east–west two-way road, 500 m per side; B — N (3) two-way;
/// B → S (4) one-way. Segments: 0 W→B, 1 B→W, 2 B→E, 3 E→B, 4 B→N, 5 N→B, 6 B→S; all primary
/// roads (functional class 2) limited to 13.89 m/s (50 km/h).
enum FlowFixtures {
  static let now = Date(timeIntervalSince1970: 1_800_000_000)
  static let limit = 13.89
  static let metersPerDegreeLatitude = 111_267.0
  static let metersPerDegreeLongitude = 68_677.0
  static let eastStep = 500 / metersPerDegreeLongitude
  static let northStep = 500 / metersPerDegreeLatitude

  static func coordinates(east meters: Double, north: Double = 0) throws -> GeoCoordinates {
    try GeoCoordinates(
      latitude: 52 + north / metersPerDegreeLatitude,
      longitude: 13 + meters / metersPerDegreeLongitude)
  }

  static func network() throws -> RoadNetwork { try CrossingNetwork.network() }

  /// A clock tests can move.
  final class Clock: Sendable {
    private let time = Mutex(FlowFixtures.now)
    var now: Date { time.withLock { $0 } }
    func set(_ date: Date) { time.withLock { $0 = date } }
    func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
  }

  static func engine(
    incidents: [TrafficIncident] = [], clock: Clock = Clock(), network: RoadNetwork? = nil
  ) throws -> TrafficEngine {
    let store = InMemoryTrafficStore()
    try store.apply(IncidentBatch(upserts: incidents))
    return try TrafficEngine(
      store: store, clock: { clock.now }, network: network ?? FlowFixtures.network())
  }

  /// Probes of one vehicle driving the segments at a constant speed, one every `interval`
  /// seconds, ending at `end`, with seeded GPS noise of `noise` meters per axis.
  static func drive(
    _ vehicleID: String, along segmentIDs: [Int], speed: Double, interval: Double = 5,
    end: Date = now, noise: Double = 3, seed: UInt64 = 1, network: RoadNetwork
  ) throws -> [Probe] {
    var generator = SeededGenerator(seed: seed)
    func gaussian() -> Double {
      let u = Double.random(in: Double.ulpOfOne..<1, using: &generator)
      let v = Double.random(in: 0..<1, using: &generator)
      return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
    let lengths = segmentIDs.map { network.segments[$0].lengthInMeters }
    let total = lengths.reduce(0, +)
    let count = Int(total / (speed * interval))
    var probes: [Probe] = []
    for k in 0...count {
      var along = Double(k) * speed * interval
      var index = 0
      while index < lengths.count - 1, along > lengths[index] {
        along -= lengths[index]
        index += 1
      }
      let segment = network.segments[segmentIDs[index]]
      let exact = segment.geometry.coordinates(atDistance: along)
      let point = try GeoCoordinates(
        latitude: exact.latitude + noise * gaussian() / metersPerDegreeLatitude,
        longitude: exact.longitude + noise * gaussian() / metersPerDegreeLongitude)
      probes.append(
        Probe(
          vehicleID: vehicleID, time: end - Double(count - k) * interval, coordinates: point,
          speedInMetersPerSecond: speed,
          headingInDegrees: segment.geometry.vertices[0].bearing(to: segment.geometry.vertices[1])))
    }
    return probes
  }

  /// `count` vehicles driving the same segments at `speed`, with staggered ends.
  static func fleet(
    _ count: Int, along segmentIDs: [Int], speed: Double, end: Date = now, prefix: String = "v",
    network: RoadNetwork
  ) throws -> [Probe] {
    var probes: [Probe] = []
    for i in 0..<count {
      probes += try drive(
        "\(prefix)\(i)", along: segmentIDs, speed: speed, end: end - Double(i) * 7,
        seed: UInt64(i + 1), network: network)
    }
    return probes
  }

  /// A circle holding the whole crossing.
  static func everywhere() throws -> GeoCircle {
    try GeoCircle(center: coordinates(east: 500), radiusInMeters: 2000)
  }

  /// The flow of one segment in the whole crossing.
  static func flow(_ engine: TrafficEngine, _ segmentID: Int) throws -> TrafficFlow? {
    try engine.flow(inside: everywhere(), options: TrafficFlowQueryOptions())
      .first { $0.segmentID == segmentID }
  }
}
