import Codec
import Foundation
import Geo
import Roads

/// HERE Matrix Routing API v8 (`POST /v8/matrix?async=false`), written and read in one
/// place: the remote engine writes the request and reads the answer, the server reads the
/// request and writes the answer, and what one side writes the other reads back the same.
///
/// The request body (strict: any other member is refused by name):
///
/// | member | value |
/// |---|---|
/// | `origins` | `[{"lat", "lng"}]`, at least one (required) |
/// | `destinations` | the same; absent: the origins |
/// | `regionDefinition` | `{"type": "world"}`, `circle` (`center`, `radius`), `boundingBox` (`north`, `south`, `west`, `east`), `autoCircle` (`margin`, `maxRadius`) (required) |
/// | `departureTime` | RFC 3339 (without an offset: local time at the first origin), or `any`: planning mode (long-term closures only) |
/// | `matrixAttributes` | `travelTimes`, `distances` (default `travelTimes`) |
/// | `transportMode` | `car` (the default; the only mode) |
/// | `routingMode` | `fast` (the default; matrices are of the fastest routes) |
public enum V8MatrixWire {
  /// Where the origins and destinations must lie (`regionDefinition`).
  public enum Region: Hashable, Sendable {
    /// Anywhere.
    case world
    /// Within `radiusInMeters` of `center`.
    case circle(center: GeoCoordinates, radiusInMeters: Double)
    /// Within a box; `west` > `east` crosses the antimeridian.
    case boundingBox(north: Double, south: Double, west: Double, east: Double)
    /// The circle around every origin and destination (its radius at most
    /// `maxRadiusInMeters`), widened by `marginInMeters` (default
    /// ``defaultMarginInMeters``).
    case autoCircle(marginInMeters: Double?, maxRadiusInMeters: Double?)

    /// The margin of an `autoCircle` without one.
    public static let defaultMarginInMeters = 10_000.0

    /// The types v8 knows that this service does not serve.
    static let unsupportedTypes: Set<String> = ["polygon", "corridor"]
  }

  /// What the matrix holds (`matrixAttributes`).
  public struct Attributes: OptionSet, Hashable, Sendable {
    /// The bits of the set.
    public let rawValue: Int
    /// A set of its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `travelTimes`: seconds.
    public static let travelTimes = Attributes(rawValue: 1)
    /// `distances`: meters.
    public static let distances = Attributes(rawValue: 2)

    /// The v8 names.
    public static let names: [(String, Attributes)] = [
      ("travelTimes", .travelTimes), ("distances", .distances),
    ]
  }

  /// The error code of a cell (`errorCodes`).
  public enum CellError: Int, Hashable, Sendable {
    /// A route was found.
    case none = 0
    /// No route leads from the origin to the destination (HERE: "no route between the
    /// origin and destination exists"; 3 is a route that violates options).
    case noRoute = 1
    /// The origin or the destination could not be matched to a road (HERE: "no valid
    /// starting or ending point").
    case unmatched = 2
    /// The origin or the destination lies outside the region.
    case outsideRegion = 4
  }

  /// The body of a matrix request.
  public struct Request: Hashable, Sendable {
    /// The origins, in order (the rows).
    public var origins: [GeoCoordinates]
    /// The destinations (the columns); `nil`: the origins.
    public var destinations: [GeoCoordinates]?
    /// Where the waypoints must lie.
    public var region: Region
    /// The departure (`departureTime`, or planning mode as `longTermClosuresOnly`).
    public var options: RouteOptions
    /// What the matrix holds.
    public var attributes: Attributes

    /// A request; by default of the travel times anywhere, leaving now.
    public init(
      origins: [GeoCoordinates], destinations: [GeoCoordinates]? = nil,
      region: Region = .world, options: RouteOptions = RouteOptions(),
      attributes: Attributes = .travelTimes
    ) {
      self.origins = origins
      self.destinations = destinations
      self.region = region
      self.options = options
      self.attributes = attributes
    }

    /// The destinations as routed: the origins when none are given.
    public var columns: [GeoCoordinates] { destinations ?? origins }

    /// The members of a request body.
    public static let known: [String] = [
      "origins", "destinations", "regionDefinition", "departureTime", "matrixAttributes",
      "transportMode", "routingMode", "avoid",
    ]
  }

  /// Why a request or an answer cannot be read; its description names the member.
  public typealias Malformed = V8RouteQuery.Malformed
}

