import Foundation
import Geo
import Roads
import Testing
import TrafficTestSupport

/// `RoadNetwork.nearestSegments`, which every snapping (v8, OSRM, matrices) goes through,
/// against measuring every segment of Liechtenstein's network: the same segments in the
/// same order near the roads, and within 0.5 % of the nearest distance far from them
/// (where a radius widened until it met a road measured the whole network per point: 134 s
/// for 500 far coordinates of one OSRM request).
@Suite struct NearestSegmentsTests {
  static let network = try? OSMImporter.importNetwork(
    from: Fixtures.liechtenstein(), options: OSMImportOptions(countryCode: "LI"))

  static func bruteForce(
    _ network: RoadNetwork, _ point: GeoCoordinates, where isIncluded: (Int) -> Bool
  ) -> [RoadNetwork.Candidate] {
    network.segments.indices.filter(isIncluded).map {
      (id: $0, closest: network.segments[$0].geometry.closestPoint(to: point))
    }.sorted {
      ($0.closest.distanceInMeters, $0.id) < ($1.closest.distanceInMeters, $1.id)
    }.prefix(12).compactMap { found in
      try? network.segments(
        near: point, withinMeters: found.closest.distanceInMeters + 1e-6
      ).first { $0.segmentID == found.id }
    }
  }

  @Test func aRoadAcrossTheAntimeridianIsFoundOnBothSides() throws {
    // One way from 179.98 E to 179.98 W: its segment's box was indexed inverted (west >
    // east), met no query, and its probes never matched.
    let xml = """
      <osm version="0.6">
      <node id="1" lat="-16.80" lon="179.98"/><node id="2" lat="-16.80" lon="179.995"/>
      <node id="3" lat="-16.80" lon="-179.995"/><node id="4" lat="-16.80" lon="-179.98"/>
      <way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="4"/>
      <tag k="highway" v="primary"/></way>
      </osm>
      """
    let network = try OSMImporter.importNetwork(xml: Data(xml.utf8))
    for longitude in [179.985, 179.9999, -179.99] {
      let point = try GeoCoordinates(latitude: -16.8001, longitude: longitude)
      let near = try network.segments(near: point, withinMeters: 50)
      #expect(near.count == 2, "\(longitude): both directions")
      #expect(near.allSatisfy { abs($0.distanceInMeters - 11.1) < 0.5 }, "\(near)")
      let nearest = network.nearestSegments(to: point, count: 4)
      #expect(Set(nearest.map(\.segmentID)) == Set(near.map(\.segmentID)))
    }
  }

  @Test func nearTheRoadsTheNearestAreExactlyThoseOfEverySegmentMeasured() throws {
    let network = try #require(Self.network)
    var generator = SeededGenerator(seed: 52)
    for _ in 0..<60 {
      let point = try GeoCoordinates(
        latitude: Double.random(in: 47.05...47.27, using: &generator),
        longitude: Double.random(in: 9.47...9.64, using: &generator))
      let odd = { (id: Int) in id % 3 != 0 }
      let expected = Self.bruteForce(network, point, where: odd)
      let found = network.nearestSegments(to: point, count: 12, where: odd)
      #expect(found.map(\.segmentID) == expected.map(\.segmentID), "\(point)")
      let limited = network.nearestSegments(to: point, count: 12, withinMeters: 200, where: odd)
      #expect(
        limited.map(\.segmentID) == expected.filter { $0.distanceInMeters <= 200 }.map(\.segmentID))
    }
  }

  @Test func farFromTheRoadsTheNearestIsWithinHalfAPercent() throws {
    let network = try #require(Self.network)
    for (latitude, longitude) in [
      (0.0, 0.0), (47.14, 8.0), (47.14, 9.0), (-33.9, 151.2), (47.2, -170.0), (80.0, 9.5),
    ] {
      let point = try GeoCoordinates(latitude: latitude, longitude: longitude)
      let expected = try #require(Self.bruteForce(network, point) { _ in true }.first)
      let found = try #require(network.nearestSegments(to: point, count: 3).first)
      #expect(found.distanceInMeters <= expected.distanceInMeters * 1.005 + 1e-6, "\(point)")
      if expected.distanceInMeters <= RoadNetwork.exactNearestRange {
        #expect(found.segmentID == expected.segmentID, "\(point)")
      }
      #expect(
        network.nearestSegments(to: point, count: 3, withinMeters: expected.distanceInMeters * 0.99)
          .isEmpty)
    }
  }
}
