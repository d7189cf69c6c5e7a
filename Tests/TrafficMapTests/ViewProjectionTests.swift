import Foundation
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficMap

@Suite struct ViewProjectionTests {
  @Test(arguments: [(0.0, 3.0), (0.0, 12.5), (37.0, 16.0), (270.0, 9.0)])
  func viewToGeoAndBackIsTheIdentity(bearing: Double, zoom: Double) throws {
    let view = try MapView(size: Size2D(width: 640, height: 480))
    view.camera.lookAt(
      point: try GeoCoordinates(latitude: 47.1, longitude: 9.52), bearingInDegrees: bearing,
      zoom: MapMeasure(kind: .zoomLevel, value: zoom))
    var generator = SeededGenerator(seed: 7)
    for _ in 0..<200 {
      let point = Point2D(
        x: Double.random(in: 0...640, using: &generator),
        y: Double.random(in: 0...480, using: &generator))
      let place = try #require(view.viewToGeoCoordinates(viewCoordinates: point))
      let back = try #require(view.geoToViewCoordinates(geoCoordinates: place))
      #expect(abs(back.x - point.x) < 1e-6 && abs(back.y - point.y) < 1e-6, "\(point) -> \(back)")
    }
  }

  @Test func knownPixelsAtZoomOne() throws {
    // At zoom 1 the world is 512 pixels: 128 pixels are 90 degrees of longitude.
    let view = try MapView(size: Size2D(width: 512, height: 512))
    view.camera.lookAt(
      point: try GeoCoordinates(latitude: 0, longitude: 0),
      zoom: MapMeasure(kind: .zoomLevel, value: 1))
    let east = try #require(view.viewToGeoCoordinates(viewCoordinates: Point2D(x: 384, y: 256)))
    #expect(abs(east.longitude - 90) < 1e-9 && abs(east.latitude) < 1e-9)
    let top = try #require(view.viewToGeoCoordinates(viewCoordinates: Point2D(x: 256, y: 0)))
    #expect(abs(top.latitude - WebMercator.maximumLatitude) < 1e-9)
    // Turned to bearing 90, east points up.
    view.camera.lookAt(
      point: try GeoCoordinates(latitude: 0, longitude: 0), bearingInDegrees: 90,
      zoom: MapMeasure(kind: .zoomLevel, value: 1))
    let up = try #require(view.viewToGeoCoordinates(viewCoordinates: Point2D(x: 256, y: 128)))
    #expect(abs(up.longitude - 90) < 1e-9)
  }

  @Test func outsideTheWorldIsNil() throws {
    let view = try MapView(size: Size2D(width: 512, height: 512))
    view.camera.lookAt(
      point: try GeoCoordinates(latitude: 0, longitude: 0),
      zoom: MapMeasure(kind: .zoomLevel, value: 0))
    // The world is 256 pixels tall, from y = 128 to 384.
    #expect(view.viewToGeoCoordinates(viewCoordinates: Point2D(x: 256, y: 100)) == nil)
    #expect(view.viewToGeoCoordinates(viewCoordinates: Point2D(x: 256, y: 400)) == nil)
    #expect(view.viewToGeoCoordinates(viewCoordinates: Point2D(x: 256, y: .nan)) == nil)
    // Longitudes wrap: a pixel a world to the right is the same place.
    let here = try #require(view.viewToGeoCoordinates(viewCoordinates: Point2D(x: 300, y: 200)))
    let wrapped = try #require(
      view.viewToGeoCoordinates(viewCoordinates: Point2D(x: 300 + 256, y: 200)))
    #expect(abs(here.longitude - wrapped.longitude) < 1e-9)
    // A place off screen has no view point.
    view.camera.lookAt(
      point: try GeoCoordinates(latitude: 47, longitude: 9.5),
      zoom: MapMeasure(kind: .zoomLevel, value: 15))
    #expect(
      view.geoToViewCoordinates(geoCoordinates: try GeoCoordinates(latitude: 48, longitude: 9.5))
        == nil)
  }

  @Test func distanceAndZoomLevelAgree() throws {
    let view = try MapView(size: Size2D(width: 800, height: 600))
    let place = try GeoCoordinates(latitude: 52.5, longitude: 13.4)
    view.camera.lookAt(point: place, zoom: MapMeasure(kind: .distanceInMeters, value: 5000))
    let state = view.camera.state
    #expect(abs(state.distanceToTargetInMeters - 5000) < 1e-6)
    // The view's height of ground: 600 px × meters per pixel = 2 × 5000 × tan 30°.
    let metersPerPixel = try WebMercator.metersPerPixel(atLatitude: 52.5, zoom: state.zoomLevel)
    #expect(abs(600 * metersPerPixel - 2 * 5000 * tan(Double.pi / 6)) < 1e-6)
    view.camera.lookAt(point: place, zoom: MapMeasure(kind: .zoomLevel, value: 99))
    #expect(view.camera.state.zoomLevel == MapCamera.maximumZoomLevel)
    view.camera.lookAt(point: place, zoom: MapMeasure(kind: .distanceInMeters, value: -1))
    #expect(view.camera.state.zoomLevel == MapCamera.maximumZoomLevel)
  }

  @Test func invalidSizesThrow() {
    #expect(throws: MapError.self) { try MapView(size: Size2D(width: 0, height: 10)) }
    #expect(throws: MapError.self) { try MapView(size: Size2D(width: .nan, height: 10)) }
    #expect(throws: MapError.self) { try MapView(size: Size2D(width: 10, height: 9000)) }
  }
}
