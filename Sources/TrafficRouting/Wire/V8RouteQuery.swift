import Codec
import Foundation
import Geo
import Roads

/// The query of HERE Routing API v8's `GET /v8/routes`, written and read in one place: the
/// remote engine writes it (``parameters()``), the server reads it
/// (``init(parameters:)``), and what one writes the other reads back the same.
///
/// | parameter | value |
/// |---|---|
/// | `transportMode` | `car` (required; the only mode) |
/// | `origin`, `destination` | `LAT,LNG` with `;course=DEGREES` (required) |
/// | `via` | `LAT,LNG` with `;course=`, `!stopDuration=SECONDS`, `!passThrough=true`; at most 23 |
/// | `routingMode` | `fast`, `short` |
/// | `departureTime` | RFC 3339 (without an offset: local time at the origin), or `any`: planning mode (long-term closures only) |
/// | `arrivalTime` | RFC 3339 (without an offset: local time at the destination); not with `departureTime` |
/// | `traffic[mode]` | `default`, `disabled` (no traffic data, closures neither) |
/// | `alternatives` | 0 ... ``RouteOptions/maximumAlternatives`` |
/// | `avoid[features]` | comma-separated ``RoadFeature/hereName``s: `controlledAccessHighway`, `tollRoad`, `ferry` |
/// | `return`, `spans` | comma-separated names of ``V8RouteWire/Return`` and ``V8RouteWire/SpanAttributes`` |
/// | `lang` | the language of instructions and incident texts |
/// | `units`, `apiKey` | accepted and ignored (the server authenticates the key before) |
public struct V8RouteQuery: Hashable, Sendable {
  /// Where the route starts (its heading, if any; no stop).
  public var origin: Waypoint
  /// Where it ends.
  public var destination: Waypoint
  /// The via points with their options, in order.
  public var via: [Waypoint]
  /// The routing and traffic options.
  public var options: RouteOptions
  /// What the answer holds (`return`).
  public var returning: V8RouteWire.Return
  /// The attributes of the answer's spans (`spans`).
  public var spans: V8RouteWire.SpanAttributes
  /// The language of the instructions and incident texts (`lang`).
  public var language: String?

  /// A query; by default a summary of the fastest route, without spans.
  public init(
    origin: Waypoint, destination: Waypoint, via: [Waypoint] = [],
    options: RouteOptions = RouteOptions(), returning: V8RouteWire.Return = [.summary],
    spans: V8RouteWire.SpanAttributes = [], language: String? = nil
  ) {
    self.origin = origin
    self.destination = destination
    self.via = via
    self.options = options
    self.returning = returning
    self.spans = spans
    self.language = language
  }

  /// Why a query cannot be read: v8's "Malformed request", its cause naming the parameter.
  public struct Malformed: Error, Hashable, Sendable, CustomStringConvertible {
    /// The cause, naming the parameter and what is accepted.
    public var description: String

    init(_ description: String) { self.description = description }
  }

  /// The parameters the endpoint knows; any other is refused by name.
  public static let known: Set<String> = [
    "transportMode", "origin", "destination", "via", "departureTime", "alternatives", "return",
    "spans", "apiKey", "routingMode", "lang", "units", "traffic[mode]", "arrivalTime",
    "avoid[features]",
  ]

  /// The most via points one query may have.
  public static let maximumVia = 23

  // MARK: Writing

