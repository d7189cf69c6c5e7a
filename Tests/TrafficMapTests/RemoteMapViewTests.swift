import Foundation
import Testing
import Traffic
import TrafficServer

@testable import TrafficMap

/// A view of a remote engine (`TrafficEngine(server:)`) shows its server's traffic: the
/// synthetic town served by `TrafficServer` on loopback looks, through a remote engine, as it
/// looks through an embedded engine of the same data — and a server that fails says so.
@Suite(.serialized) struct RemoteMapViewTests {
  static let bothLayers: [MapFeatures: MapFeatureModes] = [
    .trafficFlow: .trafficFlowWithFreeFlow, .trafficIncidents: .defaultMode,
  ]

  /// The town served on loopback, a remote engine on it, and an embedded engine of the same
  /// data.
  static func withServer(
    apiKeys: Set<String> = [], key: String? = nil,
    _ body: (_ embedded: TrafficEngine, _ remote: TrafficEngine) async throws -> Void
  ) async throws {
    let server = try TrafficServer(
      engine: try SyntheticCity.engine(),
      configuration: ServerConfiguration(port: 0, apiKeys: apiKeys, accessLog: .none))
    try server.start()
    defer { server.stop() }
    let port = try #require(server.port)
    let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
    let remote = try TrafficEngine(
      server: url, apiKey: key ?? apiKeys.first, timeoutInSeconds: 10)
    try await body(try SyntheticCity.engine(), remote)
  }

  /// What a picture shows of a flow: its segment, whether it is drawn offset, its colour.
  static func shown(_ content: TrafficContent) -> [String] {
    content.flows.map { "\($0.flow.segmentID) \($0.isTwoWay) \($0.level)" }
  }

  @Test func aRemoteViewShowsTheServersFlowAndIncidentsAsAnEmbeddedOne() async throws {
    try await Self.withServer { embedded, remote in
      let local = try await SyntheticCity.view(engine: embedded, features: Self.bothLayers)
      let far = try await SyntheticCity.view(engine: remote, features: Self.bothLayers)
      // The server answers only asynchronously: a picture of traffic not fetched is an error,
      // not an empty picture.
      #expect(throws: MapError.trafficNotFetched) { try far.renderImage() }
      try await far.refreshTraffic()

      let localTraffic = try local.mapScene.layers(for: local.projection).traffic
      let farTraffic = try far.mapScene.layers(for: far.projection).traffic
      #expect(!localTraffic.flows.isEmpty)
      #expect(Self.shown(farTraffic) == Self.shown(localTraffic))
      #expect(farTraffic.incidents.map(\.originalId) == localTraffic.incidents.map(\.originalId))

      let everything = Rectangle2D(origin: Point2D(x: 0, y: 0), size: far.size)
      let picked = await far.pickMapContent(inside: everything).trafficIncidents
      #expect(picked.map(\.originalId) == ["closure", "accident", "works"])
      #expect(picked == (await local.pickMapContent(inside: everything)).trafficIncidents)

      // The jams at their places, each direction on its side of the road, on no basemap
      // (without the incidents, whose icons would hide them).
      try far.mapScene.disableFeatures([.trafficIncidents])
      #expect(throws: MapError.trafficNotFetched) { try far.renderImage() }
      try await far.refreshTraffic()
      let image = try far.renderRaster()
      let east = (dx: 1.0, dy: 0.0), west = (dx: -1.0, dy: 0.0)
      let jam = try RenderingTests.flowPoint(
        far, SyntheticCity.point(47.000, 9.5045), rightOf: east)
      #expect(nil == ImageComparison.mismatch(image, jam, RenderingTests.red))
      let free = try RenderingTests.flowPoint(
        far, SyntheticCity.point(47.000, 9.5045), rightOf: west)
      #expect(nil == ImageComparison.mismatch(image, free, RenderingTests.green))
      let bypass = try #require(
        far.geoToViewCoordinates(geoCoordinates: SyntheticCity.point(47.004, 9.5135)))
      #expect(nil == ImageComparison.mismatch(image, bypass, RenderingTests.black))
      #expect(try far.mapScene.layers(for: far.projection).basemap == nil)
    }
  }

  @Test func aPickOfARemoteViewFetchesFirst() async throws {
    try await Self.withServer { _, remote in
      let view = try await SyntheticCity.view(
        engine: remote, features: [.trafficIncidents: .defaultMode])
      let icon = try #require(
        view.geoToViewCoordinates(geoCoordinates: SyntheticCity.point(47.000, 9.505)))
      let tap = Rectangle2D(origin: icon, size: Size2D(width: 1, height: 1))
      #expect(
        await view.pickMapContent(inside: tap).trafficIncidents.map(\.originalId) == [
          "accident"
        ])
      // Moved: the view's new traffic is fetched for the pick, and by the handler form too.
      view.camera.lookAt(
        point: SyntheticCity.point(47.004, 9.5055), zoom: MapMeasure(kind: .zoomLevel, value: 16))
      let centre = Rectangle2D(origin: Point2D(x: 255, y: 255), size: Size2D(width: 2, height: 2))
      let found: [String]? = await withCheckedContinuation { continuation in
        view.pickMapContent(inside: centre) { result in
          continuation.resume(returning: result?.trafficIncidents.map(\.originalId))
        }
      }
      #expect(found == ["works"])
    }
  }

  @Test func aServerThatCannotBeReachedIsAnErrorNotAnEmptyPicture() async throws {
    // Port 1 on loopback: nothing listens there.
    let remote = try TrafficEngine(
      server: try #require(URL(string: "http://127.0.0.1:1")), timeoutInSeconds: 5)
    let view = try await SyntheticCity.view(engine: remote, features: Self.bothLayers)
    await #expect(throws: MapError.trafficQueryFailed(.serverUnreachable)) {
      try await view.refreshTraffic()
    }
    #expect(throws: MapError.trafficNotFetched) { try view.renderImage() }
    let everything = Rectangle2D(origin: Point2D(x: 0, y: 0), size: view.size)
    let failed: Bool = await withCheckedContinuation { continuation in
      view.pickMapContent(inside: everything) { continuation.resume(returning: $0 == nil) }
    }
    #expect(failed, "the handler is told the pick failed")
    // Without traffic layers nothing is asked, and the picture is the background.
    try view.mapScene.disableFeatures([.trafficFlow, .trafficIncidents])
    try await view.refreshTraffic()
    #expect(try view.renderImage().starts(with: [0x89, 0x50, 0x4E, 0x47]))
  }

  @Test func aKeyTheServerRefusesIsItsError() async throws {
    try await Self.withServer(apiKeys: ["right"], key: "wrong") { _, remote in
      let view = try await SyntheticCity.view(engine: remote, features: Self.bothLayers)
      await #expect(throws: MapError.trafficQueryFailed(.authenticationFailed)) {
        try await view.refreshTraffic()
      }
    }
  }
}
