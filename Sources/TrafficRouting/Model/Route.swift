import Foundation
import Geo
import Traffic

/// A route from the origin to the destination (HERE SDK `Route`): one section per leg
/// between consecutive waypoints.
public struct Route: Hashable, Sendable {
  /// The legs, in driving order.
  public var sections: [RouteSection]

  /// Seconds from departure to arrival with traffic.
  public var durationInSeconds: Double { sections.reduce(0) { $0 + $1.durationInSeconds } }
  /// Seconds at free-flow speed.
  public var baseDurationInSeconds: Double {
    sections.reduce(0) { $0 + $1.baseDurationInSeconds }
  }
  /// Meters driven: the length of ``polyline``.
  public var lengthInMeters: Double { sections.reduce(0) { $0 + $1.lengthInMeters } }
  /// The whole geometry.
  public var polyline: GeoPolyline {
    var vertices: [GeoCoordinates] = []
    for section in sections {
      let points = section.polyline.vertices
      vertices += vertices.last == points.first ? points.dropFirst() : points[...]
    }
    return (try? GeoPolyline(vertices: vertices)) ?? sections[0].polyline
  }
}

/// A waypoint as routed: where the route leaves or reaches the road, and when.
public struct RoutePlace: Hashable, Sendable {
  /// The point on the road.
  public var location: GeoCoordinates
  /// The point asked for.
  public var originalLocation: GeoCoordinates
  /// When the route passes there.
  public var time: Date
}

/// One leg of a route (HERE SDK `Section`).
public struct RouteSection: Hashable, Sendable {
  /// Where and when the leg starts.
  public var departure: RoutePlace
  /// Where and when it ends.
  public var arrival: RoutePlace
  /// Seconds with the traffic the options take into account.
  public var durationInSeconds: Double
  /// Seconds at free-flow speed (HERE's `baseDuration`).
  public var baseDurationInSeconds: Double
  /// Seconds at typical speeds, where they are known (HERE's `typicalDuration`).
  public var typicalDurationInSeconds: Double?
  /// Meters driven: the length of ``polyline``, on a network whose segments leave the way
  /// across a junction out (SUMO's) with those ways too, as ``durationInSeconds`` counts
  /// their time.
  public var lengthInMeters: Double
  /// The geometry.
  public var polyline: GeoPolyline
  /// The spans (segment stretches with speed, jam factor and delay) and the incidents on
  /// the leg — the model of `TrafficEngine.trafficOnRoute`.
  public var traffic: TrafficOnRoute
  /// What the driver does along the leg, from the departure to the arrival (HERE SDK
  /// `maneuvers`, v8 `actions`); empty for a route read from a server that sent none.
  public var maneuvers: [RouteManeuver] = []
}
