import Codec
import Foundation
import Traffic

/// Reads TomTom Traffic API Incident Details v5 responses (`/traffic/services/5/
/// incidentDetails`): `{"incidents": [GeoJSON Feature...]}`.
///
/// Each feature's `properties` give `id`, `iconCategory`, `magnitudeOfDelay`, `events`
/// (`description`, `code`, `iconCategory`), `startTime`, `endTime`, `from`, `to`, `length`
/// (m), `delay` (s), `roadNumbers`, `timeValidity`, `probabilityOfOccurrence`,
/// `numberOfReports`, `lastReportTime` (also under `aci`); the geometry is a `Point` or a `LineString`
/// (`[lng, lat]`).
///
/// | `iconCategory` | type | kind |
/// |---|---|---|
/// | 0 Unknown | `.unknown` | — |
/// | 1 Accident | `.accident` | accident |
/// | 2 Fog | `.weather` | fog |
/// | 3 DangerousConditions | `.roadHazard` | — |
/// | 4 Rain | `.weather` | — |
/// | 5 Ice | `.weather` | ice |
/// | 6 Jam | `.congestion` | queuing traffic (stationary when the delay magnitude is major or undefined) |
/// | 7 LaneClosed | `.laneRestriction` | — |
/// | 8 RoadClosed | `.roadClosure`, road closed | — |
/// | 9 RoadWorks | `.construction` | roadworks |
/// | 10 Wind | `.weather` | strong winds |
/// | 11 Flooding | `.weather` | flooding |
/// | 14 BrokenDownVehicle | `.disabledVehicle` | broken-down vehicle |
/// | others | `.other` | — |
///
/// | `magnitudeOfDelay` | impact |
/// |---|---|
/// | 0 Unknown | `.unknown` (`.critical` for a road closure) |
/// | 1 Minor | `.low` |
/// | 2 Moderate | `.minor` |
/// | 3 Major | `.major` |
/// | 4 Undefined (closures, indefinite delays) | `.critical` |
///
/// Other fields: `id` is both `originalId` and `id` (without one, `derivedId(_:)`; TomTom keeps an incident's id across
/// updates and gives no version); the events' `code`s are the incident's `codes` (TomTom's
/// event codes follow Alert-C numbering); their descriptions, joined with ", ", the source
/// text, in `options.defaultLanguage` (else en-GB, TomTom's default `language`); an event of
/// icon category 8 also closes the road. `roadNumbers` give the road number and location
/// description, `from` / `to` the junctions, `delay` the delay, `length` the location's
/// length (and the queue length of jams); `probabilityOfOccurrence` `risk_of` on a jam sets
/// the queue risk. TomTom gives no entry time.
public enum TomTomDecoder: FeedDecoder {
  /// `.tomtom`.
  public static let format = FeedFormat.tomtom

  /// Whether the text looks like a TomTom v5 response: JSON with `incidents` whose items
  /// carry `iconCategory`.
  ///
  /// - Complexity: O(n) byte search, no parsing.
  public static func recognizes(_ data: Data) -> Bool {
    guard JSONFeed.firstSignificantByte(data) == UInt8(ascii: "{") else { return false }
    return JSONFeed.contains(data, "\"incidents\"") && JSONFeed.contains(data, "\"iconCategory\"")
  }

  /// Decodes a TomTom Incident Details v5 response.
  ///
  /// - Parameters:
  ///   - data: UTF-8 JSON text.
  ///   - options: Default language and country.
  /// - Returns: One incident per feature; features that cannot be read are in `problems`
  ///   with their path (`incidents[2].geometry.coordinates[0][1]`).
  /// - Throws: `FeedError` when the text is not JSON or has no `incidents` array.
  /// - Complexity: O(n) in the size of `data`.
  public static func decode(
    _ input: FeedInput, options: FeedOptions
  ) throws(FeedError) -> FeedDocument {
    var document = FeedDocument(isFullRefresh: true)
    let language = options.defaultLanguage ?? .enGB
    let country = JSONFeed.countryCode(options.defaultCountryCode, fallback: nil)
    let root = try JSONFeed.read(input, format: format, streaming: ["incidents"]) {
      _, index, item in
      do throws(JSONFieldError) {
        document.incidents.append(
          try decodeIncident(
            item, at: "incidents[\(index)]", language: language, countryCode: country))
      } catch {
        let id = item["properties"]?["id"]?.identifier ?? item["id"]?.identifier
        document.problems.append(JSONFeed.error(error, format: format).skipping(id))
      }
    }
    guard root["incidents"]?.array != nil else {
      throw FeedError(format: format, location: "$", reason: "missing the \"incidents\" array")
    }
    return document
  }

