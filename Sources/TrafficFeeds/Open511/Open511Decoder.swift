import Codec
import Foundation
import Traffic

/// Decodes Open511 road events (Open511 v1, open511.org, "Open511 Road Events
/// specification"): JSON (`{"events": [...]}`, including the TMDD conversions of the Open511
/// reference library), XML (`<open511><events><event>...`), and the open511-server fixture
/// form, a JSON list of records whose `fields.xml_data` holds a 2012 draft `RoadEvent` in XML
/// and `fields.geom` its geometry in WKT.
///
/// JSON is parsed with the package's strict `JSONParser` (nesting deeper than 256 levels and
/// numbers beyond `Double` are rejected; decimals are read exactly as written, correctly
/// rounded); each event is then decoded on its own (`decodeEvent(_:at:options:)`). XML is
/// streamed through Codec's `GuardedXMLReader` (a DTD is refused), one `event` at a time.
///
/// Each event becomes one incident; `originalId` is the event's `id`, and `id` is
/// `<id>_<updated as Unix seconds>` when the event has an `updated` time (each update is a
/// new version; an older one read after a newer is stale), else the event's `id`. For the
/// server fixture form the id is `"<jurisdiction>/<id>"`, the Open511 id form.
///
/// | `event_type` / `event_subtypes` | type | event kind |
/// |---|---|---|
/// | subtype `ACCIDENT` | `accident` | `accident` |
/// | subtype `ROAD_CONSTRUCTION` | `construction` | `roadworks` |
/// | subtype `ROAD_MAINTENANCE`, `EMERGENCY_MAINTENANCE` | `construction` | `maintenanceWork` |
/// | subtype `SPILL`, `OBSTRUCTION`, `OIL_ON_ROADWAY` | `roadHazard` | `objectOnRoad` |
/// | subtype `PARTLY_ICY`, `ICE_COVERED` | `weather` | `ice` |
/// | subtype `*SNOW*` (packed, covered, drifting) | `weather` | `snow` |
/// | subtype `SURFACE_WATER_HAZARD` | `weather` | `flooding` |
/// | subtype `STRONG_WINDS` / `POOR_VISIBILITY` | `weather` | `strongWinds` / `fog` |
/// | `CONSTRUCTION` | `construction` | `roadworks` |
/// | `SPECIAL_EVENT` | `plannedEvent` | `majorEvent` |
/// | `INCIDENT` with `HAZARD`, `FIRE`, `MUD`, `LOOSE_GRAVEL` | `roadHazard` | — |
/// | `INCIDENT` otherwise | `other` | — |
/// | `WEATHER_CONDITION` | `weather` | — |
/// | `ROAD_CONDITION` | `roadHazard` | — |
/// | absent or not one of these (the draft `RoadEvent` has no type) | by its words, below | |
///
/// An event without a known type or subtype (the 2012 draft `RoadEvent` of the Montreal
/// open511-server data has neither, but a title such as "Réfection de la chaussée") is
/// classified by the words of its headlines, else of its descriptions, in French or English,
/// ignoring case, accents and a plural `s`/`x`; the first row that matches wins:
///
/// | words | type | event kind |
/// |---|---|---|
/// | `accident`, `collision`, `carambolage` | `accident` | `accident` |
/// | `travaux`, `chantier`, `excavation`, `réfection`, `reconstruction`, `construction` | `construction` | `roadworks` |
/// | `réhabilitation`, `réparation`, `pavage`, `asphaltage`, `resurfaçage` | `construction` | `roadworks` |
/// | `roadworks`, `repair`, `resurfacing` | `construction` | `roadworks` |
/// | `entretien`, `maintenance`, `déneigement`, `nettoyage`, `balayage` | `construction` | `maintenanceWork` |
/// | headlines only: `fermeture`, `fermée`, `closed`, `closure` — with `voie` or `lane` | `laneRestriction` | — |
/// | headlines only: the same without `voie` or `lane` | `roadClosure` | — |
/// | `entrave` | `laneRestriction` | — |
/// | `festival`, `défilé`, `parade`, `marathon` | `plannedEvent` | `majorEvent` |
/// | none of these | `unknown` | — |
///
/// An `other` or `unknown` event whose road `state` is `CLOSED` becomes `roadClosure`, one
/// with `SOME_LANES_CLOSED` or `SINGLE_LANE_ALTERNATING` becomes `laneRestriction`. A road
/// `state` of `CLOSED` always sets `isRoadClosed`.
///
/// | `severity` | impact |
/// |---|---|
/// | `MINOR` | `low` |
/// | `MODERATE` | `minor` |
/// | `MAJOR` | `major`; `critical` when a road is closed |
/// | `UNKNOWN`, absent | `unknown` |
///
/// Times: schedule `intervals` (`"start/end"`, an empty end leaves the event open-ended) and
/// `recurring_schedules` (`start_date` + `daily_start_time` to `end_date` +
/// `daily_end_time`; no `end_date` is open-ended) give the overall start (earliest) and end
/// (latest, or none when any part is open); draft `StartDate`/`EndDate` are dates, the end
/// inclusive. Open511 writes schedule times without offset, in local time: they are read in
/// the event's `timezone`, else at the UTC offset of its `updated` (or `created`) time, else
/// as UTC. DriveBC (events whose `url` or `jurisdiction_url` is on
/// `api.open511.gov.bc.ca`) writes its `intervals` in UTC: they are read so. `created` (else `updated`) is the entry time. An `ARCHIVED` event ends at its
/// `updated` time at the latest.
///
/// Roads: the first road's `name`, `from` and `to` become the road name and junctions;
/// `lanes_closed` (and `lanes_open`, for the total) the lanes; `areas` the area; `timezone` the
/// time zone. `geography` is GeoJSON (JSON), GML `pos` / `posList` / `coordinates` (XML, in
/// `FeedOptions.axisOrder` — the Open511 library writes latitude first), or WKT (a JSON
/// string, or the server fixture's `geom`). `headline` and `description` (draft: `Title`,
/// `Description`) become `sourceTexts` in their `xml:lang`, else the document's, else
/// `FeedOptions.defaultLanguage`, else English; the draft's `AffectedRoads` becomes the
/// location's description.
///
/// Open511 documents are full refreshes of the jurisdiction's current events.
public enum Open511Decoder: FeedDecoder {
  /// `.open511`.
  public static let format = FeedFormat.open511

