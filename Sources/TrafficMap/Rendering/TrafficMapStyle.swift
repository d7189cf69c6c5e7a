import Foundation
import Roads
import Traffic

/// Colours, widths and zoom ranges shared by map views and tiles.
///
/// Flow colours follow the HERE SDK guide's legend: green for normal traffic (jam factor
/// below 4), amber for high (4 up to 8), red for very high (8 up to 10) and black for a
/// blocked or closed road (10). Widths grow with the zoom level (×√2 per level, the same on
/// views and tiles) and with the importance of the road; minor roads appear only when zoomed
/// in far enough that they do not clutter the map.
enum TrafficMapStyle {
  /// The zoom from which traffic layers are drawn and picked (below it a view spans too
  /// much for per-road traffic to be readable or cheap).
  static let minimumTrafficZoom: Double = 8

  /// The colour class of a flow value, in the legend's order.
  enum FlowLevel: Int, Sendable, CaseIterable {
    /// Jam factor 0 up to 4: green.
    case normal
    /// 4 up to 8: amber.
    case high
    /// 8 up to 10: red.
    case veryHigh
    /// 10, or a closed road: black.
    case blocking

    init(_ flow: TrafficFlow) {
      if flow.traversability == .closed || flow.jamFactor >= 10 {
        self = .blocking
      } else if flow.jamFactor >= 8 {
        self = .veryHigh
      } else if flow.jamFactor >= 4 {
        self = .high
      } else {
        self = .normal
      }
    }

    var color: MapColor {
      switch self {
      case .normal: return MapColor(rgb: 0x1EA94B)
      case .high: return MapColor(rgb: 0xFFB400)
      case .veryHigh: return MapColor(rgb: 0xE3161C)
      case .blocking: return MapColor(rgb: 0x000000)
      }
    }
  }

  /// The smallest zoom at which roads of a functional class are drawn (1 = motorways).
  static func minimumZoom(functionalClass: Int) -> Double {
    switch functionalClass {
    case ...1: return 5
    case 2: return 8
    case 3: return 10
    case 4: return 12
    default: return 13
    }
  }

  /// The functional classes drawn at a zoom.
  static func visibleClasses(zoom: Double) -> Set<Int> {
    Set((1...5).filter { zoom >= minimumZoom(functionalClass: $0) })
  }

  /// How much wider everything is than at zoom 15.
  static func zoomFactor(_ zoom: Double) -> Double {
    min(2.5, max(0.35, exp2((zoom - 15) / 2)))
  }

  /// The width of one direction of flow, pixels.
  static func flowWidth(functionalClass: Int, zoom: Double, pixelRatio: Double) -> Double {
    let base: Double
    switch functionalClass {
    case ...1: base = 6
    case 2: base = 5
    case 3: base = 4.5
    case 4: base = 4
    default: base = 3
    }
    return max(1, base * zoomFactor(zoom)) * pixelRatio
  }

  /// The width of a road of the basemap, pixels: room for both directions of flow.
  static func roadWidth(functionalClass: Int, zoom: Double, pixelRatio: Double) -> Double {
    2 * flowWidth(functionalClass: functionalClass, zoom: zoom, pixelRatio: pixelRatio)
      + 2 * pixelRatio
  }

  /// The width of an incident's line, pixels.
  static func incidentWidth(zoom: Double, pixelRatio: Double) -> Double {
    max(2, 5 * zoomFactor(zoom)) * pixelRatio
  }

  /// The radius of an incident's icon, pixels: larger for closures and critical impacts.
  static func iconRadius(_ incident: TrafficIncident, pixelRatio: Double) -> Double {
    (IncidentIcon.standsOut(incident) ? 13 : 10) * pixelRatio
  }

  /// The background and road colours of a scheme.
  static func background(_ scheme: MapScheme) -> MapColor {
    switch scheme {
    case .normalDay: return MapColor(rgb: 0xF2EFE9)
    case .liteDay: return MapColor(rgb: 0xF6F6F4)
    }
  }

  static func roadColors(
    _ roadClass: RoadClass, scheme: MapScheme
  ) -> (
    fill: MapColor, casing: MapColor
  ) {
    switch scheme {
    case .liteDay:
      return (MapColor(rgb: 0xFFFFFF), MapColor(rgb: 0xDADADA))
    case .normalDay:
      switch roadClass.functionalClass {
      case 1: return (MapColor(rgb: 0xF7C97E), MapColor(rgb: 0xC99A50))
      case 2: return (MapColor(rgb: 0xFCE6A4), MapColor(rgb: 0xC9B47A))
      default: return (MapColor(rgb: 0xFFFFFF), MapColor(rgb: 0xC8C2B8))
      }
    }
  }

  /// The line colour of an incident by impact; closures are red.
  static func incidentColor(_ incident: TrafficIncident) -> MapColor {
    if IncidentIcon.isClosure(incident) { return MapColor(rgb: 0xD50000) }
    switch incident.impact {
    case .critical: return MapColor(rgb: 0x9C0A1E)
    case .major: return MapColor(rgb: 0xE65100)
    case .minor: return MapColor(rgb: 0xF59E0B)
    case .low: return MapColor(rgb: 0xFDD835)
    case .unknown: return MapColor(rgb: 0x8E8E8E)
    }
  }
}
