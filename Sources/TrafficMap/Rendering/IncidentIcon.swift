import Foundation
import Traffic

/// The vector icons of the incident layer: a disc in the colour of the incident type, white
/// rimmed, with a white glyph (a dark one on yellow). Closures and critical incidents get a
/// larger disc and a dark red ring, so they stand out among the others.
enum IncidentIcon {
  /// Whether the incident closes the road.
  static func isClosure(_ incident: TrafficIncident) -> Bool {
    incident.type == .roadClosure || incident.isRoadClosed
  }

  /// Whether the icon is drawn larger and ringed.
  static func standsOut(_ incident: TrafficIncident) -> Bool {
    isClosure(incident) || incident.impact == .critical
  }

  /// The disc colour of a type (as listed on `TrafficIncidentType`'s cases).
  static func color(_ type: TrafficIncidentType) -> MapColor {
    switch type {
    case .accident, .congestion, .roadClosure: return MapColor(rgb: 0xD50000)
    case .construction, .laneRestriction: return MapColor(rgb: 0xF57C00)
    case .disabledVehicle: return MapColor(rgb: 0x616161)
    case .massTransit: return MapColor(rgb: 0x1565C0)
    case .plannedEvent: return MapColor(rgb: 0x6A1B9A)
    case .roadHazard: return MapColor(rgb: 0xFBC02D)
    case .weather: return MapColor(rgb: 0x0288D1)
    case .other, .unknown: return MapColor(rgb: 0x455A64)
    }
  }

  /// Draws the icon of `incident` centred on `center`.
  static func draw(
    _ incident: TrafficIncident, at center: Point2D, radius: Double, on canvas: CairoCanvas
  ) {
    let type = isClosure(incident) ? TrafficIncidentType.roadClosure : incident.type
    draw(type: type, standsOut: standsOut(incident), at: center, radius: radius, on: canvas)
  }

  /// Draws the icon of a type centred on `center`.
  static func draw(
    type: TrafficIncidentType, standsOut: Bool, at center: Point2D, radius: Double,
    on canvas: CairoCanvas
  ) {
    let s = radius / 10
    if standsOut {
      canvas.circle(center: center, radius: radius + 1.5 * s, fill: MapColor(rgb: 0x5A0010))
    }
    canvas.circle(
      center: center, radius: radius - 0.75 * s, fill: color(type), stroke: .white,
      strokeWidth: 1.5 * s)
    let ink = type == .roadHazard ? MapColor(rgb: 0x212121) : MapColor.white
    canvas.withState(translatedTo: center) {
      glyph(type, scale: s, ink: ink, on: canvas)
    }
  }

  /// The glyph, drawn around the origin for an icon of radius `10 × scale`.
  private static func glyph(
    _ type: TrafficIncidentType, scale s: Double, ink: MapColor, on canvas: CairoCanvas
  ) {
    func p(_ x: Double, _ y: Double) -> Point2D { Point2D(x: x * s, y: y * s) }
    let line = 1.8 * s
    switch type {
    case .accident:
      // Two crossing strokes: a crash.
      canvas.stroke([p(-4, -4), p(4, 4)], width: line, color: ink)
      canvas.stroke([p(4, -4), p(-4, 4)], width: line, color: ink)
    case .congestion:
      // A queue: three bars.
      for y in [-3.5, 0, 3.5] { canvas.stroke([p(-4.5, y), p(4.5, y)], width: line, color: ink) }
    case .construction:
      // A barrier: a board with two diagonal stripes on a post.
      canvas.polygon(
        [p(-5, -4), p(5, -4), p(5, 1), p(-5, 1)], fill: nil, stroke: ink, strokeWidth: 1.4 * s)
      canvas.stroke([p(-2, 1), p(1, -4)], width: 1.4 * s, color: ink)
      canvas.stroke([p(2, 1), p(5, -4)], width: 1.4 * s, color: ink)
      canvas.stroke([p(-3.5, 1), p(-3.5, 5)], width: 1.4 * s, color: ink)
      canvas.stroke([p(3.5, 1), p(3.5, 5)], width: 1.4 * s, color: ink)
    case .disabledVehicle:
      // A car: body and two wheels.
      canvas.polygon(
        [
          p(-5.5, 1.5), p(-5.5, -1), p(-3, -1.5), p(-1.5, -4), p(2.5, -4), p(4, -1.5), p(5.5, -1),
          p(5.5, 1.5),
        ], fill: ink)
      canvas.circle(center: p(-3, 2.5), radius: 1.6 * s, fill: ink)
      canvas.circle(center: p(3, 2.5), radius: 1.6 * s, fill: ink)
    case .massTransit:
      // A bus front: body, windscreen, wheels.
      canvas.roundedRectangle(
        x: -4 * s, y: -5 * s, width: 8 * s, height: 9 * s, radius: 1.5 * s, fill: ink)
      canvas.roundedRectangle(
        x: -2.8 * s, y: -3.8 * s, width: 5.6 * s, height: 3 * s, radius: 0.5 * s, fill: color(type))
      canvas.stroke([p(-2.5, 5), p(-2.5, 6)], width: 1.6 * s, color: ink, cap: .butt)
      canvas.stroke([p(2.5, 5), p(2.5, 6)], width: 1.6 * s, color: ink, cap: .butt)
    case .plannedEvent:
      // A calendar sheet.
      canvas.roundedRectangle(
        x: -4.5 * s, y: -4 * s, width: 9 * s, height: 8.5 * s, radius: 1 * s, fill: nil,
        stroke: ink, strokeWidth: 1.4 * s)
      canvas.stroke([p(-4.5, -1.5), p(4.5, -1.5)], width: 1.4 * s, color: ink)
      canvas.stroke([p(-2, -5.5), p(-2, -3)], width: 1.4 * s, color: ink)
      canvas.stroke([p(2, -5.5), p(2, -3)], width: 1.4 * s, color: ink)
    case .roadHazard:
      // An exclamation mark.
      canvas.stroke([p(0, -5), p(0, 1.5)], width: 2.2 * s, color: ink)
      canvas.circle(center: p(0, 4.5), radius: 1.3 * s, fill: ink)
    case .weather:
      // A snowflake: three crossing strokes.
      for angle in [0.0, 60, 120] {
        let r = angle * .pi / 180
        canvas.stroke(
          [p(-5.5 * cos(r), -5.5 * sin(r)), p(5.5 * cos(r), 5.5 * sin(r))], width: 1.5 * s,
          color: ink)
      }
    case .roadClosure:
      // No entry: a white bar across the red disc.
      canvas.stroke([p(-5.5, 0), p(5.5, 0)], width: 3.2 * s, color: ink, cap: .butt)
    case .laneRestriction:
      // Two lanes, the right one ending: a lane closed.
      canvas.stroke([p(-3, 5), p(-3, -5)], width: line, color: ink)
      canvas.stroke([p(3, 5), p(3, 0)], width: line, color: ink)
      canvas.stroke([p(3, 0), p(-1, -4)], width: line, color: ink)
    case .other, .unknown:
      // Information: an "i".
      canvas.circle(center: p(0, -4.2), radius: 1.3 * s, fill: ink)
      canvas.stroke([p(0, -1.5), p(0, 5)], width: 2.2 * s, color: ink, cap: .butt)
    }
  }
}
