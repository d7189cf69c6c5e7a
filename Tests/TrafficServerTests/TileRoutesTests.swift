import Foundation
import Geo
import Testing
import Traffic
import Zlib

@testable import TrafficServer

/// `GET /tiles/...`: PNG and vector tiles of `FlowServerFixtures`' crossing, with the west
/// road jammed (jam factor 9) and an accident at the crossing.
@Suite struct TileRoutesTests {
  let server: TrafficServer
  /// The zoom-15 tile holding the crossing.
  let tile: TileID
  /// A zoom-15 tile far from every road and incident.
  let emptyTile: TileID

  init() throws {
    let crossing = FlowServerFixtures.coordinates(east: 500)
    let accident = try TrafficIncident(
      id: "A-v1", originalId: "A", type: .accident, impact: .critical,
      startTime: Date().addingTimeInterval(-600), endTime: Date().addingTimeInterval(3600),
      location: TrafficLocation(point: crossing))
    server = try FlowServerFixtures.server(incidents: [accident])
    let network = try FlowServerFixtures.network()
    _ = server.engine.ingest(observations: [
      FlowObservation(polyline: network.segments[0].geometry, jamFactor: 9, time: Date())
    ])
    tile = try TileID(containing: crossing, zoom: 15)
    emptyTile = try TileID(
      containing: GeoCoordinates(latitude: 51.5, longitude: 12.5), zoom: 15)
  }

  func path(_ layer: String, _ tile: TileID, _ ext: String = "png") -> String {
    "/tiles/\(layer)/\(tile.zoom)/\(tile.x)/\(tile.y).\(ext)"
  }

