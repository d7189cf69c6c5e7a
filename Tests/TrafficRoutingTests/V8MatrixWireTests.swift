import Foundation
import Geo
import Testing
import TrafficTestSupport

@testable import TrafficRouting

/// `V8MatrixWire`: the request and the answer of HERE Matrix Routing v8, written by one
/// side and read back the same by the other.
@Suite struct V8MatrixWireTests {
  static func point(_ generator: inout SeededGenerator) throws -> GeoCoordinates {
    try GeoCoordinates(
      latitude: Double.random(in: -90...90, using: &generator),
      longitude: Double.random(in: -180...180, using: &generator))
  }

  static func region(_ generator: inout SeededGenerator) throws -> V8MatrixWire.Region {
    switch Int.random(in: 0..<4, using: &generator) {
    case 0: return .world
    case 1:
      return .circle(
        center: try point(&generator),
        radiusInMeters: Double.random(in: 1...400_000, using: &generator))
    case 2:
      let south = Double.random(in: -90..<89, using: &generator)
      return .boundingBox(
        north: Double.random(in: south.nextUp...90, using: &generator), south: south,
        west: Double.random(in: -180...180, using: &generator),
        east: Double.random(in: -180...180, using: &generator))
    default:
      return .autoCircle(
        marginInMeters: Bool.random(using: &generator)
          ? Double(Int.random(in: 0...50_000, using: &generator)) : nil,
        maxRadiusInMeters: Bool.random(using: &generator)
          ? Double.random(in: 1...200_000, using: &generator) : nil)
    }
  }

