import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficRouting
import TrafficTestSupport

@testable import TrafficServer

/// OSRM's HTTP API v5 on `traffic serve`: answers equal to the routing engine's own routes,
/// tables and nearest roads; errors with OSRM's codes; a jam pushed as probes reaches the
/// next table.
@Suite struct OSRMAPITests {
  static let network: RoadNetwork? = try? OSMImporter.importNetwork(
    from: Fixtures.liechtenstein(), options: OSMImportOptions(countryCode: "LI"))

  /// Places on Liechtenstein's roads: Vaduz, Triesen, Schaan.
  static let places = [
    GeoCoordinates(uncheckedLatitude: 47.1410, longitude: 9.5209),
    GeoCoordinates(uncheckedLatitude: 47.1290, longitude: 9.5230),
    GeoCoordinates(uncheckedLatitude: 47.1735, longitude: 9.5432),
  ]
  static let path = places.map { "\($0.longitude),\($0.latitude)" }.joined(separator: ";")

  static func server(
    _ configuration: ServerConfiguration = ServerFixtures.quiet()
  ) throws
    -> TrafficServer
  {
    let roads: RoadNetwork = try #require(network)
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { Date() }, network: roads)
    return try TrafficServer(engine: engine, configuration: configuration)
  }

  static func answer(_ server: TrafficServer, _ target: String) throws -> (Int, [String: Any]) {
    let response = server.handle(ServerFixtures.get(target))
    return (response.status, try ServerFixtures.object(response.body))
  }

  @Test func routesAreTheEnginesRoutesInOSRMsShape() throws {
    let server = try Self.server()
    let (status, body) = try Self.answer(
      server,
      "/route/v1/driving/\(Self.path)?steps=true&overview=full&geometries=polyline6"
        + "&annotations=duration,distance,speed")
    #expect(status == 200, "\(body)")
    #expect(body["code"] as? String == "Ok")
    // OSRM's car profile goes on straight at the via point (continue_straight's default).
    let expected = try RoutingEngine(trafficEngine: server.engine).routes(
      through: Self.places, options: RouteOptions(), continuingStraight: true)
    let route = try #require((body["routes"] as? [[String: Any]])?.first)
    let reference = try #require(expected.first)
    #expect(abs((route["duration"] as? Double ?? 0) - reference.durationInSeconds) <= 0.05)
    #expect(abs((route["distance"] as? Double ?? 0) - reference.lengthInMeters) <= 0.05)
    #expect(route["weight_name"] as? String == "routability")
    let geometry = try GooglePolyline.decode(
      try #require(route["geometry"] as? String), precision: 6)
    #expect(geometry.count == reference.polyline.vertices.count)
    for (a, b) in zip(geometry, reference.polyline.vertices) { #expect(a.distance(to: b) < 0.2) }
    let legs = try #require(route["legs"] as? [[String: Any]])
    #expect(legs.count == 2)
    for (leg, section) in zip(legs, reference.sections) {
      let steps = try #require(leg["steps"] as? [[String: Any]])
      #expect(steps.count == section.maneuvers.count)
      #expect((steps.first?["maneuver"] as? [String: Any])?["type"] as? String == "depart")
      #expect((steps.last?["maneuver"] as? [String: Any])?["type"] as? String == "arrive")
      let stepSeconds = steps.reduce(0) { $0 + ($1["duration"] as? Double ?? 0) }
      #expect(abs(stepSeconds - section.durationInSeconds) <= 0.05 * Double(steps.count) + 0.05)
      let annotation = try #require(leg["annotation"] as? [String: [Double]])
      #expect(Set(annotation.keys) == ["duration", "distance", "speed"])
      #expect(annotation["duration"]?.count == section.polyline.vertices.count - 1)
      let seconds = annotation["duration"]?.reduce(0, +) ?? 0
      #expect(
        abs(seconds - section.durationInSeconds) <= 0.05 * Double(annotation["duration"]!.count))
      #expect(!(leg["summary"] as? String ?? "").isEmpty)
    }
    let waypoints = try #require(body["waypoints"] as? [[String: Any]])
    #expect(waypoints.count == 3)
    let first = try #require(waypoints.first?["location"] as? [Double])
    #expect(
      GeoCoordinates(uncheckedLatitude: first[1], longitude: first[0]).distance(
        to: reference.sections[0].departure.location) < 0.2)
  }

  @Test func everyAnnotationNamesTheJunctionsAndTheSpeedsSources() throws {
    let server = try Self.server()
    let (from, to) = (Self.places[0], Self.places[2])
    let (status, body) = try Self.answer(
      server,
      "/route/v1/driving/\(from.longitude),\(from.latitude);\(to.longitude),\(to.latitude)"
        + "?annotations=true&overview=full&geometries=geojson")
    #expect(status == 200, "\(body)")
    let route = try #require((body["routes"] as? [[String: Any]])?.first)
    let leg = try #require((route["legs"] as? [[String: Any]])?.first)
    let coordinates = try #require(
      (route["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])
    let annotation = try #require(leg["annotation"] as? [String: Any])
    #expect(
      Set(annotation.keys)
        == ["duration", "distance", "speed", "weight", "nodes", "datasources", "metadata"])
    let nodes = try #require(annotation["nodes"] as? [Int])
    let sources = try #require(annotation["datasources"] as? [Int])
    let seconds = try #require(annotation["duration"] as? [Double])
    #expect(nodes.count == coordinates.count)
    #expect(seconds.count == coordinates.count - 1)
    #expect(sources.count == seconds.count)
    // No probes: every speed is the limit's or history's.
    #expect(sources.allSatisfy { (0...1).contains($0) })
    #expect(
      (annotation["metadata"] as? [String: [String]])?["datasource_names"]
        == ["speed limit", "historical", "live"])
    // A junction's id is the OpenStreetMap node lying where the geometry has that point (an
    // independent lookup in the imported network).
    let network = try #require(Self.network)
    let junctions = Dictionary(
      network.nodes.map { (Int($0.sourceID) ?? 0, $0.coordinates) },
      uniquingKeysWith: { a, _ in a })
    let named = nodes.enumerated().filter { $0.element != 0 }
    #expect(named.count >= 10, "\(nodes)")
    for (index, node) in named {
      let point = try #require(junctions[node], "node \(node)")
      let drawn = GeoCoordinates(
        uncheckedLatitude: coordinates[index][1], longitude: coordinates[index][0])
      #expect(point.distance(to: drawn) < 0.2, "node \(node) at point \(index)")
    }
  }

  @Test func continuingStraightLeavesAViaPointTheWayItWasReached() throws {
    let server = try Self.server()
    // Vaduz to a street in Triesen and back: turning at the via point is the fastest way.
    let (a, b) = (Self.places[0], Self.places[1])
    let there =
      "\(a.longitude),\(a.latitude);\(b.longitude),\(b.latitude);\(a.longitude),\(a.latitude)"
    func leg(_ option: String) throws -> (seconds: Double, arriving: Int, leaving: Int) {
      let (status, body) = try Self.answer(
        server, "/route/v1/driving/\(there)?steps=true&overview=false\(option)")
      #expect(status == 200, "\(body)")
      let route = try #require((body["routes"] as? [[String: Any]])?.first)
      let legs = try #require(route["legs"] as? [[String: Any]])
      let arrive = try #require(
        (legs[0]["steps"] as? [[String: Any]])?.last?["maneuver"] as? [String: Any])
      let depart = try #require(
        (legs[1]["steps"] as? [[String: Any]])?.first?["maneuver"] as? [String: Any])
      return (
        try #require(route["duration"] as? Double), try #require(arrive["bearing_before"] as? Int),
        try #require(depart["bearing_after"] as? Int)
      )
    }
    func turn(_ a: Int, _ b: Int) -> Int { min((a - b + 360) % 360, (b - a + 360) % 360) }
    let straight = try leg("")  // OSRM's default for cars
    let explicit = try leg("&continue_straight=true")
    let either = try leg("&continue_straight=false")
    #expect(straight.seconds == explicit.seconds)
    #expect(turn(straight.arriving, straight.leaving) < 45, "\(straight)")
    #expect(turn(either.arriving, either.leaving) > 135, "\(either)")
    #expect(either.seconds < straight.seconds)
  }

  @Test func aBearingsRangeBoundsTheDirectionOfTravel() throws {
    let server = try Self.server()
    // From a two-way street in Triesen to Schaan.
    let (a, b) = (Self.places[1], Self.places[2])
    let pair = "\(a.longitude),\(a.latitude);\(b.longitude),\(b.latitude)"
    func departure(_ option: String) throws -> (bearing: Int, seconds: Double) {
      let (status, body) = try Self.answer(
        server, "/route/v1/driving/\(pair)?steps=true&overview=false\(option)")
      #expect(status == 200, "\(body)")
      let route = try #require((body["routes"] as? [[String: Any]])?.first)
      let depart = try #require(
        ((route["legs"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]])?.first?[
          "maneuver"] as? [String: Any])
      return (
        try #require(depart["bearing_after"] as? Int), try #require(route["duration"] as? Double)
      )
    }
    func apart(_ a: Int, _ b: Int) -> Int { min((a - b + 360) % 360, (b - a + 360) % 360) }
    let free = try departure("")
    let back = (free.bearing + 180) % 360
    // The other way, within 30°: the route leaves the way it is told.
    let told = try departure("&bearings=\(back),30;")
    #expect(apart(told.bearing, back) <= 30, "asked \(back), left at \(told.bearing)")
    #expect(told.seconds > free.seconds)
    // A range of 180° allows any direction: the free route.
    let any = try departure("&bearings=\(back),180;")
    #expect(any.bearing == free.bearing)
    #expect(any.seconds == free.seconds)
  }

  @Test func aCurbApproachLeavesWithThePlaceOnTheRight() throws {
    let server = try Self.server()
    let (a, b) = (Self.places[1], Self.places[2])
    let network = try #require(Self.network)
    let road = try #require(
      try network.segments(near: a, withinMeters: 100).first {
        network.segments[$0.segmentID].isOpenToCars
      })
    let along = network.segments[road.segmentID].geometry
    let direction = along.coordinates(atDistance: max(0, road.offsetInMeters - 5)).bearing(
      to: along.coordinates(atDistance: min(along.lengthInMeters, road.offsetInMeters + 5)))
    // Places 6 m off the road on each side of it (a parallel street runs 20 m west).
    for (side, offset) in [("right", 90.0), ("left", -90.0)] {
      let place = road.closestPoint.coordinates.destination(
        bearing: direction + offset, distanceInMeters: 6)
      let (status, body) = try Self.answer(
        server,
        "/route/v1/driving/\(place.longitude),\(place.latitude);\(b.longitude),\(b.latitude)"
          + "?steps=true&overview=false&approaches=curb;")
      #expect(status == 200, "\(body)")
      let depart = try #require(
        (((body["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]])?.first?[
          "steps"] as? [[String: Any]])?.first?["maneuver"] as? [String: Any])
      let leaving = Double(try #require(depart["bearing_after"] as? Int))
      // With the place on the right the road is driven in `direction`; on the left, against it.
      let expected = side == "right" ? direction : direction + 180
      let apart = abs((leaving - expected).truncatingRemainder(dividingBy: 360))
      #expect(min(apart, 360 - apart) < 60, "\(side): left at \(leaving), expected \(expected)")
    }
  }

  @Test func waypointsPassedThroughJoinLegsAndOverviewFalseLeavesTheGeometryOut() throws {
    let server = try Self.server()
    let (status, body) = try Self.answer(
      server, "/route/v1/car/\(Self.path)?waypoints=0;2&overview=false&skip_waypoints=true")
    #expect(status == 200, "\(body)")
    let route = try #require((body["routes"] as? [[String: Any]])?.first)
    #expect((route["legs"] as? [Any])?.count == 1)
    #expect(route["geometry"] == nil)
    #expect(body["waypoints"] == nil)
  }

  /// A point passed through (`waypoints=0;2`) is reported where the route passes it, on
  /// the route's geometry: it was the nearest road, which the route may not drive.
  @Test func aPointPassedThroughIsReportedOnTheRoute() throws {
    let server = try Self.server()
    // East of the road Vaduz–Schaan, nearer a road the route does not drive.
    let asked = GeoCoordinates(uncheckedLatitude: 47.145, longitude: 9.525)
    let (a, c) = (Self.places[0], Self.places[2])
    let path =
      "\(a.longitude),\(a.latitude);\(asked.longitude),\(asked.latitude);"
      + "\(c.longitude),\(c.latitude)"
    let (status, body) = try Self.answer(
      server, "/route/v1/car/\(path)?waypoints=0;2&overview=full&geometries=geojson")
    #expect(status == 200, "\(body)")
    let route = try #require((body["routes"] as? [[String: Any]])?.first)
    let line = try #require(
      (route["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])
    let polyline = try GeoPolyline(
      vertices: line.map { try GeoCoordinates(latitude: $0[1], longitude: $0[0]) })
    let waypoints = try #require(body["waypoints"] as? [[String: Any]])
    #expect(waypoints.count == 3)
    let passed = try #require(waypoints[1]["location"] as? [Double])
    let onRoute = polyline.distance(
      to: try GeoCoordinates(latitude: passed[1], longitude: passed[0]))
    #expect(onRoute < 1, "\(passed) is \(onRoute) m off the route")
    let distance = try #require(waypoints[1]["distance"] as? Double)
    #expect(
      abs(distance - polyline.distance(to: asked)) < 1,
      "\(distance) for \(polyline.distance(to: asked))")
  }

  @Test func tablesAreTheEnginesMatrix() async throws {
    let server = try Self.server()
    let (status, body) = try Self.answer(
      server,
      "/table/v1/driving/\(Self.path)?sources=0;1&destinations=1;2&annotations=distance,duration"
        + "&scale_factor=2")
    #expect(status == 200, "\(body)")
    let matrix = try await RoutingEngine(trafficEngine: server.engine).calculateMatrix(
      origins: Array(Self.places[0...1]), destinations: Array(Self.places[1...2]))
    let durations = try #require(body["durations"] as? [[Double]])
    let distances = try #require(body["distances"] as? [[Double]])
    for row in 0..<2 {
      for column in 0..<2 {
        let seconds = try #require(matrix.travelTimesInSeconds[row][column])
        let meters = try #require(matrix.distancesInMeters[row][column])
        #expect(abs(durations[row][column] - 2 * seconds) <= 0.05)
        #expect(abs(distances[row][column] - meters) <= 0.05)
      }
    }
    #expect((body["sources"] as? [Any])?.count == 2)
    #expect((body["destinations"] as? [Any])?.count == 2)
    #expect(body["fallback_speed_cells"] == nil)
  }

  @Test func aTableBeyondTheConfiguredSizeIsTooBig() throws {
    var configuration = ServerFixtures.quiet()
    configuration.maxTableSize = 2
    let server = try Self.server(configuration)
    let (status, body) = try Self.answer(server, "/table/v1/driving/\(Self.path)")
    #expect(status == 400)
    #expect(body["code"] as? String == "TooBig")
    #expect((body["message"] as? String)?.contains("--max-table-size") == true)
    let (smaller, _) = try Self.answer(
      server, "/table/v1/driving/\(Self.path)?sources=0;1&destinations=2")
    #expect(smaller == 200)
  }

  @Test func nearestGivesTheNearestRoadsNearestFirst() throws {
    let server = try Self.server()
    let point = Self.places[0]
    let (status, body) = try Self.answer(
      server, "/nearest/v1/driving/\(point.longitude),\(point.latitude)?number=3")
    #expect(status == 200, "\(body)")
    let waypoints = try #require(body["waypoints"] as? [[String: Any]])
    #expect(waypoints.count == 3)
    let distances = waypoints.compactMap { $0["distance"] as? Double }
    #expect(distances == distances.sorted())
    #expect(waypoints.allSatisfy { ($0["nodes"] as? [Int])?.count == 2 })
    // The nearest is the nearest road of the network, whichever way it is looked up.
    let network = try #require(Self.network)
    let nearest = try #require(
      try network.segments(near: point, withinMeters: 200).first {
        network.segments[$0.segmentID].isOpenToCars
      })
    #expect(abs(distances[0] - nearest.distanceInMeters) < 0.01)
  }

  @Test(arguments: [
    ("/route/v1/driving/9.52,47.14", "InvalidOptions", "at least two"),
    ("/route/v1/bike/9.52,47.14;9.53,47.15", "InvalidValue", "profile"),
    ("/route/v1/driving/9.52,97.14;9.53,47.15", "InvalidValue", "Invalid coordinate"),
    ("/route/v1/driving/abc", "InvalidQuery", "coordinate 0"),
    ("/route/v1/driving/9.52,47.14;;9.53,47.15", "InvalidQuery", "coordinate 1"),
    ("/route/v1/driving/9.52,47.14;9.53,nan", "InvalidQuery", "coordinate 1"),
    ("/route/v1/driving/9.52,47.14;9.53,47.15?foo=1", "InvalidQuery", "foo"),
    ("/route/v1/driving/9.52,47.14;9.53,47.15?steps=yes", "InvalidQuery", "steps"),
    ("/route/v1/driving/9.52,47.14;9.53,47.15?steps=true&steps=false", "InvalidQuery", "twice"),
    ("/route/v1/driving/9.52,47.14;9.53,47.15?alternatives=7", "TooBig", "alternatives"),
    ("/route/v1/driving/9.52,47.14;9.53,47.15?radiuses=1", "InvalidOptions", "radiuses"),
    ("/route/v1/driving/9.52,47.14;9.53,47.15?radiuses=-1;5", "InvalidOptions", "radius"),
    ("/route/v1/driving/9.52,47.14;9.53,47.15?radiuses=1e999;5", "InvalidQuery", "radius"),
    ("/route/v1/driving/9.52,47.14;9.53,47.15?bearings=400,10;", "InvalidOptions", "bearing"),
    ("/route/v1/driving/9.52,47.14;9.53,47.15?approaches=kerb;curb", "InvalidQuery", "kerb"),
    ("/route/v1/driving/9.52,47.14;9.53,47.15?geometries=foo", "InvalidQuery", "position 51"),
    ("/route/v1/driving/9.52,47.14;9.53,47.15?overview=none", "InvalidQuery", "malformed"),
    ("/route/v1/driving/9.52,47.14;9.53,47.15?radiuses=x;5", "InvalidQuery", "radius"),
    ("/route/v1/driving/9.52,47.14;9.53,47.15?bearings=a,b;", "InvalidQuery", "bearing"),
    ("/match/v1/driving/9.52,47.14;9.53,47.15", "InvalidService", "Service match not found!"),
    ("/trip/v1/driving/9.52,47.14;9.53,47.15", "InvalidService", "trip"),
    ("/tile/v1/driving/tile(1,2,3).mvt", "InvalidService", "tile"),
    ("/route/v2/driving/9.52,47.14;9.53,47.15", "InvalidVersion", "Service route not found!"),
    (
      "/route/v1/driving/9.52,47.14;9.53,47.15?exclude=toll,motorway", "InvalidValue",
      "Exclude flag combination is not supported."
    ),
    ("/route/v1/driving/9.52,47.14;9.53,47.15?waypoints=1", "InvalidOptions", "waypoints"),
    ("/route/v1/driving/0,0;0.1,0.1?radiuses=1000;1000", "NoSegment", "coordinate 0"),
    ("/table/v1/driving/9.52,47.14;9.53,47.15?sources=5", "InvalidOptions", "sources"),
    (
      "/table/v1/driving/9.52,47.14;9.53,47.15?fallback_speed=0", "InvalidOptions", "fallback_speed"
    ),
    ("/table/v1/driving/9.52,47.14;9.53,47.15?scale_factor=-1", "InvalidOptions", "scale_factor"),
    // A factor that would overflow the durations is refused, not answered with nulls.
    (
      "/table/v1/driving/9.52,47.14;9.53,47.15?scale_factor=1e308", "InvalidOptions", "scale_factor"
    ),
    ("/table/v1/driving/9.52,47.14;9.53,47.15?annotations=speed", "InvalidQuery", "speed"),
    ("/table/v1/driving/9.52,47.14;0,0?radiuses=;5000", "NoSegment", "coordinate 1"),
    ("/nearest/v1/driving/9.52,47.14?number=1000", "TooBig", "1000"),
    ("/nearest/v1/driving/9.52,47.14?number=0", "InvalidOptions", "number"),
    ("/route/v1/driving/polyline(@@@)", "InvalidQuery", "polyline"),
  ])
  func badRequestsGetOSRMsCodes(target: String, code: String, naming: String) throws {
    let server = try Self.server()
    let (status, body) = try Self.answer(server, target)
    #expect(status == 400, "\(target): \(body)")
    #expect(body["code"] as? String == code, "\(target): \(body)")
    let message = body["message"] as? String ?? ""
    #expect(message.contains(naming), "\(target): \(message)")
    #expect(Set(body.keys) == ["code", "message"])
  }

  @Test func tooManyCoordinatesAreTooBigWithoutAHang() throws {
    let server = try Self.server()
    let many = (0..<501).map { "9.5\($0 % 10),47.1\($0 % 10)" }.joined(separator: ";")
    let (status, body) = try Self.answer(server, "/route/v1/driving/\(many)")
    #expect(status == 400)
    #expect(body["code"] as? String == "TooBig")
    let table = (0..<200).map { "9.5\($0 % 10),47.1\($0 % 10)" }.joined(separator: ";")
    let (tableStatus, tableBody) = try Self.answer(server, "/table/v1/driving/\(table)")
    #expect(tableStatus == 400)
    #expect(tableBody["code"] as? String == "TooBig")
  }

  @Test func theServersOwnRefusalsComeInOSRMsShape() throws {
    var configuration = ServerFixtures.quiet()
    configuration.apiKeys = ["secret"]
    let server = try Self.server(configuration)
    let response = server.handle(ServerFixtures.get("/table/v1/driving/\(Self.path)"))
    #expect(response.status == 401)
    let body = try ServerFixtures.object(response.body)
    #expect(body["code"] as? String == "InvalidKey")
    #expect((body["message"] as? String)?.contains("needs an API key") == true)
    #expect(response.headers["WWW-Authenticate"] != nil)
    let keyed = server.handle(ServerFixtures.get("/table/v1/driving/\(Self.path)?apiKey=secret"))
    #expect(keyed.status == 200)
  }

  @Test func aJamPushedAsProbesReachesTheNextTable() throws {
    typealias F = FlowServerFixtures
    let server = try F.server()
    let west = F.coordinates(east: 0)
    let east = F.coordinates(east: 1000)
    let target =
      "/table/v1/driving/\(west.longitude),\(west.latitude);\(east.longitude),\(east.latitude)"
    let (_, before) = try Self.answer(server, target)
    let free = try #require((before["durations"] as? [[Double]])?[0][1])
    let pushed = server.handle(
      ServerFixtures.post(
        "/v1/probes?flush=true", F.csvDrive(vehicles: 6, speed: 3),
        headers: ["Content-Type": "text/csv"]))
    #expect(pushed.status == 200, "\(pushed.bodyText)")
    let (_, after) = try Self.answer(server, target)
    let jammed = try #require((after["durations"] as? [[Double]])?[0][1])
    #expect(jammed > 2 * free, "free \(free) s, with the jam \(jammed) s")
  }
}
