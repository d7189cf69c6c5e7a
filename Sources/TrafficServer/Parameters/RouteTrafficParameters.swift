import Codec
import Foundation
import Geo
import Traffic

/// What a route traffic query (`POST /v1/route/traffic`) asks for, read from its JSON body:
/// `{"route": {"polyline": FLEXIBLE_POLYLINE}}` or `{"route": {"coordinates": [{"lat",
/// "lng"}, ...]}}`, and optionally `"corridorHalfWidth"` (meters, how far from the route an
/// incident may be; 30 by default).
struct RouteTrafficParameters {
  /// The most vertices a route may have.
  static let maxRoutePoints = 10_000

  /// The route, in driving order.
  var route: GeoPolyline
  /// How far from the route incidents count, meters.
  var corridorHalfWidthInMeters: Double

  /// Reads and checks the body.
  ///
  /// - Parameters:
  ///   - body: The (decompressed) request body.
  ///   - limits: The engine's limits: the route may be no longer than a corridor
  ///     (`maxCorridorLengthInMeters`) and the half width no wider
  ///     (`maxCorridorHalfWidthInMeters`).
  /// - Throws: `TrafficQueryError.badRequest` for a body that is not a JSON object,
  ///   `.invalidParameter` naming `route`, `route.polyline`, `route.coordinates[i]` or
  ///   `corridorHalfWidth`, `.invalidGeometry` for a route beyond the limits.
  init(_ body: Data, limits: TrafficQueryLimits) throws(TrafficQueryError) {
    guard !body.isEmpty else {
      throw .badRequest(
        "the body must be a JSON object {\"route\": {\"polyline\": ...} or "
          + "{\"coordinates\": [{\"lat\", \"lng\"}, ...]}}")
    }
    let root: JSONValue
    do {
      root = try JSONParser.parse(body)
    } catch {
      throw .badRequest("the body is not JSON: \(error)")
    }
    guard case .object(let members) = root else {
      throw .badRequest("the body must be a JSON object, not \(root.kindName)")
    }
    guard case .object(let route)? = members["route"] else {
      throw .invalidParameter(
        "route is missing or not an object; give {\"polyline\": ...} or {\"coordinates\": [...]}")
    }
    var vertices: [GeoCoordinates]
    switch (route["polyline"], route["coordinates"]) {
    case (.string(let text)?, nil):
      do {
        vertices = try FlexiblePolyline.decode(text).coordinates
      } catch {
        throw .invalidParameter("route.polyline: \(error)")
      }
    case (nil, .array(let items)?):
      guard items.count <= Self.maxRoutePoints else {
        throw .invalidGeometry(
          "route.coordinates has \(items.count) points, more than \(Self.maxRoutePoints)")
      }
      vertices = []
      vertices.reserveCapacity(items.count)
      for (index, item) in items.enumerated() {
        guard let latitude = item["lat"]?.double, let longitude = item["lng"]?.double else {
          throw .invalidParameter(
            "route.coordinates[\(index)] must be an object {\"lat\": number, \"lng\": number}")
        }
        do {
          vertices.append(try GeoCoordinates(latitude: latitude, longitude: longitude))
        } catch {
          throw .invalidParameter("route.coordinates[\(index)]: \(error)")
        }
      }
    case (_?, _?):
      throw .invalidParameter("route has both polyline and coordinates; give one")
    default:
      throw .invalidParameter(
        "route needs \"polyline\" (a flexible polyline string) or \"coordinates\" (an array)")
    }
    guard vertices.count >= 2 else {
      throw .invalidParameter("route needs at least 2 points, got \(vertices.count)")
    }
    guard vertices.count <= Self.maxRoutePoints else {
      throw .invalidGeometry(
        "route has \(vertices.count) points, more than \(Self.maxRoutePoints)")
    }
    self.route = GeoPolyline(uncheckedVertices: vertices)
    let length = self.route.lengthInMeters
    guard length <= limits.maxCorridorLengthInMeters else {
      throw .invalidGeometry(
        "route is \(Int(length)) m long, more than the limit of "
          + "\(Int(limits.maxCorridorLengthInMeters)) m")
    }
    corridorHalfWidthInMeters = 30
    if let member = members["corridorHalfWidth"], !member.isNull {
      guard let width = member.double, width >= 0,
        width <= limits.maxCorridorHalfWidthInMeters
      else {
        throw .invalidParameter(
          "corridorHalfWidth must be a number of meters from 0 to "
            + "\(Int(limits.maxCorridorHalfWidthInMeters))")
      }
      corridorHalfWidthInMeters = width
    }
  }
}
