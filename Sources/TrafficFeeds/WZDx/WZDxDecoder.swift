import Codec
import Foundation
import Traffic

/// Reads Work Zone Data Exchange (WZDx) 4.x work-zone feeds: a GeoJSON `FeatureCollection`
/// of road events (US DOT, WZDx specification v4.0–4.2, `WorkZoneFeed`).
///
/// Accepted variants: `feed_info` (4.1+) or `road_event_feed_info` (4.0); event properties
/// under `core_details` (4.x) or flat in `properties` (3.x style: `road_name`, `event_type`);
/// the feature id in `id` or `road_event_id`; any `feed_info.version` (Colorado's production
/// feed says "1.0"); missing optional members. Geometry: `LineString`, `MultiPoint` (start
/// and end), also `Point` and `MultiLineString`.
///
/// | WZDx `vehicle_impact` | type | impact | road closed |
/// |---|---|---|---|
/// | `all-lanes-closed` | `.roadClosure` | `.critical` | yes |
/// | `some-lanes-closed`, `-merge-left`, `-merge-right`, `-split`, `alternating-one-way`, `flagging`, `temporary-traffic-signal` | `.laneRestriction` | `.major` | no |
/// | the same, when `lanes` show no driving lane closed (only shoulders) | `.construction` | `.minor` | no |
/// | `all-lanes-open-shift-left`, `-shift-right`, `all-lanes-open-split` | `.construction` | `.minor` | no |
/// | `all-lanes-open` | `.construction` | `.low` | no |
/// | `unknown` or absent: from `lanes` (all driving lanes closed / some / none) | `.roadClosure` / `.laneRestriction` / `.construction` | `.critical` / `.major` / `.unknown` | when all closed |
/// | `event_type` `detour` | `.construction` | `.low` | no |
/// | `event_type` `restriction` (RoadRestrictionFeed) that closes no lane | `.other` (no event kind) | `.low` | no |
///
/// Features of a DeviceFeed (`core_details.device_type` and no `event_type`: arrow boards,
/// cameras, signs) are not road events and are passed over without a problem.
///
/// A detour's `parentId` is the work zone named by its `related_road_events` entry of type
/// `related-work-zone` (4.2) or `core_details.relationship.parents` (4.0/4.1).
///
/// Other fields: `originalId` is the feature id; `id` is `<id>_<update_date as Unix
/// seconds>` when `core_details.update_date` is given (each update is a new version), else
/// the feature id. `start_date`/`end_date` are the times (one without an offset, which
/// RFC 3339 does not allow, is local time where the work zone begins; an `event_status` of
/// `completed` or `cancelled` ends it at its `update_date`, else now), `creation_date` (else
/// `update_date`) the entry time. `road_names` fill the road number (when shaped like
/// `I-35`, `US 69`, `CO-3`) or name (`unknown`, which a publisher writes for want of one,
/// names none), 3.x `road_number` the number; cross streets the
/// junctions; `lanes` the closed and total driving lanes (shoulders, bike lanes, sidewalks,
/// parking, medians and turn lanes are not driving lanes; 3.x `total_num_lanes` the total
/// when there are no `lanes`) and which driving lanes are closed, by `order` from the left
/// (`TrafficIncidentDetails.closedLanes`); `description` is the source text (en-US unless
/// `options.defaultLanguage` says otherwise); country `US` unless `options.defaultCountryCode`.
/// `types_of_work` of maintenance kinds (`maintenance`, `minor-road-defect-repair`,
/// `roadside-work`, `painting`) give the event kind `.maintenanceWork`, others `.roadworks`.
///
/// Restrictions (feature-level `restrictions`, and those of open lanes), values converted to
/// the model's units (feet, inches, meters, centimeters; pounds, US tons, metric tons,
/// kilograms); when a limit is given twice the stricter wins:
///
/// | WZDx restriction | vehicle category | rule |
/// |---|---|---|
/// | `reduced-width` / `reduced-height` / `reduced-length` | `.all` | wider / higher / longer than |
/// | `reduced-weight`, `gross-weight-limit` | `.all` | gross weight more than |
/// | `axle-load-limit` | `.all` | axle weight more than |
/// | `no-trucks` | `.truck` | always |
/// | `towing-prohibited` | `.vehicleWithTrailer` | always |
/// | `permitted-oversize-loads-prohibited` | `.transportingAbnormalSizeLoad` | always |
/// | `hazmat-not-allowed` | `.transportingHazardousGoods` | always |
/// | `local-access-only` | `.all` | through traffic |
/// | `hov-2`, `hov-3` | `.car` | fewer than 2 / 3 occupants |
///
/// `no-passing`, `no-parking`, `travel-peak-hours-only`, `worker_presence` and
/// `reduced_speed_limit_kph` have no place in the incident model and are not kept.
public enum WZDxDecoder: FeedDecoder {
  /// `.wzdx`.
  public static let format = FeedFormat.wzdx
  /// The road name a WZDx publisher writes where it knows none (`road_names` must hold
  /// one), read as no name.
  package static let unknownRoadName = "unknown"

