import Foundation
import Testing
import Traffic
import TrafficFeeds
import TrafficTestSupport

@testable import TrafficServer

/// `docs/api.md` checked against the router: every route the server answers is documented,
/// with the methods it takes.
///
/// The router (`Route`) has no table to read: it matches raw paths in `init?(rawPath:)`. So
/// the routes are known three ways that keep one another honest:
/// - `kind(of:)` switches over `Route` exhaustively: a new case does not compile until it
///   has a `RouteKind` here;
/// - `samples` holds one request per kind (and one per `TileLayer`), and
///   `samplesCoverEveryRoute` fails when a kind has none;
/// - `everySampleIsAnsweredByItsRoute` sends each sample through `TrafficServer.handle`
///   and expects a 200, so a sample cannot name a path the router does not answer.
/// `everyRouteIsDocumented` then requires each route's pattern (`Route.label`, the metrics
/// label) in a row of the document's route table naming exactly `Route.allowedMethods`, and
/// no row for a path the router does not know.
@Suite struct APIDocumentationTests {
  /// The kinds of route `Route` distinguishes.
  enum RouteKind: CaseIterable {
    case index, health, readiness, metrics, incidents, incidentStream, incidentLookup, flow, feeds
    case feedPush, probes, routeTraffic, routes, matrix, tile, info, webAsset, leaflet, apiSummary
    case datex2Situations, wzdxFeed, openAPI, tileJSON, osrmRoute, osrmTable, osrmNearest
  }

  /// The kind of a route. Exhaustive on purpose: see the suite's documentation.
  static func kind(of route: Endpoint) -> RouteKind {
    switch route {
    case .index: return .index
    case .health: return .health
    case .readiness: return .readiness
    case .metrics: return .metrics
    case .incidents: return .incidents
    case .incidentStream: return .incidentStream
    case .incidentLookup: return .incidentLookup
    case .flow: return .flow
    case .feeds: return .feeds
    case .feedPush: return .feedPush
    case .probes: return .probes
    case .routeTraffic: return .routeTraffic
    case .routes: return .routes
    case .matrix: return .matrix
    case .tile: return .tile
    case .info: return .info
    case .webAsset: return .webAsset
    case .leaflet: return .leaflet
    case .apiSummary: return .apiSummary
    case .datex2Situations: return .datex2Situations
    case .wzdxFeed: return .wzdxFeed
    case .openAPI: return .openAPI
    case .tileJSON: return .tileJSON
    case .osrm(.route, _): return .osrmRoute
    case .osrm(.table, _): return .osrmTable
    case .osrm(.nearest, _): return .osrmNearest
    }
  }

  /// One request a route answers with 200 on `server()`.
  struct Sample: CustomTestStringConvertible, Sendable {
    var method: String
    var target: String
    var body: Data = Data()

    var testDescription: String { "\(method) \(target)" }

    var route: Endpoint? { Endpoint(rawPath: HTTPRequest(target: target).rawPath) }
  }

  /// The crossing of `FlowServerFixtures`' network, where the sample incident lies.
  static let crossing = FlowServerFixtures.coordinates(east: 500)

  /// One request per route (and per tile layer).
  static let samples: [Sample] = {
    let circle = "circle:\(crossing.latitude),\(crossing.longitude);r=1000"
    let center = "{\"lat\": \(crossing.latitude), \"lng\": \(crossing.longitude)}"
    let inObject = Data(
      "{\"in\": {\"type\": \"circle\", \"center\": \(center), \"radius\": 1000}}".utf8)
    let west = FlowServerFixtures.coordinates(east: 0)
    let east = FlowServerFixtures.coordinates(east: 1000)
    let points = [west, east].map { "{\"lat\": \($0.latitude), \"lng\": \($0.longitude)}" }
    let route = Data(
      "{\"route\": {\"coordinates\": [\(points.joined(separator: ", "))]}}".utf8)
    let feed =
      (try? Data(
        contentsOf: Fixtures.repositoryRoot.appendingPathComponent(
          "Tests/TrafficFeedsTests/Fixtures/here-v7/incidents.json"))) ?? Data()
    var samples = [
      Sample(method: "GET", target: "/"),
      Sample(method: "GET", target: "/healthz"),
      Sample(method: "GET", target: "/readyz"),
      Sample(method: "GET", target: "/metrics"),
      Sample(method: "GET", target: "/api"),
      Sample(method: "GET", target: "/v1/info"),
      Sample(method: "GET", target: "/web/app.js"),
      Sample(method: "GET", target: "/leaflet/leaflet.js"),
      Sample(method: "GET", target: "/v7/incidents?in=\(circle)"),
      Sample(method: "POST", target: "/v7/incidents", body: inObject),
      Sample(method: "GET", target: "/v7/incidents/stream?in=\(circle)"),
      Sample(method: "GET", target: "/v7/incidents/A"),
      Sample(method: "GET", target: "/v7/flow?in=\(circle)"),
      Sample(method: "POST", target: "/v7/flow", body: inObject),
      Sample(method: "GET", target: "/v1/feeds"),
      Sample(method: "POST", target: "/v1/feeds/here-v7?source=docs", body: feed),
      Sample(
        method: "POST", target: "/v1/probes",
        body: Data(FlowServerFixtures.csvDrive(vehicles: 2, speed: 10).utf8)),
      Sample(method: "POST", target: "/v1/route/traffic", body: route),
      Sample(
        method: "GET",
        target:
          "/v8/routes?transportMode=car&origin=\(west.latitude),\(west.longitude)"
          + "&destination=\(east.latitude),\(east.longitude)"),
      Sample(
        method: "POST", target: "/v8/matrix?async=false",
        body: Data(
          ("{\"origins\": [\(points.joined(separator: ", "))], "
            + "\"regionDefinition\": {\"type\": \"world\"}}").utf8)),
      Sample(method: "GET", target: "/datex2/v3/situations"),
      Sample(method: "GET", target: "/wzdx/v4.2/feed"),
      Sample(method: "GET", target: "/openapi.json"),
      Sample(
        method: "GET",
        target:
          "/route/v1/driving/\(west.longitude),\(west.latitude);\(east.longitude),\(east.latitude)"
      ),
      Sample(
        method: "GET",
        target:
          "/table/v1/driving/\(west.longitude),\(west.latitude);\(east.longitude),\(east.latitude)"
      ),
      Sample(method: "GET", target: "/nearest/v1/driving/\(west.longitude),\(west.latitude)"),
    ]
    for layer in TileLayer.allCases {
      samples.append(
        Sample(method: "GET", target: "/tiles/\(layer.rawValue)/0/0/0.\(layer.fileExtension)"))
      samples.append(Sample(method: "GET", target: "/tiles/\(layer.rawValue).json"))
    }
    return samples
  }()

