import Codec
import Foundation
import Geo
import Testing
import Traffic
import TrafficRouting

@testable import TrafficServer

/// `GET /v8/routes`: the HERE Routing API v8 subset, and its errors in v8's shape.
@Suite struct V8RoutesTests {
  typealias F = FlowServerFixtures

  static let westToEast =
    "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01456"
    + "&return=summary,polyline,incidents&spans=length,duration,dynamicSpeedInfo"

  @Test func answersTheRoutingEnginesRouteInV8Shape() async throws {
    let server = try F.server()
    let response = server.handle(ServerFixtures.get(Self.westToEast))
    #expect(response.status == 200, "\(response.bodyText)")
    let body = try ServerFixtures.object(response.body)
    let routes = try #require(body["routes"] as? [[String: Any]])
    #expect(routes.count == 1)
    let sections = try #require(routes[0]["sections"] as? [[String: Any]])
    let section = try #require(sections.first)
    let summary = try #require(section["summary"] as? [String: Any])
    let expected = try await RoutingEngine(trafficEngine: server.engine).calculateRoute(
      from: GeoCoordinates(latitude: 52, longitude: 13),
      to: GeoCoordinates(latitude: 52, longitude: 13.01456))
    let route = try #require(expected.first)
    #expect(summary["duration"] as? Int == Int(route.durationInSeconds.rounded()))
    #expect(summary["length"] as? Int == Int(route.lengthInMeters.rounded()))
    #expect(summary["baseDuration"] as? Int == Int(route.baseDurationInSeconds.rounded()))
    let polyline = try #require(section["polyline"] as? String)
    let decoded = try FlexiblePolyline.decode(polyline).coordinates
    #expect(decoded.count == route.sections[0].polyline.vertices.count)
    let spans = try #require(section["spans"] as? [[String: Any]])
    #expect(spans.count == route.sections[0].traffic.spans.count)
    #expect(spans.first?["offset"] as? Int == 0)
    #expect(
      (spans.first?["dynamicSpeedInfo"] as? [String: Any])?["baseSpeed"] as? Double == F.limit)
    let departure = try #require(section["departure"] as? [String: Any])
    #expect(departure["time"] is String)
    #expect((section["transport"] as? [String: Any])?["mode"] as? String == "car")
    #expect(section["incidents"] as? [Any] != nil)
  }

  @Test(arguments: [
    ("/v8/routes?origin=52,13&destination=52,13.01", 400, "transportMode is required"),
    ("/v8/routes?transportMode=truck&origin=52,13&destination=52,13.01", 400, "truck"),
    ("/v8/routes?transportMode=car&destination=52,13.01", 400, "origin is required"),
    ("/v8/routes?transportMode=car&origin=52,13", 400, "destination is required"),
    ("/v8/routes?transportMode=car&origin=95,13&destination=52,13.01", 400, "origin 95,13"),
    ("/v8/routes?transportMode=car&origin=a,b&destination=52,13.01", 400, "is not LAT,LNG"),
    ("/v8/routes?transportMode=car&origin=0x34,13&destination=52,13.01", 400, "is not LAT,LNG"),
    ("/v8/routes?transportMode=car&origin=52%,13&destination=52,13.01", 400, "percent"),
    ("/v8/routes?transportMode=car&origin=52,13&destination=52,13.01&%ZZ=1", 400, "percent"),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01&alternatives=9", 400,
      "alternatives must be 0...3"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01&return=elevation", 400,
      "return elevation"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01&return=instructions",
      400, "return instructions needs actions"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01&departureTime=soon", 400,
      "departureTime soon"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01"
        + "&departureTime=9999-12-31T23:59:59Z", 400, "departureTime must lie before the year 5000"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01"
        + "&arrivalTime=5000-01-01T00:00:00Z", 400, "arrivalTime must lie before the year 5000"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01&bogus=1", 400,
      "unknown parameter bogus"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&origin=52,13&destination=52,13.01", 400,
      "given more than once"
    ),
    (
      "/v8/routes?transportMode=car&origin=10,10&destination=52,13.01", 400,
      "more than 1000 m from any road"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01&traffic[mode]=off", 400,
      "traffic[mode] off is not supported"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01&routingMode=eco", 400,
      "routingMode eco is not supported"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01&arrivalTime=late", 400,
      "arrivalTime late"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01&via=52,13.005!course=90",
      400, "via 0 option course is not supported"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01"
        + "&via=52,13.005!stopDuration=-5", 400, "via 0: stopDuration must be 0...86400 s"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01"
        + "&via=52,13.005!passThrough=true!stopDuration=60", 400, "cannot have a stop"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01"
        + "&arrivalTime=2030-01-01T08:00:00Z&departureTime=2030-01-01T07:00:00Z", 400,
      "not both"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01&traffic[flow]=1", 400,
      "unknown parameter traffic[flow]"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13;course=360&destination=52,13.01", 400,
      "origin course 360 is not whole degrees 0...359"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01;course=90;course=90",
      400, "destination course is given more than once"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01;sideOfStreetHint=52,13",
      400, "destination place option sideOfStreetHint is not supported"
    ),
    (
      "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01&via=52,13.005;course=x",
      400, "via 0 course x is not whole degrees"
    ),
  ])
  func refusesBadRequestsInV8Shape(target: String, status: Int, mentions: String) throws {
    let server = try F.server()
    let response = server.handle(ServerFixtures.get(target))
    #expect(response.status == status)
    let body = try ServerFixtures.object(response.body)
    #expect(body["status"] as? Int == status)
    #expect((body["cause"] as? String)?.contains(mentions) == true, "\(response.bodyText)")
    #expect(body["title"] is String)
    #expect(body["code"] is String)
    #expect((body["correlationId"] as? String)?.isEmpty == false)
  }

  /// The sections of the first route of a 200 answer to `GET /v8/routes?` + `query`.
  static func sections(
    _ server: TrafficServer, _ query: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> [[String: Any]] {
    let response = server.handle(ServerFixtures.get("/v8/routes?" + query))
    #expect(response.status == 200, "\(response.bodyText)", sourceLocation: sourceLocation)
    return try #require(
      (try ServerFixtures.object(response.body)["routes"] as? [[String: Any]])?.first?[
        "sections"] as? [[String: Any]], sourceLocation: sourceLocation)
  }

  /// The road from 600 m to 900 m east closed (no other way leads east), from an hour ago
  /// until `hours` from now.
  static func closure(hours: Double) throws -> TrafficIncident {
    try TrafficIncident(
      id: "closed", type: .roadClosure, impact: .critical,
      startTime: Date().addingTimeInterval(-3_600),
      endTime: Date().addingTimeInterval(hours * 3_600), isRoadClosed: true,
      location: TrafficLocation(
        polyline: GeoPolyline(vertices: [F.coordinates(east: 600), F.coordinates(east: 900)])))
  }

  /// The status of a west-to-east route with the extra parameters, and its duration and
  /// base duration when there is one.
  static func route(
    _ server: TrafficServer, _ extra: String
  ) throws -> (status: Int, duration: Int?, baseDuration: Int?) {
    let response = server.handle(
      ServerFixtures.get(
        "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01456&return=summary"
          + extra))
    let body = try ServerFixtures.object(response.body)
    let sections = (body["routes"] as? [[String: Any]])?.first?["sections"] as? [[String: Any]]
    let summary = sections?.first?["summary"] as? [String: Any]
    return (response.status, summary?["duration"] as? Int, summary?["baseDuration"] as? Int)
  }

  @Test func departureTimeAnyIsPlanningModeAndTrafficModeDisabledIgnoresClosures() throws {
    // Slow probes on the way: live traffic makes the route slower than free flow.
    let slow = try F.server()
    let upload = slow.handle(
      ServerFixtures.post("/v1/probes", F.csvDrive(vehicles: 4, speed: 4)))
    #expect(upload.status == 200, "\(upload.bodyText)")
    let live = try Self.route(slow, "")
    let liveDuration = try #require(live.duration)
    #expect(liveDuration > (live.baseDuration ?? .max) + 60)
    // Planning mode: no traffic flow.
    let planning = try Self.route(slow, "&departureTime=any")
    #expect(planning.status == 200)
    #expect(planning.duration == planning.baseDuration)
    #expect(planning.baseDuration == live.baseDuration)

    // A closure of three hours: avoided live, driven through in planning mode.
    let short = try F.server(incidents: [Self.closure(hours: 2)])
    #expect(try Self.route(short, "").status == 400)
    #expect(try Self.route(short, "&departureTime=any").status == 200)
    // A closure of two days: avoided in planning mode too, not with traffic[mode]=disabled
    // (brackets raw or percent-encoded).
    let long = try F.server(incidents: [Self.closure(hours: 47)])
    #expect(try Self.route(long, "").status == 400)
    #expect(try Self.route(long, "&departureTime=any").status == 400)
    #expect(try Self.route(long, "&departureTime=any&traffic[mode]=default").status == 400)
    for mode in ["traffic[mode]=disabled", "traffic%5Bmode%5D=disabled"] {
      let ignoring = try Self.route(long, "&" + mode)
      #expect(ignoring.status == 200, "\(mode)")
      #expect(ignoring.duration == ignoring.baseDuration)
    }
  }

  @Test func spansCarryNamesLimitsClassesAndBaseDurations() throws {
    let server = try F.server()
    let spans = try #require(
      try Self.sections(
        server,
        "transportMode=car&origin=52,13&destination=52,13.01456"
          + "&spans=names,speedLimit,functionalClass,baseDuration"
      ).first?["spans"] as? [[String: Any]])
    #expect(spans.count == 2)
    #expect(
      spans.map { (($0["names"] as? [[String: Any]])?.first?["value"] as? String) } == [
        "West", "East",
      ])
    #expect(spans.allSatisfy { $0["speedLimit"] as? Double == F.limit })
    #expect(spans.allSatisfy { $0["functionalClass"] as? Int == 2 })
    #expect(spans.map { $0["baseDuration"] as? Int } == [36, 36])
    #expect(spans.allSatisfy { $0["dynamicSpeedInfo"] == nil })
  }

  @Test func incidentsOnTheRouteAreWordedInTheLanguageAsked() throws {
    let accident = try TrafficIncident(
      id: "crash", type: .accident, impact: .major,
      location: TrafficLocation(
        polyline: GeoPolyline(vertices: [F.coordinates(east: 650), F.coordinates(east: 700)])))
    let server = try F.server(incidents: [accident])
    func description(_ lang: String) throws -> String? {
      let section = try #require(
        try Self.sections(
          server,
          "transportMode=car&origin=52,13&destination=52,13.01456&return=incidents" + lang
        ).first)
      return (section["incidents"] as? [[String: Any]])?.first?["description"] as? String
    }
    let german = try #require(try description("&lang=de-DE"))
    #expect(german == accident.localized(to: try LanguageCode("de-DE")).description.text)
    #expect(german != (try description("&lang=en-US")))
    #expect(try description("") == accident.description.text)
  }

  @Test func viaStopsAndPassThroughPoints() throws {
    let server = try F.server()
    func sections(_ via: String) throws -> [[String: Any]] {
      try Self.sections(
        server, "transportMode=car&origin=52,13&destination=52,13.01456&via=" + via)
    }
    func time(_ place: Any?) -> Date? {
      ((place as? [String: Any])?["time"] as? String).flatMap { RFC3339.parse($0) }
    }
    let stopping = try sections("52,13.0102!stopDuration=300")
    #expect(stopping.count == 2)
    let arrived = try #require(time(stopping[0]["arrival"]))
    let left = try #require(time(stopping[1]["departure"]))
    #expect(abs(left.timeIntervalSince(arrived) - 300) < 0.01)
    #expect(try sections("52,13.0102!passThrough=true").count == 1)
    #expect(try sections("52,13.0102&routingMode=short").count == 2)
    #expect(try sections("52,13.0102!passThrough=false").count == 2)
  }

  @Test func anArrivalTimeIsMet() throws {
    let server = try F.server()
    let arrival = Date().addingTimeInterval(3 * 86_400)
    let section = try #require(
      try Self.sections(
        server,
        "transportMode=car&origin=52,13&destination=52,13.01456&arrivalTime="
          + RFC3339.format(arrival)
      ).first)
    let arrived = try #require(
      ((section["arrival"] as? [String: Any])?["time"] as? String).flatMap { RFC3339.parse($0) })
    #expect(abs(arrived.timeIntervalSince(arrival)) < 1)
  }

  /// HERE reads a time without an offset as local time at the origin (a departure) or the
  /// destination (an arrival), and writes each place's time in its own local time: at
  /// 52° N 13° E that is Berlin's, +01:00 in winter and +02:00 in summer.
  @Test func timesWithoutAnOffsetAreLocalAndAnswersCarryTheLocalOffset() throws {
    let server = try F.server()
    let base = "transportMode=car&origin=52,13&destination=52,13.01456"
    func times(_ extra: String) throws -> (departure: String, arrival: String) {
      let section = try #require(try Self.sections(server, base + extra).first)
      let departure = (section["departure"] as? [String: Any])?["time"] as? String
      let arrival = (section["arrival"] as? [String: Any])?["time"] as? String
      return (try #require(departure), try #require(arrival))
    }
    for (local, offset) in [("2027-01-15T08:00:00", "+01:00"), ("2027-07-15T08:00:00", "+02:00")] {
      let departing = try times("&departureTime=" + local)
      #expect(departing.departure == local + offset)
      #expect(departing.arrival.hasSuffix(offset))
      // The same instant as the time with its offset, and as its UTC spelling.
      #expect(try times("&departureTime=" + local + offset) == departing)
      let utc = try #require(RFC3339.parse(local + offset))
      #expect(try times("&departureTime=" + RFC3339.format(utc)) == departing)
      let arriving = try times("&arrivalTime=" + local)
      #expect(arriving.arrival == local + offset)
      #expect(try times("&arrivalTime=" + local + offset) == arriving)
    }
  }

  /// A place on a closed road takes the nearest open road, as it would in a network
  /// without the closed one: a route from it to itself is 0 s (a matrix's diagonal was
  /// "no route"); in planning mode, which drives through a short closure, it stays put.
  @Test func aPlaceOnAClosedRoadSnapsToTheNearestOpenOne() throws {
    // Both directions of the road from 600 m to 900 m east closed.
    let westward = try TrafficIncident(
      id: "closed-west", type: .roadClosure, impact: .critical,
      startTime: Date().addingTimeInterval(-3_600), endTime: Date().addingTimeInterval(7_200),
      isRoadClosed: true,
      location: TrafficLocation(
        polyline: GeoPolyline(vertices: [F.coordinates(east: 900), F.coordinates(east: 600)])))
    let server = try F.server(incidents: [Self.closure(hours: 2), westward])
    let inside = F.coordinates(east: 700)
    let place = "\(inside.latitude),\(inside.longitude)"
    let section = try #require(
      try Self.sections(
        server, "transportMode=car&origin=\(place)&destination=\(place)&return=summary"
      ).first)
    #expect((section["summary"] as? [String: Any])?["duration"] as? Int == 0)
    let location = try #require(
      ((section["departure"] as? [String: Any])?["place"] as? [String: Any])?["location"]
        as? [String: Any])
    let longitude = try #require(location["lng"] as? Double)
    // The road from B (500 m east) to E is closed: the nearest open roads meet at B.
    #expect(abs(longitude - F.coordinates(east: 500).longitude) < 2e-5, "\(location)")
    // In planning mode the short closure is driven through: the place is on its road.
    let planning = try #require(
      try Self.sections(
        server,
        "transportMode=car&origin=\(place)&destination=\(place)&return=summary"
          + "&departureTime=any"
      ).first)
    let planned = try #require(
      ((planning["departure"] as? [String: Any])?["place"] as? [String: Any])?["location"]
        as? [String: Any])
    #expect(abs((planned["lng"] as? Double ?? 0) - inside.longitude) < 2e-5)
  }

  @Test func actionsAndTurnByTurnActionsDescribeTheManeuvers() throws {
    let server = try F.server()
    let section = try #require(
      try Self.sections(
        server,
        "transportMode=car&origin=52,13&destination=52,13.01456"
          + "&return=polyline,actions,instructions,turnByTurnActions"
      ).first)
    let actions = try #require(section["actions"] as? [[String: Any]])
    #expect(actions.map { $0["action"] as? String } == ["depart", "continue", "arrive"])
    #expect(
      actions.map { $0["instruction"] as? String } == [
        "Head east on West. Go for 500 m.", "Continue on East. Go for 500 m.", "Arrive at East.",
      ])
    #expect(actions.map { $0["length"] as? Int } == [500, 500, 0])
    // Offsets are polyline vertices: the start, the crossing, the end.
    let vertices = try FlexiblePolyline.decode(#require(section["polyline"] as? String))
      .coordinates
    let offsets = actions.compactMap { $0["offset"] as? Int }
    #expect(offsets.count == 3 && offsets[0] == 0 && offsets[2] == vertices.count - 1)
    #expect(vertices[offsets[1]].distance(to: F.coordinates(east: 500)) < 1)
    // In German with lang=de-DE; a language without texts gets English.
    for (lang, first) in [
      ("de-DE", "Fahren Sie Richtung Osten auf West. Fahren Sie 500 m weiter."),
      ("ja", "Head east on West. Go for 500 m."),
    ] {
      let localized = try ServerFixtures.object(
        server.handle(
          ServerFixtures.get(
            "/v8/routes?transportMode=car&origin=52,13&destination=52,13.01456"
              + "&return=actions,instructions&lang=" + lang)
        ).body)
      let actions =
        ((localized["routes"] as? [[String: Any]])?.first?["sections"]
        as? [[String: Any]])?.first?["actions"] as? [[String: Any]]
      #expect(actions?.first?["instruction"] as? String == first, "\(lang)")
    }
    let turns = try #require(section["turnByTurnActions"] as? [[String: Any]])
    #expect(turns.count == 3)
    #expect(turns[1]["instruction"] == nil)
    let next = turns[1]["nextRoad"] as? [String: Any]
    #expect((next?["name"] as? [[String: Any]])?.first?["value"] as? String == "East")
    let current = turns[1]["currentRoad"] as? [String: Any]
    #expect((current?["name"] as? [[String: Any]])?.first?["value"] as? String == "West")
  }

  @Test func withoutARoadNetworkTheAnswerIs404() throws {
    let server = try TrafficServer(engine: TrafficEngine(store: InMemoryTrafficStore()))
    let response = server.handle(
      ServerFixtures.get("/v8/routes?transportMode=car&origin=52,13&destination=52,13.01"))
    #expect(response.status == 404)
    #expect(response.bodyText.contains("no road network"))
  }
}