  /// Whether the text looks like a WZDx feed: a JSON object with `road_event_feed_info`,
  /// or with `feed_info` or `core_details` and `features`.
  ///
  /// - Complexity: O(n) byte search, no parsing.
  public static func recognizes(_ data: Data) -> Bool {
    guard JSONFeed.firstSignificantByte(data) == UInt8(ascii: "{") else { return false }
    if JSONFeed.contains(data, "\"road_event_feed_info\"") { return true }
    return JSONFeed.contains(data, "\"features\"")
      && (JSONFeed.contains(data, "\"core_details\"") || JSONFeed.contains(data, "\"feed_info\""))
  }

  /// Decodes a WZDx feed.
  ///
  /// - Parameters:
  ///   - data: UTF-8 GeoJSON text.
  ///   - options: Default language and country (else en-US and US).
  /// - Returns: One incident per road event; events that cannot be read are in `problems`
  ///   with their path (`features[3].geometry.coordinates[2][1]`).
  /// - Throws: `FeedError` when the text is not JSON or has no `features` array.
  /// - Complexity: O(n) in the size of `data`.
  public static func decode(
    _ input: FeedInput, options: FeedOptions
  ) throws(FeedError) -> FeedDocument {
    var document = FeedDocument(isFullRefresh: true)
    let context = Context(
      language: options.defaultLanguage ?? .enUS,
      countryCode: JSONFeed.countryCode(options.defaultCountryCode, fallback: "US"),
      now: options.now)
    // Features are parsed and become incidents on the other cores, a chunk at a time,
    // while the next ones are delimited; they are taken in the document's order.
    let root = try JSONFeed.readInParallel(
      input, format: format, streaming: ["features"],
      transform: { _, index, feature -> Result<TrafficIncident, FeedError>? in
        // Devices (arrow boards, cameras, ... of a WZDx DeviceFeed) are not road events.
        if isDevice(feature) { return nil }
        do throws(JSONFieldError) {
          return .success(try decodeFeature(feature, at: "features[\(index)]", context))
        } catch {
          let properties = feature["properties"]
          let id =
            feature["id"]?.identifier ?? properties?["road_event_id"]?.identifier
            ?? properties?["core_details"]?["road_event_id"]?.identifier
          return .failure(JSONFeed.error(error, format: format).skipping(id))
        }
      },
      take: { decoded in
        switch decoded {
        case .success(let incident)?: document.incidents.append(incident)
        case .failure(let problem)?: document.problems.append(problem)
        case nil: break
        }
      })
    guard root.object != nil else {
      throw FeedError(format: format, location: "$", reason: "expected a GeoJSON object")
    }
    guard root["features"]?.array != nil else {
      throw FeedError(
        format: format, location: "features",
        reason: "missing the \"features\" array of a WZDx FeatureCollection")
    }
    let feedInfo = root["feed_info"] ?? root["road_event_feed_info"]
    document.publicationTime = JSONFeed.text(feedInfo?["update_date"]).flatMap(
      FeedDates.parseISO8601)
    // The feed's own identity: the same document is one source however it arrives.
    if let publisher = JSONFeed.text(feedInfo?["publisher"])?
      .trimmingCharacters(in: .whitespacesAndNewlines), !publisher.isEmpty
    {
      document.publisher = "wzdx:" + String(publisher.prefix(100))
    }
    return document
  }

  /// Whether a feature is a field device of a DeviceFeed (its `core_details` name a
  /// `device_type`) rather than a road event.
  private static func isDevice(_ feature: JSONValue) -> Bool {
    let core = feature["properties"]?["core_details"]
    return core?["device_type"] != nil && core?["event_type"] == nil
  }

