import Geo
import Traffic

/// Why no route could be given, in one sentence naming the cause.
public enum RoutingError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The engine has no road network to route on.
  case noRoadNetwork
  /// A waypoint is farther than the snapping radius from any road open to cars.
  case placeOffNetwork(index: Int, GeoCoordinates, radiusInMeters: Double)
  /// No road leads from one waypoint to the next (disconnected, or every way is closed).
  case noRoute(fromIndex: Int, toIndex: Int)
  /// An option is out of range.
  case invalidOption(String)
  /// The routing server (of a remote engine) failed or refused, with its reason.
  case remote(String)
  /// The routing server (of a remote engine) cannot be reached or did not answer in time:
  /// the transport's error (`serverUnreachable`, `timedOut`, `offline`...).
  case unreachable(TrafficQueryError)

  /// The reason in one sentence.
  public var description: String {
    switch self {
    case .noRoadNetwork:
      return "no road network: import one (traffic network import FILE) to route on"
    case .placeOffNetwork(let index, let place, let radius):
      return
        "waypoint \(index) (\(place.latitude),\(place.longitude)) is more than \(Int(radius)) m from any road open to cars"
    case .noRoute(let from, let to):
      return "no route from waypoint \(from) to waypoint \(to): no open road connects them"
    case .invalidOption(let reason), .remote(let reason):
      return reason
    case .unreachable(let error):
      return "the routing server cannot be reached: \(error)"
    }
  }
}
