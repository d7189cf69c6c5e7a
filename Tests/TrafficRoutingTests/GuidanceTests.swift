import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficRouting
import TrafficTestSupport

/// The maneuvers of routes: exact on the crossing, and on a real network consistent with
/// the geometry (each turn to the side the polyline turns) and adding up to the section.
@Suite struct GuidanceTests {
  static func route(
    from: GeoCoordinates, to: GeoCoordinates, network: RoadNetwork
  ) async throws -> Route {
    let engine = try RoutingEngineTests.engine(network: network)
    return try #require(
      try await RoutingEngine(trafficEngine: engine).calculateRoute(from: from, to: to).first)
  }

  @Test("on the crossing: straight on is a change of name, left and right are turns")
  func crossingManeuvers() async throws {
    let network = try CrossingNetwork.network()
    let west = CrossingNetwork.coordinates(east: 0)
    let expectations: [(GeoCoordinates, [String])] = [
      (
        CrossingNetwork.coordinates(east: 1000),
        [
          "Head east on West. Go for 500 m.", "Continue on East. Go for 500 m.",
          "Arrive at East.",
        ]
      ),
      (
        CrossingNetwork.coordinates(east: 500, north: 500),
        [
          "Head east on West. Go for 500 m.", "Turn left onto North. Go for 500 m.",
          "Arrive at North.",
        ]
      ),
      (
        CrossingNetwork.coordinates(east: 500, north: -400),
        [
          "Head east on West. Go for 500 m.", "Turn right onto South. Go for 400 m.",
          "Arrive at South.",
        ]
      ),
    ]
    for (destination, instructions) in expectations {
      let route = try await Self.route(from: west, to: destination, network: network)
      let maneuvers = try #require(route.sections.first?.maneuvers)
      #expect(maneuvers.map(\.instruction) == instructions)
      #expect(
        maneuvers.map(\.action) == [
          .depart, instructions[1].hasPrefix("Turn") ? .turn : .continue, .arrive,
        ])
      if maneuvers[1].action == .turn {
        #expect(maneuvers[1].severity == .quite)
        #expect(maneuvers[1].fromRoad?.name == "West")
      }
      #expect(abs(maneuvers[1].offsetInMeters - 500) < 1)
    }
  }

  @Test("a bend with no other way on is no turn: nothing on one road, continue onto another")
  func bendsAreNoTurns() async throws {
    for (second, expected) in [
      ("Bend Road", ["Head east on Bend Road. Go for 400 m.", "Arrive at Bend Road."]),
      (
        "Second Road",
        [
          "Head east on Bend Road. Go for 200 m.", "Continue on Second Road. Go for 200 m.",
          "Arrive at Second Road.",
        ]
      ),
    ] {
      let network = try Self.network(
        points: [(0, 0), (300, 0), (300, 300)],
        roads: [(0, 1, "Bend Road", false), (1, 2, second, false)])
      let route = try await Self.route(
        from: CrossingNetwork.coordinates(east: 100),
        to: CrossingNetwork.coordinates(east: 300, north: 200),
        network: network)
      #expect(route.sections[0].maneuvers.map(\.instruction) == expected)
    }
  }

  @Test("instructions in the languages of the text catalogs, English for the others")
  func localizedInstructions() throws {
    let road = try #require(RouteManeuver.Road(name: "Hauptstraße", number: "B 3"))
    let turn = RouteManeuver(
      action: .turn, direction: .right, severity: .light, offsetInMeters: 0,
      lengthInMeters: 1_460, durationInSeconds: 90, road: road)
    let expected = [
      ("en-US", "Turn slightly right onto Hauptstraße (B 3). Go for 1.5 km."),
      ("de-DE", "Biegen Sie leicht rechts ab auf Hauptstraße (B 3). Fahren Sie 1,5 km weiter."),
      ("fr", "Tournez légèrement à droite sur Hauptstraße (B 3). Roulez sur 1,5 km."),
      ("it-IT", "Svolta leggermente a destra su Hauptstraße (B 3). Prosegui per 1,5 km."),
      ("es", "Gire ligeramente a la derecha hacia Hauptstraße (B 3). Siga durante 1,5 km."),
      ("pt-BR", "Turn slightly right onto Hauptstraße (B 3). Go for 1.5 km."),
    ]
    for (language, text) in expected {
      #expect(turn.instruction(language: language) == text)
    }
    let ring = RouteManeuver(
      action: .roundaboutExit, offsetInMeters: 0, lengthInMeters: 248, durationInSeconds: 20,
      road: road, exit: 1)
    #expect(
      ring.instruction(language: "fr")
        == "Au rond-point, prenez la 1re sortie sur Hauptstraße (B 3). Roulez sur 250 m.")
    #expect(
      ring.instruction(language: "de")
        == "Nehmen Sie im Kreisverkehr die 1. Ausfahrt auf Hauptstraße (B 3). Fahren Sie 250 m weiter."
    )
    let depart = RouteManeuver(
      action: .depart, offsetInMeters: 0, lengthInMeters: 5, durationInSeconds: 1,
      headingInDegrees: 268)
    #expect(depart.instruction(language: "es") == "Diríjase hacia el oeste. Siga durante 10 m.")
    #expect(
      depart.instruction(language: "fr") == "Prenez la direction de l'ouest. Roulez sur 10 m.")
    let arrive = RouteManeuver(
      action: .arrive, offsetInMeters: 0, lengthInMeters: 0, durationInSeconds: 0)
    #expect(arrive.instruction(language: "de") == "Sie haben Ihr Ziel erreicht.")
    #expect(
      turn.instruction(language: "nl")
        == "Sla flauw rechtsaf naar Hauptstraße (B 3). Volg de weg 1,5 km.")
    #expect(
      turn.instruction(language: "pl")
        == "Skręć lekko w prawo na Hauptstraße (B 3). Jedź dalej 1,5 km.")
    #expect(turn.instruction(language: "en-GB") == turn.instruction)
    #expect(turn.instruction(language: "not a tag!") == turn.instruction)
  }

  /// A route from a place to itself has no length: its departure names no distance ("Go
  /// for 10 m" would invent one), and in v8 JSON it and the first span start at the
  /// polyline's first vertex, as on any route (the polyline's two vertices lie together).
  @Test func aRouteOfNoLengthGoesNowhere() async throws {
    let network = try CrossingNetwork.network()
    let place = CrossingNetwork.coordinates(east: 200)
    let route = try await Self.route(from: place, to: place, network: network)
    let section = try #require(route.sections.first)
    #expect(section.lengthInMeters < 0.5)
    #expect(section.maneuvers.map(\.instruction) == ["Continue on West.", "Arrive at West."])
    #expect(section.maneuvers[0].instruction(language: "de") == "Fahren Sie weiter auf West.")
    let v8 = try #require(
      try JSONSerialization.jsonObject(
        with: V8RouteWire.encode(
          [route], returning: [.polyline, .actions, .instructions], spans: [.length]))
        as? [String: Any])
    let encoded = try #require(
      ((v8["routes"] as? [[String: Any]])?.first?["sections"] as? [[String: Any]])?.first)
    let actions = try #require(encoded["actions"] as? [[String: Any]])
    #expect(actions.map { $0["action"] as? String } == ["depart", "arrive"])
    #expect(actions.map { $0["length"] as? Int } == [0, 0])
    #expect(actions.first?["offset"] as? Int == 0)
    #expect(actions.first?["instruction"] as? String == "Continue on West.")
    let spans = try #require(encoded["spans"] as? [[String: Any]])
    #expect(spans.first?["offset"] as? Int == 0)
  }

  /// A network of straight roads between points given in meters east and north of 52° N,
  /// 13° E: each road one-way (a roundabout's ring) or two-way, limited to 13.89 m/s.
  static func network(
    points: [(Double, Double)], roads: [(from: Int, to: Int, name: String, ring: Bool)]
  ) throws -> RoadNetwork {
    let nodes = points.enumerated().map { i, point in
      RoadNode(
        id: i, sourceID: "n\(i)",
        coordinates: CrossingNetwork.coordinates(east: point.0, north: point.1))
    }
    let limit = SpeedLimit(metersPerSecond: 13.89, source: .posted)
    var segments: [RoadSegment] = []
    for road in roads {
      let line = try GeoPolyline(vertices: [
        nodes[road.from].coordinates, nodes[road.to].coordinates,
      ])
      let id = segments.count
      segments.append(
        RoadSegment(
          id: id, sourceID: road.name, fromNode: road.from, toNode: road.to, geometry: line,
          name: road.name, roadClass: .secondary, speedLimit: limit,
          oppositeID: road.ring ? nil : id + 1, isRoundabout: road.ring))
      guard !road.ring else { continue }
      segments.append(
        RoadSegment(
          id: id + 1, sourceID: road.name, fromNode: road.to, toNode: road.from,
          geometry: try GeoPolyline(vertices: line.vertices.reversed()), name: road.name,
          roadClass: .secondary, speedLimit: limit, isReversed: true, oppositeID: id))
    }
    return try RoadNetwork(nodes: nodes, segments: segments)
  }

  /// A roundabout of 30 m radius (one-way, counter-clockwise: west, south, east, north) with
  /// a two-way road of 200 m from each of its four points outwards.
  static func roundaboutNetwork() throws -> RoadNetwork {
    let ring = [(-30.0, 0.0), (0, -30), (30, 0), (0, 30)]
    let names = ["West Road", "South Road", "East Road", "North Road"]
    return try network(
      points: ring + ring.map { ($0.0 * 23 / 3, $0.1 * 23 / 3) },
      roads: (0..<4).map { ($0, ($0 + 1) % 4, "Ring", true) }
        + names.enumerated().map { (4 + $0.offset, $0.offset, $0.element, false) })
  }

  @Test("a roundabout is one maneuver, numbering the exit taken")
  func roundaboutExits() async throws {
    let network = try Self.roundaboutNetwork()
    let west = CrossingNetwork.coordinates(east: -200)
    for (destination, exit, ordinal, road) in [
      (CrossingNetwork.coordinates(east: 0, north: -200), 1, "1st", "South Road"),
      (CrossingNetwork.coordinates(east: 200), 2, "2nd", "East Road"),
      (CrossingNetwork.coordinates(east: 0, north: 200), 3, "3rd", "North Road"),
    ] {
      let route = try await Self.route(from: west, to: destination, network: network)
      let maneuvers = try #require(route.sections.first?.maneuvers)
      #expect(maneuvers.map(\.action) == [.depart, .roundaboutExit, .arrive], "\(maneuvers)")
      let ring = maneuvers[1]
      #expect(ring.exit == exit)
      #expect(ring.road?.name == road)
      #expect(ring.fromRoad?.name == "West Road")
      #expect(abs(ring.offsetInMeters - 170) < 1)
      #expect(
        ring.instruction.hasPrefix(
          "At the roundabout, take the \(ordinal) exit onto \(road)."), "\(ring.instruction)")
    }
  }

  @Test("on a real network, turns go the way the polyline turns and the stretches add up")
  func realNetworkManeuvers() async throws {
    let network = try #require(RoutingEngineTests.liechtenstein)
    var generator = SeededGenerator(seed: 31)
    var turns = 0
    var routes = 0
    for _ in 0..<60 where routes < 25 {
      let nodes = network.nodes
      let origin = nodes[Int.random(in: 0..<nodes.count, using: &generator)].coordinates
      let destination = nodes[Int.random(in: 0..<nodes.count, using: &generator)].coordinates
      guard
        let route = try? await Self.route(from: origin, to: destination, network: network),
        route.lengthInMeters > 500
      else { continue }
      routes += 1
      let section = route.sections[0]
      let maneuvers = section.maneuvers
      #expect(maneuvers.first?.action == .depart)
      #expect(maneuvers.last?.action == .arrive)
      #expect(
        abs(maneuvers.reduce(0) { $0 + $1.lengthInMeters } - section.lengthInMeters) < 0.5)
      #expect(
        abs(maneuvers.reduce(0) { $0 + $1.durationInSeconds } - section.durationInSeconds)
          < 0.5)
      #expect(
        zip(maneuvers, maneuvers.dropFirst()).allSatisfy {
          $0.offsetInMeters <= $1.offsetInMeters
        })
      // The polyline's own bend at each turn, over 15 m either side: the same side.
      let line = section.polyline
      for maneuver in maneuvers where maneuver.action == .turn {
        let at = maneuver.offsetInMeters
        guard at > 15, at + 15 < line.lengthInMeters else { continue }
        let before = line.coordinates(atDistance: at - 15).bearing(
          to: line.coordinates(atDistance: at))
        let after = line.coordinates(atDistance: at).bearing(
          to: line.coordinates(atDistance: at + 15))
        var bend = (after - before).truncatingRemainder(dividingBy: 360)
        if bend > 180 { bend -= 360 }
        if bend <= -180 { bend += 360 }
        // Only clear bends: short segments can make the 15 m windows straddle two junctions.
        guard abs(bend) > 45 else { continue }
        #expect(maneuver.direction == (bend > 0 ? .right : .left), "\(maneuver) bend \(bend)")
        turns += 1
      }
    }
    #expect(routes >= 20)
    #expect(turns >= 20)
  }
}
