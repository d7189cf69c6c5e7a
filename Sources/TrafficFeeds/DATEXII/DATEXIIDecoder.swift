import Foundation
import Traffic

/// Decodes DATEX II SituationPublications — v2 (`d2LogicalModel`, namespace
/// `http://datex2.eu/schema/2/2_0`) and v3 (`http://datex2.eu/schema/3/...`, records in the
/// `situation` namespace, locations in `locationReferencing`; DGT (Spain) publishes v3 under
/// `http://levelC/schema/3/...`, which is read the same way) — bare or inside a SOAP envelope
/// (CEN/TS 16157-2 and -3, "DATEX II data exchange specifications for traffic management and
/// information").
///
/// Elements are matched by local name and namespace URI, never by prefix, since publishers use
/// different prefixes. The document is streamed through Codec's `GuardedXMLReader` (a DTD
/// is refused), one `situation` at a time.
///
/// Each `situationRecord` becomes one incident: `originalId` is the record's `id`, `id` is
/// `"<id>_<version>"` when the record has a non-empty `version` (attribute, or the v1.0
/// `situationRecordVersion` element), the `id` alone when the version is empty or equals
/// it, and the version itself when it is one of the engine's version ids of the record
/// (`<id>~<stamp>`, as `DATEXIIPublisher` writes them). Its type comes from the
/// record's `xsi:type`:
///
/// | `xsi:type` (and detail) | type | event kind |
/// |---|---|---|
/// | `Accident` | `accident` | `accident`; `multiVehicleAccident` for multi-vehicle, series, mass or chain collisions; `vehicleFire` for `vehicleOnFire` |
/// | `AbnormalTraffic` | `congestion` | `stationaryTraffic`, `queuingTraffic` (also `stopAndGo`), `slowTraffic` (also `heavyTraffic`) |
/// | `MaintenanceWorks` | `construction` | `roadworks` for `roadMaintenanceType` roadworks, else `maintenanceWork` |
/// | `Roadworks`, `ConstructionWorks` | `construction` | `roadworks` |
/// | `RoadOrCarriagewayOrLaneManagement`: `roadClosed`, `carriagewayClosures`, `closedPermanentlyForTheWinter` | `roadClosure` (road closed) | — |
/// | `RoadOrCarriagewayOrLaneManagement`: lane closures, narrow lanes, alternate-line traffic, contraflow, hard shoulder and lane use | `laneRestriction` | — |
/// | `RoadOrCarriagewayOrLaneManagement`: other values | `other` | — |
/// | `VehicleObstruction` | `disabledVehicle` (broken down, damaged, stuck, abandoned, on fire); `roadHazard` otherwise | `brokenDownVehicle`, `vehicleFire`, `wrongWayDriver` |
/// | `AnimalPresenceObstruction` | `roadHazard` | `animalsOnRoad` |
/// | `GeneralObstruction`, `InfrastructureDamageObstruction`, `NonWeatherRelatedRoadConditions` | `roadHazard` | `objectOnRoad` for objects, loads, debris; `peopleOnRoad` for people |
/// | `EnvironmentalObstruction` | `weather` for flooding, `roadHazard` otherwise | `flooding`; `objectOnRoad` for falls and slides |
/// | `PoorEnvironmentConditions`, `WeatherRelatedRoadConditions` | `weather` | `fog`, `strongWinds`, `snow`, `ice`, `flooding` |
/// | `WinterDrivingManagement` | `weather` | — (snow chains or winter tyres required become vehicle restrictions on `all`) |
/// | `PublicEvent` | `plannedEvent` | `demonstration` for demonstrations, marches, parades and processions, else `majorEvent` |
/// | `DisturbanceActivity` | `other` | `demonstration` for demonstrations and marches |
/// | `TransitInformation`, `PublicTransport` | `massTransit` | `transitDisruption` |
/// | `SpeedManagement`, `ReroutingManagement`, `NetworkManagement`, `GeneralNetworkManagement`, `AuthorityOperation`, `EquipmentOrSystemFault`, `GeneralInstructionOrMessageToRoadUsers`, v3 `GenericSituationRecord`, others | `other` | — |
///
/// A record whose `trafficConstrictionType` is `roadBlocked` or `carriagewayBlocked` (an
/// accident, obstruction or event that blocks the road) also closes the road.
///
/// A record that maps to `other` without an event kind (the last row, and lane management
/// that names no closure) takes the type its `cause`/`causeType` names, as the record type
/// it stands for (`accident`→`Accident`, `abnormalTraffic`→`AbnormalTraffic`,
/// `roadMaintenance`→`MaintenanceWorks`, `vehicleObstruction`, `obstruction`→
/// `GeneralObstruction`, `environmentalObstruction`, `poorEnvironment`→
/// `PoorEnvironmentConditions`, `publicEvent`, `transitServiceDisruption`→
/// `TransitInformation`, ...), with the detail values of its
/// `detailedCauseType`; DGT types most of its records only this way.
///
/// Impact comes from the record's `severity`, else the situation's `overallSeverity`, else
/// (DATEX II v1.0) the record's `impactOnTraffic` (`impossible` critical, `congested` major,
/// `heavy` minor, `freeFlow` low):
///
/// | severity | impact |
/// |---|---|
/// | `highest` | `critical` |
/// | `high` | `major` |
/// | `medium` | `minor` |
/// | `low`, `lowest`, `none` | `low` |
/// | `unknown`, absent | `unknown` |
///
/// A `probabilityOfOccurrence` of `riskOf` lowers the impact one step (`critical` to `major`,
/// `major` to `minor`, `minor` to `low`).
///
/// Times: `overallStartTime` / `overallEndTime` of `validityTimeSpecification` are the start
/// and end; `situationRecordCreationTime` (else `situationRecordVersionTime`) is the entry
/// time. Times written without a UTC offset (some local publishers) are read at the offset of
/// the document's `publicationTime`, else as UTC. A record whose `validityStatus` is `suspended`, or whose `lifeCycleManagement` says
/// `end` or `cancel`, has ended: its end becomes the version time (or the publication time,
/// or `FeedOptions.now`) when that is earlier, so that it is never active after it.
///
/// Locations (`groupOfLocations` in v2, `locationReference` in v3; every member of a location
/// group or itinerary is read, the first one giving `polyline`, the others
/// `additionalPolylines`), in this order of preference per member:
/// 1. GML `posList` (v2 `gmlLineString` extensions, v3 `gmlLineString`), positions in
///    `FeedOptions.axisOrder` (latitude first by default), `srsDimension` 2 or 3;
/// 2. a from/to pair of coordinates (TPEG `from`/`to`, `linearCoordinatesStartPoint` /
///    `EndPoint`, `startPoint`/`endPoint`) as a two-vertex polyline;
/// 3. the coordinates of OpenLR location reference points (`openlrCoordinates`) joined in
///    order;
/// 4. `pointByCoordinates` / `pointCoordinates`, then `locationForDisplay`, then any other
///    latitude/longitude pair, as a point (a `linearByCoordinates` line comes right after 1);
/// 5. binary OpenLR (`openlrBinary`, NDW's `openLrLinearAsBinary` / `openLrPointAsBinary` /
///    `openLrAreaAsBinary`, a `binary` element), decoded with `OpenLR` (version 3: a line's
///    reference points joined, a geo-coordinate, a point along a line at its offset between
///    its two reference points, a POI at its position).
/// German state feeds add `linearByCoordinates` (a `start`, indexed `intermediate` points and
/// an `end`), read after `posList`, and coordinates under extensions of their own naming: any
/// latitude/longitude pair is the last resort. Numbers outside the degree ranges are
/// projected metres, converted to WGS 84 when the system is certain: a GML `srsName` of
/// ETRS89 / UTM (EPSG:25828–25838), WGS 84 / UTM (326xx), ETRS-TM35FIN (3067) or SWEREF 99 TM
/// (3006); a UTM easting prefixed with its zone (Mecklenburg-Vorpommern's EPSG:5650); or a
/// Finnish publisher (record `sourceCountry`, else the publication's country `FI`), whose
/// metres are ETRS-TM35FIN as Fintraffic writes them (the larger number is the northing: its
/// v2 feed writes the easting as `latitude`, its v3 feed the northing). Other metres are
/// skipped with a problem.
/// The location keeps its references as codes: every ALERT-C (TMC) location
/// (`alertCPoint`, `alertCLinear`, `alertCArea`: country code, table number and version,
/// primary and secondary `specificLocation`, `alertCDirectionCoded` read with
/// `alertCAffectedDirection` (`both`, `unknown`, `opposite` to the coded direction), method 4
/// `offsetDistance`) in `TrafficLocation.tmc`, and the first binary OpenLR that decodes in
/// `TrafficLocation.openLR` (binary OpenLR that does not decode is dropped when the member
/// has coordinates). TMC and predefined location references carry no coordinates and need a
/// location table this library does not have: a record with no coordinates and no decodable
/// OpenLR is skipped with a problem that gives the OpenLR error, else lists its Alert-C
/// location codes.
///
/// Other facts: `roadNumber`, `roadName` and `roadDestination` (or a named Alert-C direction)
/// give the road and direction; `numberOfLanesRestricted` and `originalNumberOfLanes` the
/// lanes; `delayTimeValue` the delay; `queueLength` the queue. `generalPublicComment` values
/// become `sourceTexts`, one per comment and language (values of one language joined by line
/// breaks), in the value's `lang`, else the publication's `lang`, else
/// `FeedOptions.defaultLanguage`, else English. The country is the record's `sourceCountry`,
/// else the publication creator's `country`, else `FeedOptions.defaultCountryCode`.
///
/// Full refresh: a document is a delta (`isFullRefresh == false`) when its `updateMethod` is
/// `singleElementUpdate` or `allElementUpdate`, or its `feedType` / `publicationType` names a
/// delta or an update; it is a full refresh when they say `snapshot`, and by default.
///
/// Publications other than situations (MeasuredDataPublication, ElaboratedDataPublication,
/// VMS, ...) are recognised and decode to no incidents and no error: the measured data of
/// MIDAS loops refers to a measurement site table that holds the coordinates, so it cannot
/// yield flow observations on its own.
public enum DATEXIIDecoder: FeedDecoder {
  /// `.datex2`.
  public static let format = FeedFormat.datex2

