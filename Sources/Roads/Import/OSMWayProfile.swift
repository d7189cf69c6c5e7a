/// What a kept OpenStreetMap way contributes to the network: its class, names, and the
/// properties of each direction that is open to traffic.
struct OSMWayAttributes: Hashable, Sendable {
  var roadClass: RoadClass
  var name: String?
  var ref: String?
  /// Whether traffic may drive in the way's drawing direction.
  var forward: Bool
  /// Whether traffic may drive against the way's drawing direction.
  var backward: Bool
  var forwardSpeed: SpeedLimit
  var backwardSpeed: SpeedLimit
  var forwardLanes: Int?
  var backwardLanes: Int?
  /// `junction=roundabout` or `circular`.
  var isRoundabout = false
  /// A toll is paid driving in the drawing direction / against it.
  var forwardToll = false
  var backwardToll = false
}

/// Which OpenStreetMap ways are roads for motor traffic, and how their tags read.
///
/// Rules (OpenStreetMap wiki: Key:highway, Key:oneway, Key:access, Key:maxspeed):
/// - `highway` must be a ``RoadClass``: motorway, trunk, primary, secondary, tertiary, their
///   `_link`s, unclassified, residential, living_street, service, road. `track`, `pedestrian`
///   and `busway` are kept only when `motorcar`, `motor_vehicle` or `vehicle` explicitly
///   allow motor traffic. Footways, cycleways, paths, steps, construction and proposed
///   roads are not road classes and are dropped.
/// - `area=yes` drops the way (a square, not a road).
/// - Access: the most specific of `motorcar`, `motor_vehicle`, `vehicle`, `access` decides;
///   `no`, `private`, `agricultural`, `forestry`, `emergency`, `psv`, `bus` drop the way.
/// - Oneway: `yes`/`true`/`1` forward only, `-1`/`reverse` backward only, `no`/`false`/`0`
///   both ways; without the tag, `highway=motorway` and `junction=roundabout|circular` are
///   one-way, everything else two-way. `reversible` and `alternating` ways (direction changes
///   with time) are dropped, as routers do.
/// - Speed per direction: `maxspeed:forward`/`maxspeed:backward`, else `maxspeed`, else a
///   category in `maxspeed:type`, `source:maxspeed` or `zone:maxspeed` (`DE:urban`), else the
///   road-class default for the country.
/// - Lanes per direction: `lanes:forward`/`lanes:backward`, else `lanes` on a one-way road,
///   else half of `lanes` on a two-way road.
/// - Toll per direction (OSRM's car profile, its `toll` class): `toll:forward` /
///   `toll:backward`, else `toll`; exactly `yes` is a toll road.
enum OSMWayProfile {
  static let deniedAccess: Set<String> = [
    "no", "private", "agricultural", "forestry", "emergency", "psv", "bus", "agricultural;forestry",
  ]
  static let grantedAccess: Set<String> = [
    "yes", "designated", "destination", "permissive", "delivery", "customers",
  ]
  static let excludedServices: Set<String> = [
    "parking_aisle", "driveway", "drive-through", "emergency_access",
  ]

  /// The attributes of a way, or `nil` when it is not a road for motor traffic.
  static func attributes(
    _ tags: [String: String], options: OSMImportOptions
  ) -> OSMWayAttributes? {
    guard let highway = tags["highway"], let roadClass = RoadClass(highway: highway) else {
      return nil
    }
    if tags["area"] == "yes" { return nil }
    if roadClass == .service {
      guard options.includesServiceRoads else { return nil }
      if let kind = tags["service"], excludedServices.contains(kind) { return nil }
    }
    let access = tags["motorcar"] ?? tags["motor_vehicle"] ?? tags["vehicle"] ?? tags["access"]
    switch roadClass {
    case .track, .pedestrian, .busway:
      let motor = tags["motorcar"] ?? tags["motor_vehicle"] ?? tags["vehicle"]
      guard let motor, grantedAccess.contains(motor) else { return nil }
    default:
      if let access, deniedAccess.contains(access) { return nil }
    }

    var forward = true
    var backward = true
    switch tags["oneway"] {
    case "yes", "true", "1": backward = false
    case "-1", "reverse": forward = false
    case "no", "false", "0": break
    case "reversible", "alternating": return nil
    default:
      let junction = tags["junction"]
      if roadClass.impliesOneway || junction == "roundabout" || junction == "circular" {
        backward = false
      }
    }

    let country = options.countryCode
    let category = [tags["maxspeed:type"], tags["source:maxspeed"], tags["zone:maxspeed"]]
      .lazy.compactMap { $0 }.compactMap { SpeedLimit.parse(maxspeed: $0, countryCode: country) }
      .first
    let general =
      tags["maxspeed"].flatMap { SpeedLimit.parse(maxspeed: $0, countryCode: country) }
      ?? category ?? SpeedLimit.defaultSpeed(for: roadClass, countryCode: country)
    let forwardSpeed =
      tags["maxspeed:forward"].flatMap { SpeedLimit.parse(maxspeed: $0, countryCode: country) }
      ?? general
    let backwardSpeed =
      tags["maxspeed:backward"].flatMap { SpeedLimit.parse(maxspeed: $0, countryCode: country) }
      ?? general

    let lanes = tags["lanes"].flatMap(positiveInt)
    var forwardLanes = tags["lanes:forward"].flatMap(positiveInt)
    var backwardLanes = tags["lanes:backward"].flatMap(positiveInt)
    if forward != backward {
      if forward {
        forwardLanes = forwardLanes ?? lanes
      } else {
        backwardLanes = backwardLanes ?? lanes
      }
    } else if let lanes, lanes >= 2 {
      forwardLanes = forwardLanes ?? lanes / 2
      backwardLanes = backwardLanes ?? lanes / 2
    }

    return OSMWayAttributes(
      roadClass: roadClass, name: tags["name"], ref: tags["ref"], forward: forward,
      backward: backward, forwardSpeed: forwardSpeed, backwardSpeed: backwardSpeed,
      forwardLanes: forward ? forwardLanes : nil, backwardLanes: backward ? backwardLanes : nil,
      isRoundabout: tags["junction"] == "roundabout" || tags["junction"] == "circular",
      forwardToll: (tags["toll:forward"] ?? tags["toll"]) == "yes",
      backwardToll: (tags["toll:backward"] ?? tags["toll"]) == "yes")
  }

  static func positiveInt(_ text: String) -> Int? {
    guard let value = Int(text.trimmingWhitespace()), value > 0, value < 100 else { return nil }
    return value
  }
}