  private struct Context: Sendable {
    var language: LanguageCode
    var countryCode: String?
    var now: Date
  }

  private static func decodeFeature(
    _ feature: JSONValue, at path: String, _ context: Context
  ) throws(JSONFieldError) -> TrafficIncident {
    let properties = try feature.required("properties", at: path)
    let core = properties["core_details"] ?? properties
    guard
      let originalId = feature["id"]?.identifier ?? properties["road_event_id"]?.identifier
        ?? core["road_event_id"]?.identifier
    else {
      throw JSONFieldError(path: path, reason: "the road event has no \"id\"")
    }
    let recordPath = "\(path) (id \(originalId))"
    let polylines = try feature.required("geometry", at: recordPath).geoJSONPolylines(
      at: path + ".geometry")
    let propertiesPath = path + ".properties"
    // A time without an offset is local time where the work zone begins.
    let start = polylines.first?.vertices.first
    let startTime = try JSONFeed.date(
      properties["start_date"], at: propertiesPath + ".start_date", localAt: start)
    var endTime = try JSONFeed.date(
      properties["end_date"], at: propertiesPath + ".end_date", localAt: start)
    let corePath =
      properties["core_details"] == nil ? propertiesPath : propertiesPath + ".core_details"
    let updated = try JSONFeed.date(
      core["update_date"], at: corePath + ".update_date", localAt: start)
    let created = try JSONFeed.date(
      core["creation_date"], at: corePath + ".creation_date", localAt: start)
    // `event_status` (3.x, deprecated in 4.x but in its schema): a completed or cancelled
    // work zone has ended, when it was last updated.
    let status = JSONFeed.text(properties["event_status"] ?? core["event_status"])?.lowercased()
    if status == "completed" || status == "cancelled" {
      // (At its start when it was cancelled before it began.)
      let endedAt = max(min(updated ?? context.now, context.now), startTime ?? .distantPast)
      if endTime.map({ $0 > endedAt }) ?? true { endTime = endedAt }
    }
    let eventType = JSONFeed.text(core["event_type"])
    let isDetour = eventType == "detour"
    let isRestriction = eventType == "restriction"

    let lanes = LaneSummary(properties["lanes"]?.array ?? [])
    var (type, impact, isRoadClosed) = classify(
      vehicleImpact: JSONFeed.text(properties["vehicle_impact"]), lanes: lanes)
    var parentId: String?
    if isDetour {
      (type, impact, isRoadClosed) = (.construction, .low, false)
      parentId = relatedWorkZone(core)
    } else if isRestriction, type == .construction {
      // A RoadRestrictionFeed's restriction (a low bridge, a weight limit) is no work zone.
      (type, impact) = (.other, .low)
    }

    var roadNames = (core["road_names"]?.array ?? []).compactMap { JSONFeed.text($0) }
      .filter { $0.lowercased() != Self.unknownRoadName }
    if roadNames.isEmpty, let name = JSONFeed.text(core["road_name"]) { roadNames = [name] }
    // 2.x/3.x name the number apart (`road_number`).
    let roadNumber = JSONFeed.text(core["road_number"]) ?? roadNames.first(where: isRoadNumber)
    let roadName = roadNames.first(where: { !isRoadNumber($0) })
    let direction = JSONFeed.text(core["direction"])
    let place = ([roadNames.joined(separator: " / ")] + [direction].compactMap { $0 })
      .filter { !$0.isEmpty }.joined(separator: " ")

    var restrictions = RestrictionBuilder()
    for item in properties["restrictions"]?.array ?? [] { restrictions.add(item) }
    for lane in properties["lanes"]?.array ?? [] where JSONFeed.text(lane["status"]) != "closed" {
      for item in lane["restrictions"]?.array ?? [] { restrictions.add(item) }
    }

    let details: TrafficIncidentDetails
    do {
      details = try TrafficIncidentDetails(
        countryCode: context.countryCode, roadName: roadName, roadNumber: roadNumber,
        fromJunction: JSONFeed.text(properties["beginning_cross_street"]),
        toJunction: JSONFeed.text(properties["ending_cross_street"]),
        lanesClosed: lanes.total > 0 ? lanes.closed : nil,
        totalLanes: lanes.total > 0
          ? lanes.total : properties["total_num_lanes"]?.int.flatMap { $0 > 0 ? $0 : nil },
        closedLanes: lanes.closedPlaces.isEmpty ? nil : lanes.closedPlaces,
        eventKind: isRestriction ? nil : eventKind(properties["types_of_work"]?.array ?? []))
    } catch {
      throw JSONFieldError(path: propertiesPath + ".lanes", reason: error.description)
    }
    let sourceTexts = [JSONFeed.text(core["description"])].compactMap { $0 }.map {
      LocalizedText(text: $0, language: context.language)
    }
    let id = updated.map { "\(originalId)_\(Int($0.timeIntervalSince1970))" } ?? originalId
    return try JSONFeed.incident(at: recordPath) { () throws(TrafficModelError) in
      try TrafficIncident(
        id: id, originalId: originalId, parentId: parentId, type: type, impact: impact,
        startTime: startTime, endTime: endTime, entryTime: created ?? updated,
        isRoadClosed: isRoadClosed,
        location: TrafficLocation(
          polyline: polylines[0], additionalPolylines: Array(polylines.dropFirst()),
          description: place.isEmpty ? nil : place),
        vehicleRestrictions: restrictions.restrictions, details: details,
        sourceTexts: sourceTexts)
    }
  }