// MARK: Writing the request

extension V8MatrixWire.Request {
  /// The JSON body.
  ///
  /// - Throws: ``RoutingError/invalidOption(_:)`` for options the matrix API cannot say:
  ///   no traffic at all (`disabled`), the shortest routes, alternatives, an arrival time,
  ///   a departure time in planning mode, attributes none.
  public func encoded() throws(RoutingError) -> Data {
    guard options.routingMode == .fast, options.alternatives == 0, options.arrivalTime == nil
    else {
      throw .invalidOption(
        "a matrix is of the fastest routes from a departure time: no alternatives, arrival "
          + "time or shortest routes")
    }
    guard !attributes.isEmpty else {
      throw .invalidOption("a matrix request asks for travelTimes, distances or both")
    }
    var w = JSONWriter(capacity: 64 + 40 * (origins.count + (destinations?.count ?? 0)))
    w.beginObject()
    w.key("origins")
    V8MatrixWire.write(origins, to: &w)
    if let destinations {
      w.key("destinations")
      V8MatrixWire.write(destinations, to: &w)
    }
    w.key("regionDefinition")
    V8MatrixWire.write(region, to: &w)
    switch options.trafficOptimization {
    case .timeDependent:
      if let departure = options.departureTime { w.member("departureTime", departure) }
    case .longTermClosuresOnly:
      guard options.departureTime == nil else {
        throw .invalidOption(
          "a matrix server takes longTermClosuresOnly as departureTime=any, without a "
            + "departure time")
      }
      w.member("departureTime", "any")
    case .disabled:
      throw .invalidOption(
        "a matrix server cannot leave out traffic and closures (disabled); use "
          + "longTermClosuresOnly (departureTime=any)")
    }
    if !options.avoidedFeatures.isEmpty {
      w.key("avoid")
      w.beginObject()
      w.key("features")
      w.beginArray()
      for feature in options.avoidedFeatures.sorted() { w.string(feature.hereName) }
      w.endArray()
      w.endObject()
    }
    w.key("matrixAttributes")
    w.beginArray()
    for (name, flag) in V8MatrixWire.Attributes.names where attributes.contains(flag) {
      w.string(name)
    }
    w.endArray()
    w.member("transportMode", "car")
    w.endObject()
    return Data(w.bytes)
  }
}

extension V8MatrixWire {
  static func write(_ points: [GeoCoordinates], to w: inout JSONWriter) {
    w.beginArray()
    for point in points { write(point, to: &w) }
    w.endArray()
  }

  static func write(_ point: GeoCoordinates, to w: inout JSONWriter) {
    w.beginObject()
    w.key("lat")
    w.number(point.latitude)
    w.key("lng")
    w.number(point.longitude)
    w.endObject()
  }

  static func write(_ region: Region, to w: inout JSONWriter) {
    w.beginObject()
    switch region {
    case .world:
      w.member("type", "world")
    case .circle(let center, let radius):
      w.member("type", "circle")
      w.key("center")
      write(center, to: &w)
      w.key("radius")
      w.number(radius)
    case .boundingBox(let north, let south, let west, let east):
      w.member("type", "boundingBox")
      w.key("north")
      w.number(north)
      w.key("south")
      w.number(south)
      w.key("west")
      w.number(west)
      w.key("east")
      w.number(east)
    case .autoCircle(let margin, let maxRadius):
      w.member("type", "autoCircle")
      if let margin {
        w.key("margin")
        w.number(margin)
      }
      if let maxRadius {
        w.key("maxRadius")
        w.number(maxRadius)
      }
    }
    w.endObject()
  }
}

// MARK: Reading the request