  /// The query's parameters, in order (`via` repeated).
  ///
  /// - Throws: ``RoutingError/invalidOption(_:)`` for a via point's bad option, or options
  ///   v8 cannot say: an arrival time with a departure time or in planning mode, a
  ///   departure time in planning mode, closures avoided without traffic.
  public func parameters() throws(RoutingError) -> [(String, String)] {
    var parameters = [
      ("transportMode", "car"), ("origin", V8RouteWire.placeText(origin)),
      ("destination", V8RouteWire.placeText(destination)),
      ("return", Self.names(of: returning, in: V8RouteWire.Return.names)),
    ]
    if !spans.isEmpty {
      parameters.append(("spans", Self.names(of: spans, in: V8RouteWire.SpanAttributes.names)))
    }
    parameters.append(("alternatives", String(options.alternatives)))
    parameters.append(("routingMode", options.routingMode.rawValue))
    for (k, point) in via.enumerated() {
      try point.validate(index: k)
      var text = V8RouteWire.placeText(point)
      if point.stopDurationInSeconds > 0 {
        text += "!stopDuration=\(Int(point.stopDurationInSeconds.rounded()))"
      }
      if point.isPassThrough { text += "!passThrough=true" }
      parameters.append(("via", text))
    }
    // The traffic modes as v8 says them: planning mode is `departureTime=any`, no traffic
    // at all `traffic[mode]=disabled`; v8 has no time for the one nor closures for the other.
    if let arrival = options.arrivalTime {
      guard options.departureTime == nil, options.trafficOptimization != .longTermClosuresOnly
      else {
        throw .invalidOption(
          "a routing server takes an arrival time without a departure time, and not in"
            + " planning mode (longTermClosuresOnly)")
      }
      parameters.append(("arrivalTime", RFC3339.format(arrival)))
    }
    switch options.trafficOptimization {
    case .timeDependent:
      if let departure = options.departureTime {
        parameters.append(("departureTime", RFC3339.format(departure)))
      }
    case .longTermClosuresOnly:
      guard options.departureTime == nil else {
        throw .invalidOption(
          "a routing server takes longTermClosuresOnly as departureTime=any, without a departure time"
        )
      }
      parameters.append(("departureTime", "any"))
    case .disabled:
      guard !options.avoidsClosures else {
        throw .invalidOption(
          "a routing server takes disabled as traffic[mode]=disabled, which ignores closures:"
            + " set avoidsClosures to false, or use longTermClosuresOnly")
      }
      if let departure = options.departureTime {
        parameters.append(("departureTime", RFC3339.format(departure)))
      }
      parameters.append(("traffic[mode]", "disabled"))
    }
    if !options.avoidedFeatures.isEmpty {
      parameters.append(
        ("avoid[features]", options.avoidedFeatures.sorted().map(\.hereName).joined(separator: ","))
      )
    }
    if let language { parameters.append(("lang", language)) }
    return parameters
  }

  private static func names<Flags: OptionSet>(
    of flags: Flags, in names: [(String, Flags)]
  ) -> String where Flags.Element == Flags {
    names.filter { flags.contains($0.1) }.map(\.0).joined(separator: ",")
  }

  // MARK: Reading

