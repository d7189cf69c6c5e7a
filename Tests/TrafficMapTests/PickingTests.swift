import Foundation
import Testing
import Traffic

@testable import TrafficMap

@Suite struct PickingTests {
  static func tap(_ point: Point2D) -> Rectangle2D {
    Rectangle2D(origin: point, size: Size2D(width: 1, height: 1))
  }

  /// The closure runs north along 9.510° E; this is its middle.
  static let onClosure = SyntheticCity.point(47.003, 9.510)

  @Test func aTapHitsALineWithinTheToleranceAndMissesBesideIt() async throws {
    let view = try await SyntheticCity.view(
      engine: try SyntheticCity.engine(), features: [.trafficIncidents: .defaultMode])
    let line = try #require(view.geoToViewCoordinates(geoCoordinates: PickingTests.onClosure))
    // The line is 5 pixels wide at zoom 15; 5 pixels from its centre is 2.5 beyond its
    // edge, within the 3 pixel tolerance.
    for dx in [0.0, 5, -5] {
      let found = await view.pickMapContent(
        inside: PickingTests.tap(Point2D(x: line.x + dx, y: line.y)))
      #expect(found.trafficIncidents.map(\.originalId) == ["closure"], "dx \(dx)")
    }
    for dx in [12.0, -12] {
      let found = await view.pickMapContent(
        inside: PickingTests.tap(Point2D(x: line.x + dx, y: line.y)))
      #expect(found.isEmpty, "dx \(dx)")
    }
    let result = try #require(
      await view.pickMapContent(inside: PickingTests.tap(line)).trafficIncidents.first)
    #expect(result.type == .roadClosure && result.impact == .major)
    #expect(result.description.isEmpty)
    #expect(result.startTime == SyntheticCity.now - 3600)
    #expect(result.endTime == SyntheticCity.now + 7200)
    #expect(result.coordinates == SyntheticCity.point(47.0012, 9.510))
  }

  @Test func aPointIncidentIsPickedByItsIcon() async throws {
    let view = try await SyntheticCity.view(
      engine: try SyntheticCity.engine(), features: [.trafficIncidents: .defaultMode])
    let icon = try #require(
      view.geoToViewCoordinates(geoCoordinates: SyntheticCity.point(47.000, 9.505)))
    // The critical accident's icon has a radius of 13 pixels.
    let found = await view.pickMapContent(
      inside: PickingTests.tap(Point2D(x: icon.x + 12, y: icon.y)))
    #expect(found.trafficIncidents.map(\.originalId) == ["accident"])
    let beside = await view.pickMapContent(
      inside: PickingTests.tap(Point2D(x: icon.x + 20, y: icon.y)))
    #expect(beside.trafficIncidents.isEmpty)
    // A rectangle over the whole view finds all three incidents, topmost (most severe) first.
    let all = await view.pickMapContent(
      inside: Rectangle2D(origin: Point2D(x: 0, y: 0), size: view.size))
    #expect(all.trafficIncidents.map(\.originalId) == ["closure", "accident", "works"])
  }

  @Test func aDisabledOrFilteredLayerPicksNothing() async throws {
    let view = try await SyntheticCity.view(
      engine: try SyntheticCity.engine(),
      features: [.trafficIncidents: .defaultMode, .trafficFlow: .trafficFlowWithFreeFlow])
    let line = try #require(view.geoToViewCoordinates(geoCoordinates: PickingTests.onClosure))
    #expect(!(await view.pickMapContent(inside: PickingTests.tap(line))).isEmpty)
    var settings = view.mapScene.contentSettings
    settings.incidentTypeFilter = [.accident]
    view.mapScene.contentSettings = settings
    #expect(await view.pickMapContent(inside: PickingTests.tap(line)).isEmpty)
    settings.incidentTypeFilter = []
    view.mapScene.contentSettings = settings
    try view.mapScene.disableFeatures([.trafficIncidents])
    // Flow lines are drawn there, but flow is not picked; incidents are off.
    #expect(await view.pickMapContent(inside: PickingTests.tap(line)).isEmpty)
  }

  @Test func markersAndPolylinesAreReturnedAsAdded() async throws {
    let view = try await SyntheticCity.view(engine: try SyntheticCity.engine())
    let place = SyntheticCity.point(47.002, 9.515)
    let marker = MapMarker(
      at: place, image: .pin(color: MapColor(rgb: 0x2962FF)), anchor: .bottomCenter,
      metadata: "mine")
    let polyline = MapPolyline(
      geometry: try GeoPolyline(vertices: [
        SyntheticCity.point(46.999, 9.506), SyntheticCity.point(46.999, 9.514),
      ]), widthInPixels: 6, color: MapColor(rgb: 0x00838F), outlineWidthInPixels: 1,
      outlineColor: .white)
    view.mapScene.addMapMarker(marker)
    view.mapScene.addMapPolyline(polyline)
    let tip = try #require(view.geoToViewCoordinates(geoCoordinates: place))
    // The pin stands above its tip: 36 pixels tall, 27 wide.
    let onPin = await view.pickMapContent(
      inside: PickingTests.tap(Point2D(x: tip.x, y: tip.y - 20)))
    #expect(onPin.mapMarkers == [marker])
    #expect(onPin.mapMarkers.first?.metadata == "mine")
    let belowPin = await view.pickMapContent(
      inside: PickingTests.tap(Point2D(x: tip.x, y: tip.y + 10)))
    #expect(belowPin.mapMarkers.isEmpty)
    let onLine = try #require(
      view.geoToViewCoordinates(geoCoordinates: SyntheticCity.point(46.999, 9.510)))
    let found = await view.pickMapContent(
      inside: PickingTests.tap(Point2D(x: onLine.x, y: onLine.y + 6)))
    #expect(found.mapPolylines == [polyline])
    view.mapScene.removeMapPolyline(polyline)
    view.mapScene.removeMapMarker(marker)
    #expect(await view.pickMapContent(inside: PickingTests.tap(onLine)).mapPolylines.isEmpty)
    #expect(view.mapScene.mapMarkers.isEmpty)
  }

  @Test func theCompletionFormReportsTheSameResult() async throws {
    let view = try await SyntheticCity.view(
      engine: try SyntheticCity.engine(), features: [.trafficIncidents: .defaultMode])
    let line = try #require(view.geoToViewCoordinates(geoCoordinates: PickingTests.onClosure))
    let ids = await withCheckedContinuation { continuation in
      view.pickMapContent(inside: PickingTests.tap(line)) { result in
        continuation.resume(returning: result?.trafficIncidents.map(\.originalId))
      }
    }
    #expect(ids == ["closure"])
  }

  @Test func pngMarkerImagesAreDecodedAndBadBytesRejected() throws {
    let pin = MapImage.pin(color: .black, heightInPixels: 40)
    #expect(pin.width == 30 && pin.height == 40)
    #expect(throws: MapError.self) { try MapImage(pixelData: Data("not a png".utf8)) }
    #expect(throws: MapError.self) { try MapImage(pixelData: Data()) }
  }
}
