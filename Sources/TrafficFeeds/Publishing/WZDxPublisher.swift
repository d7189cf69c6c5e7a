import Codec
import Foundation
import Geo
import Traffic

/// Writes the work zones and road closures of a publication as a WZDx 4.2 `WorkZoneFeed`
/// (US DOT Work Zone Data Exchange).
///
/// Which incidents: `construction`, `laneRestriction` and `roadClosure` incidents, and
/// incidents of any type that close the road. An incident with a `parentId` that is a
/// low-impact `construction` is a detour (event type `detour`, related to its work zone).
/// WZDx 4.2 has no feed of restrictions outside work zones (4.0 and 4.1 had a
/// `RoadRestrictionFeed`; 4.2 removed it): restrictions are written on the work zones they
/// belong to.
///
/// | model | WZDx |
/// |---|---|
/// | `originalId` | feature `id` (stable across publications) |
/// | road closed | `vehicle_impact` `all-lanes-closed` |
/// | `laneRestriction`, or closed lanes | `some-lanes-closed` |
/// | other `construction` of known impact | `all-lanes-open` |
/// | impact `unknown` | `unknown` |
/// | `startTime` / `endTime` | `start_date` / `end_date` |
/// | `entryTime` | `core_details.creation_date` |
/// | the time in an `<originalId>_<Unix seconds>` id, else `entryTime` | `core_details.update_date` |
/// | road number, road name (else `unknown`, read back as no name) | `road_names` |
/// | the polyline's overall heading | `direction` (`unknown` for a point) |
/// | `fromJunction` / `toJunction` | `beginning_cross_street` / `ending_cross_street` |
/// | event kind `maintenanceWork` | `types_of_work` `maintenance` |
/// | vehicle restrictions | `restrictions` (centimeters, kilograms) |
/// | the source that reported it (first in `sources`) | `core_details.data_source_id` |
///
/// Honest flags: `is_start_date_verified`, `is_end_date_verified`,
/// `is_start_position_verified` and `is_end_position_verified` are `false` (no feed we read
/// says a time or position was confirmed in the field), `location_method` is `unknown`.
/// WZDx requires both dates: an incident without a start is published from its entry time
/// (else the publication time), one without an end until a day after the later of its start
/// and the publication time, both flagged unverified as the specification asks of
/// estimates. Lanes are listed (`lanes`: `order` from the left, `type` `general`, `status`
/// `open` or `closed`) when the incident says which are closed and how many there are
/// (``TrafficIncidentDetails/closedLanes``, `totalLanes` of at most 32), or how many there
/// are and that none is closed; else only `vehicle_impact` says it.
/// Only an incident's main polyline is written (WZDx geometry is one `LineString`).
public enum WZDxPublisher {
  /// The WZDx version written.
  public static let version = "4.2"
  /// The most lanes listed one by one: a road said to have more (no road has) keeps only
  /// `vehicle_impact`, so that a bad count cannot make the document huge.
  static let maximumListedLanes = 32

  /// Whether an incident is a work zone, detour or closure, which the feed carries.
  public static func includes(_ incident: TrafficIncident) -> Bool {
    incident.isRoadClosed
      || [.construction, .laneRestriction, .roadClosure].contains(incident.type)
  }

  /// The `WorkZoneFeed` of a publication's work zones, detours and closures.
  ///
  /// - Returns: UTF-8 GeoJSON text; the same publication gives the same bytes.
  /// - Complexity: O(n) in the incidents and their vertices.
  public static func document(_ publication: Publication) -> Data {
    stream(publication).collect()
  }

  /// The `WorkZoneFeed` of a publication, written piece by piece as it is read: the same
  /// bytes as `document(_:)`, in memory bounded by a piece and the selection.
  public static func stream(_ publication: Publication) -> DocumentStream {
    let incidents = publication.incidents.filtered(includes)
    return DocumentStream.pieces(
      writer: JSONWriter(capacity: 2 * DocumentStream.pieceBytes), count: incidents.count,
      header: { json in
        json.beginObject()
        json.key("feed_info")
        feedInfo(publication, incidents: incidents, into: &json)
        json.member("type", "FeatureCollection")
        json.key("features")
        json.beginArray()
      },
      item: { index, json in
        feature(incidents[incidents.startIndex + index], publication: publication, into: &json)
      },
      footer: { json in
        json.endArray()
        json.endObject()
        return json.takeWritten()
      }, written: { $0.bytes.count }, take: { $0.takeWritten() })
  }

  // MARK: Feed information

