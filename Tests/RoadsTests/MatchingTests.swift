import Foundation
import Geo
import Roads
import Testing
import TrafficTestSupport

@Suite struct MatchingTests {
  /// The share of points matched to the segment the vehicle was on.
  static func accuracy(
    _ matched: [MatchedPoint], _ truth: [(probe: ProbePoint, segmentID: Int)]
  ) -> Double {
    let bySecond = Dictionary(
      truth.map { ($0.probe.time, $0.segmentID) }, uniquingKeysWith: { first, _ in first })
    let correct = matched.filter { bySecond[$0.probe.time] == $0.position.segmentID }.count
    return Double(correct) / Double(max(matched.count, 1))
  }

  @Test("a noisy drive straight through a junction stays on its direction of the road")
  func straightDrive() throws {
    let network = try MatchingFixtures.network()
    let drive = try MatchingFixtures.drive(
      network, along: [0, 2], speed: 12, interval: 5, noise: 4, seed: 3)
    let matcher = try MapMatcher(network: network)
    let matched = matcher.match(drive.map(\.probe), vehicleID: "car")
    #expect(matched.count == drive.count)
    #expect(Set(matched.map(\.position.segmentID)).isSubset(of: [0, 2]))
    #expect(Self.accuracy(matched, drive) >= 0.9)
    #expect(matched.first?.startsTrace == true)
    #expect(matched.dropFirst().allSatisfy { !$0.startsTrace })
    // The junction is crossed once, with the path naming both segments.
    #expect(matched.filter { $0.pathFromPrevious == [0, 2] }.count == 1)
  }

  @Test("route distances between matched points equal the routing graph's shortest paths")
  func routeDistancesAgreeWithRoutingGraph() throws {
    let network = try MatchingFixtures.network()
    let graph = RoutingGraph(network: network)
    var compared = 0
    for (path, seed) in [([0, 2], UInt64(5)), ([0, 4], 6), ([3, 6], 7), ([5, 1], 8)] {
      let drive = try MatchingFixtures.drive(
        network, along: path, speed: 15, interval: 4, noise: 3, seed: seed)
      let matched = try MapMatcher(network: network).match(drive.map(\.probe))
      for (previous, point) in zip(matched, matched.dropFirst()) {
        let distance = try #require(point.routeDistanceFromPreviousInMeters)
        guard
          point.position.segmentID != previous.position.segmentID
            || point.position.offsetInMeters >= previous.position.offsetInMeters
        else { continue }  // standing still within GPS noise: 0 by definition
        let reference = try graph.distances(
          from: previous.position, to: [point.position], maxCostInMeters: 10_000)
        let expected = try #require(reference[0])
        #expect(abs(distance - expected) < 1e-6, "\(path): \(distance) vs \(expected)")
        compared += 1
      }
    }
    #expect(compared >= 40)
  }

  @Test("the heading picks the direction; a turn follows the road turned into")
  func directionAndTurn() throws {
    let network = try MatchingFixtures.network()
    let matcher = try MapMatcher(network: network)
    let westward = try MatchingFixtures.drive(network, along: [3, 1], speed: 12, interval: 5)
    #expect(Set(matcher.match(westward.map(\.probe)).map(\.position.segmentID)) == [3, 1])
    let turn = try MatchingFixtures.drive(
      network, along: [0, 4], speed: 10, interval: 5, noise: 3, seed: 9)
    let matched = matcher.match(turn.map(\.probe))
    #expect(Self.accuracy(matched, turn) >= 0.9)
    #expect(matched.last?.position.segmentID == 4)
  }

  @Test("without headings, transitions alone keep a drive on one direction")
  func withoutHeadings() throws {
    let network = try MatchingFixtures.network()
    let drive = try MatchingFixtures.drive(
      network, along: [0, 2], speed: 12, interval: 5, noise: 2, seed: 4)
    let probes = drive.map { item -> ProbePoint in
      var probe = item.probe
      probe.headingInDegrees = nil
      probe.speedInMetersPerSecond = nil
      return probe
    }
    let matched = try MapMatcher(network: network).match(probes)
    // The first point may sit on either direction (nothing tells them apart yet); from the
    // second on, only the eastward segments explain the movement.
    #expect(Set(matched.dropFirst().map(\.position.segmentID)).isSubset(of: [0, 2]))
  }

  @Test("invalid options are rejected with the name of the value")
  func invalidOptions() throws {
    let network = try MatchingFixtures.network()
    var options = MapMatchingOptions()
    options.searchRadiusInMeters = -1
    #expect(throws: RoadsError.self) { try MapMatcher(network: network, options: options) }
    options = MapMatchingOptions()
    options.decisionLag = 0
    #expect(throws: RoadsError.invalidArgument("decisionLag 0 must be >= 1")) {
      try MapMatcher(network: network, options: options)
    }
  }
}