  /// The namespace URIs of DATEX II begin with this.
  static let namespacePrefix = "http://datex2.eu/schema/"
  /// DGT (Spain) publishes the DATEX II v3 schema under these namespace URIs
  /// (`http://levelC/schema/3/situation`, `.../locationReferencing`, ...).
  static let levelCNamespacePrefix = "http://levelC/schema/"

  /// Whether `namespace` is one of DATEX II's (or DGT's `levelC` copy of v3).
  static func isDATEXIINamespace(_ namespace: String) -> Bool {
    namespace.hasPrefix(namespacePrefix) || namespace.hasPrefix(levelCNamespacePrefix)
  }

  /// Whether the first 64 KiB mention a DATEX II namespace or the v2 root element.
  ///
  /// - Parameter data: The document.
  /// - Returns: `true` for DATEX II XML.
  /// - Complexity: O(1): reads at most 64 KiB.
  public static func recognizes(_ data: Data) -> Bool {
    let head = String(decoding: data.prefix(65_536), as: UTF8.self)
    guard head.contains("<") else { return false }
    return head.contains("datex2.eu/schema/") || head.contains("d2LogicalModel")
      || head.contains(levelCNamespacePrefix)
  }

  /// Decodes a DATEX II document.
  ///
  /// - Parameters:
  ///   - data: The XML document.
  ///   - options: Axis order, default language and country, and the current time.
  /// - Returns: The incidents of all situation records; records that cannot be decoded are
  ///   listed in `problems` with their situation, record id and line.
  /// - Throws: `FeedError` with line and column for XML that cannot be read (malformed,
  ///   truncated, nesting deeper than 256; the byte for a DTD or a wrong encoding), or when the
  ///   document is not DATEX II.
  /// - Complexity: O(n) in the size of the document; memory O(largest situation).
  public static func decode(
    _ input: FeedInput, options: FeedOptions
  ) throws(FeedError) -> FeedDocument {
    let state = DocumentState(options: options)
    let reader = XMLRecordReader(format: format)
    try reader.read(
      input,
      isRecord: { _, name, namespace in
        name == "situation" && (isDATEXIINamespace(namespace) || namespace.isEmpty)
      },
      opening: { ancestors, node in state.open(node, depth: ancestors.count) },
      header: { ancestors, node in state.close(node, parent: ancestors.last) },
      record: { node, number, _ in state.situation(node, number: number) })
    guard state.sawDATEXII else {
      throw FeedError(
        format: format, location: "line 1",
        reason: "not a DATEX II document: no element in a \(namespacePrefix)... namespace")
    }
    return FeedDocument(
      incidents: state.incidents, problems: state.problems,
      isFullRefresh: state.isFullRefresh, publicationTime: state.publicationTime)
  }

