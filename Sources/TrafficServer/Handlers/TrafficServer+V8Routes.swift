import Codec
import Foundation
import Geo
import Traffic
import TrafficRouting

extension TrafficServer {
  /// A request of `GET /v8/routes` that cannot be answered: the v8 error it becomes.
  struct V8Failure: Error {
    var status: Int
    var code: String
    var title: String
    var cause: String

    static func malformed(_ cause: String) -> V8Failure {
      V8Failure(status: 400, code: "E605001", title: "Malformed request", cause: cause)
    }

    /// The answer: v8's error body with the failure's status.
    var response: HTTPResponse {
      HTTPResponse.json(
        V8RouteWire.error(status: status, code: code, title: title, cause: cause),
        status: status)
    }
  }

  /// `GET /v8/routes`: HERE Routing API v8 routes on the engine's live traffic. Errors come
  /// in v8's shape (`title`, `status`, `code`, `cause`, `action`, `correlationId`).
  func routes(query: QueryParameters) -> HTTPResponse {
    do throws(V8Failure) {
      let request = try V8RouteRequest(query)
      let routes: [TrafficRouting.Route]
      var violated: [[Set<RoadFeature>]] = []
      // Maneuvers and incidents only when the answer shows them.
      var detail: RouteDetail = []
      if !request.returning.isDisjoint(with: [.actions, .instructions, .turnByTurnActions]) {
        detail.insert(.maneuvers)
      }
      if request.returning.contains(.incidents) { detail.insert(.incidents) }
      do throws(RoutingError) {
        routes = try router.routes(
          through: request.waypoints, options: request.options, via: request.via,
          headings: request.headings, detail: detail)
      } catch {
        // HERE's avoidance is a preference: where no route avoids the features (or a
        // waypoint has no other road), the route drives them and says so in notices.
        guard !request.options.avoidedFeatures.isEmpty, Self.avoidanceMayExplain(error) else {
          throw Self.v8Failure(error)
        }
        var options = request.options
        options.avoidedFeatures = []
        do throws(RoutingError) {
          routes = try router.routes(
            through: request.waypoints, options: options, via: request.via,
            headings: request.headings, detail: detail)
        } catch {
          throw Self.v8Failure(error)
        }
        violated = violations(of: routes, avoiding: request.options.avoidedFeatures)
      }
      var response = HTTPResponse.json(
        V8RouteWire.encode(
          routes, returning: request.returning, spans: request.spans,
          language: request.language, violated: violated))
      response.headers.add("Cache-Control", "no-store")
      return response
    } catch {
      return error.response
    }
  }

  /// Whether a routing failure may come of the avoided features (no route, a waypoint
  /// without a road), so that routing without them may succeed.
  private static func avoidanceMayExplain(_ error: RoutingError) -> Bool {
    switch error {
    case .noRoute, .placeOffNetwork: return true
    default: return false
    }
  }

  /// Per route and section, the `avoiding` features its spans drive.
  private func violations(
    of routes: [TrafficRouting.Route], avoiding features: Set<RoadFeature>
  ) -> [[Set<RoadFeature>]] {
    guard let network = router.trafficEngine.routingView()?.network else { return [] }
    return routes.map { route in
      route.sections.map { section in
        var found = Set<RoadFeature>()
        for span in section.traffic.spans where span.segmentID < network.segments.count {
          let segment = network.segments[span.segmentID]
          for feature in features where feature.contains(segment) { found.insert(feature) }
        }
        return found
      }
    }
  }

  /// The v8 error of a routing failure (routes and matrices).
  static func v8Failure(_ error: RoutingError) -> V8Failure {
    switch error {
    case .noRoadNetwork:
      return V8Failure(
        status: 404, code: "E605101", title: "No road network", cause: error.description)
    case .placeOffNetwork, .noRoute:
      return V8Failure(
        status: 400, code: "E605201", title: "Route not found", cause: error.description)
    case .invalidOption(let reason):
      return .malformed(reason)
    case .remote(let reason):
      return V8Failure(
        status: 502, code: "E605301", title: "Routing server failed", cause: reason)
    case .unreachable:
      return V8Failure(
        status: 502, code: "E605301", title: "Routing server failed", cause: error.description)
    }
  }
}

/// The parameters of `GET /v8/routes`, read by their codec (`V8RouteQuery`, beside the
/// writer the remote engine uses), as the route search takes them.
struct V8RouteRequest {
  var waypoints: [GeoCoordinates]
  /// The direction of travel at each waypoint (`;course=`), in order.
  var headings: [Double?]
  /// The via points with their options (`!stopDuration=`, `!passThrough=`).
  var via: [Waypoint]
  var options: RouteOptions
  var returning: V8RouteWire.Return
  var spans: V8RouteWire.SpanAttributes
  /// `lang`: the language of the instructions and of the incidents' descriptions.
  var language: String?

  init(_ query: QueryParameters) throws(TrafficServer.V8Failure) {
    let parsed: V8RouteQuery
    do {
      parsed = try V8RouteQuery(parameters: query.pairs.map { ($0.name, $0.value) })
    } catch {
      throw .malformed(error.description)
    }
    let all = [parsed.origin] + parsed.via + [parsed.destination]
    waypoints = all.map(\.coordinates)
    headings = all.map(\.headingInDegrees)
    via = parsed.via
    options = parsed.options
    returning = parsed.returning
    spans = parsed.spans
    language = parsed.language
  }
}
