import Foundation
import Traffic

/// A map view without a window: the HERE SDK's `MapView` for servers, tests and command-line
/// tools. It shows a `MapScene` through a `MapCamera` in Web Mercator and renders PNG
/// images; taps are simulated by picking.
///
/// ```swift
/// let mapView = try MapView(size: Size2D(width: 800, height: 600), engine: engine)
/// mapView.camera.lookAt(point: place, zoom: MapMeasure(kind: .zoomLevel, value: 14))
/// try await mapView.mapScene.loadScene(mapScheme: .normalDay)
/// try mapView.mapScene.enableFeatures([.trafficFlow: .trafficFlowWithFreeFlow])
/// let png = try mapView.renderImage()
/// ```
///
/// A view of a remote engine (`TrafficEngine(server:apiKey:)`) shows the server's traffic,
/// which only comes asynchronously: `try await mapView.refreshTraffic()` after setting the
/// camera and features, then render and pick. There is no road network then: the basemap is
/// empty and flows are drawn along their own lines.
public final class MapView: Sendable {
  /// How far from a line or an icon's edge a pick still hits it, pixels.
  public static let pickToleranceInPixels: Double = 3

  /// The view's size, pixels.
  public let size: Size2D
  /// Where the view looks.
  public let camera: MapCamera
  /// What the view shows.
  public let mapScene: MapScene
  private let pixelWidth: Int
  private let pixelHeight: Int

  /// Creates a view.
  ///
  /// - Parameters:
  ///   - size: Width and height, 1...8192 whole pixels each (fractions are rounded).
  ///   - engine: The engine whose road network, flow and incidents the scene shows; without
  ///     one the scene has only its background and your markers and polylines.
  ///   - clock: The current time, for the traffic refresh period; tests pass a fixed one.
  /// - Throws: `MapError.invalidSize` for a side outside 1...8192 or not a number.
  public init(
    size: Size2D, engine: TrafficEngine? = nil,
    clock: @escaping @Sendable () -> Date = { Date() }
  ) throws(MapError) {
    guard size.width.isFinite, size.height.isFinite,
      (1...8192).contains(size.width.rounded()), (1...8192).contains(size.height.rounded())
    else {
      throw .invalidSize("\(size) pixels; each side must be within 1...8192")
    }
    pixelWidth = Int(size.width.rounded())
    pixelHeight = Int(size.height.rounded())
    self.size = Size2D(width: Double(pixelWidth), height: Double(pixelHeight))
    camera = MapCamera(viewHeight: Double(pixelHeight))
    mapScene = MapScene(engine: engine, clock: clock)
  }

  var projection: ViewProjection {
    camera.projection(width: size.width, height: size.height)
  }

  // MARK: Coordinates

  /// The place under a point of the view.
  ///
  /// - Parameter viewCoordinates: Pixels from the view's top-left corner (may lie outside
  ///   the view).
  /// - Returns: The coordinates, or `nil` above or below the world (beyond Web Mercator's
  ///   ±85.05° latitude); longitudes wrap around the world.
  public func viewToGeoCoordinates(viewCoordinates: Point2D) -> GeoCoordinates? {
    projection.coordinates(viewCoordinates)
  }

  /// Where a place appears in the view.
  ///
  /// - Parameter geoCoordinates: The place (latitudes beyond ±85.05° are drawn at the
  ///   world's edge).
  /// - Returns: Pixels from the top-left corner, or `nil` when the place is outside the
  ///   view's bounds (as the HERE SDK does for places not visible).
  public func geoToViewCoordinates(geoCoordinates: GeoCoordinates) -> Point2D? {
    let point = projection.point(geoCoordinates)
    guard point.x >= 0, point.x <= size.width, point.y >= 0, point.y <= size.height else {
      return nil
    }
    return point
  }

  // MARK: Traffic

  /// Fetches the traffic the view shows now — the flows and incidents of the enabled layers
  /// in view — through the engine's asynchronous queries, for the following
  /// `renderImage()` and picks of this view.
  ///
  /// A view of a remote engine needs this: its server answers only asynchronously, so
  /// `renderImage()` cannot ask it. Call it after moving the camera or changing features or
  /// the incident filter, and again to show newer traffic (the refresh period does not
  /// apply: a remote view shows what was fetched last). An embedded engine's view reads its
  /// snapshots by itself; this refreshes it early. Nothing is asked without an engine, with
  /// both traffic layers off, or below zoom 8 (where no traffic is drawn).
  /// - Throws: `MapError.sceneNotLoaded` before a scene was loaded, `.trafficQueryFailed`
  ///   with the engine's error — for a remote engine the server's (`serverUnreachable`,
  ///   `authenticationFailed`, `httpError`...); the traffic fetched before stays then.
  /// - Complexity: One flow and one incident query per degree-sized piece of the view.
  public func refreshTraffic() async throws(MapError) {
    try await mapScene.refreshTraffic(for: projection)
  }

  // MARK: Rendering