  /// What the document has said so far outside situations, and the decoded records. A class
  /// because the reader's callbacks share it; used from one thread during one decode.
  final class DocumentState {
    let options: FeedOptions
    var sawDATEXII = false
    var language: LanguageCode?
    var countryCode: String?
    var publicationTime: Date?
    var localOffsetInSeconds: Int?
    var isFullRefresh = true
    var incidents: [TrafficIncident] = []
    var problems: [FeedError] = []

    init(options: FeedOptions) {
      self.options = options
    }

    func open(_ node: XMLNode, depth: Int) {
      if DATEXIIDecoder.isDATEXIINamespace(node.namespace) { sawDATEXII = true }
      if node.name == "payloadPublication" || node.name == "payload"
        || node.name == "situationPublication",
        let lang = node.attributes["lang"], let code = try? LanguageCode(lang)
      {
        language = code
      }
    }

    func close(_ node: XMLNode, parent: String?) {
      guard let value = node.value else { return }
      switch node.name {
      case "publicationTime":
        if publicationTime == nil {
          publicationTime = FeedDates.parseISO8601(value)
          localOffsetInSeconds = FeedDates.utcOffsetInSeconds(value)
        }
      case "country":
        // The publication creator's country wins over the supplier's.
        if countryCode == nil || parent == "publicationCreator",
          DATEXIIDecoder.isCountryCode(value)
        {
          countryCode = value
        }
      case "updateMethod":
        if value == "singleElementUpdate" || value == "allElementUpdate" {
          isFullRefresh = false
        } else if value.lowercased().contains("snapshot") {
          isFullRefresh = true
        }
      case "feedType", "publicationType":
        let lower = value.lowercased()
        if lower.contains("delta") || lower.contains("update") {
          isFullRefresh = false
        } else if lower.contains("snapshot") {
          isFullRefresh = true
        }
      default:
        break
      }
    }

    func situation(_ node: XMLNode, number: Int) {
      let context = DATEXIIDecoder.RecordContext(
        options: options, language: language ?? options.defaultLanguage,
        countryCode: countryCode ?? options.defaultCountryCode,
        publicationTime: publicationTime, localOffsetInSeconds: localOffsetInSeconds)
      for result in DATEXIIDecoder.incidents(fromSituation: node, number: number, context) {
        switch result {
        case .success(let incident): incidents.append(incident)
        case .failure(let problem): problems.append(problem)
        }
      }
    }
  }

  /// Whether `text` is two ASCII letters.
  /// Whether `text` names a country: two letters, but none of ISO 3166-1's user-assigned
  /// codes (`AA`, `QM`–`QZ`, `XA`–`XZ`, `ZZ`), which publishers write for "unknown" (as
  /// this project's publisher writes `xx`) and which name no country, but for `XK`, the
  /// code the European Union gives Kosovo.
  static func isCountryCode(_ text: String) -> Bool {
    guard text.count == 2, text.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
    let code = text.uppercased()
    if code == "XK" { return true }
    if code == "AA" || code == "ZZ" || code.hasPrefix("X") { return false }
    return !(code.hasPrefix("Q") && code >= "QM")
  }
}
