import Foundation
import Geo
import Roads
import Traffic

/// Vehicle probes of synthetic trips: vehicles drive shortest routes (by travel time)
/// between random nodes of a network at each segment's speed limit, and report a GPS
/// position every `intervalInSeconds` with seeded Gaussian noise, as a probe feed would.
///
/// Departures are spread over the first 15 minutes; trips shorter than 1 km are not taken.
/// The same seed gives the same probes.
struct ProbeWorkload {
  /// The probes, sorted by time (vehicles interleave).
  let probes: [Probe]
  /// The number of trips driven.
  let trips: Int

  /// Drives trips until `count` probes are collected.
  ///
  /// - Parameters:
  ///   - network: The roads.
  ///   - count: How many probes.
  ///   - start: The time of the first departure.
  ///   - intervalInSeconds: The time between two reports of a vehicle.
  ///   - noiseInMeters: Standard deviation of the noise, per axis.
  ///   - seed: The seed of routes, departures and noise.
  /// - Throws: `BenchmarkFailure` when no route of 1 km or more is found in 1,000 tries
  ///   (a network too small or too fragmented), or a routing error.
  init(
    network: RoadNetwork, count: Int, start: Date, intervalInSeconds: Double = 5,
    noiseInMeters: Double = 4, seed: UInt64 = 7
  ) throws {
    var random = SplitMix64(seed: seed)
    let graph = RoutingGraph(network: network)
    let starts = network.nodes.indices.filter { !graph.segments(leaving: $0).isEmpty }
    guard !starts.isEmpty else { throw BenchmarkFailure("the network has no segments") }
    var probes: [Probe] = []
    probes.reserveCapacity(count)
    var trips = 0
    var failures = 0
    while probes.count < count {
      let from = starts[Int(random.next() % UInt64(starts.count))]
      let to = network.nodes.indices[Int(random.next() % UInt64(network.nodes.count))]
      guard let route = try graph.shortestPath(fromNode: from, toNode: to, metric: .travelTime),
        route.lengthInMeters >= 1_000
      else {
        failures += 1
        if failures > 1_000 && trips == 0 {
          throw BenchmarkFailure("no route of 1 km or more in 1,000 tries")
        }
        continue
      }
      let vehicle = "vehicle-\(trips)"
      var time = start.addingTimeInterval(random.nextUnit() * 900)
      var leg = 0
      var offset = 0.0
      drive: while probes.count < count {
        let segment = network.segments[route.segmentIDs[leg]]
        let position = segment.geometry.coordinates(atDistance: offset)
        probes.append(
          Probe(
            vehicleID: vehicle, time: time,
            coordinates: ProbeWorkload.jitter(position, by: noiseInMeters, &random)))
        // Drive `intervalInSeconds`, crossing into the next segments as they end.
        var left = intervalInSeconds
        while left > 0 {
          let current = network.segments[route.segmentIDs[leg]]
          let speed = max(1, current.speedLimitInMetersPerSecond)
          let toEnd = (current.lengthInMeters - offset) / speed
          if toEnd > left {
            offset += speed * left
            left = 0
          } else {
            left -= toEnd
            leg += 1
            offset = 0
            if leg == route.segmentIDs.count { break drive }
          }
        }
        time += intervalInSeconds
      }
      trips += 1
    }
    self.probes = probes.sorted { $0.time < $1.time }
    self.trips = trips
  }

  /// `position` moved by Gaussian noise of `sigma` meters east and north (Box–Muller).
  private static func jitter(
    _ position: GeoCoordinates, by sigma: Double, _ random: inout SplitMix64
  ) -> GeoCoordinates {
    let radius = sigma * (-2 * log(max(random.nextUnit(), 1e-300))).squareRoot()
    let angle = 2 * Double.pi * random.nextUnit()
    let metersPerDegree = 111_320.0
    let latitude = position.latitude + radius * sin(angle) / metersPerDegree
    let longitude =
      position.longitude
      + radius * cos(angle) / (metersPerDegree * cos(position.latitude * .pi / 180))
    return GeoCoordinates(uncheckedLatitude: latitude, longitude: longitude)
  }
}