  /// A request of every kind the writer can say.
  static func request(_ generator: inout SeededGenerator) throws -> V8MatrixWire.Request {
    let origins = try (0..<Int.random(in: 1...12, using: &generator)).map { _ in
      try point(&generator)
    }
    let destinations =
      Bool.random(using: &generator)
      ? try (0..<Int.random(in: 1...12, using: &generator)).map { _ in try point(&generator) }
      : nil
    var options = RouteOptions()
    switch Int.random(in: 0..<3, using: &generator) {
    case 0:
      options.departureTime = Date(
        timeIntervalSince1970: Double(Int.random(in: 0...4_000_000_000, using: &generator)))
    case 1: options.trafficOptimization = .longTermClosuresOnly
    default: break
    }
    options.avoidedFeatures = Set(
      RoadFeature.allCases.filter { _ in Bool.random(using: &generator) })
    let attributes: V8MatrixWire.Attributes = try #require(
      [.travelTimes, .distances, [.travelTimes, .distances]].randomElement(using: &generator))
    return V8MatrixWire.Request(
      origins: origins, destinations: destinations, region: try region(&generator),
      options: options, attributes: attributes)
  }

  @Test func aRequestReadsBackTheSame() throws {
    var generator = SeededGenerator(seed: 71)
    for round in 0..<300 {
      let request = try Self.request(&generator)
      let data = try request.encoded()
      let read = try V8MatrixWire.Request(json: data)
      #expect(read == request, "round \(round): \(String(decoding: data, as: UTF8.self))")
      #expect(try read.encoded() == data)
    }
  }

  @Test func anAnswerReadsBackTheSame() throws {
    var generator = SeededGenerator(seed: 72)
    for round in 0..<300 {
      let rows = Int.random(in: 0...9, using: &generator)
      let columns = Int.random(in: 0...9, using: &generator)
      func cells() -> [Int]? {
        Bool.random(using: &generator)
          ? (0..<rows * columns).map { _ in Int.random(in: 0...200_000, using: &generator) } : nil
      }
      let errors: [Int]? =
        Bool.random(using: &generator)
        ? (0..<rows * columns).map { _ in [0, 1, 2, 4].randomElement(using: &generator)! } : nil
      let response = V8MatrixWire.Response(
        matrixId: "m-\(round)", numOrigins: rows, numDestinations: columns,
        travelTimes: cells(), distances: cells(), errorCodes: errors,
        region: try Self.region(&generator))
      let read = try V8MatrixWire.Response(json: response.encoded())
      #expect(read == response, "round \(round)")
    }
  }

  @Test func anAnswerOfAMatrixMarksItsMissingCells() throws {
    let a = try GeoCoordinates(latitude: 52, longitude: 13)
    let b = try GeoCoordinates(latitude: 52.01, longitude: 13.01)
    let place = RouteMatrix.Place(location: a, originalLocation: a, distanceInMeters: 0)
    let matrix = RouteMatrix(
      travelTimesInSeconds: [[0, 61.4], [nil, 0.6]], distancesInMeters: [[0, 1000.5], [nil, 2]],
      origins: [place, place], destinations: [place, place])
    let answer = V8MatrixWire.Response(
      matrix, attributes: [.travelTimes], unmatched: [], region: .world, matrixId: "x")
    #expect(answer.travelTimes == [0, 61, 0, 1])
    #expect(answer.distances == nil)
    #expect(answer.errorCodes == [0, 0, 1, 0])
    let clean = V8MatrixWire.Response(
      matrix, attributes: [.distances], unmatched: [3], region: .world, matrixId: "x")
    // Index 3 is the second destination: its column is unmatched.
    #expect(clean.errorCodes == [0, 2, 1, 2])
    #expect(clean.distances == [0, 1001, 0, 2])
    let back = clean.routeMatrix(origins: [a, b], destinations: [a, b])
    #expect(back.distancesInMeters == [[0, nil], [nil, nil]])
    #expect(back.travelTimesInSeconds == [[nil, nil], [nil, nil]])
  }

  @Test func anAutoCircleBecomesTheCircleAroundTheWaypoints() throws {
    let points = [
      try GeoCoordinates(latitude: 52.0, longitude: 13.0),
      try GeoCoordinates(latitude: 52.1, longitude: 13.2),
    ]
    guard
      case .circle(let center, let radius) = V8MatrixWire.Region.autoCircle(
        marginInMeters: nil, maxRadiusInMeters: nil
      ).resolved(for: points)
    else {
      Issue.record("not a circle")
      return
    }
    #expect(abs(center.latitude - 52.05) < 1e-9)
    #expect(abs(center.longitude - 13.1) < 1e-9)
    let farthest = points.map { center.distance(to: $0) }.max() ?? 0
    #expect(radius == (farthest + 10_000).rounded(.up))
    #expect(
      V8MatrixWire.Region.autoCircle(marginInMeters: 0, maxRadiusInMeters: 10).outside(points) == [
        0, 1,
      ])
    #expect(V8MatrixWire.Region.world.outside(points).isEmpty)
    #expect(
      V8MatrixWire.Region.boundingBox(north: 52.05, south: 51.9, west: 12.9, east: 13.1)
        .outside(points) == [1])
    // A box across the antimeridian.
    let east = try GeoCoordinates(latitude: 0, longitude: 179.5)
    let west = try GeoCoordinates(latitude: 0, longitude: -179.5)
    let middle = try GeoCoordinates(latitude: 0, longitude: 0)
    #expect(
      V8MatrixWire.Region.boundingBox(north: 1, south: -1, west: 179, east: -179)
        .outside([east, west, middle]) == [2])
  }

  @Test(arguments: [
    ("[]", "must be a JSON object"),
    ("{", "not JSON"),
    (#"{"regionDefinition": {"type": "world"}}"#, "origins is required"),
    (#"{"origins": [], "regionDefinition": {"type": "world"}}"#, "origins is empty"),
    (#"{"origins": [{"lat": 52, "lng": 13}]}"#, "regionDefinition is required"),
    (
      #"{"origins": [{"lat": 95, "lng": 13}], "regionDefinition": {"type": "world"}}"#, "origins[0]"
    ),
    (#"{"origins": [{"lat": 52}], "regionDefinition": {"type": "world"}}"#, "needs lat and lng"),
    (
      #"{"origins": [{"lat": 52, "lng": 13, "x": 1}], "regionDefinition": {"type": "world"}}"#,
      "unknown member x"
    ),
    (
      #"{"origins": [{"lat": 52, "lng": 13}], "regionDefinition": {"type": "polygon"}}"#,
      "type polygon is not supported"
    ),
    (
      #"{"origins": [{"lat": 52, "lng": 13}], "regionDefinition": {"type": "blob"}}"#,
      "is unknown"
    ),
    (
      #"{"origins": [{"lat": 52, "lng": 13}], "regionDefinition": {"type": "circle", "radius": 5}}"#,
      "needs center"
    ),
    (
      #"{"origins": [{"lat": 52, "lng": 13}], "regionDefinition": {"type": "boundingBox", "north": 1, "south": 2, "west": 0, "east": 1}}"#,
      "must be > south"
    ),
    (
      #"{"origins": [{"lat": 52, "lng": 13}], "regionDefinition": {"type": "world"}, "transportMode": "pedestrian"}"#,
      "transportMode pedestrian is not supported"
    ),
    (
      #"{"origins": [{"lat": 52, "lng": 13}], "regionDefinition": {"type": "world"}, "routingMode": "short"}"#,
      "routingMode short"
    ),
    (
      #"{"origins": [{"lat": 52, "lng": 13}], "regionDefinition": {"type": "world"}, "profile": "carFast"}"#,
      "unknown member profile"
    ),
    (
      #"{"origins": [{"lat": 52, "lng": 13}], "regionDefinition": {"type": "world"}, "departureTime": "soon"}"#,
      "departureTime \"soon\""
    ),
    (
      #"{"origins": [{"lat": 52, "lng": 13}], "regionDefinition": {"type": "world"}, "matrixAttributes": ["tolls"]}"#,
      "matrixAttributes \"tolls\""
    ),
  ])
  func badRequestsAreRefusedNamingTheProblem(_ body: String, _ mention: String) {
    do {
      _ = try V8MatrixWire.Request(json: Data(body.utf8))
      Issue.record("read \(body)")
    } catch {
      #expect(error.description.contains(mention), "\(error)")
    }
  }

  @Test func optionsTheAPICannotSayAreRefusedWhenWriting() throws {
    let a = try GeoCoordinates(latitude: 52, longitude: 13)
    var options = RouteOptions()
    options.trafficOptimization = .disabled
    #expect(throws: RoutingError.self) {
      try V8MatrixWire.Request(origins: [a], options: options).encoded()
    }
    #expect(throws: RoutingError.self) {
      try V8MatrixWire.Request(origins: [a], attributes: []).encoded()
    }
  }

  @Test func avoidedFeaturesAreReadAndOthersRefused() throws {
    let body = { (avoid: String) in
      Data(
        ("{\"origins\": [{\"lat\": 52.5, \"lng\": 13.4}], \"regionDefinition\": "
          + "{\"type\": \"world\"}, \"avoid\": \(avoid)}").utf8)
    }
    let read = try V8MatrixWire.Request(
      json: body("{\"features\": [\"tollRoad\", \"controlledAccessHighway\"]}"))
    #expect(read.options.avoidedFeatures == [.toll, .motorway])
    for (avoid, mention) in [
      ("{\"features\": [\"dirtRoad\"]}", "avoid.features dirtRoad is not supported; give"),
      ("{\"areas\": []}", "avoid has an unsupported member areas"),
      ("[\"tollRoad\"]", "avoid must be an object"),
    ] {
      do {
        _ = try V8MatrixWire.Request(json: body(avoid))
        Issue.record("\(avoid) was read")
      } catch {
        #expect(error.description.contains(mention), "\(error)")
      }
    }
  }
}