  private static func feedInfo(
    _ publication: Publication, incidents: IncidentSelection, into json: inout JSONWriter
  ) {
    json.beginObject()
    json.member("publisher", publication.publisher)
    json.member("update_date", publication.publicationTime)
    json.member("version", version)
    json.member("license", "https://creativecommons.org/publicdomain/zero/1.0/")
    json.key("data_sources")
    json.beginArray()
    // One entry per source whose incidents are in the document (WZDx asks for one at least:
    // an empty feed names the publisher itself).
    var latest: [String: Date] = [:]
    var order: [String] = []
    for incident in incidents {
      let source = dataSourceId(incident)
      if latest[source] == nil { order.append(source) }
      let time = incident.entryTime ?? .distantPast
      latest[source] = max(latest[source] ?? .distantPast, time)
    }
    if order.isEmpty { order = [publication.publisher] }
    for source in order.sorted() {
      json.beginObject()
      json.member("data_source_id", source)
      json.member("organization_name", organizationName(source))
      if let time = latest[source], time != .distantPast { json.member("update_date", time) }
      json.endObject()
    }
    json.endArray()
    json.endObject()
  }

  /// The data source of an incident: the first feed that reported it.
  static func dataSourceId(_ incident: TrafficIncident) -> String {
    incident.sources.first?.feed ?? Publication.defaultPublisher
  }

