import Foundation
import Geo
import Traffic

/// Routes for an arrival time (HERE v8's `arrivalTime`).
extension RoutingEngine {
  /// The routes arriving at `arrival`: searched from a departure at the arrival, then from
  /// the fastest route's departure, until that moves by less than a second, at most six
  /// rounds. Each route found leaves when it arrives at `arrival`: its departure moved back
  /// by its miss until that is under a second (the trip's time changes with the traffic of
  /// the hours it drives through), at most six rounds.
  func routes(
    through waypoints: [GeoCoordinates], options: RouteOptions, via: [Waypoint],
    headings: [Double?], headingRanges: [Double?], continuingStraight: Bool,
    detail: RouteDetail, snappingRadii: [Double?], arrivingAt arrival: Date
  ) throws(RoutingError) -> [Route] {
    guard options.departureTime == nil else {
      throw .invalidOption("give a departure time or an arrival time, not both")
    }
    var departing = options
    departing.arrivalTime = nil
    departing.departureTime = arrival
    var routes: [Route] = []
    for _ in 0..<6 {
      routes = try self.routes(
        through: waypoints, options: departing, via: via, headings: headings,
        headingRanges: headingRanges, continuingStraight: continuingStraight, detail: detail,
        snappingRadii: snappingRadii, aligningArrivalTo: arrival)
      // The fastest route's own departure (each route arrives at `arrival` now): searched
      // again from there until the search's departure is that one.
      guard let start = routes.first?.sections.first?.departure.time,
        let searched = departing.departureTime
      else { break }
      if abs(start.timeIntervalSince(searched)) < 1 { break }
      departing.departureTime = start
    }
    return routes
  }
}
