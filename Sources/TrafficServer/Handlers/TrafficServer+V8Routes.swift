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
  }

  /// `GET /v8/routes`: HERE Routing API v8 routes on the engine's live traffic. Errors come
  /// in v8's shape (`title`, `status`, `code`, `cause`, `action`, `correlationId`).
  func routes(query: QueryParameters) -> HTTPResponse {
    do throws(V8Failure) {
      let request = try V8RouteRequest(query)
      let routes: [TrafficRouting.Route]
      do throws(RoutingError) {
        routes = try router.routes(
          through: request.waypoints, options: request.options, via: request.via,
          headings: request.headings)
      } catch {
        throw Self.failure(error)
      }
      var response = HTTPResponse.json(
        V8RouteWire.encode(
          routes, returning: request.returning, spans: request.spans,
          language: request.language))
      response.headers.add("Cache-Control", "no-store")
      return response
    } catch {
      return HTTPResponse.json(
        V8RouteWire.error(
          status: error.status, code: error.code, title: error.title, cause: error.cause),
        status: error.status)
    }
  }

  private static func failure(_ error: RoutingError) -> V8Failure {
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
    }
  }
}

/// The parameters of `GET /v8/routes`.
struct V8RouteRequest {
  var waypoints: [GeoCoordinates]
  /// The direction of travel at each waypoint (`;course=`), in order.
  var headings: [Double?] = []
  /// The via points with their options (`!stopDuration=`, `!passThrough=`).
  var via: [Waypoint] = []
  var options = RouteOptions()
  var returning: V8RouteWire.Return = [.summary]
  var spans: V8RouteWire.SpanAttributes = []
  /// `lang`: the language of the instructions and of the incidents' descriptions.
  var language: String?

  /// The parameters this endpoint knows; any other is refused by name.
  static let known: Set<String> = [
    "transportMode", "origin", "destination", "via", "departureTime", "alternatives", "return",
    "spans", "apiKey", "routingMode", "lang", "units", "traffic[mode]", "arrivalTime",
  ]

  init(_ query: QueryParameters) throws(TrafficServer.V8Failure) {
    for pair in query.pairs where !Self.known.contains(pair.name) {
      throw .malformed("unknown parameter \(pair.name)")
    }
    let mode = try Self.single("transportMode", query)
    guard let mode else { throw .malformed("transportMode is required (car)") }
    guard mode == "car" else {
      throw .malformed("transportMode \(mode) is not supported; this service routes cars")
    }
    if let text = try Self.single("routingMode", query) {
      guard let mode = RouteOptions.RoutingMode(rawValue: text) else {
        throw .malformed("routingMode \(text) is not supported; give fast or short")
      }
      options.routingMode = mode
    }
    guard let origin = try Self.single("origin", query) else {
      throw .malformed("origin is required (LAT,LNG)")
    }
    guard let destination = try Self.single("destination", query) else {
      throw .malformed("destination is required (LAT,LNG)")
    }
    let vias = query.pairs.filter { $0.name == "via" }.map(\.value)
    guard vias.count <= 23 else { throw .malformed("at most 23 via points, got \(vias.count)") }
    via = try vias.enumerated().map { k, text throws(TrafficServer.V8Failure) in
      try Self.viaPoint(text, index: k)
    }
    let start = try Self.place(origin, "origin")
    let end = try Self.place(destination, "destination")
    waypoints = [start.coordinates] + via.map(\.coordinates) + [end.coordinates]
    headings = [start.headingInDegrees] + via.map(\.headingInDegrees) + [end.headingInDegrees]
    // `any` is v8's planning mode: no traffic flow nor anything time-dependent, only the
    // long-term closures (the times of the answer then count from now).
    if let time = try Self.single("departureTime", query) {
      if time == "any" {
        options.trafficOptimization = .longTermClosuresOnly
      } else {
        guard let date = RFC3339.parse(time) else {
          throw .malformed("departureTime \(time) is not an RFC 3339 time or any")
        }
        options.departureTime = date
      }
    }
    if let time = try Self.single("arrivalTime", query) {
      guard let date = RFC3339.parse(time) else {
        throw .malformed("arrivalTime \(time) is not an RFC 3339 time")
      }
      guard try Self.single("departureTime", query) == nil else {
        throw .malformed("give departureTime or arrivalTime, not both")
      }
      options.arrivalTime = date
    }
    language = try Self.single("lang", query)
    // `disabled`: no traffic data at all, long-term closures included.
    switch try Self.single("traffic[mode]", query) {
    case nil, "default": break
    case "disabled":
      options.trafficOptimization = .disabled
      options.avoidsClosures = false
    case let mode?:
      throw .malformed("traffic[mode] \(mode) is not supported; give default or disabled")
    }
    if let text = try Self.single("alternatives", query) {
      guard let count = Int(text), (0...RouteOptions.maximumAlternatives).contains(count) else {
        throw .malformed(
          "alternatives must be 0...\(RouteOptions.maximumAlternatives), got \(text)")
      }
      options.alternatives = count
    }
    if let text = try Self.single("return", query) {
      returning = []
      for name in text.split(separator: ",", omittingEmptySubsequences: false) {
        guard let flag = V8RouteWire.Return.names.first(where: { $0.0 == name })?.1 else {
          throw .malformed(
            "return \(name) is not supported; give \(V8RouteWire.Return.names.map(\.0).joined(separator: ", "))"
          )
        }
        returning.insert(flag)
      }
      if returning.contains(.instructions), !returning.contains(.actions) {
        throw .malformed("return instructions needs actions (return=actions,instructions)")
      }
    }
    if let text = try Self.single("spans", query) {
      for name in text.split(separator: ",", omittingEmptySubsequences: false) {
        guard let flag = V8RouteWire.SpanAttributes.names.first(where: { $0.0 == name })?.1
        else {
          throw .malformed(
            "spans \(name) is not supported; give \(V8RouteWire.SpanAttributes.names.map(\.0).joined(separator: ", "))"
          )
        }
        spans.insert(flag)
      }
    }
  }

  private static func single(
    _ name: String, _ query: QueryParameters
  ) throws(TrafficServer.V8Failure) -> String? {
    do {
      return try query.single(name, error: TrafficQueryError.badRequest)
    } catch {
      throw .malformed("\(name) is given more than once; give it once")
    }
  }

  /// `LAT,LNG` with its place options (`;course=`; others are refused).
  private static func place(
    _ text: String, _ name: String
  ) throws(TrafficServer.V8Failure) -> Waypoint {
    do { return try V8RouteWire.placeWithOptions(text, name: name) } catch {
      throw .malformed(error.description)
    }
  }

  /// A via point with its options (`V8RouteWire.waypoint`).
  private static func viaPoint(
    _ text: String, index: Int
  ) throws(TrafficServer.V8Failure) -> Waypoint {
    do { return try V8RouteWire.waypoint(text, index: index) } catch {
      throw .malformed(error.description)
    }
  }
}
