import Foundation

/// How a route is computed (HERE SDK `CarOptions`/`RouteOptions`, the parts this engine
/// knows).
public struct RouteOptions: Hashable, Sendable {
  /// Which traffic the route takes into account (HERE SDK `TrafficOptimizationMode`).
  public enum TrafficOptimization: String, Hashable, Sendable, CaseIterable {
    /// Live speeds near the start (the first 15 minutes after now), blending into typical
    /// speeds for the time of the week each segment is reached (from an hour after now);
    /// closures. A departure more than an hour ahead drives on typical speeds only, with
    /// the closures active at its time.
    case timeDependent
    /// Planning mode (HERE Routing v8's `departureTime=any`): free-flow speeds, and of the
    /// closures only the long-term ones, those that last more than a day (planned for
    /// longer, or open-ended and in place for a day already); shorter closures and feeds'
    /// blockages are driven through.
    case longTermClosuresOnly
    /// No traffic: free-flow speeds, closures ignored unless `avoidsClosures` is set (v8's
    /// `traffic[mode]=disabled` ignores them all).
    case disabled
  }

  /// What a route minimises (HERE SDK `OptimizationMode`, v8 `routingMode`).
  public enum RoutingMode: String, Hashable, Sendable, CaseIterable {
    /// The time, with the traffic the options take into account.
    case fast
    /// The length; closures are still avoided, and durations are still the times driven.
    case short
  }

  /// What the route minimises.
  public var routingMode = RoutingMode.fast
  /// When the trip starts; `nil` is now (the engine's clock), unless `arrivalTime` is set.
  public var departureTime: Date?
  /// When the trip is to end (HERE SDK `arrivalTime`, v8 `arrivalTime`): the departure is
  /// then the time from which the fastest route arrives then, with the traffic of the times
  /// it drives through. Not together with `departureTime`.
  public var arrivalTime: Date?
  /// Which traffic counts.
  public var trafficOptimization: TrafficOptimization = .timeDependent
  /// Whether closed segments are never used under `.disabled` (HERE SDK avoids closures
  /// by default). The other modes always leave out the closures they take in: all of them
  /// with `.timeDependent`, the long-term ones with `.longTermClosuresOnly`.
  public var avoidsClosures = true
  /// How many alternative routes to look for besides the best, 0...3.
  public var alternatives = 0
  /// The kinds of road the route never drives (OSRM's `exclude`, HERE's `avoid[features]`):
  /// a route, and every cell of a matrix, is the best one without them, and a waypoint meets
  /// the network on another road. Where none is left, there is no route
  /// (``RoutingError/noRoute(fromIndex:toIndex:)``, a `nil` matrix cell); HERE's Routing v8
  /// (and this server's `/v8/routes`) would instead drive them and say so in a notice. Empty: every road open to cars.
  public var avoidedFeatures: Set<RoadFeature> = []

  /// Options with the defaults: now, live traffic, closures avoided, no alternatives.
  public init(
    departureTime: Date? = nil, trafficOptimization: TrafficOptimization = .timeDependent,
    avoidsClosures: Bool = true, alternatives: Int = 0, arrivalTime: Date? = nil
  ) {
    self.departureTime = departureTime
    self.arrivalTime = arrivalTime
    self.trafficOptimization = trafficOptimization
    self.avoidsClosures = avoidsClosures
    self.alternatives = alternatives
  }

  /// The most alternatives asked for.
  public static let maximumAlternatives = 3

  /// The times a trip may start or end in: the four-digit years, before the year 5000
  /// (seconds since 1970, with a day's margin for any offset at the start), as flow's `at`.
  static let times = -62_167_305_600.0..<95_617_584_000.0

  /// Checks that the departure and arrival times lie in ``times``: an answer's times
  /// (departure plus the trip) stay times that RFC 3339 can write.
  ///
  /// - Throws: ``RoutingError/invalidOption(_:)`` naming the time.
  func validateTimes() throws(RoutingError) {
    for (name, time) in [("departureTime", departureTime), ("arrivalTime", arrivalTime)] {
      if let time, !Self.times.contains(time.timeIntervalSince1970) {
        throw .invalidOption("\(name) must lie before the year 5000 and not before the year 0000")
      }
    }
  }
}