extension V8MatrixWire.Request {
  /// Reads a request body.
  ///
  /// - Throws: ``V8MatrixWire/Malformed`` naming the first bad member: not JSON, not an
  ///   object, an unknown member, a required one missing, a value of the wrong type or out
  ///   of range, a region type or mode this service does not serve.
  public init(json data: Data) throws(V8MatrixWire.Malformed) {
    typealias Malformed = V8MatrixWire.Malformed
    let value: JSONValue
    do { value = try JSONParser.parse(data) } catch {
      throw Malformed("the body is not JSON: \(error)")
    }
    guard let body = value.object else {
      throw Malformed("the body must be a JSON object, not \(value.kindName)")
    }
    for name in body.keys.sorted() where !Self.known.contains(name) {
      throw Malformed(
        "unknown member \(name); a matrix request has "
          + Self.known.joined(separator: ", "))
    }
    if let mode = body["transportMode"] {
      guard let text = mode.string else {
        throw Malformed("transportMode must be a string (car), not \(mode.kindName)")
      }
      guard text == "car" else {
        throw Malformed("transportMode \(text) is not supported; this service routes cars")
      }
    }
    var options = RouteOptions()
    if let mode = body["routingMode"] {
      switch mode.string {
      case "fast": break
      case "short":
        throw Malformed(
          "routingMode short is not supported: matrices are of the fastest routes; give fast")
      case let text?: throw Malformed("routingMode \(text) is not supported; give fast")
      case nil: throw Malformed("routingMode must be a string (fast), not \(mode.kindName)")
      }
    }
    guard let originsValue = body["origins"] else {
      throw Malformed("origins is required: an array of {\"lat\", \"lng\"}")
    }
    let origins = try V8MatrixWire.points(originsValue, name: "origins")
    let destinations = try body["destinations"].map { value throws(Malformed) in
      try V8MatrixWire.points(value, name: "destinations")
    }
    guard let regionValue = body["regionDefinition"] else {
      throw Malformed(
        "regionDefinition is required: {\"type\": \"world\"}, circle, boundingBox or autoCircle")
    }
    let region = try V8MatrixWire.region(regionValue)
    if let time = body["departureTime"] {
      guard let text = time.string else {
        throw Malformed("departureTime must be a string, not \(time.kindName)")
      }
      if text == "any" {
        options.trafficOptimization = .longTermClosuresOnly
      } else {
        guard let date = RFC3339.parse(text) else {
          throw Malformed(
            "departureTime \(V8MatrixWire.excerpt(text)) is not an RFC 3339 time or any")
        }
        // Without an offset: local time at the first origin (HERE names no place for it).
        options.departureTime =
          RFC3339.hasOffset(text) || origins.isEmpty
          ? date : PlaceTimeZone.instant(ofLocalTime: date, at: origins[0])
      }
    }
    if let avoid = body["avoid"] {
      options.avoidedFeatures = try V8MatrixWire.avoidedFeatures(avoid)
    }
    var attributes = V8MatrixWire.Attributes.travelTimes
    if let value = body["matrixAttributes"] {
      guard let names = value.array, !names.isEmpty else {
        throw Malformed(
          "matrixAttributes must be a non-empty array of travelTimes, distances")
      }
      attributes = []
      for name in names {
        guard let text = name.string,
          let flag = V8MatrixWire.Attributes.names.first(where: { $0.0 == text })?.1
        else {
          throw Malformed(
            "matrixAttributes \(V8MatrixWire.excerpt(name)) is not supported; give "
              + "travelTimes, distances")
        }
        attributes.insert(flag)
      }
    }
    self.init(
      origins: origins, destinations: destinations, region: region, options: options,
      attributes: attributes)
  }
}

extension V8MatrixWire {
  /// The features of a body's `"avoid": {"features": [...]}` (HERE's names, as
  /// `avoid[features]` of routes).
  ///
  /// Without `features`, nothing is avoided.
  ///
  /// - Throws: ``Malformed`` for another member (`areas` is not supported), a feature this
  ///   service cannot avoid, or a value of the wrong type.
  static func avoidedFeatures(_ value: JSONValue) throws(Malformed) -> Set<RoadFeature> {
    guard let avoid = value.object else {
      throw Malformed("avoid must be an object {\"features\": [...]}, not \(value.kindName)")
    }
    for key in avoid.keys.sorted() where key != "features" {
      throw Malformed("avoid has an unsupported member \(key); give features")
    }
    // No features: nothing avoided.
    guard let features = avoid["features"] else { return [] }
    guard let names = features.array else {
      throw Malformed("avoid.features must be an array of feature names")
    }
    var text: [String] = []
    for name in names {
      guard let string = name.string else {
        throw Malformed("avoid.features \(excerpt(name)) is not a feature name")
      }
      text.append(string)
    }
    return try V8RouteQuery.avoidedFeatures(
      text.joined(separator: ","), parameter: "avoid.features")
  }

  /// A short quotation of a value for a message.
  static func excerpt(_ text: String) -> String {
    text.count > 40 ? "\"\(text.prefix(40))...\"" : "\"\(text)\""
  }

