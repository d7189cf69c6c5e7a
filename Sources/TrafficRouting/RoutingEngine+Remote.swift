import Codec
import Dispatch
import Foundation
import Geo
import Roads
import Synchronization
import Traffic

/// Routes of a remote engine: asked of its server as HERE Routing v8 (`V8RouteQuery`), the
/// answer read back by `V8RouteWire`.
extension RoutingEngine {
  /// The routes of the remote engine's server (`GET /v8/routes`).
  func remoteRoutes(
    from origin: Waypoint, to destination: Waypoint, via: [Waypoint], options: RouteOptions
  ) async throws(RoutingError) -> [Route] {
    let query = V8RouteQuery(
      origin: origin, destination: destination, via: via, options: options,
      returning: [.summary, .polyline, .incidents, .turnByTurnActions],
      spans: [.length, .duration, .dynamicSpeedInfo, .roadNames, .speedLimit, .functionalClass])
    let parameters = try query.parameters()
    let answer: (status: Int, body: Data)?
    do {
      answer = try await trafficEngine.remoteGet(path: "/v8/routes", parameters: parameters)
    } catch {
      throw .remote("the routing server cannot be reached: \(error)")
    }
    guard let answer else { throw .noRoadNetwork }
    guard answer.status == 200 else {
      let cause =
        (try? JSONParser.parse(answer.body))?["cause"]?.string
        ?? String(decoding: answer.body.prefix(200), as: UTF8.self)
      throw .remote("the routing server answered \(answer.status): \(cause)")
    }
    return try V8RouteWire.decode(answer.body)
  }
}
