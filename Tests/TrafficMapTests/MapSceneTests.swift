import Foundation
import Synchronization
import Testing
import Traffic

@testable import TrafficMap

@Suite struct MapSceneTests {
  @Test func featuresNeedALoadedScene() async throws {
    let view = try MapView(size: Size2D(width: 64, height: 64), engine: try SyntheticCity.engine())
    #expect(throws: MapError.sceneNotLoaded) {
      try view.mapScene.enableFeatures([.trafficFlow: .trafficFlowWithFreeFlow])
    }
    #expect(throws: MapError.sceneNotLoaded) { try view.renderImage() }
    try await view.mapScene.loadScene(mapScheme: .normalDay)
    try view.mapScene.enableFeatures([.trafficFlow: .trafficFlowWithFreeFlow])
    try view.mapScene.enableFeatures([.trafficIncidents: .defaultMode])
    #expect(
      view.mapScene.enabledFeatures
        == [.trafficFlow: .trafficFlowWithFreeFlow, .trafficIncidents: .defaultMode])
    try view.mapScene.enableFeatures([.trafficFlow: .trafficFlowWithoutFreeFlow])
    #expect(view.mapScene.enabledFeatures[.trafficFlow] == .trafficFlowWithoutFreeFlow)
    try view.mapScene.disableFeatures([.trafficFlow])
    #expect(view.mapScene.enabledFeatures == [.trafficIncidents: .defaultMode])
  }

  @Test func settingFeaturesWhileLoadingIsAnError() async throws {
    let view = try MapView(size: Size2D(width: 64, height: 64), engine: try SyntheticCity.engine())
    let (gate, opener) = AsyncStream<Void>.makeStream()
    view.mapScene.beforeLoadCompletes.withLock { hook in
      hook = { for await _ in gate { return } }
    }
    let done = AsyncStream<MapError?>.makeStream()
    view.mapScene.loadScene(mapScheme: .liteDay) { error in
      done.continuation.yield(error)
      done.continuation.finish()
    }
    #expect(view.mapScene.loadState == .loading)
    #expect(throws: MapError.sceneLoading) {
      try view.mapScene.enableFeatures([.trafficIncidents: .defaultMode])
    }
    #expect(throws: MapError.sceneLoading) { try view.mapScene.disableFeatures([.trafficFlow]) }
    opener.yield()
    var result: MapError?? = .none
    for await error in done.stream { result = error }
    #expect(result == .some(nil))
    #expect(view.mapScene.loadState == .loaded(.liteDay))
    try view.mapScene.enableFeatures([.trafficIncidents: .defaultMode])
  }

  @Test func modesMustBelongToTheirFeature() async throws {
    let view = try MapView(size: Size2D(width: 64, height: 64))
    try await view.mapScene.loadScene(mapScheme: .normalDay)
    #expect(
      throws: MapError.unsupportedFeatureMode(
        feature: "trafficIncidents", mode: "trafficFlowWithFreeFlow")
    ) {
      try view.mapScene.enableFeatures([.trafficIncidents: .trafficFlowWithFreeFlow])
    }
    #expect(throws: MapError.self) {
      try view.mapScene.enableFeatures([.trafficFlow: .defaultMode])
    }
    #expect(view.mapScene.enabledFeatures.isEmpty)
  }

  @Test(arguments: [59.9, 300.1, -60, .nan, .infinity])
  func refreshPeriodOutsideTheRangeThrows(seconds: Double) throws {
    #expect(throws: MapError.self) {
      _ = try MapContentSettings(trafficRefreshPeriodInSeconds: seconds)
    }
    var settings = MapContentSettings.standard
    #expect(throws: MapError.self) { try settings.setTrafficRefreshPeriod(seconds) }
    #expect(settings.trafficRefreshPeriodInSeconds == 60)
  }

  @Test(arguments: [60.0, 120, 300])
  func refreshPeriodWithinTheRangeIsKept(seconds: Double) throws {
    var settings = MapContentSettings.standard
    try settings.setTrafficRefreshPeriod(seconds)
    #expect(settings.trafficRefreshPeriodInSeconds == seconds)
  }

  @Test func trafficIsFetchedAgainAfterTheRefreshPeriod() async throws {
    let engine = try SyntheticCity.engine(incidents: false)
    let time = Mutex(SyntheticCity.now)
    let view = try MapView(
      size: Size2D(width: 512, height: 512), engine: engine, clock: { time.withLock { $0 } })
    view.camera.lookAt(
      point: SyntheticCity.point(47.0, 9.505), zoom: MapMeasure(kind: .zoomLevel, value: 16))
    try await view.mapScene.loadScene(mapScheme: .normalDay)
    try view.mapScene.enableFeatures([.trafficIncidents: .defaultMode])
    let tap = Rectangle2D(origin: Point2D(x: 255, y: 255), size: Size2D(width: 1, height: 1))
    #expect(await view.pickMapContent(inside: tap).trafficIncidents.isEmpty)
    try engine.apply(IncidentBatch(upserts: [try SyntheticCity.incidents()[0]]))
    // Within the period the view keeps showing what it fetched...
    time.withLock { $0 += 59 }
    #expect(await view.pickMapContent(inside: tap).trafficIncidents.isEmpty)
    // ...and after it, the new incident.
    time.withLock { $0 += 2 }
    #expect(
      await view.pickMapContent(inside: tap).trafficIncidents.map(\.originalId) == ["accident"])
  }
}