  /// Draws the view as a PNG image of `size` pixels: background and basemap, the enabled
  /// traffic layers, then your polylines and markers.
  ///
  /// The same scene, camera and data always give the same bytes (Cairo renders without
  /// fonts or randomness).
  /// - Returns: The PNG file's bytes.
  /// - Throws: `MapError.sceneNotLoaded` before a scene was loaded, `.renderingFailed`
  ///   when Cairo fails, `.trafficNotFetched` for a view of a remote engine with a traffic
  ///   layer on whose traffic `refreshTraffic()` has not fetched.
  /// - Complexity: O(r + f + i) for the roads, flows and incidents in view.
  public func renderImage() throws(MapError) -> Data {
    try draw().pngData()
  }

  /// The pixels `renderImage()` encodes.
  package func renderRaster() throws(MapError) -> RasterImage {
    try draw().image()
  }

  private func draw() throws(MapError) -> CairoCanvas {
    let projection = projection
    let layers = try mapScene.layers(for: projection)
    let canvas = try CairoCanvas(width: pixelWidth, height: pixelHeight)
    SceneRenderer.draw(
      layers, projection: projection, styleZoom: projection.zoom, pixelRatio: 1, on: canvas)
    return canvas
  }

  // MARK: Picking

  /// What is drawn under a rectangle of the view: incidents of the incident layer, and the
  /// markers and polylines you added.
  ///
  /// Only what is visible is picked: nothing of a layer that is off, no incident the type
  /// filter hides. A line is hit within `pickToleranceInPixels` of its edge, so a 1 x 1
  /// rectangle (a tap) need not land exactly on it.
  /// A view of a remote engine first fetches its traffic from the server (as
  /// `refreshTraffic()`) unless it was fetched for this view within the refresh period;
  /// when that fails, the incidents fetched before for this view are picked, none if none
  /// were (`refreshTraffic()` tells why).
  /// - Parameter rectangle: The area, in view pixels.
  /// - Returns: What was found, topmost first; empty before a scene is loaded.
  /// - Complexity: O(v) in the vertices of the incidents, markers and polylines in view.
  public func pickMapContent(inside rectangle: Rectangle2D) async -> PickMapContentResult {
    _ = await fetchRemoteTraffic()
    return pick(inside: rectangle)
  }

  /// `pickMapContent(inside:)` with a completion handler, as in the HERE SDK.
  ///
  /// - Parameters:
  ///   - rectangle: The area, in view pixels.
  ///   - completion: Called once from a background task with the result; with `nil` when
  ///     a remote engine's traffic could not be fetched.
  public func pickMapContent(
    inside rectangle: Rectangle2D,
    completion: @escaping @Sendable (PickMapContentResult?) -> Void
  ) {
    Task { completion(await self.fetchRemoteTraffic() ? self.pick(inside: rectangle) : nil) }
  }

  /// For a remote engine, fetches the view's traffic unless it was fetched for this view
  /// within the refresh period; whether that did not fail.
  private func fetchRemoteTraffic() async -> Bool {
    guard mapScene.engine?.isRemote == true else { return true }
    do throws(MapError) {
      try await mapScene.refreshTraffic(for: projection, onlyWhenStale: true)
      return true
    } catch .sceneNotLoaded {
      return true  // the pick finds nothing, as for any view before its scene
    } catch {
      return false
    }
  }

  /// The synchronous pick behind both forms: what the view's layers hold now (no traffic
  /// of a remote engine's view whose traffic was not fetched).
  package func pick(inside rectangle: Rectangle2D) -> PickMapContentResult {
    let projection = projection
    guard let layers = try? mapScene.layers(for: projection, unfetchedTrafficIsEmpty: true)
    else { return PickMapContentResult() }
    let tolerance = MapView.pickToleranceInPixels
    var result = PickMapContentResult()
    if layers.showIncidents {
      let shapes = SceneRenderer.incidentShapes(
        layers.traffic.incidents, projection: projection, zoom: projection.zoom, pixelRatio: 1)
      // Topmost first: icons are drawn in order, so the last drawn is on top.
      for shape in shapes.reversed() {
        let onIcon =
          ScreenGeometry.distance(from: shape.icon, to: rectangle) <= shape.iconRadius + tolerance
        let onLine = shape.lines.contains {
          ScreenGeometry.distance(from: $0, to: rectangle) <= shape.lineWidth / 2 + tolerance
        }
        if onIcon || onLine {
          result.trafficIncidents.append(TrafficIncidentResult(shape.incident))
        }
      }
    }
    for marker in layers.markers.reversed() {
      let area = SceneRenderer.markerRectangle(marker, projection: projection)
      if area.origin.x <= rectangle.maxX, area.maxX >= rectangle.origin.x,
        area.origin.y <= rectangle.maxY, area.maxY >= rectangle.origin.y
      {
        result.mapMarkers.append(marker)
      }
    }
    for polyline in layers.polylines.reversed() {
      let reach = polyline.widthInPixels / 2 + polyline.outlineWidthInPixels + tolerance
      if ScreenGeometry.distance(from: projection.points(polyline.geometry), to: rectangle) <= reach
      {
        result.mapPolylines.append(polyline)
      }
    }
    return result
  }
}