  /// A source's organisation: its name without the format prefix (`wzdx:Iowa DOT`).
  private static func organizationName(_ source: String) -> String {
    if let colon = source.firstIndex(of: ":"),
      source[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }),
      source.index(after: colon) < source.endIndex
    {
      return String(source[source.index(after: colon)...])
    }
    return source
  }

  // MARK: Road events

  private static func feature(
    _ incident: TrafficIncident, publication: Publication, into json: inout JSONWriter
  ) {
    let isDetour =
      incident.parentId != nil && incident.type == .construction
      && incident.impact == .low && !incident.isRoadClosed
    let details = incident.details
    json.beginObject()
    json.member("id", incident.originalId)
    json.member("type", "Feature")
    json.key("properties")
    json.beginObject()
    json.key("core_details")
    json.beginObject()
    json.member("data_source_id", dataSourceId(incident))
    json.member("event_type", isDetour ? "detour" : "work-zone")
    if isDetour, let parent = incident.parentId {
      json.key("related_road_events")
      json.beginArray()
      object(["type": "related-work-zone", "id": parent], into: &json)
      json.endArray()
    }
    json.key("road_names")
    json.beginArray()
    for name in roadNames(incident) { json.string(name) }
    json.endArray()
    json.member("direction", direction(of: incident.location.polyline))
    if let text = sourceText(incident, language: publication.language), !text.isEmpty {
      json.member("description", text)
    }
    if let entry = incident.entryTime { json.member("creation_date", entry) }
    // The update time an imported id names, so that the id reads back the same; without
    // one, an id that is not the original id's has changed since its entry.
    if let update = Publication.versionTime(of: incident)
      ?? (incident.id == incident.originalId ? nil : incident.entryTime)
    {
      json.member("update_date", update)
    }
    json.endObject()

    let (start, end) = dates(incident, publication: publication)
    json.member("start_date", start)
    json.member("end_date", end)
    json.member("is_start_date_verified", false)
    json.member("is_end_date_verified", false)
    if !isDetour {
      json.member("is_start_position_verified", false)
      json.member("is_end_position_verified", false)
      json.member("location_method", "unknown")
      json.member("vehicle_impact", vehicleImpact(incident))
    }
    if let from = details.fromJunction { json.member("beginning_cross_street", from) }
    if let to = details.toJunction { json.member("ending_cross_street", to) }
    if !isDetour {
      if details.eventKind == .maintenanceWork {
        json.key("types_of_work")
        json.beginArray()
        object(["type_name": "maintenance"], into: &json)
        json.endArray()
      }
      // Which lanes are closed, where that is known; all open where none is (so that the
      // number of lanes is kept).
      let allOpen = (details.lanesClosed ?? 0) == 0 && vehicleImpact(incident) == "all-lanes-open"
      if let closed = details.closedLanes ?? (allOpen ? [] : nil), let total = details.totalLanes,
        total <= maximumListedLanes
      {
        json.key("lanes")
        json.beginArray()
        for order in 1...total {
          json.beginObject()
          json.member("order", order)
          json.member("type", "general")
          json.member("status", closed.contains(order) ? "closed" : "open")
          json.endObject()
        }
        json.endArray()
      }
      let restrictions = restrictions(incident.vehicleRestrictions)
      if !restrictions.isEmpty {
        json.key("restrictions")
        json.beginArray()
        for restriction in restrictions {
          json.beginObject()
          json.member("type", restriction.type)
          if let value = restriction.value {
            json.member("value", value)
            json.member("unit", restriction.unit)
          }
          json.endObject()
        }
        json.endArray()
      }
    }
    json.endObject()

    json.key("geometry")
    json.beginObject()
    json.member("type", "LineString")
    json.key("coordinates")
    json.beginArray()
    for vertex in incident.location.polyline.vertices {
      json.beginArray()
      json.number(vertex.longitude, decimals: 7)
      json.number(vertex.latitude, decimals: 7)
      json.endArray()
    }
    json.endArray()
    json.endObject()
    json.endObject()
  }

  /// An object of text members, in the order of their names.
  private static func object(_ members: [String: String], into json: inout JSONWriter) {
    json.beginObject()
    for name in members.keys.sorted() {
      json.key(name)
      json.string(members[name] ?? "")
    }
    json.endObject()
  }

  /// `published` as a WZDx feed of `time` dates it: WZDx requires an end, estimated a day
  /// after the publication time for an incident without one, so a feed whose data has not
  /// changed for a day would end its open-ended work zones in the past. Its time is at
  /// least the start of `time`'s UTC day (a feed's bytes, `update_date` and validators then
  /// change once a day, at 00:00 UTC, while it holds such an incident), so every estimate
  /// lies after `time`.
  public static func dated(_ published: PublishedIncidents, at time: Date) -> PublishedIncidents {
    guard !published.isDelta, published.incidents.contains(where: { $0.endTime == nil }) else {
      return published
    }
    let day = (time.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400
    var dated = published
    dated.lastModified = max(published.lastModified, Date(timeIntervalSince1970: day))
    return dated
  }

  /// The start and end WZDx requires, estimated where the incident has none.
  private static func dates(
    _ incident: TrafficIncident, publication: Publication
  ) -> (start: Date, end: Date) {
    let start = Publication.startTime(of: incident, publication: publication)
    let end = incident.endTime ?? max(start, publication.publicationTime).addingTimeInterval(86_400)
    return (start, end)
  }

  private static func roadNames(_ incident: TrafficIncident) -> [String] {
    let details = incident.details
    let names = [details.roadNumber, details.roadName].compactMap { $0 }.filter {
      !$0.trimmingCharacters(in: .whitespaces).isEmpty
    }
    // WZDx requires a name; a place's description ("between Eddy and Laurier streets") is
    // none, and would read back as the road's name.
    return names.isEmpty ? [WZDxDecoder.unknownRoadName] : names
  }

  /// The text a source wrote, else the generated description.
  private static func sourceText(_ incident: TrafficIncident, language: LanguageCode) -> String? {
    let texts = incident.sourceTexts
    if let text = texts.first(where: { $0.language.hasSameLanguage(as: language) }) ?? texts.first {
      return text.text
    }
    let description = incident.description.text
    return description.isEmpty ? nil : description
  }

  private static func vehicleImpact(_ incident: TrafficIncident) -> String {
    if incident.isRoadClosed || incident.type == .roadClosure { return "all-lanes-closed" }
    if incident.type == .laneRestriction || (incident.details.lanesClosed ?? 0) > 0 {
      return "some-lanes-closed"
    }
    if incident.impact == .unknown { return "unknown" }
    return "all-lanes-open"
  }

  /// The direction of travel WZDx names from the polyline's first to its last vertex: the
  /// cardinal direction nearest its heading (`unknown` for a point).
  static func direction(of polyline: GeoPolyline) -> String {
    guard let first = polyline.vertices.first, let last = polyline.vertices.last,
      first != last
    else { return "unknown" }
    let north = last.latitude - first.latitude
    let east = (last.longitude - first.longitude) * cos(first.latitude * .pi / 180)
    if abs(north) >= abs(east) { return north >= 0 ? "northbound" : "southbound" }
    return east >= 0 ? "eastbound" : "westbound"
  }

  struct Restriction {
    var type: String
    var value: Double?
    var unit: String?
  }

  /// WZDx restrictions of the model's, in a fixed order; those WZDx cannot say are left out.
  static func restrictions(
    _ restrictions: [RestrictedVehicleCategory: VehicleRestriction]
  ) -> [Restriction] {
    var result: [Restriction] = []
    if let all = restrictions[.all] {
      let limits: [(String, Int?, String)] = [
        ("reduced-width", all.restrictedIfWiderThanInCentimeters, "centimeters"),
        ("reduced-height", all.restrictedIfHigherThanInCentimeters, "centimeters"),
        ("reduced-length", all.restrictedIfLongerThanInCentimeters, "centimeters"),
        ("gross-weight-limit", all.restrictedIfGrossWeightMoreThanInKilograms, "kilograms"),
        ("axle-load-limit", all.restrictedIfAxleWeightMoreThanInKilograms, "kilograms"),
      ]
      for (type, value, unit) in limits {
        if let value { result.append(Restriction(type: type, value: Double(value), unit: unit)) }
      }
      if all.isThroughTrafficRestricted { result.append(Restriction(type: "local-access-only")) }
    }
    let always: [(RestrictedVehicleCategory, String)] = [
      (.truck, "no-trucks"), (.vehicleWithTrailer, "towing-prohibited"),
      (.transportingAbnormalSizeLoad, "permitted-oversize-loads-prohibited"),
    ]
    for (category, type) in always where restrictions[category]?.isRestrictedAlways == true {
      result.append(Restriction(type: type))
    }
    switch restrictions[.car]?.restrictedIfOccupantsFewerThan {
    case 2: result.append(Restriction(type: "hov-2"))
    case .some(let occupants) where occupants >= 3: result.append(Restriction(type: "hov-3"))
    default: break
    }
    return result
  }
}
