import Foundation
import Traffic

/// The traffic a picture shows: the flows and incidents of an area, read from the engine's
/// current snapshots at one moment.
struct TrafficContent: Sendable {
  /// One directed road's flow, and whether the road is two-way (drawn offset to the side of
  /// travel then).
  struct FlowItem: Sendable {
    var flow: TrafficFlow
    var isTwoWay: Bool
    var level: TrafficMapStyle.FlowLevel
  }

  var flows: [FlowItem] = []
  var incidents: [TrafficIncident] = []

  static let empty = TrafficContent()

  /// HERE's query limit on a box side is 1 degree; larger areas are queried in pieces.
  private static let pieceInDegrees = 0.99

  /// Reads the flows (of the classes visible at `zoom`; only jams when `withoutFreeFlow`)
  /// and the active incidents (of `incidentTypes`, all when empty) meeting `box`.
  static func fetch(
    engine: TrafficEngine, box: GeoBox, zoom: Double, flowMode: MapFeatureModes?,
    incidents showIncidents: Bool, incidentTypes: Set<TrafficIncidentType>
  ) -> TrafficContent {
    var content = TrafficContent()
    guard zoom >= TrafficMapStyle.minimumTrafficZoom else { return content }
    let pieces = TrafficContent.pieces(of: box)
    if let flowMode {
      let options = TrafficFlowQueryOptions(
        minJamFactor: flowMode == .trafficFlowWithoutFreeFlow ? 4 : nil,
        functionalClasses: TrafficMapStyle.visibleClasses(zoom: zoom))
      let segments = engine.roadNetwork?.segments ?? []
      var seen = Set<Int>()
      for piece in pieces {
        // Pieces are within the engine's limits, so a query cannot fail on its area.
        for flow in (try? engine.flow(inside: piece, options: options)) ?? []
        where seen.insert(flow.segmentID).inserted {
          let twoWay =
            segments.indices.contains(flow.segmentID)
            && segments[flow.segmentID].oppositeID != nil
          content.flows.append(
            FlowItem(flow: flow, isTwoWay: twoWay, level: TrafficMapStyle.FlowLevel(flow)))
        }
      }
      // Minor roads first, so that major ones are drawn over them; then by id (stable).
      content.flows.sort {
        ($1.flow.functionalClass, $0.flow.segmentID) < ($0.flow.functionalClass, $1.flow.segmentID)
      }
    }
    if showIncidents {
      let options = TrafficIncidentsQueryOptions(
        typeFilter: incidentTypes.sorted { $0.rawValue < $1.rawValue })
      var seen = Set<String>()
      for piece in pieces {
        for incident in (try? engine.incidents(inside: piece, options: options)) ?? []
        where seen.insert(incident.originalId).inserted {
          content.incidents.append(incident)
        }
      }
      // Least severe first, so that the most severe icons are drawn on top.
      content.incidents.sort { TrafficContent.drawOrder($0) < TrafficContent.drawOrder($1) }
    }
    return content
  }

  /// Icons of higher rank are drawn later (on top) and picked first.
  static func drawOrder(_ incident: TrafficIncident) -> (Int, String) {
    let rank: Int
    switch incident.impact {
    case .unknown: rank = 0
    case .low: rank = 1
    case .minor: rank = 2
    case .major: rank = 3
    case .critical: rank = 4
    }
    return (IncidentIcon.isClosure(incident) ? 5 : rank, incident.originalId)
  }

  /// Splits a box into pieces of less than a degree a side (both sides of the antimeridian).
  static func pieces(of box: GeoBox) -> [GeoBox] {
    var result: [GeoBox] = []
    let ranges: [ClosedRange<Double>] =
      box.crossesAntimeridian ? [box.west...180, -180...box.east] : [box.west...box.east]
    let rows = max(1, Int((box.heightInDegrees / pieceInDegrees).rounded(.up)))
    let rowHeight = box.heightInDegrees / Double(rows)
    for range in ranges {
      let width = range.upperBound - range.lowerBound
      let columns = max(1, Int((width / pieceInDegrees).rounded(.up)))
      let columnWidth = width / Double(columns)
      for row in 0..<rows {
        for column in 0..<columns {
          result.append(
            GeoBox(
              uncheckedWest: range.lowerBound + Double(column) * columnWidth,
              south: box.south + Double(row) * rowHeight,
              east: column == columns - 1
                ? range.upperBound : range.lowerBound + Double(column + 1) * columnWidth,
              north: row == rows - 1 ? box.north : box.south + Double(row + 1) * rowHeight))
        }
      }
    }
    return result
  }
}
