import Foundation
import Geo
import Roads
import Testing
import TrafficTestSupport

@Suite struct RoadNetworkTests {
  func checkAgainstBruteForce(_ network: RoadNetwork, queries: Int, seed: UInt64) throws {
    guard let box = GeoBox.enclosing(network.nodes.map(\.coordinates)) else { return }
    var generator = SeededGenerator(seed: seed)
    for _ in 0..<queries {
      let point = try GeoCoordinates(
        latitude: Double.random(in: box.south...box.north, using: &generator),
        longitude: Double.random(in: box.west...box.east, using: &generator))
      let radius = Double.random(in: 5...300, using: &generator)
      let found = try network.segments(near: point, withinMeters: radius)
      let expected = network.segments.filter { $0.geometry.distance(to: point) <= radius }.map(\.id)
      #expect(Set(found.map(\.segmentID)) == Set(expected))
      #expect(found.map(\.distanceInMeters) == found.map(\.distanceInMeters).sorted())
      for candidate in found {
        #expect(
          candidate.offsetInMeters <= network.segments[candidate.segmentID].lengthInMeters + 1e-6)
      }
    }
  }

  @Test("Segments near a point equal a brute-force scan (random network)")
  func nearRandom() throws {
    let network = try RoutingGraphTests.randomNetwork(seed: 5, nodeCount: 60, roadCount: 120)
    try checkAgainstBruteForce(network, queries: 60, seed: 11)
  }

  @Test(
    "Segments near a point equal a brute-force scan (Liechtenstein)")
  func nearLiechtenstein() throws {
    let base = RoadsFixtures.liechtenstein
    let network = try OSMImporter.importNetwork(from: base.appendingPathExtension("osm.pbf"))
    try checkAgainstBruteForce(network, queries: 15, seed: 3)
  }

  @Test("A negative radius is refused")
  func negativeRadius() throws {
    let network = try RoutingGraphTests.randomNetwork(seed: 5, nodeCount: 4, roadCount: 3)
    #expect(throws: RoadsError.self) {
      try network.segments(near: network.nodes[0].coordinates, withinMeters: -1)
    }
  }
}
