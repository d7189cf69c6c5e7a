import Codec
import Foundation
import Geo

/// A waypoint as OSRM writes it: the point on the road, its distance from the point asked
/// for, the road's name (and for `nearest` the nodes of its segment).
package struct OSRMWaypoint: Hashable, Sendable {
  package var location: GeoCoordinates
  package var distanceInMeters: Double
  package var name: String
  package var nodes: [Int]?

  package init(
    location: GeoCoordinates, distanceInMeters: Double, name: String, nodes: [Int]? = nil
  ) {
    self.location = location
    self.distanceInMeters = distanceInMeters
    self.name = name
    self.nodes = nodes
  }
}

/// Routes and nearest roads as OSRM's HTTP API v5 answers them (`route` and `nearest`
/// services), written from this engine's ``Route``s with the options of the ``OSRMQuery``:
/// `{"code":"Ok","routes":[{"geometry","legs":[{"steps","summary","weight","duration",
/// "distance","annotation"}],"weight_name","weight","duration","distance"}],"waypoints":[...]}`.
/// The weight is the duration (`weight_name` `routability`, as OSRM's car profile), with the
/// live and typical traffic the route was found with.
package enum OSRMRouteWire {
  /// The answer of the route service.
  /// - Parameter nodeIDs: The OpenStreetMap ids of a network segment's junctions (for the
  ///   `nodes` annotation; 0 where a network has none).
  package static func encode(
    _ routes: [Route], waypoints: [OSRMWaypoint], query: OSRMQuery,
    nodeIDs: (Int) -> (from: Int, to: Int) = { _ in (0, 0) }
  ) -> Data {
    var w = JSONWriter(capacity: 4096)
    w.beginObject()
    w.member("code", "Ok")
    w.key("routes")
    w.beginArray()
    for route in routes { write(route, query: query, nodeIDs: nodeIDs, to: &w) }
    w.endArray()
    if !query.skipWaypoints {
      w.key("waypoints")
      writeWaypoints(waypoints, hints: query.generateHints, to: &w)
    }
    w.endObject()
    return Data(w.bytes)
  }

  /// The answer of the nearest service: the nearest roads of the coordinate, or for several
  /// coordinates (OSRM 26) an array of them per coordinate.
  package static func encodeNearest(_ results: [[OSRMWaypoint]], query: OSRMQuery) -> Data {
    var w = JSONWriter(capacity: 1024)
    w.beginObject()
    w.member("code", "Ok")
    if !query.skipWaypoints {
      w.key("waypoints")
      if results.count == 1 {
        writeWaypoints(results[0], hints: query.generateHints, to: &w)
      } else {
        w.beginArray()
        for waypoints in results { writeWaypoints(waypoints, hints: query.generateHints, to: &w) }
        w.endArray()
      }
    }
    w.endObject()
    return Data(w.bytes)
  }

  /// An error: `{"code","message"}`.
  package static func error(_ failure: OSRMFailure) -> Data {
    var w = JSONWriter(capacity: 128)
    w.beginObject()
    w.member("code", failure.code)
    w.member("message", failure.message)
    w.endObject()
    return Data(w.bytes)
  }

  static func writeWaypoints(_ waypoints: [OSRMWaypoint], hints: Bool, to w: inout JSONWriter) {
    w.beginArray()
    for waypoint in waypoints {
      w.beginObject()
      if let nodes = waypoint.nodes {
        w.key("nodes")
        w.beginArray()
        for node in nodes { w.integer(node) }
        w.endArray()
      }
      if hints { w.member("hint", hint(waypoint.location)) }
      w.key("location")
      writePoint(waypoint.location, to: &w)
      w.member("name", waypoint.name)
      w.member("distance", waypoint.distanceInMeters, decimals: 3)
      w.endObject()
    }
    w.endArray()
  }

  /// An opaque hint, as OSRM gives one for each waypoint: here the point on the road in
  /// microdegrees, base64 (hints sent back are accepted and not needed: snapping is fast).
  static func hint(_ point: GeoCoordinates) -> String {
    var bytes: [UInt8] = []
    for value in [point.longitude, point.latitude] {
      let micro = Int32(clamping: Int64((value * 1e6).rounded()))
      withUnsafeBytes(of: micro.littleEndian) { bytes += $0 }
    }
    return Data(bytes).base64EncodedString()
  }

  static func writePoint(_ point: GeoCoordinates, to w: inout JSONWriter) {
    w.beginArray()
    w.number(point.longitude, decimals: 6)
    w.number(point.latitude, decimals: 6)
    w.endArray()
  }

  static func writeGeometry(
    _ points: [GeoCoordinates], _ geometries: OSRMQuery.Geometries, to w: inout JSONWriter
  ) {
    switch geometries {
    case .polyline, .polyline6:
      let encoded = try? GooglePolyline.encode(points, precision: geometries == .polyline ? 5 : 6)
      w.string(encoded ?? "")
    case .geojson:
      w.beginObject()
      w.key("coordinates")
      w.beginArray()
      for point in points { writePoint(point, to: &w) }
      w.endArray()
      w.member("type", "LineString")
      w.endObject()
    }
  }

  private static func write(
    _ route: Route, query: OSRMQuery, nodeIDs: (Int) -> (from: Int, to: Int),
    to w: inout JSONWriter
  ) {
    w.beginObject()
    if query.overview != .none {
      var points = route.polyline.vertices
      if query.overview == .simplified,
        let simplified = try? route.polyline.simplified(toleranceInMeters: 5)
      {
        points = simplified.vertices
      }
      w.key("geometry")
      writeGeometry(points, query.geometries, to: &w)
    }
    w.key("legs")
    w.beginArray()
    for section in route.sections { writeLeg(section, query: query, nodeIDs: nodeIDs, to: &w) }
    w.endArray()
    w.member("weight_name", "routability")
    w.member("weight", route.durationInSeconds, decimals: 1)
    w.member("duration", route.durationInSeconds, decimals: 1)
    w.member("distance", route.lengthInMeters, decimals: 1)
    w.endObject()
  }

  private static func writeLeg(
    _ section: RouteSection, query: OSRMQuery, nodeIDs: (Int) -> (from: Int, to: Int),
    to w: inout JSONWriter
  ) {
    w.beginObject()
    w.key("steps")
    w.beginArray()
    if query.steps {
      let along = OSRMSteps.Along(section.polyline)
      for (index, maneuver) in section.maneuvers.enumerated() {
        OSRMSteps.write(
          maneuver, next: index + 1 < section.maneuvers.count ? section.maneuvers[index + 1] : nil,
          in: section, along: along, geometries: query.geometries, to: &w)
      }
    }
    w.endArray()
    w.member("summary", query.steps ? OSRMSteps.summary(section) : "")
    w.member("weight", section.durationInSeconds, decimals: 1)
    w.member("duration", section.durationInSeconds, decimals: 1)
    w.member("distance", section.lengthInMeters, decimals: 1)
    if !query.annotations.isEmpty {
      let (pairs, nodes) = OSRMSteps.annotation(section, nodeIDs: nodeIDs)
      w.key("annotation")
      w.beginObject()
      for name in query.annotations {
        w.key(name)
        w.beginArray()
        switch name {
        case "nodes": for node in nodes { w.integer(node) }
        case "datasources": for pair in pairs { w.integer(pair.source) }
        default:
          for pair in pairs {
            switch name {
            case "distance": w.number(pair.meters, decimals: 1)
            case "speed": w.number(pair.seconds > 0 ? pair.meters / pair.seconds : 0, decimals: 1)
            default: w.number(pair.seconds, decimals: 1)
            }
          }
        }
        w.endArray()
      }
      if query.annotations.contains("datasources") {
        w.key("metadata")
        w.beginObject()
        w.key("datasource_names")
        w.beginArray()
        for name in OSRMSteps.sourceNames { w.string(name) }
        w.endArray()
        w.endObject()
      }
      w.endObject()
    }
    w.endObject()
  }
}
