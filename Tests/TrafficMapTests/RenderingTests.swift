import Foundation
import Testing
import Traffic

@testable import TrafficMap

@Suite struct RenderingTests {
  static let red: UInt32 = 0xE3161C
  static let amber: UInt32 = 0xFFB400
  static let green: UInt32 = 0x1EA94B
  static let black: UInt32 = 0x000000

  /// The view point beside a road's centre line where a direction's flow is drawn: to the
  /// right of travel, half a flow line plus half a pixel out (a primary road's flow is 5
  /// pixels wide per direction at zoom 15, a secondary road's 4.5).
  static func flowPoint(
    _ view: MapView, _ place: GeoCoordinates, rightOf heading: (dx: Double, dy: Double)
  ) throws -> Point2D {
    let center = try #require(view.geoToViewCoordinates(geoCoordinates: place))
    let offset = 3.0
    // Right of a heading (dx, dy) in view coordinates (y down) is (-dy, dx).
    return Point2D(x: center.x - heading.dy * offset, y: center.y + heading.dx * offset)
  }

  @Test func knownJamsShowTheirColoursAtTheirPlaces() async throws {
    let view = try await SyntheticCity.view(
      engine: try SyntheticCity.engine(), features: [.trafficFlow: .trafficFlowWithFreeFlow])
    let image = try view.renderRaster()
    let east = (dx: 1.0, dy: 0.0), west = (dx: -1.0, dy: 0.0), north = (dx: 0.0, dy: -1.0)
    // Main Street's west block: eastbound jammed (red, south side), westbound free (green).
    let jam = try RenderingTests.flowPoint(view, SyntheticCity.point(47.000, 9.5045), rightOf: east)
    #expect(nil == ImageComparison.mismatch(image, jam, RenderingTests.red))
    let free = try RenderingTests.flowPoint(
      view, SyntheticCity.point(47.000, 9.5045), rightOf: west)
    #expect(nil == ImageComparison.mismatch(image, free, RenderingTests.green))
    // The east block: eastbound slow (amber).
    let slow = try RenderingTests.flowPoint(
      view, SyntheticCity.point(47.000, 9.5155), rightOf: east)
    #expect(nil == ImageComparison.mismatch(image, slow, RenderingTests.amber))
    // Cross Street's south block flows freely; its north block is closed northbound by the
    // closure incident (black) but open southbound.
    let south = (dx: 0.0, dy: 1.0)
    let cross = try RenderingTests.flowPoint(
      view, SyntheticCity.point(46.9975, 9.510), rightOf: north)
    #expect(nil == ImageComparison.mismatch(image, cross, RenderingTests.green))
    let closed = try RenderingTests.flowPoint(
      view, SyntheticCity.point(47.0025, 9.510), rightOf: north)
    #expect(nil == ImageComparison.mismatch(image, closed, RenderingTests.black))
    let open = try RenderingTests.flowPoint(
      view, SyntheticCity.point(47.0025, 9.510), rightOf: south)
    #expect(nil == ImageComparison.mismatch(image, open, RenderingTests.green))
    // The one-way bypass is blocked: black on its centre line.
    let bypass = try #require(
      view.geoToViewCoordinates(geoCoordinates: SyntheticCity.point(47.004, 9.5135)))
    #expect(nil == ImageComparison.mismatch(image, bypass, RenderingTests.black))
    // Away from roads: the background.
    let field = try #require(
      view.geoToViewCoordinates(geoCoordinates: SyntheticCity.point(47.0025, 9.5045)))
    #expect(nil == ImageComparison.mismatch(image, field, 0xF2EFE9, tolerance: 2))
  }

  @Test func withoutFreeFlowGreenIsNotDrawn() async throws {
    let view = try await SyntheticCity.view(
      engine: try SyntheticCity.engine(), features: [.trafficFlow: .trafficFlowWithoutFreeFlow])
    let image = try view.renderRaster()
    let east = (dx: 1.0, dy: 0.0), west = (dx: -1.0, dy: 0.0)
    let jam = try RenderingTests.flowPoint(view, SyntheticCity.point(47.000, 9.5045), rightOf: east)
    #expect(nil == ImageComparison.mismatch(image, jam, RenderingTests.red))
    let free = try RenderingTests.flowPoint(
      view, SyntheticCity.point(47.000, 9.5045), rightOf: west)
    #expect(nil != ImageComparison.mismatch(image, free, RenderingTests.green))
    // The basemap's primary road colour shows instead.
    #expect(nil == ImageComparison.mismatch(image, free, 0xFCE6A4, tolerance: 12))
    var greens = 0
    for y in 0..<image.height {
      for x in 0..<image.width
      where ImageComparison.isColor(
        image, Point2D(x: Double(x), y: Double(y)), RenderingTests.green, tolerance: 8)
      {
        greens += 1
      }
    }
    #expect(greens == 0)
  }

  @Test func renderingIsDeterministic() async throws {
    let engine = try SyntheticCity.engine()
    let features: [MapFeatures: MapFeatureModes] = [
      .trafficFlow: .trafficFlowWithFreeFlow, .trafficIncidents: .defaultMode,
    ]
    let first = try await SyntheticCity.view(engine: engine, features: features).renderImage()
    let second = try await SyntheticCity.view(engine: engine, features: features).renderImage()
    #expect(first == second)
    #expect(first.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    // A rendered PNG is a valid marker image.
    let image = try MapImage(pixelData: first)
    #expect(image.width == 512 && image.height == 512)
  }

  @Test func goldenFlowWithFreeFlow() async throws {
    let view = try await SyntheticCity.view(
      engine: try SyntheticCity.engine(), features: [.trafficFlow: .trafficFlowWithFreeFlow])
    try ImageComparison.expectMatchesGolden(
      try view.renderImage(), named: "flow-with-free-flow-z15")
  }

  @Test func goldenFlowWithoutFreeFlowAndIncidents() async throws {
    let view = try await SyntheticCity.view(
      engine: try SyntheticCity.engine(),
      features: [.trafficFlow: .trafficFlowWithoutFreeFlow, .trafficIncidents: .defaultMode])
    try ImageComparison.expectMatchesGolden(
      try view.renderImage(), named: "flow-without-free-flow-incidents-z15")
  }

  @Test func goldenTurnedViewWithOverlays() async throws {
    let view = try await SyntheticCity.view(
      engine: try SyntheticCity.engine(), zoom: 15.5, bearing: 30,
      features: [.trafficFlow: .trafficFlowWithFreeFlow, .trafficIncidents: .defaultMode])
    view.mapScene.addMapPolyline(
      MapPolyline(
        geometry: try GeoPolyline(vertices: [
          SyntheticCity.point(46.996, 9.502), SyntheticCity.point(46.998, 9.512),
          SyntheticCity.point(46.997, 9.518),
        ]), widthInPixels: 5, color: MapColor(rgb: 0x6200EA), outlineWidthInPixels: 1,
        outlineColor: .white))
    view.mapScene.addMapMarker(
      MapMarker(
        at: SyntheticCity.point(47.002, 9.515), image: .pin(color: MapColor(rgb: 0x2962FF)),
        anchor: .bottomCenter))
    view.mapScene.addMapMarker(
      MapMarker(at: SyntheticCity.point(46.997, 9.505), image: .incidentIcon(.weather)))
    try ImageComparison.expectMatchesGolden(try view.renderImage(), named: "turned-overlays-z15")
  }
}