/// The v8 answer read back (`V8RouteWire.decode`), and the remote `RoutingEngine`, which
/// asks a server's `/v8/routes`.
@Suite(.serialized) struct RemoteRoutingTests {
  typealias F = FlowServerFixtures

  static let west = F.coordinates(east: 0)
  static let east = F.coordinates(east: 1000)

  /// A started server on the crossing network with `incidents`, and routing engines on it
  /// through its socket (remote) and in its process (local); stop the server after.
  static func routers(
    incidents: [TrafficIncident] = []
  ) throws -> (server: TrafficServer, remote: RoutingEngine, local: RoutingEngine) {
    let server = try F.server(
      incidents: incidents, configuration: HTTPFrontEndTests.quietLoopback())
    try server.start()
    let port = try #require(server.port)
    let remote = RoutingEngine(
      trafficEngine: try TrafficEngine(server: #require(URL(string: "http://127.0.0.1:\(port)"))))
    return (server, remote, RoutingEngine(trafficEngine: server.engine))
  }

  @Test func theAnswerReadsBackIntoTheSameRoutes() async throws {
    let server = try F.server()
    let routes = try await RoutingEngine(trafficEngine: server.engine).calculateRoute(
      from: Self.west, to: Self.east)
    let data = V8RouteWire.encode(
      routes, returning: [.summary, .polyline, .incidents, .turnByTurnActions],
      spans: [.length, .duration, .dynamicSpeedInfo])
    let decoded = try V8RouteWire.decode(data)
    #expect(decoded.count == routes.count)
    for (read, written) in zip(decoded, routes) {
      #expect(read.sections.count == written.sections.count)
      for (a, b) in zip(read.sections, written.sections) {
        #expect(a.durationInSeconds == b.durationInSeconds.rounded())
        #expect(a.lengthInMeters == b.lengthInMeters.rounded())
        #expect(a.baseDurationInSeconds == b.baseDurationInSeconds.rounded())
        #expect(abs(a.departure.time.timeIntervalSince(b.departure.time)) < 0.001)
        #expect(a.polyline.vertices.count == b.polyline.vertices.count)
        for (p, q) in zip(a.polyline.vertices, b.polyline.vertices) {
          #expect(p.distance(to: q) < 1)
        }
        #expect(
          a.traffic.spans.map(\.trafficSpeedInMetersPerSecond)
            == b.traffic.spans.map { ($0.trafficSpeedInMetersPerSecond * 100).rounded() / 100 })
        #expect(
          a.traffic.incidents.map(\.incident.originalId)
            == b.traffic.incidents.map(\.incident.originalId))
      }
    }
    #expect(throws: RoutingError.self) { try V8RouteWire.decode(Data("{\"routes\": 3}".utf8)) }
    #expect(throws: RoutingError.self) { try V8RouteWire.decode(Data("nope".utf8)) }
    // Offsets past any vertex, however large, are refused (not a trap converting them).
    let text = String(decoding: data, as: UTF8.self)
    for huge in ["1e300", "-1", "99999"] {
      for key in ["\"offset\":0", "\"offset\":1"] where text.contains(key) {
        let broken = text.replacingOccurrences(of: key, with: "\"offset\":\(huge)")
        #expect(throws: RoutingError.self) { try V8RouteWire.decode(Data(broken.utf8)) }
      }
    }
  }