  /// An id for an incident without one: TomTom leaves `id` out unless the request's
  /// `fields` asks for it (the default fields carry only `iconCategory` and the geometry).
  /// `tomtom-` and a 64-bit FNV-1a hash of the category and the geometry as written, so the
  /// same report gets the same id on every poll; `nil` without a geometry.
  static func derivedId(_ item: JSONValue) -> String? {
    guard let geometry = item["geometry"], geometry.object != nil else { return nil }
    var writer = JSONWriter()
    writer.value(.array([item["properties"]?["iconCategory"] ?? .null, geometry]))
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in writer.bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    let hex = String(hash, radix: 16)
    return "tomtom-" + String(repeating: "0", count: 16 - hex.count) + hex
  }

  private static func decodeIncident(
    _ item: JSONValue, at path: String, language: LanguageCode, countryCode: String?
  ) throws(JSONFieldError) -> TrafficIncident {
    let properties = try item.required("properties", at: path)
    guard let id = properties["id"]?.identifier ?? item["id"]?.identifier ?? derivedId(item)
    else {
      throw JSONFieldError(path: path + ".properties", reason: "no incident \"id\"")
    }
    let recordPath = "\(path) (id \(id))"
    let polylines = try item.required("geometry", at: recordPath).geoJSONPolylines(
      at: path + ".geometry")
    let propertiesPath = path + ".properties"
    let icon = properties["iconCategory"]?.int ?? 0
    let magnitude = properties["magnitudeOfDelay"]?.int ?? 0
    let events = properties["events"]?.array ?? []
    let isRoadClosed = icon == 8 || events.contains { $0["iconCategory"]?.int == 8 }
    let (type, kind) = classify(icon: icon, magnitude: magnitude)
    var impact: TrafficIncidentImpact
    switch magnitude {
    case 1: impact = .low
    case 2: impact = .minor
    case 3: impact = .major
    case 4: impact = .critical
    default: impact = .unknown
    }
    if impact == .unknown, isRoadClosed { impact = .critical }
    let length = properties["length"]?.double.flatMap { $0 >= 0 ? $0 : nil }
    let delay = properties["delay"]?.double.flatMap { $0 >= 0 ? $0 : nil }
    let roadNumbers = (properties["roadNumbers"]?.array ?? []).compactMap { JSONFeed.text($0) }
    // Newer responses group the report details under `aci`.
    let probability =
      JSONFeed.text(properties["probabilityOfOccurrence"])
      ?? JSONFeed.text(properties["aci"]?["probabilityOfOccurrence"])
    let details: TrafficIncidentDetails
    do {
      details = try TrafficIncidentDetails(
        countryCode: countryCode, roadNumber: roadNumbers.first,
        fromJunction: JSONFeed.text(properties["from"]),
        toJunction: JSONFeed.text(properties["to"]),
        queueRisk: icon == 6 && probability == "risk_of",
        queueLengthInMeters: icon == 6 ? length : nil, delayInSeconds: delay, eventKind: kind)
    } catch {
      throw JSONFieldError(path: propertiesPath, reason: error.description)
    }
    let codes = events.compactMap { $0["code"]?.int }
    let eventTexts = events.compactMap { JSONFeed.text($0["description"]) }
    let sourceTexts =
      eventTexts.isEmpty
      ? [] : [LocalizedText(text: eventTexts.joined(separator: ", "), language: language)]
    let startTime = try JSONFeed.date(properties["startTime"], at: propertiesPath + ".startTime")
    let endTime = try JSONFeed.date(properties["endTime"], at: propertiesPath + ".endTime")
    let place = roadNumbers.isEmpty ? nil : roadNumbers.joined(separator: " / ")
    return try JSONFeed.incident(at: recordPath) { () throws(TrafficModelError) in
      try TrafficIncident(
        id: id, type: type, impact: impact, startTime: startTime, endTime: endTime,
        isRoadClosed: isRoadClosed, codes: codes,
        location: TrafficLocation(
          polyline: polylines[0], additionalPolylines: Array(polylines.dropFirst()),
          lengthInMeters: length, description: place),
        details: details, sourceTexts: sourceTexts)
    }
  }

  private static func classify(
    icon: Int, magnitude: Int
  ) -> (TrafficIncidentType, TrafficEventKind?) {
    switch icon {
    case 0: return (.unknown, nil)
    case 1: return (.accident, .accident)
    case 2: return (.weather, .fog)
    case 3: return (.roadHazard, nil)
    case 4: return (.weather, nil)
    case 5: return (.weather, .ice)
    case 6: return (.congestion, magnitude >= 3 ? .stationaryTraffic : .queuingTraffic)
    case 7: return (.laneRestriction, nil)
    case 8: return (.roadClosure, nil)
    case 9: return (.construction, .roadworks)
    case 10: return (.weather, .strongWinds)
    case 11: return (.weather, .flooding)
    case 14: return (.disabledVehicle, .brokenDownVehicle)
    default: return (.other, nil)
    }
  }
}