  /// The width and height in a PNG's IHDR chunk.
  static func pngSize(_ data: Data) -> (width: Int, height: Int)? {
    let bytes = [UInt8](data)
    guard bytes.count > 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
      bytes[12..<16].elementsEqual(Array("IHDR".utf8))
    else { return nil }
    let number = { (at: Int) in bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
    return (number(16), number(20))
  }

  @Test(arguments: [
    ("flow", "", 256, 30), ("flow", "?scale=2", 512, 30),
    ("flow", "?mode=withoutFreeFlow", 256, 30), ("incidents", "", 256, 30),
    ("incidents", "?scale=2", 512, 30), ("base", "", 256, 3600), ("base", "?scale=2", 512, 3600),
  ])
  func rasterTiles(layer: String, query: String, pixels: Int, maxAge: Int) throws {
    let response = server.handle(ServerFixtures.get(path(layer, tile) + query))
    #expect(response.status == 200, "\(response.bodyText)")
    #expect(response.headers["Content-Type"] == "image/png")
    let size = try #require(Self.pngSize(response.body), "not a PNG")
    #expect(size.width == pixels && size.height == pixels)
    #expect(response.headers["Cache-Control"] == "public, max-age=\(maxAge)")
    #expect(response.headers["Access-Control-Allow-Origin"] == "*")
    #expect(response.headers.values(of: "ETag").count == 1)
    #expect(response.headers["ETag"]?.hasPrefix("\"") == true)
    #expect(response.headers["Content-Encoding"] == nil)
  }

  @Test func tilesWithContentDifferFromEmptyOnes() throws {
    for layer in ["flow", "incidents", "base"] {
      let full = server.handle(ServerFixtures.get(path(layer, tile)))
      let empty = server.handle(ServerFixtures.get(path(layer, emptyTile)))
      #expect(full.status == 200 && empty.status == 200)
      // Drawn lines compress worse than a blank tile.
      #expect(full.body.count > empty.body.count + 200, "\(layer)")
      #expect(full.headers["ETag"] != empty.headers["ETag"], "\(layer)")
    }
    // Without free flow only the jammed road is drawn: a different picture.
    let with = server.handle(ServerFixtures.get(path("flow", tile) + "?mode=withFreeFlow"))
    let without = server.handle(ServerFixtures.get(path("flow", tile) + "?mode=withoutFreeFlow"))
    #expect(with.headers["ETag"] != without.headers["ETag"])
    #expect(with.body.count > without.body.count)
  }

  @Test func etagAndNotModified() throws {
    let first = server.handle(ServerFixtures.get(path("flow", tile)))
    let tag = try #require(first.headers["ETag"])
    #expect(first.headers["X-Tile-Cache"] == "miss")
    let again = server.handle(ServerFixtures.get(path("flow", tile)))
    #expect(again.headers["X-Tile-Cache"] == "hit")
    #expect(again.headers["ETag"] == tag)
    #expect(again.body == first.body)
    let conditional = server.handle(
      ServerFixtures.get(path("flow", tile), headers: ["If-None-Match": tag]))
    #expect(conditional.status == 304)
    #expect(conditional.body.isEmpty)
    #expect(conditional.headers["ETag"] == tag)
    #expect(conditional.headers["Cache-Control"] == "public, max-age=30")
    let other = server.handle(
      ServerFixtures.get(path("flow", tile), headers: ["If-None-Match": "\"other\""]))
    #expect(other.status == 200)
  }

  @Test func anUpdateChangesTheTilesOfItsAreaOnly() throws {
    let before = server.handle(ServerFixtures.get(path("incidents", tile)))
    let elsewhereBefore = server.handle(ServerFixtures.get(path("incidents", emptyTile)))
    let tag = try #require(before.headers["ETag"])
    let works = try TrafficIncident(
      id: "W-v1", originalId: "W", type: .construction, impact: .minor,
      startTime: Date().addingTimeInterval(-600), endTime: Date().addingTimeInterval(3600),
      location: TrafficLocation(point: FlowServerFixtures.coordinates(east: 300)))
    _ = try server.engine.apply(IncidentBatch(upserts: [works]))
    let after = server.handle(
      ServerFixtures.get(path("incidents", tile), headers: ["If-None-Match": tag]))
    #expect(after.status == 200)
    #expect(after.headers["ETag"] != tag)
    let elsewhereAfter = server.handle(ServerFixtures.get(path("incidents", emptyTile)))
    #expect(elsewhereAfter.headers["ETag"] == elsewhereBefore.headers["ETag"])
    #expect(elsewhereAfter.headers["X-Tile-Cache"] == "hit")
  }

  @Test func vectorTileLayers() throws {
    let response = server.handle(ServerFixtures.get(path("traffic", tile, "mvt")))
    #expect(response.status == 200, "\(response.bodyText)")
    #expect(response.headers["Content-Type"] == "application/vnd.mapbox-vector-tile")
    #expect(response.headers["Cache-Control"] == "public, max-age=30")
    let layers = try MVTReader.layers(response.body)
    #expect(layers.map(\.name) == ["flow", "incidents"])
    let flow = try #require(layers.first { $0.name == "flow" })
    #expect(flow.version == 2 && flow.extent == 4096)
    #expect(flow.features.allSatisfy { $0.type == 2 && $0.geometryCount > 0 })
    #expect(flow.features.contains { $0.attributes["jamFactor"] == .number(9) })
    #expect(flow.features.allSatisfy { $0.attributes["functionalClass"] == .number(2) })
    #expect(flow.features.allSatisfy { $0.attributes["speed"] != nil })
    #expect(flow.features.allSatisfy { $0.attributes["freeFlow"] != nil })
    let incidents = try #require(layers.first { $0.name == "incidents" })
    #expect(incidents.features.count == 1)
    #expect(incidents.features.first?.type == 1)
    #expect(incidents.features.first?.attributes["originalId"] == .string("A"))
    #expect(incidents.features.first?.attributes["type"] == .string("accident"))
    #expect(incidents.features.first?.attributes["impact"] == .string("critical"))

    // Far from everything: no layer at all.
    let empty = server.handle(ServerFixtures.get(path("traffic", emptyTile, "mvt")))
    #expect(try MVTReader.layers(empty.body).isEmpty)
  }

  @Test func vectorTilesAreGzippedWhenAccepted() throws {
    let plain = server.handle(ServerFixtures.get(path("traffic", tile, "mvt")))
    let zipped = server.handle(
      ServerFixtures.get(path("traffic", tile, "mvt"), headers: ["Accept-Encoding": "gzip"]))
    #expect(zipped.headers["Content-Encoding"] == "gzip")
    #expect(zipped.headers["Vary"] == "Accept-Encoding")
    #expect(try Gzip.decompress(zipped.body, maxOutputBytes: 1 << 20) == plain.body)
    #expect(zipped.headers["ETag"] != plain.headers["ETag"])
    let tag = try #require(zipped.headers["ETag"])
    let notModified = server.handle(
      ServerFixtures.get(
        path("traffic", tile, "mvt"), headers: ["Accept-Encoding": "gzip", "If-None-Match": tag]))
    #expect(notModified.status == 304)
  }

  @Test(arguments: [
    ("/tiles/flow/23/0/0.png", 400, "invalidParameter", "z 23"),
    ("/tiles/flow/a/0/0.png", 400, "invalidParameter", "z \"a\""),
    ("/tiles/flow/99999999999/0/0.png", 400, "invalidParameter", "z \"99999999999\""),
    ("/tiles/flow/2/4/0.png", 400, "invalidParameter", "x 4"),
    ("/tiles/flow/2/0/-1.png", 400, "invalidParameter", "y \"-1\""),
    ("/tiles/base/2/0/4.png", 400, "invalidParameter", "y 4"),
    ("/tiles/flow/2/0/0.png?scale=3", 400, "invalidParameter", "scale"),
    ("/tiles/flow/2/0/0.png?scale=1&scale=2", 400, "invalidParameter", "scale"),
    ("/tiles/traffic/2/0/0.mvt?scale=2", 400, "invalidParameter", "scale"),
    ("/tiles/flow/2/0/0.png?mode=fast", 400, "invalidParameter", "mode"),
    ("/tiles/incidents/2/0/0.png?mode=withFreeFlow", 400, "invalidParameter", "mode"),
    ("/tiles/flow/2/0/0.mvt", 404, "httpError", "/tiles/flow/{z}/{x}/{y}.png"),
    ("/tiles/traffic/2/0/0.png", 404, "httpError", "/tiles/traffic/{z}/{x}/{y}.mvt"),
    ("/tiles/flow/2/0.png", 404, "httpError", "flow tiles"),
    ("/tiles/roads/2/0/0.png", 404, "httpError", "no route"),
  ])
  func badTileRequests(target: String, status: Int, code: String, mentions: String) {
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get(target)), status: status, code: code, mentions: mentions)
  }

  @Test func tilesNeedTheKeyWhenKeysAreSet() throws {
    var configuration = ServerFixtures.quiet()
    configuration.apiKeys = ["secret"]
    let locked = try FlowServerFixtures.server(configuration: configuration)
    ServerFixtures.expectError(
      locked.handle(ServerFixtures.get(path("flow", tile))), status: 401,
      code: "authenticationFailed")
    #expect(locked.handle(ServerFixtures.get(path("flow", tile) + "?apiKey=secret")).status == 200)
    #expect(
      locked.handle(
        ServerFixtures.get(path("base", tile), headers: ["Authorization": "Bearer secret"])
      ).status == 200)
  }

  @Test func metricsCountTiles() {
    _ = server.handle(ServerFixtures.get(path("flow", tile)))
    _ = server.handle(ServerFixtures.get(path("flow", tile)))
    let metrics = server.handle(ServerFixtures.get("/metrics")).bodyText
    #expect(metrics.contains("traffic_tile_renders_total 1\n"))
    #expect(metrics.contains("traffic_tile_cache_hits_total 1\n"))
    #expect(
      metrics.contains(
        #"traffic_http_requests_total{route="/tiles/flow/{z}/{x}/{y}.png",status="200"} 2"#))
  }

  @Test func renderingIsBoundedToTheConfiguredConcurrency() throws {
    var configuration = ServerFixtures.quiet()
    configuration.threads = 4
    #expect(
      configuration.effectiveTileConcurrency == min(3, ProcessInfo.processInfo.activeProcessorCount)
    )
    configuration.tileRenderingConcurrency = 2
    #expect(configuration.effectiveTileConcurrency == 2)
    configuration.tileRenderingConcurrency = 0
    #expect(throws: ServerError.self) { try configuration.validate() }
    let service = TileService(engine: server.engine, concurrency: 1, waitSeconds: 0.05)
    #expect(service.statistics == nil)
    let request = try TileLayer.flow.request(for: tile, query: QueryParameters())
    #expect(try service.tile(request).data.isEmpty == false)
    #expect(service.statistics?.renders == 1)
  }

  @Test func tilesOverLoopback() async throws {
    var configuration = HTTPFrontEndTests.quietLoopback()
    configuration.port = 0
    let live = try FlowServerFixtures.server(configuration: configuration)
    try live.start()
    defer { live.stop() }
    let port = try #require(live.port)
    let first = try await HTTPFrontEndTests.fetch(port, path("base", tile) + "?scale=2")
    #expect(first.status == 200)
    #expect(Self.pngSize(first.body)?.width == 512)
    let tag = try #require(first.header("ETag"))
    let second = try await HTTPFrontEndTests.fetch(
      port, path("base", tile) + "?scale=2", headers: ["If-None-Match": tag])
    #expect(second.status == 304)
    let vector = try await HTTPFrontEndTests.fetch(port, path("traffic", tile, "mvt"))
    #expect(vector.status == 200)
    #expect(vector.header("Content-Type") == "application/vnd.mapbox-vector-tile")
  }
}
