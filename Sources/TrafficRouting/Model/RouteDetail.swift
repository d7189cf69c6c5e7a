/// What the sections of a route carry besides their times, geometry and spans: an answer
/// that shows no maneuvers or incidents (OSRM's route without `steps`, a v8 route without
/// `actions` or `incidents`) need not find them along a route hundreds of kilometres long.
package struct RouteDetail: OptionSet, Hashable, Sendable {
  package let rawValue: Int
  package init(rawValue: Int) { self.rawValue = rawValue }

  /// The maneuvers (``RouteSection/maneuvers``).
  package static let maneuvers = RouteDetail(rawValue: 1)
  /// The incidents along each section (``TrafficOnRoute/incidents``).
  package static let incidents = RouteDetail(rawValue: 2)
  /// Everything, as ``RoutingEngine/calculateRoute(from:to:via:options:)`` gives.
  package static let all: RouteDetail = [.maneuvers, .incidents]
}
