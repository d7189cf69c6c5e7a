import Foundation
import Roads
import Traffic

/// The traffic a picture shows: the flows and incidents of an area, read from the engine at
/// one moment (from its current snapshots, or from its server when it is remote).
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

  /// What a picture of an area asks the engine: the flow and incident query options (`nil`
  /// for a layer that is off) and the pieces of the area to ask for.
  struct Request: Sendable {
    var flowOptions: TrafficFlowQueryOptions?
    var incidentOptions: TrafficIncidentsQueryOptions?
    var pieces: [GeoBox]

    /// The queries for the flows (of the classes visible at `zoom`; only jams when
    /// `withoutFreeFlow`) and the active incidents (of `incidentTypes`, all when empty)
    /// meeting `box`; `nil` when the picture shows no traffic (below the traffic zoom, or
    /// both layers off).
    init?(
      box: GeoBox, zoom: Double, flowMode: MapFeatureModes?, incidents showIncidents: Bool,
      incidentTypes: Set<TrafficIncidentType>
    ) {
      guard zoom >= TrafficMapStyle.minimumTrafficZoom, flowMode != nil || showIncidents else {
        return nil
      }
      flowOptions = flowMode.map { mode in
        TrafficFlowQueryOptions(
          minJamFactor: mode == .trafficFlowWithoutFreeFlow ? 4 : nil,
          functionalClasses: TrafficMapStyle.visibleClasses(zoom: zoom))
      }
      incidentOptions =
        showIncidents
        ? TrafficIncidentsQueryOptions(
          typeFilter: incidentTypes.sorted { $0.rawValue < $1.rawValue }) : nil
      pieces = TrafficContent.pieces(of: box)
    }

    /// The incident query for `engine`: at most as many as one answer holds (the most
    /// severe first), so that a piece holding more shows those rather than failing on the
    /// limit and showing none. A server's limit is not known: HERE's is assumed.
    func incidentOptions(for engine: TrafficEngine) -> TrafficIncidentsQueryOptions? {
      guard var options = incidentOptions else { return nil }
      options.limit = (engine.isRemote ? TrafficQueryLimits.here : engine.limits).maxResults
      return options
    }
  }

  /// Reads the flows and incidents a picture of `box` at `zoom` shows from the engine's
  /// current snapshots, synchronously; a query that fails reads as none (the pieces are
  /// within the engine's limits, so a query cannot fail on its area).
  ///
  /// A remote engine answers only `fetch(_:engine:)`: here it has nothing.
  static func fetch(
    engine: TrafficEngine, box: GeoBox, zoom: Double, flowMode: MapFeatureModes?,
    incidents showIncidents: Bool, incidentTypes: Set<TrafficIncidentType>
  ) -> TrafficContent {
    guard
      let request = Request(
        box: box, zoom: zoom, flowMode: flowMode, incidents: showIncidents,
        incidentTypes: incidentTypes)
    else { return TrafficContent() }
    var flows: [TrafficFlow] = []
    var incidents: [TrafficIncident] = []
    let incidentOptions = request.incidentOptions(for: engine)
    for piece in request.pieces {
      if let options = request.flowOptions {
        flows += (try? engine.flow(inside: piece, options: options, bounded: false)) ?? []
      }
      if let options = incidentOptions {
        incidents += (try? engine.incidents(inside: piece, options: options)) ?? []
      }
    }
    return TrafficContent(flows: flows, incidents: incidents, network: engine.roadNetwork)
  }

  /// Asks the engine for what `request` names through its asynchronous queries — of a
  /// remote engine, the server.
  ///
  /// - Throws: The first query's error (the server unreachable, a key refused, ...).
  static func fetch(
    _ request: Request, engine: TrafficEngine
  ) async throws(TrafficQueryError) -> TrafficContent {
    var flows: [TrafficFlow] = []
    var incidents: [TrafficIncident] = []
    let incidentOptions = request.incidentOptions(for: engine)
    for piece in request.pieces {
      if let options = request.flowOptions {
        flows += try await engine.queryForFlow(inside: piece, queryOptions: options)
      }
      if let options = incidentOptions {
        incidents += try await engine.queryForIncidents(inside: piece, queryOptions: options)
      }
    }
    return TrafficContent(flows: flows, incidents: incidents, network: engine.roadNetwork)
  }

  /// The content of the flows and incidents the pieces of an area gave, each once, in
  /// drawing order.
  ///
  /// A flow found in two pieces counts once: by its segment id, or, without one (-1, as
  /// from a HERE service), by its whole value. A flow is two-way (drawn offset to the side
  /// of travel) when its segment of `network` has an opposite; without a network (a remote
  /// engine), when the same road in the other direction — the vertices reversed — is among
  /// the flows; else it is drawn on the line itself.
  init(flows: [TrafficFlow], incidents: [TrafficIncident], network: RoadNetwork?) {
    var seenIDs = Set<Int>()
    var seenFlows = Set<TrafficFlow>()
    let unique = flows.filter { flow in
      flow.segmentID >= 0
        ? seenIDs.insert(flow.segmentID).inserted : seenFlows.insert(flow).inserted
    }
    let twoWay: (TrafficFlow) -> Bool
    if let network {
      let segments = network.segments
      twoWay = { flow in
        segments.indices.contains(flow.segmentID) && segments[flow.segmentID].oppositeID != nil
      }
    } else {
      let lines = Set(unique.map(\.location.vertices))
      twoWay = { lines.contains(Array($0.location.vertices.reversed())) }
    }
    // Minor roads first, so that major ones are drawn over them; then by id, then as found
    // (stable).
    self.flows = unique.enumerated().sorted { a, b in
      (b.element.functionalClass, a.element.segmentID, a.offset)
        < (a.element.functionalClass, b.element.segmentID, b.offset)
    }.map { FlowItem(flow: $0.element, isTwoWay: twoWay($0.element), level: .init($0.element)) }
    var seenIncidents = Set<String>()
    // Least severe first, so that the most severe icons are drawn on top.
    self.incidents = incidents.filter { seenIncidents.insert($0.originalId).inserted }
      .sorted { TrafficContent.drawOrder($0) < TrafficContent.drawOrder($1) }
  }

  init() {}

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