  /// The text of `docs/api.md`.
  static func document() throws -> String {
    try String(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/api.md"), encoding: .utf8)
  }

  /// A server with `FlowServerFixtures`' network, an incident `A` at the crossing and a
  /// Leaflet folder of its own (so that `/leaflet/...` answers without `libjs-leaflet`).
  static func server() throws -> (TrafficServer, leaflet: URL) {
    let leaflet = FileManager.default.temporaryDirectory.appendingPathComponent(
      "api-doc-leaflet-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: leaflet, withIntermediateDirectories: true)
    try Data("/* leaflet */".utf8).write(to: leaflet.appendingPathComponent("leaflet.js"))
    var configuration = ServerFixtures.quiet()
    configuration.leafletDirectory = leaflet.path
    let accident = try TrafficIncident(
      id: "A-v1", originalId: "A", type: .accident, impact: .critical,
      startTime: Date().addingTimeInterval(-600), endTime: Date().addingTimeInterval(3600),
      location: TrafficLocation(point: crossing))
    let server = try FlowServerFixtures.server(
      incidents: [accident], configuration: configuration)
    return (server, leaflet)
  }

  @Test func samplesCoverEveryRoute() {
    var covered = Set<String>()
    for sample in Self.samples {
      guard let route = sample.route else {
        Issue.record("the router knows no route for \(sample.target)")
        continue
      }
      covered.insert("\(Self.kind(of: route))")
    }
    for kind in RouteKind.allCases where !covered.contains("\(kind)") {
      Issue.record("no sample request for the route kind \(kind); add one to `samples`")
    }
    let tileLabels = Set(
      Self.samples.compactMap(\.route).filter { Self.kind(of: $0) == .tile }.map(\.label))
    #expect(tileLabels == Set(TileLayer.allCases.map(\.pattern)))
  }

  @Test(arguments: samples)
  func everySampleIsAnsweredByItsRoute(_ sample: Sample) throws {
    let (server, leaflet) = try Self.server()
    defer { try? FileManager.default.removeItem(at: leaflet) }
    let response = server.handle(
      HTTPRequest(method: sample.method, target: sample.target, body: sample.body))
    response.eventStream?.finish()
    #expect(response.status == 200, "\(sample.testDescription): \(response.bodyText.prefix(300))")
    let route = try #require(sample.route)
    #expect(route.allowedMethods.contains(sample.method))
  }

  /// The rows of the document's route table: `| METHODS | `PATH` | ... |`, as (methods,
  /// path cell).
  static func routeRows(_ text: String) -> [(methods: Set<String>, path: String)] {
    text.split(separator: "\n").compactMap { line in
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard line.hasPrefix("|"), cells.count >= 4 else { return nil }
      let methods = Set(
        cells[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
      guard !methods.isEmpty, methods.isSubset(of: ["GET", "HEAD", "POST", "PUT", "DELETE"])
      else { return nil }
      return (methods, cells[2])
    }
  }

  @Test func everyRouteIsDocumented() throws {
    let rows = Self.routeRows(try Self.document())
    var seen = Set<String>()
    for route in Self.samples.compactMap(\.route) where seen.insert(route.label).inserted {
      let pattern = "`\(route.label)`"
      guard let row = rows.first(where: { $0.path == pattern }) else {
        Issue.record("docs/api.md's route table has no row for \(pattern)")
        continue
      }
      let documented = row.methods.sorted()
      #expect(
        row.methods == Set(route.allowedMethods),
        "docs/api.md: \(pattern) takes \(route.allowedMethods), not \(documented)")
    }
    // And nothing documented that the router does not know.
    for row in rows where !seen.contains(String(row.path.dropFirst().dropLast())) {
      Issue.record("docs/api.md documents \(row.path), which is not a route of the server")
    }
  }

  @Test func everyFeedFormatAndErrorCodeIsDocumented() throws {
    let text = try Self.document()
    for format in FeedFormat.allCases {
      #expect(text.contains("`\(format.rawValue)`"), "feed format \(format.rawValue)")
    }
    let codes: [TrafficQueryError] = [
      .invalidIn(""), .invalidGeometry(""), .invalidIncident(""), .invalidFilterOptions(""),
      .invalidParameter(""), .badRequest(""), .incidentIdNotFound(""), .authenticationFailed,
      .tooManyRequests, .httpError(status: 404, ""), .internalError(""),
    ]
    for error in codes {
      #expect(text.contains("`\(error.name)`"), "error code \(error.name)")
    }
  }
}