  /// Whether the document looks like Open511: XML whose root is `open511` or `RoadEvent`, or
  /// JSON with an `events` array of Open511 events or open511-server `roadevent` records.
  ///
  /// - Parameter data: The document.
  /// - Returns: `true` for Open511.
  /// - Complexity: O(1): reads at most 64 KiB.
  public static func recognizes(_ data: Data) -> Bool {
    let head = String(decoding: data.prefix(65_536), as: UTF8.self)
    switch firstSignificantCharacter(data) {
    case UInt8(ascii: "<"):
      return head.contains("<open511") || head.contains("<RoadEvent")
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      let events =
        head.contains("\"events\"")
        && (head.contains("\"event_type\"") || head.contains("\"jurisdiction_url\"")
          || head.contains("\"headline\""))
      return events || (head.contains("open511.roadevent") && head.contains("xml_data"))
    default:
      return false
    }
  }

  /// Decodes an Open511 document, JSON or XML.
  ///
  /// - Parameters:
  ///   - input: The document.
  ///   - options: Axis order of GML, default language and country, and the current time.
  /// - Returns: The incidents; events that cannot be decoded are listed in `problems` with
  ///   their JSON path or XML line.
  /// - Throws: `FeedError` naming the place for a document that cannot be read (malformed
  ///   JSON or XML, wrong top-level structure, hostile XML).
  /// - Complexity: O(n) in the size of the document.
  public static func decode(
    _ input: FeedInput, options: FeedOptions
  ) throws(FeedError) -> FeedDocument {
    let head: Data
    do { head = try input.prefix(4096) } catch {
      throw FeedError(format: format, reason: error.description)
    }
    // XML in UTF-16 starts with its byte-order mark (JSON is UTF-8 only): the XML reader
    // takes it, as it does for DATEX II.
    if FeedFormat.utf16Text(head) != nil {
      return try decodeXML(input, options: options)
    }
    switch firstSignificantCharacter(head) {
    case UInt8(ascii: "<"):
      return try decodeXML(input, options: options)
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      return try decodeJSON(input, options: options)
    case nil:
      throw FeedError(format: format, location: "byte 0", reason: "the document is empty")
    default:
      throw FeedError(
        format: format, location: "byte 0",
        reason: "not an Open511 document: it starts with neither '<' nor '{' nor '['")
    }
  }

  /// The first byte that is not white space or a UTF-8 byte order mark.
  static func firstSignificantCharacter(_ data: Data) -> UInt8? {
    for byte in data.prefix(4096) {
      switch byte {
      case 0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF: continue
      default: return byte
      }
    }
    return nil
  }

  /// The language for texts without their own.
  static func language(_ tag: String?, fallback: LanguageCode?) -> LanguageCode {
    tag.flatMap { try? LanguageCode($0) } ?? fallback ?? .enUS
  }
}
