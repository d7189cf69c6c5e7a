import Foundation
import Roads
import Traffic

/// What one picture holds, bottom to top: background and basemap, flow, incidents, the
/// caller's polylines and markers.
struct SceneLayers {
  /// The basemap's look; `nil` for a transparent picture without basemap (overlay tiles).
  var scheme: MapScheme?
  var basemap: BasemapIndex?
  /// The flow layer's mode, `nil` when it is off.
  var flowMode: MapFeatureModes?
  var showIncidents = false
  var traffic = TrafficContent.empty
  var polylines: [MapPolyline] = []
  var markers: [MapMarker] = []
}

/// Where an incident appears in a view: its lines and its icon.
struct IncidentShape {
  var incident: TrafficIncident
  var lines: [[Point2D]]
  var lineWidth: Double
  var icon: Point2D
  var iconRadius: Double
}

/// Draws layers onto a canvas through a projection; map views and raster tiles share it, so
/// a tile looks like the same place in a view.
enum SceneRenderer {
  /// Draws every layer.
  ///
  /// - Parameters:
  ///   - layers: What to draw.
  ///   - projection: Geographic coordinates to canvas pixels.
  ///   - styleZoom: The zoom level that chooses widths and visible road classes.
  ///   - pixelRatio: Device pixels per logical pixel (2 for high-DPI tiles).
  ///   - canvas: Where to draw.
  static func draw(
    _ layers: SceneLayers, projection: ViewProjection, styleZoom: Double, pixelRatio: Double,
    on canvas: CairoCanvas
  ) {
    let bounds = Rectangle2D(
      origin: Point2D(x: -32 * pixelRatio, y: -32 * pixelRatio),
      size: Size2D(
        width: projection.width + 64 * pixelRatio, height: projection.height + 64 * pixelRatio))
    if let scheme = layers.scheme {
      canvas.fill(TrafficMapStyle.background(scheme))
      if let basemap = layers.basemap {
        drawBasemap(
          basemap, scheme: scheme, projection: projection, zoom: styleZoom,
          pixelRatio: pixelRatio, bounds: bounds, on: canvas)
      }
    }
    if let mode = layers.flowMode {
      drawFlow(
        layers.traffic.flows, mode: mode, projection: projection, zoom: styleZoom,
        pixelRatio: pixelRatio, bounds: bounds, on: canvas)
    }
    if layers.showIncidents {
      let shapes = incidentShapes(
        layers.traffic.incidents, projection: projection, zoom: styleZoom, pixelRatio: pixelRatio)
      drawIncidents(shapes, on: canvas)
    }
    for polyline in layers.polylines {
      let points = projection.points(polyline.geometry)
      guard meets(points, bounds) else { continue }
      if polyline.outlineWidthInPixels > 0 {
        canvas.stroke(
          points, width: polyline.widthInPixels + 2 * polyline.outlineWidthInPixels,
          color: polyline.outlineColor)
      }
      canvas.stroke(points, width: polyline.widthInPixels, color: polyline.color)
    }
    for marker in layers.markers {
      let rect = markerRectangle(marker, projection: projection)
      guard meets([rect.origin, Point2D(x: rect.maxX, y: rect.maxY)], bounds) else { continue }
      canvas.draw(marker.image.raster, at: rect.origin)
    }
  }

  /// Whether the box of `points` meets `bounds`.
  static func meets(_ points: [Point2D], _ bounds: Rectangle2D) -> Bool {
    var minX = Double.infinity, minY = Double.infinity
    var maxX = -Double.infinity, maxY = -Double.infinity
    for point in points {
      minX = min(minX, point.x)
      maxX = max(maxX, point.x)
      minY = min(minY, point.y)
      maxY = max(maxY, point.y)
    }
    return maxX >= bounds.origin.x && minX <= bounds.maxX && maxY >= bounds.origin.y
      && minY <= bounds.maxY
  }

