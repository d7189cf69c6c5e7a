import Foundation
import Geo
import Testing
import Traffic

@testable import TrafficServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `GET /tiles/{layer}.json`: TileJSON 3.0.0 of each tile layer, whose tile URL answers real
/// tiles, whose bounds are the data's, and whose vector layers are the vector tile's.
@Suite(.serialized) struct TileJSONTests {
  static let key = "tilejson-key"

  static func document(_ answer: HTTPFrontEndTests.Answer) throws -> [String: Any] {
    #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
    #expect(answer.header("Content-Type")?.hasPrefix("application/json") == true)
    return try ServerFixtures.object(answer.body)
  }

  @Test func everyLayerHasATileJSONWhoseTilesAnswer() async throws {
    let (server, port, leaflet) = try OpenAPIDocumentTests.startedServer(key: Self.key)
    defer {
      server.stop()
      try? FileManager.default.removeItem(at: leaflet)
    }
    let crossing = APIDocumentationTests.crossing
    for layer in TileLayer.allCases {
      let document = try Self.document(
        try await HTTPFrontEndTests.fetch(port, "/tiles/\(layer.rawValue).json?apiKey=\(Self.key)"))
      #expect(document["tilejson"] as? String == "3.0.0")
      // Traffic is drawn from zoom 8 (an empty tile below), the basemap from 0.
      #expect(document["minzoom"] as? Int == (layer == .base ? 0 : 8))
      #expect(document["maxzoom"] as? Int == TileLayer.maximumZoom)
      // The data: the network and the incident at the crossing.
      let bounds = try #require(document["bounds"] as? [Double])
      #expect(bounds.count == 4)
      if bounds.count == 4 {
        #expect(bounds[0] <= crossing.longitude && crossing.longitude <= bounds[2])
        #expect(bounds[1] <= crossing.latitude && crossing.latitude <= bounds[3])
        #expect(bounds[2] - bounds[0] < 0.1 && bounds[3] - bounds[1] < 0.1, "\(bounds)")
      }
      let center = try #require(document["center"] as? [Double])
      #expect(center.count == 3)
      if center.count == 3, bounds.count == 4 {
        #expect(bounds[0] <= center[0] && center[0] <= bounds[2])
        #expect(bounds[1] <= center[1] && center[1] <= bounds[3])
        #expect((0...Double(TileLayer.maximumZoom)).contains(center[2]))
      }
      #expect((document["vector_layers"] != nil) == (layer == .traffic))
      let tiles = try #require(document["tiles"] as? [String])
      let template = try #require(tiles.first)
      let prefix = "http://127.0.0.1:\(port)/tiles/\(layer.rawValue)/"
      #expect(template.hasPrefix(prefix), "\(template)")
      #expect(template.hasSuffix("{z}/{x}/{y}.\(layer.fileExtension)?apiKey=\(Self.key)"))
      // The template's tile at the crossing, as a map library would ask for it.
      let tile = try TileID(containing: crossing, zoom: 15)
      let url = template.replacingOccurrences(of: "{z}", with: "\(tile.zoom)")
        .replacingOccurrences(of: "{x}", with: "\(tile.x)")
        .replacingOccurrences(of: "{y}", with: "\(tile.y)")
      let path = String(url.dropFirst("http://127.0.0.1:\(port)".count))
      let answer = try await HTTPFrontEndTests.fetch(port, path)
      #expect(answer.status == 200, "\(url)")
      #expect(
        answer.header("Content-Type")
          == (layer == .traffic ? "application/vnd.mapbox-vector-tile" : "image/png"))
      #expect(!answer.body.isEmpty)
    }
  }

  @Test func theVectorLayersAreTheVectorTilesLayers() throws {
    let (server, leaflet) = try APIDocumentationTests.server()
    defer { try? FileManager.default.removeItem(at: leaflet) }
    let network = try FlowServerFixtures.network()
    _ = server.engine.ingest(observations: [
      FlowObservation(polyline: network.segments[0].geometry, jamFactor: 9, time: Date())
    ])
    let document = try ServerFixtures.object(
      server.handle(HTTPRequest(target: "/tiles/traffic.json")).body)
    let vectorLayers = try #require(document["vector_layers"] as? [[String: Any]])
    var fields: [String: Set<String>] = [:]
    for layer in vectorLayers {
      let id = try #require(layer["id"] as? String)
      let names = try #require(layer["fields"] as? [String: String])
      #expect(names.values.allSatisfy { ["Number", "String", "Boolean"].contains($0) })
      fields[id] = Set(names.keys)
    }
    #expect(Set(fields.keys) == ["flow", "incidents"])
    let tile = try TileID(containing: APIDocumentationTests.crossing, zoom: 15)
    let answer = server.handle(
      HTTPRequest(target: "/tiles/traffic/\(tile.zoom)/\(tile.x)/\(tile.y).mvt"))
    #expect(answer.status == 200)
    let layers = try MVTReader.layers(answer.body)
    #expect(Set(layers.map(\.name)) == ["flow", "incidents"])
    for layer in layers {
      let written = Set(layer.features.flatMap(\.attributes.keys))
      #expect(written == fields[layer.name], "\(layer.name): the tile has \(written)")
    }
  }

  @Test func theTileURLFollowsTheHost() throws {
    let (server, leaflet) = try APIDocumentationTests.server()
    defer { try? FileManager.default.removeItem(at: leaflet) }
    func template(_ headers: HTTPHeaders) throws -> String? {
      let response = server.handle(HTTPRequest(target: "/tiles/flow.json", headers: headers))
      #expect(response.status == 200)
      return (try ServerFixtures.object(response.body)["tiles"] as? [String])?.first
    }
    #expect(try template([:]) == "/tiles/flow/{z}/{x}/{y}.png")
    #expect(
      try template(["Host": "maps.example.org"])
        == "http://maps.example.org/tiles/flow/{z}/{x}/{y}.png")
    #expect(
      try template(["Host": "maps.example.org:8443", "X-Forwarded-Proto": "https"])
        == "https://maps.example.org:8443/tiles/flow/{z}/{x}/{y}.png")
    // A Host that is not a host name and port is not trusted into the URL.
    #expect(try template(["Host": "evil\"/><script>"]) == "/tiles/flow/{z}/{x}/{y}.png")
  }

  @Test func aServerWithoutDataCoversTheWorld() throws {
    let server = try FlowServerFixtures.server(network: false)
    let document = try ServerFixtures.object(
      server.handle(HTTPRequest(target: "/tiles/base.json")).body)
    let bounds = try #require(document["bounds"] as? [Double])
    #expect(bounds.count == 4)
    #expect(bounds.first == -180 && bounds.dropFirst(2).first == 180)
    #expect(abs((bounds.dropFirst().first ?? 0) + 85.0511) < 0.001)
    #expect(document["center"] as? [Double] == [0, 0, 0])
  }

  @Test func anUnknownLayerIsA404() throws {
    let server = try ServerFixtures.server()
    for target in ["/tiles/roads.json", "/tiles/.json", "/tiles/fl%6Fw.json?x"] {
      let response = server.handle(HTTPRequest(target: target))
      if target.hasPrefix("/tiles/fl%6F") {
        #expect(response.status == 200, "a percent-encoded layer name is decoded")
      } else {
        ServerFixtures.expectError(response, status: 404, code: "httpError", mentions: "layer")
      }
    }
    let keyed = try ServerFixtures.server(ServerConfiguration(apiKeys: ["k"], accessLog: .none))
    ServerFixtures.expectError(
      keyed.handle(HTTPRequest(target: "/tiles/flow.json")), status: 401,
      code: "authenticationFailed")
    #expect(keyed.handle(HTTPRequest(target: "/tiles/flow.json?apiKey=k")).status == 200)
  }
}
