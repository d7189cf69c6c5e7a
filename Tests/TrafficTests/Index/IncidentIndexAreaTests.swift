import Foundation
import Testing
import TrafficTestSupport

@testable import Traffic

/// `IncidentIndex.positions(meeting:)` tests unchanged incidents on its flat vertex store
/// and changed ones on their polylines; both must answer exactly what testing every
/// polyline of every incident with `GeoArea.intersects(_:)` answers.
@Suite struct IncidentIndexAreaTests {
  typealias F = EngineFixtures

  /// A path of 1 to 6 vertices (one vertex: a point) wandering from a random place.
  static func path(_ generator: inout SeededGenerator) -> [(Double, Double)] {
    var latitude = 52.5 + Double.random(in: 0...0.05, using: &generator)
    var longitude = 13.4 + Double.random(in: 0...0.08, using: &generator)
    var vertices = [(latitude, longitude)]
    for _ in 0..<Int.random(in: 0...5, using: &generator) {
      latitude += Double.random(in: -0.004...0.004, using: &generator)
      longitude += Double.random(in: -0.006...0.006, using: &generator)
      vertices.append((latitude, longitude))
    }
    return vertices
  }

  static func incident(
    _ number: Int, version: Int, _ generator: inout SeededGenerator
  ) throws
    -> TrafficIncident
  {
    let main = path(&generator)
    let additional = (0..<Int.random(in: 0...2, using: &generator)).map { _ in
      var line = path(&generator)
      if line.count == 1 { line.append((line[0].0 + 0.0003, line[0].1)) }
      return line
    }
    return try F.incident("i\(number)", main, version: version, additional: additional)
  }

  /// Every area kind: circles (some reaching past the planar filter's range), boxes and
  /// corridors, short ones and routes of many vertices (searched piece by piece).
  static func area(_ generator: inout SeededGenerator) throws -> any GeoArea {
    let latitude = 52.5 + Double.random(in: -0.01...0.06, using: &generator)
    let longitude = 13.4 + Double.random(in: -0.01...0.09, using: &generator)
    switch Int.random(in: 0..<4, using: &generator) {
    case 3:
      // A winding route of 20 to 60 vertices.
      var point = (latitude, longitude)
      var vertices: [GeoCoordinates] = []
      for _ in 0..<Int.random(in: 20...60, using: &generator) {
        vertices.append(try GeoCoordinates(latitude: point.0, longitude: point.1))
        point.0 += Double.random(in: -0.001...0.002, using: &generator)
        point.1 += Double.random(in: -0.001...0.003, using: &generator)
      }
      return try GeoCorridor(
        polyline: vertices, halfWidthInMeters: Double.random(in: 5...200, using: &generator))
    case 0:
      return try F.circle(latitude, longitude, Double.random(in: 20...12_000, using: &generator))
    case 1:
      return try GeoBox(
        west: longitude, south: latitude,
        east: longitude + Double.random(in: 0.0001...0.03, using: &generator),
        north: latitude + Double.random(in: 0.0001...0.02, using: &generator))
    default:
      return try GeoCorridor(
        polyline: [
          GeoCoordinates(latitude: latitude, longitude: longitude),
          GeoCoordinates(latitude: latitude + 0.01, longitude: longitude + 0.02),
        ], halfWidthInMeters: Double.random(in: 5...300, using: &generator))
    }
  }

  static func bruteForce(_ index: IncidentIndex, _ area: some GeoArea) -> [Int] {
    index.incidents.indices.filter { position in
      index.incidents[position].location.allPolylines.contains { area.intersects($0) }
    }
  }

  @Test func wholeAndPatchedSnapshotsAnswerAsEveryPolylineTested() throws {
    var generator = SeededGenerator(seed: 33)
    var index = IncidentIndex(
      try (0..<600).map { try Self.incident($0, version: 1, &generator) })
    var answered = 0
    for round in 0..<60 {
      // Rounds of changes without removals patch the snapshot (its flat store is shared and
      // the changed incidents are tested apart); every tenth removes some and rebuilds it.
      let upserts = try (0..<Int.random(in: 1...30, using: &generator)).map { _ in
        try Self.incident(
          Int.random(in: 0..<800, using: &generator), version: round + 2, &generator)
      }
      let deletions =
        round % 10 == 9 ? (0..<5).map { _ in "i\(Int.random(in: 0..<800, using: &generator))" } : []
      index = index.applying(upserts: upserts, deletions: deletions, updatedAt: nil).index
      for _ in 0..<8 {
        let area = try Self.area(&generator)
        let found = index.positions(meeting: area)
        #expect(found == Self.bruteForce(index, area), "round \(round): \(area)")
        answered += found.count
      }
    }
    #expect(answered > 1_000, "the areas must meet incidents for the test to mean anything")
  }
}