  @Test func aRemoteEngineRoutesThroughItsServer() async throws {
    let server = try F.server(configuration: HTTPFrontEndTests.quietLoopback())
    try server.start()
    defer { server.stop() }
    let port = try #require(server.port)
    let remote = try TrafficEngine(server: #require(URL(string: "http://127.0.0.1:\(port)")))
    let router = RoutingEngine(trafficEngine: remote)
    let through = try await router.calculateRoute(from: Self.west, to: Self.east)
    let local = try await RoutingEngine(trafficEngine: server.engine).calculateRoute(
      from: Self.west, to: Self.east)
    #expect(through.first?.durationInSeconds == local.first?.durationInSeconds.rounded())
    #expect(
      through.first?.sections.first?.traffic.spans.count
        == local.first?.sections.first?.traffic.spans.count)
    // The maneuvers come through, with their roads and headings.
    let remoteManeuvers = try #require(through.first?.sections.first?.maneuvers)
    let localManeuvers = try #require(local.first?.sections.first?.maneuvers)
    #expect(remoteManeuvers.count == 3)
    #expect(remoteManeuvers.map(\.instruction) == localManeuvers.map(\.instruction))
    #expect(remoteManeuvers.map(\.fromRoad) == localManeuvers.map(\.fromRoad))
    let remoteSpans = try #require(through.first?.sections.first?.traffic.spans)
    let localSpans = try #require(local.first?.sections.first?.traffic.spans)
    #expect(remoteSpans.map(\.roadName) == localSpans.map(\.roadName))
    #expect(remoteSpans.map(\.functionalClass) == localSpans.map(\.functionalClass))
    #expect(
      remoteSpans.map(\.speedLimitInMetersPerSecond)
        == localSpans.map(\.speedLimitInMetersPerSecond))
    let far = try GeoCoordinates(latitude: 10, longitude: 10)
    let error = await #expect(throws: RoutingError.self) {
      try await router.calculateRoute(from: Self.west, to: far)
    }
    #expect(error?.description.contains("answered 400") == true, "\(String(describing: error))")
    #expect(error?.description.contains("more than 1000 m") == true)
  }

  @Test func aCourseAtTheOriginPicksTheDirectionLocallyAndThroughARemoteEngine() async throws {
    let (server, remote, local) = try Self.routers()
    defer { server.stop() }
    // From 200 m heading west: to W's dead end and back, 1200 m to E; heading east 800 m.
    for (heading, meters) in [(270.0, 1200.0), (90, 800)] {
      let origin = Waypoint(F.coordinates(east: 200), headingInDegrees: heading)
      let destination = Waypoint(Self.east)
      let here = try #require(
        try await local.calculateRoute(from: origin, to: destination).first)
      let there = try #require(
        try await remote.calculateRoute(from: origin, to: destination).first)
      #expect(abs(here.lengthInMeters - meters) < 2)
      #expect(abs(there.lengthInMeters - meters) < 2)
      #expect(there.durationInSeconds == here.durationInSeconds.rounded())
    }
    // As v8 writes it on the wire.
    let text = V8RouteWire.placeText(Waypoint(F.coordinates(east: 200), headingInDegrees: 270))
    #expect(text.hasSuffix(";course=270"))
    #expect(try V8RouteWire.placeWithOptions(text, name: "origin").headingInDegrees == 270)
  }

  @Test func aRemoteEngineAsksForTheTrafficModeAsV8SaysIt() async throws {
    // A closure of three hours, which only live traffic avoids.
    let (server, remote, local) = try Self.routers(incidents: [V8RoutesTests.closure(hours: 2)])
    defer { server.stop() }
    await #expect(throws: RoutingError.self) {
      try await remote.calculateRoute(from: Self.west, to: Self.east)
    }
    var shortest = RouteOptions(trafficOptimization: .longTermClosuresOnly)
    shortest.routingMode = .short
    for options in [
      RouteOptions(trafficOptimization: .longTermClosuresOnly),
      RouteOptions(trafficOptimization: .disabled, avoidsClosures: false), shortest,
    ] {
      let through = try await remote.calculateRoute(
        from: Self.west, to: Self.east, options: options)
      let here = try await local.calculateRoute(from: Self.west, to: Self.east, options: options)
      #expect(abs((through.first?.lengthInMeters ?? 0) - 1000) < 2)
      #expect(through.first?.durationInSeconds == here.first?.durationInSeconds.rounded())
    }
    // A stop at a via point, asked as v8's !stopDuration.
    let stopping = try await remote.calculateRoute(
      from: Self.west, to: Self.east,
      via: [Waypoint(F.coordinates(east: 400), stopDurationInSeconds: 120)],
      options: RouteOptions(trafficOptimization: .longTermClosuresOnly))
    let legs = try #require(stopping.first?.sections)
    #expect(legs.count == 2)
    if legs.count == 2 {
      #expect(abs(legs[1].departure.time.timeIntervalSince(legs[0].arrival.time) - 120) < 0.01)
    }
    // An arrival three days ahead, when the closure has ended: asked as v8's arrivalTime.
    let arrival = Date().addingTimeInterval(3 * 86_400)
    let arriving = try await remote.calculateRoute(
      from: Self.west, to: Self.east, options: RouteOptions(arrivalTime: arrival))
    let arrived = try #require(arriving.first?.sections.last?.arrival.time)
    #expect(abs(arrived.timeIntervalSince(arrival)) < 1)
    // An arrival without traffic (traffic[mode]=disabled) through the closure, now.
    let soon = Date().addingTimeInterval(600)
    let unhindered = try await remote.calculateRoute(
      from: Self.west, to: Self.east,
      options: RouteOptions(
        trafficOptimization: .disabled, avoidsClosures: false, arrivalTime: soon))
    let reached = try #require(unhindered.first?.sections.last?.arrival.time)
    #expect(abs(reached.timeIntervalSince(soon)) < 1)
    // What v8 cannot say is refused by name, before any request.
    for (options, mentions) in [
      (
        RouteOptions(departureTime: Date(), trafficOptimization: .longTermClosuresOnly),
        "departureTime=any"
      ),
      (RouteOptions(trafficOptimization: .disabled), "avoidsClosures"),
    ] {
      let error = await #expect(throws: RoutingError.self) {
        try await remote.calculateRoute(from: Self.west, to: Self.east, options: options)
      }
      #expect(error?.description.contains(mentions) == true, "\(String(describing: error))")
    }
  }
}
