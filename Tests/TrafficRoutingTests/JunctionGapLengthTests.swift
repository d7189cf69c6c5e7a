import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficRouting

/// A route's length is its geometry's: on a SUMO network, whose edges end at the junction's
/// border, the ways across the junctions count in its meters (sections, maneuvers, spans,
/// OSRM's and v8's distances) as they count in its seconds; on OpenStreetMap's there are none.
@Suite struct JunctionGapLengthTests {
  /// The meters across junctions between the spans of a section.
  static func gaps(_ section: RouteSection, _ network: RoadNetwork) -> Double {
    let segments = section.traffic.spans.map(\.segmentID)
    return zip(segments, segments.dropFirst()).reduce(0) { total, pair in
      total + (pair.0 == pair.1 ? 0 : network.junctionGap(from: pair.0, to: pair.1))
    }
  }

  /// Routes between nodes picked at random, longer than a kilometre.
  static func routes(
    on network: RoadNetwork, seed: UInt64, count: Int
  ) async throws -> [Route] {
    let router = RoutingEngine(trafficEngine: try RoutingEngineTests.engine(network: network))
    var generator = SeededGenerator(seed: seed)
    var routes: [Route] = []
    for _ in 0..<200 where routes.count < count {
      let nodes = network.nodes
      let origin = nodes[Int.random(in: 0..<nodes.count, using: &generator)].coordinates
      let destination = nodes[Int.random(in: 0..<nodes.count, using: &generator)].coordinates
      guard let route = try? await router.calculateRoute(from: origin, to: destination).first,
        route.lengthInMeters > 1_000
      else { continue }
      routes.append(route)
    }
    return routes
  }

  /// Every length of the route against its geometry's: the section, its maneuvers and spans,
  /// and the OSRM and v8 answers.
  static func expectLengthsAreTheGeometry(
    _ route: Route, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let section = try #require(route.sections.first)
    let geometry = section.polyline.lengthInMeters
    // Within 1 cm per kilometre: the ways across junctions are measured on a plane.
    let tolerance = 0.01 * max(1, geometry / 1_000)
    #expect(
      abs(section.lengthInMeters - geometry) < tolerance,
      "section \(section.lengthInMeters) m, its polyline \(geometry) m",
      sourceLocation: sourceLocation)
    #expect(abs(route.lengthInMeters - route.polyline.lengthInMeters) < tolerance)
    let maneuvers = section.maneuvers.reduce(0) { $0 + $1.lengthInMeters }
    #expect(abs(maneuvers - section.lengthInMeters) < 0.01, sourceLocation: sourceLocation)
    let spans = section.traffic.spans
    #expect(
      abs(spans.reduce(0) { $0 + $1.lengthInMeters } - section.lengthInMeters) < 0.01,
      sourceLocation: sourceLocation)
    for (span, next) in zip(spans, spans.dropFirst()) {
      #expect(
        abs(span.offsetInMeters + span.lengthInMeters - next.offsetInMeters) < 0.01,
        sourceLocation: sourceLocation)
    }

    // OSRM: the route's, leg's, steps' and annotation's distances (to 0.1 m each).
    var query = OSRMQuery(service: .route, coordinates: [])
    query.steps = true
    query.annotations = ["distance"]
    query.geometries = .geojson
    query.overview = .full
    let osrm = try #require(
      try JSONSerialization.jsonObject(
        with: OSRMRouteWire.encode([route], waypoints: [], query: query)) as? [String: Any])
    let answer = try #require((osrm["routes"] as? [[String: Any]])?.first)
    let leg = try #require((answer["legs"] as? [[String: Any]])?.first)
    let steps = try #require(leg["steps"] as? [[String: Any]])
    let annotation = try #require(
      (leg["annotation"] as? [String: Any])?["distance"] as? [Double])
    for (name, meters, rounding) in [
      ("distance", answer["distance"] as? Double ?? -1, 0.05),
      ("leg distance", leg["distance"] as? Double ?? -1, 0.05),
      (
        "steps", steps.reduce(0) { $0 + ($1["distance"] as? Double ?? 0) },
        0.05 * Double(steps.count)
      ),
      ("annotation", annotation.reduce(0, +), 0.05 * Double(annotation.count)),
    ] {
      #expect(
        abs(meters - geometry) < tolerance + rounding,
        "OSRM \(name) \(meters) m, geometry \(geometry) m",
        sourceLocation: sourceLocation)
    }

    // v8: the summary's length, and the spans' and actions' (whole meters each).
    let v8 = try #require(
      try JSONSerialization.jsonObject(
        with: V8RouteWire.encode([route], returning: [.summary, .actions], spans: [.length]))
        as? [String: Any])
    let v8Section = try #require(
      ((v8["routes"] as? [[String: Any]])?.first?["sections"] as? [[String: Any]])?.first)
    let summary = try #require((v8Section["summary"] as? [String: Any])?["length"] as? Int)
    #expect(abs(Double(summary) - geometry) <= 0.5 + tolerance, sourceLocation: sourceLocation)
    for key in ["spans", "actions"] {
      let items = try #require(v8Section[key] as? [[String: Any]])
      let total = items.reduce(0) { $0 + ($1["length"] as? Int ?? 0) }
      #expect(
        abs(Double(total) - geometry) <= 0.5 * Double(items.count) + tolerance,
        "v8 \(key) \(total) m, geometry \(geometry) m", sourceLocation: sourceLocation)
    }
  }

  @Test("on Braunschweig's SUMO network a route is as long as its geometry, junctions too")
  func sumoRoutesAreTheirGeometry() async throws {
    try DebianFile.braunschweigNetwork.require()
    let network = try SUMONetworkImporter.importNetwork(from: DebianFile.braunschweigNetwork.url)
    let routes = try await Self.routes(on: network, seed: 29, count: 6)
    #expect(routes.count == 6)
    for route in routes {
      // The ways across junctions are a part of the route worth checking: metres, not
      // centimetres.
      let gaps = Self.gaps(route.sections[0], network)
      #expect(gaps > 20, "\(gaps) m across junctions")
      try Self.expectLengthsAreTheGeometry(route)
    }
  }

  @Test("on OpenStreetMap's network (no ways across junctions) a route's length is unchanged")
  func osmRoutesAreTheirSegments() async throws {
    let network = try #require(RoutingEngineTests.liechtenstein)
    let routes = try await Self.routes(on: network, seed: 29, count: 4)
    // The lengths these routes had before the ways across junctions counted (revision
    // 6bdb2ed): the stretches of the segments driven, and nothing else.
    let before = [1065.219636507857, 23281.729338492158, 18043.251243492105, 16409.352217501815]
    #expect(routes.count == before.count)
    for (route, length) in zip(routes, before) {
      #expect(Self.gaps(route.sections[0], network) == 0)
      #expect(abs(route.lengthInMeters - length) < 1e-6, "\(route.lengthInMeters) m")
      try Self.expectLengthsAreTheGeometry(route)
    }
  }
}
