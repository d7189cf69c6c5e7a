import Foundation
import Geo

/// An error of OSRM's HTTP API (v5): its `code` (`InvalidQuery`, `InvalidValue`,
/// `InvalidOptions`, `NoSegment`, `NoRoute`, `TooBig`, ...) and `message`, answered with
/// HTTP 400 as `osrm-routed` does.
package struct OSRMFailure: Error, Hashable, Sendable {
  package var code: String
  package var message: String

  package init(_ code: String, _ message: String) {
    self.code = code
    self.message = message
  }

  package static func query(_ message: String) -> OSRMFailure {
    OSRMFailure("InvalidQuery", message)
  }
  package static func options(_ message: String) -> OSRMFailure {
    OSRMFailure("InvalidOptions", message)
  }
  package static func value(_ message: String) -> OSRMFailure {
    OSRMFailure("InvalidValue", message)
  }
}

/// A request of OSRM's HTTP API v5 (`GET /{service}/v1/{profile}/{coordinates}?options`) for
/// the services this engine answers, `route`, `table` and `nearest`: read from the path after
/// the service and version and from the query's options, and written back the same way (the
/// codec of the server and of the tests' clients).
///
/// Strict: an option the service does not know, given twice, or a list whose length is not
/// the number of coordinates is refused with OSRM's error code naming it.
package struct OSRMQuery: Hashable, Sendable {
  /// The services answered.
  package enum Service: String, Hashable, Sendable, CaseIterable {
    case route, table, nearest
  }

  /// How route geometries are written (`geometries`).
  package enum Geometries: String, Hashable, Sendable, CaseIterable {
    case polyline, polyline6, geojson
  }

  /// Which overview geometry a route carries (`overview`).
  package enum Overview: String, Hashable, Sendable, CaseIterable {
    case simplified, full, none = "false"
  }

  /// A `bearings` element: the direction of travel, degrees from north, and its tolerance.
  package struct Bearing: Hashable, Sendable {
    package var degrees: Int
    package var range: Int
  }

  /// The profiles served (both the car: OSRM's demo server names it `driving`, its
  /// `car.lua` profile `car`).
  package static let profiles: Set<String> = ["car", "driving"]
  /// The most alternatives a route may ask for (as `osrm-routed --max-alternatives`).
  package static let maximumAlternatives = 3
  /// The most coordinates of a route (`osrm-routed --max-viaroute-size`'s default, and
  /// this engine's route limit; a server may allow fewer).
  package static let maximumRouteCoordinates = RoutingEngine.maximumWaypoints
  /// The most coordinates a nearest request may name, and results per coordinate (as
  /// `osrm-routed --max-nearest-locations` and `--max-nearest-size`).
  package static let maximumNearestCoordinates = 10
  package static let maximumNearestResults = 100

  package var service: Service
  package var profile = "driving"
  package var coordinates: [GeoCoordinates] = []
  // The options of every service.
  package var bearings: [Bearing?]?
  /// Meters around each coordinate within which its road must lie; `nil`: unlimited.
  package var radiuses: [Double?]?
  package var hints: [String]?
  package var generateHints = true
  package var approaches: [String?]?
  package var snapping: String?
  package var skipWaypoints = false
  /// The road classes never driven nor snapped to (`exclude=`): one of
  /// ``excludableSets``.
  package var exclude: Set<RoadFeature> = []
  // Route.
  package var alternatives = 0
  package var steps = false
  /// The annotations asked for, as named (`duration`, `distance`, `speed`, `weight`, ... for
  /// routes; `duration`, `distance` for tables), in OSRM's order.
  package var annotations: [String] = []
  package var geometries = Geometries.polyline
  package var overview = Overview.simplified
  package var continueStraight: Bool?
  /// The coordinates that end legs (`waypoints`); `nil`: all of them.
  package var waypoints: [Int]?
  // Table.
  package var sources: [Int]?
  package var destinations: [Int]?
  package var fallbackSpeed: Double?
  package var fallbackCoordinateSnapped = false
  package var scaleFactor = 1.0
  // Nearest.
  package var number = 1

  package init(service: Service, coordinates: [GeoCoordinates]) {
    self.service = service
    self.coordinates = coordinates
    if service == .table { annotations = ["duration"] }
  }

  /// The approaches of a waypoint: from either side of the road, with the place on the
  /// curb side (right-hand traffic: on the right), or on the opposite side.
  package static let approachNames: Set<String> = ["unrestricted", "curb", "opposite"]

  /// The annotations of a route, in the order OSRM writes them.
  package static let routeAnnotations = [
    "duration", "distance", "speed", "weight", "nodes", "datasources",
  ]
  /// The sets of classes `exclude=` may name: those of OSRM's stock car profile
  /// (`excludable`: toll, motorway, ferry, each alone). Any other set, or a class it does not
  /// know, is refused as osrm-routed refuses it (`InvalidValue`, ``excludeUnsupported``).
  package static let excludableSets: [Set<RoadFeature>] = [[.toll], [.motorway], [.ferry]]
  /// osrm-routed's message for an exclude it cannot honour.
  package static let excludeUnsupported = "Exclude flag combination is not supported."

  /// The annotations of a table.
  package static let tableAnnotations = ["duration", "distance"]

  /// Reads a request.
  /// - Parameters:
  ///   - path: The path after `/{service}/v1/`: `{profile}/{coordinates}[.json]`, still
  ///     percent-encoded.
  ///   - parameters: The query's options, decoded, in order (without the server's own, such
  ///     as `apiKey`).
  package init(
    service: Service, path: Substring, parameters: [(String, String)]
  ) throws(OSRMFailure) {
    self.init(service: service, coordinates: [])
    guard let slash = path.firstIndex(of: "/") else {
      throw .query(
        "the path needs a profile and coordinates: /\(service)/v1/{profile}/{coordinates}")
    }
    profile = Self.percentDecoded(path[..<slash])
    guard Self.profiles.contains(profile) else {
      throw .value(
        "profile \(Self.excerpt(profile)) is not served: use car or driving (the live car traffic)")
    }
    var text = Self.percentDecoded(path[path.index(after: slash)...])
    if text.hasSuffix(".json") { text.removeLast(5) }
    coordinates = try Self.coordinates(text)
    var seen = Set<String>()
    // Where each option's value starts in the path and query (`/{service}/v1/` on), for
    // the place osrm-routed names in a query it cannot read.
    var position = "/\(service)/v1/".utf8.count + path.utf8.count + 1
    for (name, value) in parameters {
      guard seen.insert(name).inserted else {
        throw .query("option \(Self.excerpt(name)) is given twice")
      }
      do throws(OSRMFailure) {
        try read(name, value)
      } catch {
        guard error.code == "InvalidQuery" else { throw error }
        throw .query(
          "Query string malformed close to position \(position + name.utf8.count + 1): "
            + error.message)
      }
      position += name.utf8.count + value.utf8.count + 2
    }
    try validate()
  }

  private mutating func read(_ name: String, _ value: String) throws(OSRMFailure) {
    let count = coordinates.count
    switch (name, service) {
    case ("bearings", _):
      bearings = try Self.list(value, count: count, name: name) { element throws(OSRMFailure) in
        let parts = element.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let degrees = Int(parts[0]), let range = Int(parts[1]) else {
          throw .query("bearing \(Self.excerpt(element)) is not {degrees},{range}")
        }
        guard (0...360).contains(degrees), (0...180).contains(range) else {
          throw .options("bearing \(Self.excerpt(element)) must be {0...360},{0...180}")
        }
        return Bearing(degrees: degrees, range: range)
      }
    case ("radiuses", _):
      radiuses = try Self.list(value, count: count, name: name) { element throws(OSRMFailure) in
        if element == "unlimited" { return Double?.none }
        guard let radius = Self.number(element) else {
          throw .query("radius \(Self.excerpt(element)) is not a number or unlimited")
        }
        guard radius >= 0 else {
          throw .options("radius \(Self.excerpt(element)) must be a number >= 0 or unlimited")
        }
        return radius
      }.map { $0 ?? nil }
    case ("hints", _):
      hints = value.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
      guard hints?.count == count else {
        throw .options("hints has \(hints?.count ?? 0) elements for \(count) coordinates")
      }
    case ("generate_hints", _): generateHints = try Self.boolean(value, name: name)
    case ("approaches", _):
      approaches = try Self.list(value, count: count, name: name) { element throws(OSRMFailure) in
        guard Self.approachNames.contains(element) else {
          throw .query(
            "approach \(Self.excerpt(element)) is not one of unrestricted, curb, opposite")
        }
        return element
      }
    case ("snapping", _):
      guard value == "default" || value == "any" else {
        throw .query("snapping must be default or any, got \(Self.excerpt(value))")
      }
      snapping = value
    case ("skip_waypoints", _): skipWaypoints = try Self.boolean(value, name: name)
    case ("alternatives", .route):
      if let number = Int(value) {
        alternatives = number
      } else {
        alternatives = try Self.boolean(value, name: name) ? 1 : 0
      }
    case ("steps", .route): steps = try Self.boolean(value, name: name)
    case ("annotations", .route), ("annotations", .table):
      try readAnnotations(value)
    case ("geometries", .route):
      guard let parsed = Geometries(rawValue: value) else {
        throw .query(
          "geometries must be polyline, polyline6 or geojson, got \(Self.excerpt(value))")
      }
      geometries = parsed
    case ("overview", .route):
      guard let parsed = Overview(rawValue: value) else {
        throw .query("overview must be simplified, full or false, got \(Self.excerpt(value))")
      }
      overview = parsed
    case ("continue_straight", .route):
      continueStraight = value == "default" ? nil : try Self.boolean(value, name: name)
    case ("waypoints", .route):
      waypoints = try Self.indices(value, name: name, count: count)
    case ("sources", .table):
      sources = value == "all" ? nil : try Self.indices(value, name: name, count: count)
    case ("destinations", .table):
      destinations = value == "all" ? nil : try Self.indices(value, name: name, count: count)
    case ("fallback_speed", .table):
      guard let speed = Self.number(value) else {
        throw .query("fallback_speed must be a number, got \(Self.excerpt(value))")
      }
      guard speed > 0 else {
        throw .options("fallback_speed must be > 0, got \(Self.excerpt(value))")
      }
      fallbackSpeed = speed
    case ("fallback_coordinate", .table):
      guard value == "input" || value == "snapped" else {
        throw .query("fallback_coordinate must be input or snapped, got \(Self.excerpt(value))")
      }
      fallbackCoordinateSnapped = value == "snapped"
    case ("scale_factor", .table):
      guard let factor = Self.number(value) else {
        throw .query("scale_factor must be a number, got \(Self.excerpt(value))")
      }
      // Beyond a million, a day's drive scales past any duration a client can hold (OSRM's
      // are 32-bit deciseconds); a factor that overflowed would read as "no route".
      guard factor > 0, factor <= 1_000_000 else {
        throw .options("scale_factor must be > 0 and at most 1000000, got \(Self.excerpt(value))")
      }
      scaleFactor = factor
    case ("number", .nearest):
      guard let parsed = Int(value), parsed >= 0 else {
        throw .query("number must be a whole number, got \(Self.excerpt(value))")
      }
      guard parsed >= 1 else {
        throw .options("number must be a whole number >= 1, got \(Self.excerpt(value))")
      }
      number = parsed
    case ("exclude", _):
      // osrm-routed's grammar takes an empty list (nothing excluded).
      guard !value.isEmpty else { break }
      var classes = Set<RoadFeature>()
      for name in value.split(separator: ",", omittingEmptySubsequences: false) {
        guard let feature = RoadFeature(rawValue: String(name)) else {
          throw .value(Self.excludeUnsupported)
        }
        classes.insert(feature)
      }
      guard Self.excludableSets.contains(classes) else { throw .value(Self.excludeUnsupported) }
      exclude = classes
    default:
      throw .query("\(Self.excerpt(name)) is not an option of the \(service) service")
    }
  }

  private mutating func readAnnotations(_ value: String) throws(OSRMFailure) {
    let known = service == .route ? Self.routeAnnotations : Self.tableAnnotations
    if service == .route, value == "true" || value == "false" {
      annotations = value == "true" ? known : []
      return
    }
    var asked = Set<String>()
    for name in value.split(separator: ",", omittingEmptySubsequences: false) {
      guard known.contains(String(name)) else {
        throw .query(
          "annotation \(Self.excerpt(String(name))) is not one of \(known.joined(separator: ", "))"
            + (service == .route ? " (or true, false)" : ""))
      }
      asked.insert(String(name))
    }
    annotations = known.filter(asked.contains)
  }

  private func validate() throws(OSRMFailure) {
    switch service {
    case .route:
      guard coordinates.count >= 2 else {
        throw .options("Number of coordinates needs to be at least two.")
      }
      guard coordinates.count <= Self.maximumRouteCoordinates else {
        throw OSRMFailure(
          "TooBig",
          "Number of entries \(coordinates.count) is higher than current maximum "
            + "(\(Self.maximumRouteCoordinates))")
      }
      guard alternatives >= 0 else { throw .options("alternatives must be >= 0") }
      guard alternatives <= Self.maximumAlternatives else {
        throw OSRMFailure(
          "TooBig",
          "Requested number of alternatives is higher than current maximum (\(Self.maximumAlternatives))"
        )
      }
      if let waypoints {
        guard waypoints.first == 0, waypoints.last == coordinates.count - 1,
          zip(waypoints, waypoints.dropFirst()).allSatisfy({ $0 < $1 })
        else {
          throw .options(
            "waypoints must be ascending and name the first and the last coordinate")
        }
        guard waypoints.count == coordinates.count || alternatives == 0 else {
          throw .options("alternatives cannot be asked with waypoints that skip coordinates")
        }
      }
    case .table:
      guard !coordinates.isEmpty else { throw .options("a table needs coordinates") }
    case .nearest:
      guard coordinates.count <= Self.maximumNearestCoordinates else {
        throw OSRMFailure(
          "TooBig",
          "Number of coordinates \(coordinates.count) is higher than current maximum (\(Self.maximumNearestCoordinates))"
        )
      }
      guard number <= Self.maximumNearestResults else {
        throw OSRMFailure(
          "TooBig",
          "Number of results \(number) is higher than current maximum (\(Self.maximumNearestResults))"
        )
      }
    }
  }

  /// The coordinates of the path: `lng,lat;lng,lat...`, `polyline(...)` or `polyline6(...)`.
  private static func coordinates(_ text: String) throws(OSRMFailure) -> [GeoCoordinates] {
    for (prefix, precision) in [("polyline(", 5), ("polyline6(", 6)] where text.hasPrefix(prefix) {
      guard text.hasSuffix(")") else { throw .query("\(prefix)...) is not closed") }
      do {
        let points = try GooglePolyline.decode(
          String(text.dropFirst(prefix.count).dropLast()), precision: precision)
        guard !points.isEmpty else { throw OSRMFailure.query("the polyline has no coordinates") }
        return points
      } catch let failure as OSRMFailure {
        throw failure
      } catch {
        throw .query("the coordinates' polyline is malformed: \(error)")
      }
    }
    guard !text.isEmpty else { throw .query("no coordinates: give {longitude},{latitude};...") }
    var points: [GeoCoordinates] = []
    for (index, pair) in text.split(separator: ";", omittingEmptySubsequences: false).enumerated() {
      let parts = pair.split(separator: ",", omittingEmptySubsequences: false)
      guard parts.count == 2, let longitude = number(String(parts[0])),
        let latitude = number(String(parts[1]))
      else {
        throw .query(
          "coordinate \(index) \(excerpt(String(pair))) is not {longitude},{latitude}")
      }
      guard let point = try? GeoCoordinates(latitude: latitude, longitude: longitude) else {
        throw .value("Invalid coordinate value: coordinate \(index) \(excerpt(String(pair)))")
      }
      points.append(point)
    }
    return points
  }

  /// A plain decimal number (no `nan`, `inf`, hexadecimal or spaces), finite.
  static func number(_ text: String) -> Double? {
    guard !text.isEmpty, text.utf8.count <= 40,
      text.utf8.allSatisfy({
        ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 || $0 == 43 || $0 | 0x20 == 101
      }),
      let value = Double(text), value.isFinite
    else { return nil }
    return value
  }

  private static func boolean(_ text: String, name: String) throws(OSRMFailure) -> Bool {
    switch text {
    case "true": return true
    case "false": return false
    default: throw .query("\(name) must be true or false, got \(excerpt(text))")
    }
  }

  private static func indices(_ text: String, name: String, count: Int) throws(OSRMFailure) -> [Int]
  {
    var result: [Int] = []
    for element in text.split(separator: ";", omittingEmptySubsequences: false) {
      guard let index = Int(element), index >= 0 else {
        throw .query("\(name) element \(excerpt(String(element))) is not an index")
      }
      guard index < count else {
        throw .options("\(name) index \(index) is beyond the \(count) coordinates")
      }
      result.append(index)
    }
    return result
  }

  /// A per-coordinate list: `;`-separated, an empty element for none, exactly one element
  /// per coordinate.
  private static func list<T>(
    _ text: String, count: Int, name: String, _ parse: (String) throws(OSRMFailure) -> T
  ) throws(OSRMFailure) -> [T?] {
    let elements = text.split(separator: ";", omittingEmptySubsequences: false)
    guard elements.count == count else {
      throw .options("\(name) has \(elements.count) elements for \(count) coordinates")
    }
    var result: [T?] = []
    for element in elements {
      result.append(element.isEmpty ? nil : try parse(String(element)))
    }
    return result
  }

  static func percentDecoded(_ text: Substring) -> String {
    guard text.contains("%") else { return String(text) }
    return String(text).removingPercentEncoding ?? String(text)
  }

  static func excerpt(_ text: String) -> String {
    let short = text.count > 40 ? String(text.prefix(40)) + "…" : text
    return "\"" + short + "\""
  }
}
