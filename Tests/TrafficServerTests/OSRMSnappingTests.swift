import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficRouting
import TrafficTestSupport

@testable import TrafficServer

/// OSRM's snapping on `traffic serve`: a coordinate whose nearest road is a piece cut off
/// from the network snaps to the network's nearest road instead (VROOM's tables have no
/// holes); no distance limit but `radiuses`; routes of up to 500 coordinates.
@Suite struct OSRMSnappingTests {
  /// Vaduz, and a point 21 m from an unnamed road piece that no open road joins to the rest
  /// of the network (with the part of Fürstenweg 134 m away it is a piece of its own, with
  /// no route to or from Vaduz; the nearest road of the big part is Mareestrasse, 246 m).
  static let vaduz = "9.5209,47.1410"
  static let besideIsland = "9.526789,47.145407"

  @Test("a table from and to a point beside a cut-off road has every cell")
  func tableHasNoHoles() throws {
    let server = try OSRMAPITests.server()
    let (status, body) = try OSRMAPITests.answer(
      server,
      "/table/v1/driving/\(Self.vaduz);\(Self.besideIsland)?annotations=duration,distance")
    #expect(status == 200, "\(body)")
    let durations = try #require(body["durations"] as? [[Any]])
    for row in durations { #expect(row.allSatisfy { $0 is Double }, "\(durations)") }
    // The point's waypoint is on the big part's nearest road, not on the piece.
    let waypoints = try #require(body["destinations"] as? [[String: Any]])
    let distance = try #require(waypoints[1]["distance"] as? Double)
    #expect(abs(distance - 246.5) < 1, "\(waypoints)")
    #expect(waypoints[1]["name"] as? String == "Mareestrasse")
    let (routeStatus, route) = try OSRMAPITests.answer(
      server, "/route/v1/driving/\(Self.besideIsland);\(Self.vaduz)")
    #expect(routeStatus == 200, "\(route)")
  }

  @Test("the nearest road is found however far it is, unless radiuses limit it")
  func nearestHasNoDistanceLimit() throws {
    let server = try OSRMAPITests.server()
    let far = "9.541879,47.157823"
    let (status, body) = try OSRMAPITests.answer(server, "/nearest/v1/driving/\(far)")
    #expect(status == 200, "\(body)")
    let waypoint = try #require((body["waypoints"] as? [[String: Any]])?.first)
    #expect((waypoint["distance"] as? Double ?? 0) > 1_000)
    let (routeStatus, route) = try OSRMAPITests.answer(
      server, "/route/v1/driving/\(far);\(Self.vaduz)")
    #expect(routeStatus == 200, "\(route)")
    let (limited, refusal) = try OSRMAPITests.answer(
      server, "/nearest/v1/driving/\(far)?radiuses=500")
    #expect(limited == 400)
    #expect(refusal["code"] as? String == "NoSegment")
    let (tableStatus, table) = try OSRMAPITests.answer(
      server, "/table/v1/driving/\(far);\(Self.vaduz)?radiuses=unlimited;")
    #expect(tableStatus == 200, "\(table)")
  }

  @Test("a route takes up to 500 coordinates, fewer when the server says so")
  func routeCoordinatesLimit() throws {
    let server = try OSRMAPITests.server()
    // 40 points on a line through Vaduz and Schaan.
    let points = (0..<40).map { k in
      let t = Double(k) / 39
      return "\(9.5209 + t * 0.0223),\(47.1410 + t * 0.0325)"
    }
    let (status, body) = try OSRMAPITests.answer(
      server, "/route/v1/driving/\(points.joined(separator: ";"))?overview=false")
    #expect(status == 200, "\(body)")
    let legs = try #require((body["routes"] as? [[String: Any]])?.first?["legs"] as? [Any])
    #expect(legs.count == 39)
    let many = Array(repeating: Self.vaduz, count: 501).joined(separator: ";")
    let (tooMany, refusal) = try OSRMAPITests.answer(server, "/route/v1/driving/\(many)")
    #expect(tooMany == 400)
    #expect(refusal["code"] as? String == "TooBig")
    var configuration = ServerFixtures.quiet()
    configuration.maxRouteCoordinates = 3
    let small = try OSRMAPITests.server(configuration)
    let (limited, answer) = try OSRMAPITests.answer(
      small, "/route/v1/driving/\(points.prefix(4).joined(separator: ";"))")
    #expect(limited == 400)
    #expect(answer["code"] as? String == "TooBig")
    #expect((answer["message"] as? String)?.contains("--max-route-coordinates") == true)
  }
}
