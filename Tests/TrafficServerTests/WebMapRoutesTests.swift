import Codec
import Foundation
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficServer

/// `GET /` (the web map), its files under `/web/`, Leaflet under `/leaflet/`, `/api` and
/// `/v1/info`.
@Suite struct WebMapRoutesTests {

  @Test func pageReferencesLeafletAndItsOwnFiles() throws {
    let server = try FlowServerFixtures.server()
    let page = server.handle(ServerFixtures.get("/"))
    #expect(page.status == 200)
    #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
    for reference in [
      "/leaflet/leaflet.js", "/leaflet/leaflet.css", "/web/app.js", "/web/style.css",
      "id=\"show-flow\"", "id=\"show-incidents\"", "id=\"show-free-flow\"", "value=\"pl-PL\"",
      "Search around here",
    ] {
      #expect(page.bodyText.contains(reference), "\(reference)")
    }
    let script = server.handle(ServerFixtures.get("/web/app.js"))
    #expect(script.status == 200)
    #expect(script.headers["Content-Type"] == "text/javascript; charset=utf-8")
    for use in [
      "/tiles/", "/v7/incidents/stream?in=bbox:", "sort=distance&from=", "limit=20",
      "/v1/info", "apiKey", "REFRESH_MS = 60000",
    ] {
      #expect(script.bodyText.contains(use), "\(use)")
    }
    let style = server.handle(ServerFixtures.get("/web/style.css"))
    #expect(style.headers["Content-Type"] == "text/css; charset=utf-8")
    // The popup words of every language on the page's menu, each with every type name.
    let words = server.handle(ServerFixtures.get("/web/words.json"))
    #expect(words.headers["Content-Type"] == "application/json; charset=utf-8")
    let table = try JSONParser.parse(words.body)
    for language in ["en", "de", "fr", "es", "it", "nl", "pl"] {
      let types = table[language]?["types"]
      #expect(table[language]?["closed"]?.string != nil, "\(language)")
      #expect(types?["accident"]?.string != nil && types?["other"]?.string != nil)
    }
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get("/web/nothing.js")), status: 404, code: "httpError")
  }

  @Test func pageAndLeafletNeedNoKey() throws {
    var configuration = ServerFixtures.quiet()
    configuration.apiKeys = ["secret"]
    let server = try FlowServerFixtures.server(configuration: configuration)
    #expect(server.handle(ServerFixtures.get("/")).status == 200)
    #expect(server.handle(ServerFixtures.get("/web/app.js")).status == 200)
    #expect(server.handle(ServerFixtures.get("/api")).status == 200)
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get("/v1/info")), status: 401, code: "authenticationFailed")
    #expect(server.handle(ServerFixtures.get("/v1/info?apiKey=secret")).status == 200)
  }

  @Test func leafletFromTheSystemPackage() throws {
    try DebianFile.leaflet.require()
    let server = try FlowServerFixtures.server()
    let script = server.handle(ServerFixtures.get("/leaflet/leaflet.js"))
    #expect(script.status == 200)
    #expect(script.headers["Content-Type"] == "text/javascript; charset=utf-8")
    #expect(script.bodyText.contains("Leaflet"))
    let css = server.handle(ServerFixtures.get("/leaflet/leaflet.css"))
    #expect(css.headers["Content-Type"] == "text/css; charset=utf-8")
    let image = server.handle(ServerFixtures.get("/leaflet/images/layers.png"))
    #expect(image.status == 200)
    #expect(image.headers["Content-Type"] == "image/png")
    #expect(image.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    let page = server.handle(ServerFixtures.get("/"))
    #expect(!page.bodyText.contains("leaflet-missing"))
  }

  @Test(arguments: [
    "/leaflet/../../../etc/passwd", "/leaflet/%2e%2e/x", "/leaflet/.hidden",
    "/leaflet/images/../leaflet.js", "/leaflet/a/b/c.js", "/leaflet/", "/leaflet/missing.js",
  ])
  func leafletPathsOutsideThePackageAreRefused(target: String) throws {
    let server = try FlowServerFixtures.server()
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get(target)), status: 404, code: "httpError")
  }

  @Test func missingLeafletIsSaidClearly() throws {
    var configuration = ServerFixtures.quiet()
    configuration.leafletDirectory = "/nonexistent/leaflet"
    let server = try FlowServerFixtures.server(configuration: configuration)
    let page = server.handle(ServerFixtures.get("/"))
    #expect(page.status == 200)
    #expect(page.bodyText.contains("id=\"leaflet-missing\""))
    #expect(page.bodyText.contains("libjs-leaflet"))
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get("/leaflet/leaflet.js")), status: 404, code: "httpError",
      mentions: "libjs-leaflet")
  }

  @Test func apiSummaryListsTheRoutes() throws {
    let server = try FlowServerFixtures.server()
    let api = server.handle(ServerFixtures.get("/api"))
    #expect(api.headers["Content-Type"] == "text/html; charset=utf-8")
    #expect(api.bodyText.contains("/v7/incidents"))
    #expect(api.bodyText.contains("/tiles/flow/{z}/{x}/{y}.png"))
  }

  @Test func infoReportsCountsAndBounds() throws {
    let incident = try TrafficIncident(
      id: "far-v1", originalId: "far", type: .accident, impact: .minor,
      startTime: Date().addingTimeInterval(-60), endTime: Date().addingTimeInterval(600),
      location: TrafficLocation(point: GeoCoordinates(latitude: 52.1, longitude: 12.9)))
    let server = try FlowServerFixtures.server(incidents: [incident])
    let info = try ServerFixtures.object(server.handle(ServerFixtures.get("/v1/info")).body)
    #expect(info["incidents"] as? Int == 1)
    #expect(info["roadSegments"] as? Int == 7)
    let network = try #require(info["networkBounds"] as? [String: Double])
    let west = FlowServerFixtures.coordinates(east: 0).longitude
    let east = FlowServerFixtures.coordinates(east: 1000).longitude
    let south = FlowServerFixtures.coordinates(east: 0, north: -500).latitude
    let north = FlowServerFixtures.coordinates(east: 0, north: 500).latitude
    #expect(abs(network["west"]! - west) < 1e-9 && abs(network["east"]! - east) < 1e-9)
    #expect(abs(network["south"]! - south) < 1e-9 && abs(network["north"]! - north) < 1e-9)
    let incidents = try #require(info["incidentBounds"] as? [String: Double])
    #expect(incidents == ["west": 12.9, "south": 52.1, "east": 12.9, "north": 52.1])
    let data = try #require(info["dataBounds"] as? [String: Double])
    #expect(data["west"] == 12.9 && data["south"] == south)
    #expect(abs(data["east"]! - east) < 1e-9 && data["north"] == 52.1)
    #expect((info["languages"] as? [String])?.contains("nl-NL") == true)

    // Bounds follow the incidents.
    _ = try server.engine.apply(IncidentBatch(deletions: ["far"]))
    let after = try ServerFixtures.object(server.handle(ServerFixtures.get("/v1/info")).body)
    #expect(after["incidentBounds"] is NSNull)
    #expect(
      (after["dataBounds"] as? [String: Double])?["west"].map { abs($0 - west) < 1e-9 } == true)

    let bare = try FlowServerFixtures.server(network: false)
    let nothing = try ServerFixtures.object(bare.handle(ServerFixtures.get("/v1/info")).body)
    #expect(nothing["networkBounds"] is NSNull)
    #expect(nothing["dataBounds"] is NSNull)
    #expect(nothing["roadSegments"] is NSNull)
  }
}