  private static func drawBasemap(
    _ basemap: BasemapIndex, scheme: MapScheme, projection: ViewProjection, zoom: Double,
    pixelRatio: Double, bounds: Rectangle2D, on canvas: CairoCanvas
  ) {
    let box = projection.coveringBox(marginInPixels: 32 * pixelRatio)
    let roads = basemap.roads(in: box, zoom: zoom)
    var drawn: [(points: [Point2D], road: RoadSegment)] = []
    drawn.reserveCapacity(roads.count)
    for road in roads {
      let points = projection.points(road.geometry)
      if meets(points, bounds) { drawn.append((points, road)) }
    }
    // Casings first, then fills, so that junctions join cleanly.
    for (points, road) in drawn {
      let width = TrafficMapStyle.roadWidth(
        functionalClass: road.functionalClass, zoom: zoom, pixelRatio: pixelRatio)
      canvas.stroke(
        points, width: width + 2 * pixelRatio,
        color: TrafficMapStyle.roadColors(road.roadClass, scheme: scheme).casing)
    }
    for (points, road) in drawn {
      let width = TrafficMapStyle.roadWidth(
        functionalClass: road.functionalClass, zoom: zoom, pixelRatio: pixelRatio)
      canvas.stroke(
        points, width: width, color: TrafficMapStyle.roadColors(road.roadClass, scheme: scheme).fill
      )
    }
  }

  private static func drawFlow(
    _ flows: [TrafficContent.FlowItem], mode: MapFeatureModes, projection: ViewProjection,
    zoom: Double, pixelRatio: Double, bounds: Rectangle2D, on canvas: CairoCanvas
  ) {
    for item in flows {
      if mode == .trafficFlowWithoutFreeFlow, item.level == .normal { continue }
      var points = projection.points(item.flow.location)
      guard meets(points, bounds) else { continue }
      let width = TrafficMapStyle.flowWidth(
        functionalClass: item.flow.functionalClass, zoom: zoom, pixelRatio: pixelRatio)
      if item.isTwoWay {
        // Right-hand traffic: each direction on its own side of the road's centre line.
        points = ScreenGeometry.offset(points, by: width / 2 + 0.5 * pixelRatio)
      }
      canvas.stroke(points, width: width, color: item.level.color, cap: .butt)
    }
  }

  /// Where the incidents appear; the icon sits where the incident begins.
  static func incidentShapes(
    _ incidents: [TrafficIncident], projection: ViewProjection, zoom: Double, pixelRatio: Double
  ) -> [IncidentShape] {
    let width = TrafficMapStyle.incidentWidth(zoom: zoom, pixelRatio: pixelRatio)
    return incidents.map { incident in
      let lines = incident.location.allPolylines.filter { $0.lengthInMeters > 0 }
        .map { projection.points($0) }
      let start = projection.point(incident.location.polyline.vertices[0])
      return IncidentShape(
        incident: incident, lines: lines, lineWidth: width, icon: start,
        iconRadius: TrafficMapStyle.iconRadius(incident, pixelRatio: pixelRatio))
    }
  }

  private static func drawIncidents(_ shapes: [IncidentShape], on canvas: CairoCanvas) {
    for shape in shapes {
      let color = TrafficMapStyle.incidentColor(shape.incident)
      let closure = IncidentIcon.isClosure(shape.incident)
      for line in shape.lines {
        canvas.stroke(line, width: shape.lineWidth + 2, color: .white)
        if closure {
          // Red and white stripes, as closures are marked on the road.
          canvas.stroke(
            line, width: shape.lineWidth, color: color, cap: .butt,
            dash: [shape.lineWidth * 1.5, shape.lineWidth * 1.5])
        } else {
          canvas.stroke(line, width: shape.lineWidth, color: color)
        }
      }
    }
    for shape in shapes {
      IncidentIcon.draw(shape.incident, at: shape.icon, radius: shape.iconRadius, on: canvas)
    }
  }

  /// The pixels a marker's image covers.
  static func markerRectangle(_ marker: MapMarker, projection: ViewProjection) -> Rectangle2D {
    let point = projection.point(marker.coordinates)
    let width = Double(marker.image.width), height = Double(marker.image.height)
    return Rectangle2D(
      origin: Point2D(
        x: (point.x - marker.anchor.horizontal * width).rounded(),
        y: (point.y - marker.anchor.vertical * height).rounded()),
      size: Size2D(width: width, height: height))
  }
}