  /// Reads a query from its parameters (names and values percent-decoded, in order).
  ///
  /// - Throws: ``Malformed`` naming the first bad parameter: an unknown one, one given
  ///   twice, a required one missing, a value out of range.
  public init(parameters: [(name: String, value: String)]) throws(Malformed) {
    for pair in parameters where !Self.known.contains(pair.name) {
      throw Malformed("unknown parameter \(pair.name)")
    }
    func single(_ name: String) throws(Malformed) -> String? {
      let values = parameters.filter { $0.name == name }
      guard values.count <= 1 else {
        throw Malformed("\(name) is given more than once; give it once")
      }
      return values.first?.value
    }
    guard let mode = try single("transportMode") else {
      throw Malformed("transportMode is required (car)")
    }
    guard mode == "car" else {
      throw Malformed("transportMode \(mode) is not supported; this service routes cars")
    }
    var options = RouteOptions()
    if let text = try single("routingMode") {
      guard let mode = RouteOptions.RoutingMode(rawValue: text) else {
        throw Malformed("routingMode \(text) is not supported; give fast or short")
      }
      options.routingMode = mode
    }
    guard let originText = try single("origin") else {
      throw Malformed("origin is required (LAT,LNG)")
    }
    guard let destinationText = try single("destination") else {
      throw Malformed("destination is required (LAT,LNG)")
    }
    let vias = parameters.filter { $0.name == "via" }.map(\.value)
    guard vias.count <= Self.maximumVia else {
      throw Malformed("at most \(Self.maximumVia) via points, got \(vias.count)")
    }
    var via: [Waypoint] = []
    for (k, text) in vias.enumerated() {
      do { via.append(try V8RouteWire.waypoint(text, index: k)) } catch {
        throw Malformed(error.description)
      }
    }
    let origin: Waypoint
    let destination: Waypoint
    do {
      origin = try V8RouteWire.placeWithOptions(originText, name: "origin")
      destination = try V8RouteWire.placeWithOptions(destinationText, name: "destination")
    } catch {
      throw Malformed(error.description)
    }
    // `any` is v8's planning mode: no traffic flow nor anything time-dependent, only the
    // long-term closures (the times of the answer then count from now).
    if let time = try single("departureTime") {
      if time == "any" {
        options.trafficOptimization = .longTermClosuresOnly
      } else {
        guard let date = RFC3339.parse(time) else {
          throw Malformed("departureTime \(time) is not an RFC 3339 time or any")
        }
        // Without an offset, HERE reads the time as local time at the origin.
        options.departureTime =
          RFC3339.hasOffset(time)
          ? date : PlaceTimeZone.instant(ofLocalTime: date, at: origin.coordinates)
      }
    }
    if let time = try single("arrivalTime") {
      guard let date = RFC3339.parse(time) else {
        throw Malformed("arrivalTime \(time) is not an RFC 3339 time")
      }
      // Without an offset: local time at the destination.
      let arrival =
        RFC3339.hasOffset(time)
        ? date : PlaceTimeZone.instant(ofLocalTime: date, at: destination.coordinates)
      guard try single("departureTime") == nil else {
        throw Malformed("give departureTime or arrivalTime, not both")
      }
      options.arrivalTime = arrival
    }
    let language = try single("lang")
    // `disabled`: no traffic data at all, long-term closures included.
    switch try single("traffic[mode]") {
    case nil, "default": break
    case "disabled":
      options.trafficOptimization = .disabled
      options.avoidsClosures = false
    case let mode?:
      throw Malformed("traffic[mode] \(mode) is not supported; give default or disabled")
    }
    if let text = try single("alternatives") {
      guard let count = Int(text), (0...RouteOptions.maximumAlternatives).contains(count) else {
        throw Malformed("alternatives must be 0...\(RouteOptions.maximumAlternatives), got \(text)")
      }
      options.alternatives = count
    }
    if let text = try single("avoid[features]") {
      options.avoidedFeatures = try Self.avoidedFeatures(text, parameter: "avoid[features]")
    }
    var returning: V8RouteWire.Return = [.summary]
    if let text = try single("return") {
      returning = try Self.flags(text, "return", V8RouteWire.Return.names)
      if returning.contains(.instructions), !returning.contains(.actions) {
        throw Malformed("return instructions needs actions (return=actions,instructions)")
      }
    }
    var spans: V8RouteWire.SpanAttributes = []
    if let text = try single("spans") {
      spans = try Self.flags(text, "spans", V8RouteWire.SpanAttributes.names)
    }
    self.init(
      origin: origin, destination: destination, via: via, options: options,
      returning: returning, spans: spans, language: language)
  }

  /// The features of a comma-separated list of HERE's `avoid[features]` names (an empty one:
  /// none).
  ///
  /// - Throws: ``Malformed`` naming a feature this service cannot avoid and the ones it can.
  static func avoidedFeatures(
    _ text: String, parameter: String
  ) throws(Malformed) -> Set<
    RoadFeature
  > {
    var features = Set<RoadFeature>()
    for name in text.split(separator: ",") {
      guard let feature = RoadFeature(hereName: String(name)) else {
        throw Malformed(
          "\(parameter) \(name) is not supported; give "
            + RoadFeature.allCases.map(\.hereName).joined(separator: ", "))
      }
      features.insert(feature)
    }
    return features
  }

  private static func flags<Flags: OptionSet>(
    _ text: String, _ parameter: String, _ names: [(String, Flags)]
  ) throws(Malformed) -> Flags where Flags.Element == Flags {
    var flags: Flags = []
    for name in text.split(separator: ",", omittingEmptySubsequences: false) {
      guard let flag = names.first(where: { $0.0 == name })?.1 else {
        throw Malformed(
          "\(parameter) \(name) is not supported; give \(names.map(\.0).joined(separator: ", "))")
      }
      flags.insert(flag)
    }
    return flags
  }
}