  /// Driving lanes, how many of them are closed, and which (their places among the
  /// driving lanes counted from the left, from 1: WZDx's `order` counts from the left edge).
  private struct LaneSummary {
    var total = 0
    var closed = 0
    var closedPlaces: [Int] = []

    static let nonDrivingTypes: Set<String> = [
      "shoulder", "left-shoulder", "right-shoulder", "sidewalk", "bike-lane", "parking",
      "median", "two-way-center-turn-lane", "center-left-turn-lane", "center-lane",
    ]

    init(_ lanes: [JSONValue]) {
      // In `order` (lanes without one keep their place in the array, after those with one).
      let ordered = lanes.enumerated().sorted {
        ($0.element["order"]?.int ?? Int.max, $0.offset)
          < ($1.element["order"]?.int ?? Int.max, $1.offset)
      }
      for (_, lane) in ordered {
        if let type = JSONFeed.text(lane["type"]), Self.nonDrivingTypes.contains(type) {
          continue
        }
        total += 1
        if JSONFeed.text(lane["status"]) == "closed" {
          closed += 1
          closedPlaces.append(total)
        }
      }
    }
  }

  private static func classify(
    vehicleImpact: String?, lanes: LaneSummary
  ) -> (TrafficIncidentType, TrafficIncidentImpact, Bool) {
    switch vehicleImpact {
    case "all-lanes-closed":
      return (.roadClosure, .critical, true)
    case "some-lanes-closed", "some-lanes-closed-merge-left", "some-lanes-closed-merge-right",
      "some-lanes-closed-split", "alternating-one-way", "flagging", "temporary-traffic-signal":
      if lanes.total > 0, lanes.closed == 0 { return (.construction, .minor, false) }
      return (.laneRestriction, .major, false)
    case "all-lanes-open-shift-left", "all-lanes-open-shift-right", "all-lanes-open-split":
      return (.construction, .minor, false)
    case "all-lanes-open":
      return (.construction, .low, false)
    default:
      if lanes.total > 0, lanes.closed == lanes.total { return (.roadClosure, .critical, true) }
      if lanes.closed > 0 { return (.laneRestriction, .major, false) }
      return (.construction, .unknown, false)
    }
  }

  private static func relatedWorkZone(_ core: JSONValue) -> String? {
    for related in core["related_road_events"]?.array ?? [] {
      if JSONFeed.text(related["type"]) == "related-work-zone",
        let id = related["id"]?.identifier
      {
        return id
      }
    }
    return core["relationship"]?["parents"]?.array?.first?.identifier
  }

  private static func eventKind(_ typesOfWork: [JSONValue]) -> TrafficEventKind {
    let maintenance: Set<String> = [
      "maintenance", "minor-road-defect-repair", "roadside-work", "painting",
    ]
    let names = typesOfWork.compactMap { JSONFeed.text($0["type_name"]) ?? JSONFeed.text($0) }
    return !names.isEmpty && names.allSatisfy(maintenance.contains) ? .maintenanceWork : .roadworks
  }