  static func excerpt(_ value: JSONValue) -> String {
    if let text = value.string { return excerpt(text) }
    return value.kindName
  }

  /// A non-empty array of `{"lat", "lng"}`.
  static func points(_ value: JSONValue, name: String) throws(Malformed) -> [GeoCoordinates] {
    guard let elements = value.array else {
      throw Malformed("\(name) must be an array of {\"lat\", \"lng\"}, not \(value.kindName)")
    }
    guard !elements.isEmpty else {
      throw Malformed("\(name) is empty; give at least one {\"lat\", \"lng\"}")
    }
    var points: [GeoCoordinates] = []
    points.reserveCapacity(elements.count)
    for (index, element) in elements.enumerated() {
      points.append(try point(element, name: "\(name)[\(index)]"))
    }
    return points
  }

  /// `{"lat", "lng"}` and nothing else.
  static func point(_ value: JSONValue, name: String) throws(Malformed) -> GeoCoordinates {
    guard let members = value.object else {
      throw Malformed("\(name) must be an object {\"lat\", \"lng\"}, not \(value.kindName)")
    }
    for key in members.keys.sorted() where key != "lat" && key != "lng" {
      throw Malformed("\(name) has an unknown member \(key); give lat and lng")
    }
    guard let lat = members["lat"]?.double, let lng = members["lng"]?.double else {
      throw Malformed("\(name) needs lat and lng as numbers")
    }
    do { return try GeoCoordinates(latitude: lat, longitude: lng) } catch {
      throw Malformed("\(name) (\(lat), \(lng)): \(error)")
    }
  }

  /// A `regionDefinition`.
  static func region(_ value: JSONValue) throws(Malformed) -> Region {
    guard let members = value.object else {
      throw Malformed("regionDefinition must be an object, not \(value.kindName)")
    }
    guard let type = members["type"]?.string else {
      throw Malformed(
        "regionDefinition needs a type: world, circle, boundingBox or autoCircle")
    }
    func only(_ names: Set<String>) throws(Malformed) {
      for key in members.keys.sorted() where key != "type" && !names.contains(key) {
        throw Malformed("regionDefinition \(type) has an unknown member \(key)")
      }
    }
    func number(_ name: String, in range: ClosedRange<Double>) throws(Malformed) -> Double? {
      guard let member = members[name] else { return nil }
      guard let number = member.double, range.contains(number) else {
        throw Malformed(
          "regionDefinition \(type) \(name) must be a number in \(range.lowerBound)..."
            + "\(range.upperBound)")
      }
      return number
    }
    func required(_ name: String, in range: ClosedRange<Double>) throws(Malformed) -> Double {
      guard let number = try number(name, in: range) else {
        throw Malformed("regionDefinition \(type) needs \(name)")
      }
      return number
    }
    let distances = 0.0...20_037_509
    switch type {
    case "world":
      try only([])
      return .world
    case "circle":
      try only(["center", "radius"])
      guard let center = members["center"] else {
        throw Malformed("regionDefinition circle needs center {\"lat\", \"lng\"}")
      }
      let point = try point(center, name: "regionDefinition center")
      let radius = try required("radius", in: distances)
      guard radius > 0 else { throw Malformed("regionDefinition circle radius must be > 0") }
      return .circle(center: point, radiusInMeters: radius)
    case "boundingBox":
      try only(["north", "south", "west", "east"])
      let north = try required("north", in: -90...90)
      let south = try required("south", in: -90...90)
      let west = try required("west", in: -180...180)
      let east = try required("east", in: -180...180)
      guard north > south else {
        throw Malformed("regionDefinition boundingBox north \(north) must be > south \(south)")
      }
      return .boundingBox(north: north, south: south, west: west, east: east)
    case "autoCircle":
      try only(["margin", "maxRadius"])
      let margin = try number("margin", in: distances)
      let maxRadius = try number("maxRadius", in: distances)
      return .autoCircle(marginInMeters: margin, maxRadiusInMeters: maxRadius)
    case let other where Region.unsupportedTypes.contains(other):
      throw Malformed(
        "regionDefinition type \(other) is not supported; give world, circle, boundingBox or "
          + "autoCircle")
    default:
      throw Malformed(
        "regionDefinition type \(excerpt(type)) is unknown; give world, circle, boundingBox or "
          + "autoCircle")
    }
  }
}
