import Foundation
import Geo
import Testing
import TrafficTestSupport

@testable import TrafficRouting

/// `V8RouteQuery`: what the remote engine writes, the server reads back the same, and the
/// text it writes is v8's.
@Suite struct V8RouteQueryTests {
  /// A query of every kind the writer can say: any number of via points with stops,
  /// pass-through and headings, each traffic mode with the times it allows, every routing
  /// mode, alternatives, `return` and `spans` sets, with or without a language.
  static func query(_ generator: inout SeededGenerator) throws -> V8RouteQuery {
    func place() throws -> Waypoint {
      let coordinates = try GeoCoordinates(
        latitude: Double.random(in: -89...89, using: &generator),
        longitude: Double.random(in: -179...179, using: &generator))
      let heading =
        Bool.random(using: &generator) ? Double(Int.random(in: 0..<360, using: &generator)) : nil
      return Waypoint(coordinates, headingInDegrees: heading)
    }
    var via: [Waypoint] = []
    for _ in 0..<Int.random(in: 0...V8RouteQuery.maximumVia, using: &generator) {
      var point = try place()
      if Bool.random(using: &generator) {
        point.isPassThrough = true
      } else {
        point.stopDurationInSeconds = Double(Int.random(in: 0...86_400, using: &generator))
      }
      via.append(point)
    }
    var options = RouteOptions()
    options.routingMode = try #require(
      RouteOptions.RoutingMode.allCases.randomElement(using: &generator))
    options.alternatives = Int.random(in: 0...RouteOptions.maximumAlternatives, using: &generator)
    let time = Date(
      timeIntervalSince1970: Double(Int.random(in: 0...4_000_000_000, using: &generator)))
    switch Int.random(in: 0..<5, using: &generator) {
    case 0: options.departureTime = time
    case 1: options.arrivalTime = time
    case 2: options.trafficOptimization = .longTermClosuresOnly
    case 3:
      options.trafficOptimization = .disabled
      options.avoidsClosures = false
      if Bool.random(using: &generator) { options.departureTime = time }
    default: break
    }
    options.avoidedFeatures = Set(
      RoadFeature.allCases.filter { _ in Bool.random(using: &generator) })
    var returning: V8RouteWire.Return = [.summary]
    for (_, flag) in V8RouteWire.Return.names where Bool.random(using: &generator) {
      returning.insert(flag)
    }
    if returning.contains(.instructions) { returning.insert(.actions) }
    var spans: V8RouteWire.SpanAttributes = []
    for (_, flag) in V8RouteWire.SpanAttributes.names where Bool.random(using: &generator) {
      spans.insert(flag)
    }
    return V8RouteQuery(
      origin: try place(), destination: try place(), via: via, options: options,
      returning: returning, spans: spans,
      language: Bool.random(using: &generator) ? "de-DE" : nil)
  }

  @Test func whatIsWrittenReadsBackTheSame() throws {
    var generator = SeededGenerator(seed: 53)
    for round in 0..<400 {
      let query = try Self.query(&generator)
      let parameters = try query.parameters().map { (name: $0.0, value: $0.1) }
      let read = try V8RouteQuery(parameters: parameters)
      #expect(read == query, "round \(round): \(parameters)")
      // And what is read writes the same text again.
      #expect(
        try read.parameters().map { "\($0.0)=\($0.1)" }
          == parameters.map { "\($0.name)=\($0.value)" })
    }
  }

  @Test func theTextIsV8s() throws {
    var options = RouteOptions()
    options.departureTime = Date(timeIntervalSince1970: 1_780_000_000)
    let query = V8RouteQuery(
      origin: Waypoint(try GeoCoordinates(latitude: 52.5, longitude: 13.25), headingInDegrees: 90),
      destination: Waypoint(try GeoCoordinates(latitude: 52.51, longitude: 13.4)),
      via: [
        Waypoint(try GeoCoordinates(latitude: 52.505, longitude: 13.3), stopDurationInSeconds: 120),
        Waypoint(try GeoCoordinates(latitude: 52.507, longitude: 13.35), isPassThrough: true),
      ],
      options: options, returning: [.summary, .polyline, .turnByTurnActions],
      spans: [.length, .roadNames])
    let text = try query.parameters().map { "\($0.0)=\($0.1)" }
    #expect(
      text == [
        "transportMode=car", "origin=52.5,13.25;course=90", "destination=52.51,13.4",
        "return=summary,polyline,turnByTurnActions", "spans=length,names", "alternatives=0",
        "routingMode=fast", "via=52.505,13.3!stopDuration=120", "via=52.507,13.35!passThrough=true",
        "departureTime=2026-05-28T20:26:40Z",
      ])
  }

  @Test func badQueriesAreRefusedNamingTheParameter() {
    let base: [(name: String, value: String)] = [
      ("transportMode", "car"), ("origin", "52.5,13.4"), ("destination", "52.6,13.5"),
    ]
    for (extra, mention) in [
      ([("colour", "red")], "unknown parameter colour"),
      ([("alternatives", "1"), ("alternatives", "2")], "alternatives is given more than once"),
      ([("departureTime", "now")], "departureTime now is not an RFC 3339 time"),
      (
        [("departureTime", "2026-01-01T00:00:00Z"), ("arrivalTime", "2026-01-01T01:00:00Z")],
        "give departureTime or arrivalTime, not both"
      ),
      ([("return", "instructions")], "return instructions needs actions"),
      ([("spans", "colour")], "spans colour is not supported"),
      ([("traffic[mode]", "off")], "traffic[mode] off is not supported"),
      (
        [("avoid[features]", "tollRoad,tunnel")],
        "avoid[features] tunnel is not supported; give controlledAccessHighway, tollRoad, ferry"
      ),
      ([("avoid[areas]", "bbox:13.4,52.5,13.5,52.6")], "unknown parameter avoid[areas]"),
      (
        [("via", "52.55,13.45!stopDuration=10!stopDuration=20")],
        "stopDuration is given more than once"
      ),
      (
        [("via", "52.55,13.45!passThrough=true!passThrough=false")],
        "passThrough is given more than once"
      ),
      ([("via", "0x34,13.45")], "is not LAT,LNG (decimal degrees)"),
      ([("via", "nan,13.45")], "is not LAT,LNG (decimal degrees)"),
    ] as [([(name: String, value: String)], String)] {
      #expect(throws: V8RouteQuery.Malformed.self) { try V8RouteQuery(parameters: base + extra) }
      do {
        _ = try V8RouteQuery(parameters: base + extra)
      } catch {
        #expect(error.description.contains(mention), "\(error)")
      }
    }
    let vias = (0...V8RouteQuery.maximumVia).map { _ in (name: "via", value: "52.55,13.45") }
    #expect(throws: V8RouteQuery.Malformed("at most 23 via points, got 24")) {
      try V8RouteQuery(parameters: base + vias)
    }
  }

  @Test func avoidedFeaturesAreReadByHEREsNames() throws {
    let query = try V8RouteQuery(parameters: [
      ("transportMode", "car"), ("origin", "52.5,13.4"), ("destination", "52.6,13.5"),
      ("avoid[features]", "tollRoad,controlledAccessHighway,ferry"),
    ])
    #expect(query.options.avoidedFeatures == [.toll, .motorway, .ferry])
    #expect(
      try query.parameters().contains {
        $0 == ("avoid[features]", "controlledAccessHighway,tollRoad,ferry")
      })
  }
}