  /// Route numbers such as `I-35`, `US 69`, `CO-3`, `IA 210`, `F22`, `SR-99A`.
  private static func isRoadNumber(_ name: String) -> Bool {
    let scalars = Array(name.unicodeScalars)
    var index = 0
    while index < scalars.count, scalars[index].properties.isUppercase { index += 1 }
    guard index >= 1, index <= 4 else { return false }
    if index < scalars.count, scalars[index] == "-" || scalars[index] == " " { index += 1 }
    let digitsStart = index
    while index < scalars.count, ("0"..."9").contains(scalars[index]) { index += 1 }
    guard index > digitsStart else { return false }
    if index < scalars.count, scalars[index].properties.isUppercase { index += 1 }
    return index == scalars.count
  }

  /// Collects WZDx restrictions into the model's per-category restrictions.
  private struct RestrictionBuilder {
    var restrictions: [RestrictedVehicleCategory: VehicleRestriction] = [:]

    mutating func add(_ item: JSONValue) {
      // 3.x wrote restrictions as bare strings.
      guard let type = JSONFeed.text(item["type"]) ?? JSONFeed.text(item) else { return }
      // Some publishers write the number as text ("10.5").
      let value = item["value"]?.double ?? JSONFeed.text(item["value"]).flatMap(Double.init)
      let unit = JSONFeed.text(item["unit"])
      switch type {
      case "reduced-width":
        limit(\.restrictedIfWiderThanInCentimeters, centimeters(value, unit))
      case "reduced-height":
        limit(\.restrictedIfHigherThanInCentimeters, centimeters(value, unit))
      case "reduced-length":
        limit(\.restrictedIfLongerThanInCentimeters, centimeters(value, unit))
      case "reduced-weight", "gross-weight-limit":
        limit(\.restrictedIfGrossWeightMoreThanInKilograms, kilograms(value, unit))
      case "axle-load-limit":
        limit(\.restrictedIfAxleWeightMoreThanInKilograms, kilograms(value, unit))
      case "no-trucks":
        restrictions[.truck, default: VehicleRestriction()].isRestrictedAlways = true
      case "towing-prohibited":
        restrictions[.vehicleWithTrailer, default: VehicleRestriction()].isRestrictedAlways = true
      case "permitted-oversize-loads-prohibited":
        restrictions[.transportingAbnormalSizeLoad, default: VehicleRestriction()]
          .isRestrictedAlways = true
      case "hazmat-not-allowed":
        restrictions[.transportingHazardousGoods, default: VehicleRestriction()]
          .isRestrictedAlways = true
      case "local-access-only":
        restrictions[.all, default: VehicleRestriction()].isThroughTrafficRestricted = true
      case "hov-2", "hov-3":
        let occupants = type == "hov-2" ? 2 : 3
        let current = restrictions[.car]?.restrictedIfOccupantsFewerThan ?? 0
        restrictions[.car, default: VehicleRestriction()].restrictedIfOccupantsFewerThan = max(
          current, occupants)
      default: break
      }
    }

    /// Sets an upper limit on `.all`, keeping the stricter of two.
    private mutating func limit(
      _ keyPath: WritableKeyPath<VehicleRestriction, Int?>, _ value: Int?
    ) {
      guard let value, value > 0 else { return }
      let current = restrictions[.all]?[keyPath: keyPath]
      restrictions[.all, default: VehicleRestriction()][keyPath: keyPath] = min(
        current ?? value, value)
    }

    private func centimeters(_ value: Double?, _ unit: String?) -> Int? {
      guard let value, value.isFinite, value > 0 else { return nil }
      let factor: Double
      switch unit {
      case "feet", "ft": factor = 30.48
      case "inches", "in": factor = 2.54
      case "meters", "m": factor = 100
      case "centimeters", "cm": factor = 1
      default: factor = 30.48  // US feeds give dimensions in feet when they omit the unit
      }
      return Int(exactly: (value * factor).rounded()).flatMap { $0 < 100_000 ? $0 : nil }
    }

    private func kilograms(_ value: Double?, _ unit: String?) -> Int? {
      guard let value, value.isFinite, value > 0 else { return nil }
      let factor: Double
      switch unit {
      case "pounds", "lb", "lbs": factor = 0.453_592_37
      case "tons", "short-tons": factor = 907.184_74
      case "metric-tons", "tonnes": factor = 1000
      case "kilograms", "kg": factor = 1
      default: factor = 0.453_592_37  // US feeds give weights in pounds when they omit the unit
      }
      return Int(exactly: (value * factor).rounded()).flatMap { $0 < 10_000_000 ? $0 : nil }
    }
  }
}
