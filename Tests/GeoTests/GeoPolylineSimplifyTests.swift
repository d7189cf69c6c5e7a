import Foundation
import Testing
import TrafficTestSupport

@testable import Geo

@Suite struct GeoPolylineSimplifyTests {
  private static func place(_ latitude: Double, _ longitude: Double) throws -> GeoCoordinates {
    try GeoCoordinates(latitude: latitude, longitude: longitude)
  }

  @Test func rejectsBadTolerances() throws {
    let line = try GeoPolyline(vertices: [try Self.place(0, 0), try Self.place(0, 1)])
    #expect(throws: GeoError.invalidDistance(name: "tolerance", value: -0.5)) {
      try line.simplified(toleranceInMeters: -0.5)
    }
    let error = #expect(throws: GeoError.self) { try line.simplified(toleranceInMeters: .nan) }
    guard case .invalidDistance(name: "tolerance", _) = error else {
      Issue.record("expected invalidDistance, got \(String(describing: error))")
      return
    }
  }

  @Test func twoVerticesStayAsTheyAre() throws {
    let line = try GeoPolyline(vertices: [try Self.place(0, 0), try Self.place(0, 1)])
    #expect(try line.simplified(toleranceInMeters: 1_000_000) == line)
  }

  @Test func collinearPointsAreRemoved() throws {
    // Along a meridian and along the equator, both geodesics and straight in any local frame.
    let meridian = try (0...10).map { try Self.place(50 + Double($0) * 0.001, 8) }
    let equator = try (0...10).map { try Self.place(0, 8 + Double($0) * 0.001) }
    for vertices in [meridian, equator] {
      let simplified = try GeoPolyline(vertices: vertices).simplified(toleranceInMeters: 0.01)
      #expect(simplified.vertices == [vertices[0], vertices[10]])
    }
    // Points along a general 2 km geodesic curve away from a local frame's straight line
    // by centimetres; a tolerance of half a metre removes them.
    let start = try Self.place(52.5, 13.3)
    let end = start.destination(bearing: 60, distanceInMeters: 2_000)
    let segment = try GeoPolyline(vertices: [start, end])
    let sampled = (0...8).map { segment.coordinates(atDistance: Double($0) * 250) }
    let simplified = try GeoPolyline(vertices: sampled).simplified(toleranceInMeters: 0.5)
    #expect(simplified.vertices == [sampled[0], sampled[8]])
  }

  @Test func aSpikeIsKeptAndSmallWigglesAreNot() throws {
    // East along the equator with 1-2 m wiggles and one narrow 100 m spike north at 0.005.
    let vertices = [
      try Self.place(0, 0), try Self.place(0.00002, 0.001), try Self.place(-0.00001, 0.002),
      try Self.place(0, 0.0049), try Self.place(0.0009, 0.005), try Self.place(0, 0.0051),
      try Self.place(0.00001, 0.008), try Self.place(-0.00002, 0.009), try Self.place(0, 0.01),
    ]
    let simplified = try GeoPolyline(vertices: vertices).simplified(toleranceInMeters: 10)
    #expect(simplified.vertices == [0, 3, 4, 5, 8].map { vertices[$0] })
    // Below the wiggles' size everything stays.
    let exact = try GeoPolyline(vertices: vertices).simplified(toleranceInMeters: 0.5)
    #expect(exact.vertices == vertices)
  }

  @Test func toleranceZeroKeepsEveryVertexOffTheLine() throws {
    var generator = SeededGenerator(seed: 1973)
    var vertices = [try Self.place(45, 7)]
    for _ in 0..<30 {
      // A zigzag: every vertex turns by at least 20 degrees, so none is collinear.
      let last = vertices[vertices.count - 1]
      let bearing = vertices.count % 2 == 0 ? 50.0 : 130.0
      vertices.append(
        last.destination(
          bearing: bearing + Double.random(in: -30...30, using: &generator),
          distanceInMeters: Double.random(in: 20...200, using: &generator)))
    }
    let line = try GeoPolyline(vertices: vertices)
    #expect(try line.simplified(toleranceInMeters: 0).vertices == vertices)
  }

  @Test func seededRandomPathsStayWithinTheTolerance() throws {
    var generator = SeededGenerator(seed: 42)
    for _ in 0..<30 {
      var vertices = [
        try Self.place(
          Double.random(in: -70...70, using: &generator),
          Double.random(in: -180...180, using: &generator))
      ]
      var bearing = Double.random(in: 0..<360, using: &generator)
      for _ in 0..<Int.random(in: 3...60, using: &generator) {
        bearing = (bearing + Double.random(in: -40...40, using: &generator) + 360)
          .truncatingRemainder(dividingBy: 360)
        vertices.append(
          vertices[vertices.count - 1].destination(
            bearing: bearing, distanceInMeters: Double.random(in: 5...300, using: &generator)))
      }
      let line = try GeoPolyline(vertices: vertices)
      let tolerance = Double.random(in: 1...50, using: &generator)
      let simplified = try line.simplified(toleranceInMeters: tolerance)
      // Ends kept, a subsequence in order, and every dropped vertex near the result.
      #expect(simplified.vertices.first == vertices.first)
      #expect(simplified.vertices.last == vertices.last)
      var next = 0
      for kept in simplified.vertices {
        guard let index = vertices[next...].firstIndex(of: kept) else {
          Issue.record("\(kept) is not a later original vertex")
          break
        }
        next = index + 1
      }
      for vertex in vertices {
        #expect(simplified.distance(to: vertex) <= tolerance * 1.005 + 0.05)
      }
      // Simplifying again with the same tolerance changes nothing.
      #expect(try simplified.simplified(toleranceInMeters: tolerance) == simplified)
    }
  }
}
