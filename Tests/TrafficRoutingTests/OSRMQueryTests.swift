import Foundation
import Geo
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficRouting

/// `OSRMQuery`: what a client writes (`target`), the server reads back the same.
@Suite struct OSRMQueryTests {
  /// A query of any service with any of its options.
  static func query(_ generator: inout SeededGenerator) throws -> OSRMQuery {
    let service = try #require(OSRMQuery.Service.allCases.randomElement(using: &generator))
    let count =
      service == .nearest
      ? Int.random(in: 1...OSRMQuery.maximumNearestCoordinates, using: &generator)
      : Int.random(in: 2...OSRMQuery.maximumRouteCoordinates, using: &generator)
    // Coordinates as a client sends them: six decimals.
    let coordinates = try (0..<count).map { _ in
      try GeoCoordinates(
        latitude: Double(Int.random(in: -89_000_000...89_000_000, using: &generator)) / 1e6,
        longitude: Double(Int.random(in: -179_000_000...179_000_000, using: &generator)) / 1e6)
    }
    var query = OSRMQuery(service: service, coordinates: coordinates)
    query.profile = Bool.random(using: &generator) ? "car" : "driving"
    func some<T>(_ make: () -> T) -> [T?] {
      (0..<count).map { _ in Bool.random(using: &generator) ? make() : nil }
    }
    if Bool.random(using: &generator) {
      query.bearings = some {
        OSRMQuery.Bearing(
          degrees: Int.random(in: 0...360, using: &generator),
          range: Int.random(in: 0...180, using: &generator))
      }
    }
    if Bool.random(using: &generator) {
      query.radiuses = some { Double(Int.random(in: 0...5_000, using: &generator)) / 4 }
    }
    query.generateHints = Bool.random(using: &generator)
    query.skipWaypoints = Bool.random(using: &generator)
    query.exclude = ([[]] + OSRMQuery.excludableSets).randomElement(using: &generator) ?? []
    switch service {
    case .route:
      query.alternatives = Int.random(in: 0...OSRMQuery.maximumAlternatives, using: &generator)
      query.steps = Bool.random(using: &generator)
      query.annotations = OSRMQuery.routeAnnotations.filter { _ in Bool.random(using: &generator) }
      query.geometries = try #require(
        OSRMQuery.Geometries.allCases.randomElement(using: &generator))
      query.overview = try #require(OSRMQuery.Overview.allCases.randomElement(using: &generator))
      query.continueStraight = try #require([nil, true, false].randomElement(using: &generator))
      if query.alternatives == 0, Bool.random(using: &generator) {
        query.waypoints =
          [0] + (1..<(count - 1)).filter { _ in Bool.random(using: &generator) } + [count - 1]
      }
    case .table:
      if Bool.random(using: &generator) {
        query.sources = [Int.random(in: 0..<count, using: &generator)]
      }
      if Bool.random(using: &generator) {
        query.destinations = Array(0..<count).shuffled(using: &generator)
      }
      query.annotations = try #require(
        [["duration"], ["distance"], ["duration", "distance"]].randomElement(using: &generator))
      if Bool.random(using: &generator) {
        query.fallbackSpeed = Double(Int.random(in: 1...400, using: &generator)) / 10
      }
      query.fallbackCoordinateSnapped = Bool.random(using: &generator)
      if Bool.random(using: &generator) {
        query.scaleFactor = Double(Int.random(in: 1...40, using: &generator)) / 8
      }
    case .nearest:
      query.number = Int.random(in: 1...OSRMQuery.maximumNearestResults, using: &generator)
    }
    return query
  }

  /// Reads a target as the server does: the path after `/{service}/v1/` and the options.
  static func read(_ target: String, service: OSRMQuery.Service) throws -> OSRMQuery {
    let parts = target.split(separator: "?", maxSplits: 1)
    let path = parts[0].dropFirst("/\(service.rawValue)/v1/".count)
    let parameters = try QueryParameters.parse(parts.count > 1 ? parts[1] : "")
    return try OSRMQuery(
      service: service, path: path, parameters: parameters.pairs.map { ($0.name, $0.value) })
  }

  @Test func whatIsWrittenIsReadBackTheSame() throws {
    var generator = SeededGenerator(seed: 5_4)
    for _ in 0..<400 {
      let query = try Self.query(&generator)
      let read = try Self.read(query.target, service: query.service)
      #expect(read == query, "\(query.target)")
    }
  }

  @Test func polylineCoordinatesAndPercentEncodingAreRead() throws {
    let places = [
      GeoCoordinates(uncheckedLatitude: 47.1410, longitude: 9.5209),
      GeoCoordinates(uncheckedLatitude: 47.1735, longitude: 9.5432),
    ]
    let encoded = try GooglePolyline.encode(places, precision: 6)
    let polyline = try Self.read("/route/v1/driving/polyline6(\(encoded))", service: .route)
    #expect(polyline.coordinates == places)
    let percent = try Self.read(
      "/table/v1/car/9.5209%2C47.141%3B9.5432%2C47.1735.json", service: .table)
    #expect(percent.coordinates == places)
  }

  @Test("exclude takes the stock car profile's classes, each alone, on every service")
  func excludeTakesTheCarProfilesClasses() throws {
    for service in OSRMQuery.Service.allCases {
      let base = "/\(service.rawValue)/v1/driving/13.4,52.5;13.5,52.6"
      for name in ["motorway", "toll", "ferry"] {
        let read = try Self.read(base + "?exclude=\(name)", service: service)
        #expect(read.exclude == [try #require(RoadFeature(rawValue: name))])
      }
      #expect(try Self.read(base + "?exclude=", service: service).exclude.isEmpty)
    }
  }

  @Test(
    "an exclude the car profile cannot honour is osrm-routed's InvalidValue",
    arguments: ["motorway,toll", "toll,ferry", "toll,motorway,ferry", "banana", "toll,", "Toll"])
  func unsupportedExcludeIsInvalidValue(value: String) {
    #expect(throws: OSRMFailure("InvalidValue", "Exclude flag combination is not supported.")) {
      try Self.read("/route/v1/driving/13.4,52.5;13.5,52.6?exclude=\(value)", service: .route)
    }
  }
}
