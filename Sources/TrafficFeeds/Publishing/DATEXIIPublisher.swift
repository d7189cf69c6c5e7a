import Codec
import Foundation
import Geo
import Traffic

/// Writes a publication as a DATEX II v3 `SituationPublication`: a `d2:payload` of type
/// `sit:SituationPublication` (namespaces and element order of the v3.7 schema), one
/// `situation` per incident holding one `situationRecord`.
///
/// | model | DATEX II v3 record (`xsi:type`) | detail |
/// |---|---|---|
/// | `accident` | `Accident` | `accidentType` `multipleVehicleAccident` for a multi-vehicle accident, else `accident` |
/// | `congestion` | `AbnormalTraffic` | `abnormalTrafficType` of the event kind, `queueLength` |
/// | `construction` | `MaintenanceWorks` | `roadMaintenanceType` `maintenanceWork` for maintenance, else `roadworks` |
/// | `roadClosure`, and a closed road of a type below without a constriction | `RoadOrCarriagewayOrLaneManagement` | `roadClosed` (the cause names the type it stands for) |
/// | `laneRestriction` | `RoadOrCarriagewayOrLaneManagement` | `laneClosures` |
/// | `disabledVehicle` | `VehicleObstruction` | `vehicleOnFire` or `brokenDownVehicle` |
/// | `roadHazard` | `AnimalPresenceObstruction`, `VehicleObstruction` (wrong-way driver), `GeneralObstruction` | by event kind |
/// | `weather` | `EnvironmentalObstruction` (flooding), `WeatherRelatedRoadConditions` (ice, snow), `PoorEnvironmentConditions` | by event kind |
/// | `plannedEvent` | `PublicEvent` | `parade` for a demonstration, else `majorEvent` |
/// | `massTransit` | `GenericSituationRecord` | cause `transitServiceDisruption` |
/// | `other` (a demonstration) | `DisturbanceActivity` | `demonstration` |
/// | `other`, `unknown` | `GenericSituationRecord` | its summary as the record name |
///
/// A record's `id` is the incident's `originalId` (stable across publications) and its
/// `version` the version an `<originalId>_<version>` id names, else the id itself (never
/// empty), so that `DATEXIIDecoder` reads the same id back and a re-publication writes the
/// same version. Impact becomes `severity` (`critical`
/// `highest`, `major` `high`, `minor` `medium`, `low` `low`, `unknown` `unknown`); a closed
/// road on an accident, obstruction, congestion, condition or event record is its
/// `trafficConstrictionType` `roadBlocked`. Times: `overallStartTime` (required by DATEX
/// II: the entry time, else the publication time, when the start is unknown),
/// `overallEndTime`, `situationRecordCreationTime` (entry time) and
/// `situationRecordVersionTime`. Lanes: `numberOfLanesRestricted`,
/// `numberOfOperationalLanes` and the carriageway's `originalNumberOfLanes`; the delay is
/// `delayTimeValue`. Texts: the source texts as `generalPublicComment`s in their languages
/// (else the description). Locations: a point is a `PointLocation` (`pointByCoordinates`),
/// a line a `SingleRoadLinearLocation` with its OpenLR (`openlrLinear`, from the incident's
/// binary OpenLR line), its `gmlLineString` (`lat lon` pairs, EPSG:4326) and its ALERT-C
/// locations (`AlertCMethod2Linear`, or `AlertCMethod4Linear` with offsets); several
/// polylines are a `LocationGroupByList`. The road number, name and destination are the
/// location's `roadInformation`.
///
/// A delta (`Publication.isDelta`) says so in `feedType` (`delta`, which `DATEXIIDecoder`
/// reads as not a full refresh); its ended records carry their end in `overallEndTime`.
public enum DATEXIIPublisher {
  /// The namespaces of the v3 schema.
  static let namespaces: [(String, String?)] = [
    ("xmlns:d2", "http://datex2.eu/schema/3/d2Payload"),
    ("xmlns:com", "http://datex2.eu/schema/3/common"),
    ("xmlns:sit", "http://datex2.eu/schema/3/situation"),
    ("xmlns:loc", "http://datex2.eu/schema/3/locationReferencing"),
    ("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"),
  ]

  /// The SituationPublication of a publication.
  ///
  /// - Returns: UTF-8 XML; the same publication gives the same bytes.
  /// - Complexity: O(n) in the incidents and their vertices.
  public static func document(_ publication: Publication) -> Data {
    stream(publication).collect()
  }

  /// The SituationPublication of a publication, written piece by piece as it is read: the
  /// same bytes as `document(_:)`, in memory bounded by a piece and the selection.
  public static func stream(_ publication: Publication) -> DocumentStream {
    let incidents = publication.incidents
    return DocumentStream.pieces(
      writer: XMLWriter(capacity: 2 * DocumentStream.pieceBytes), count: incidents.count,
      header: { xml in
        xml.open(
          "d2:payload",
          namespaces + [
            ("xsi:type", "sit:SituationPublication"),
            ("lang", publication.language.identifier), ("modelBaseVersion", "3"),
          ])
        if publication.isDelta { xml.element("com:feedType", "delta") }
        xml.element("com:publicationTime", RFC3339.format(publication.publicationTime))
        xml.open("com:publicationCreator")
        xml.element("com:country", country(publication.countryCode))
        xml.element("com:nationalIdentifier", limited(publication.publisher))
        xml.close()
      },
      item: { index, xml in
        situation(incidents[incidents.startIndex + index], publication: publication, into: &xml)
      },
      footer: { $0.finishWritten() }, written: { $0.bytes.count }, take: { $0.takeWritten() })
  }

  private static func country(_ code: String) -> String {
    code.count == 2 ? code.lowercased() : "xx"
  }

  // MARK: Situations and records

  private static func situation(
    _ incident: TrafficIncident, publication: Publication, into xml: inout XMLWriter
  ) {
    let severity = severity(incident.impact)
    xml.open("sit:situation", [("id", incident.originalId)])
    xml.element("sit:overallSeverity", severity)
    xml.open("sit:headerInformation")
    xml.element("com:confidentiality", "noRestriction")
    xml.element("com:informationStatus", "real")
    xml.close()

    let record = RecordType(incident)
    let version = Publication.versionName(of: incident)
    xml.open(
      "sit:situationRecord",
      [("xsi:type", "sit:" + record.name), ("id", incident.originalId), ("version", version)])
    let created = incident.entryTime ?? publication.publicationTime
    xml.element("sit:situationRecordCreationTime", RFC3339.format(created))
    xml.element(
      "sit:situationRecordVersionTime",
      RFC3339.format(Publication.versionTime(of: incident) ?? created))
    xml.element("sit:probabilityOfOccurrence", "certain")
    xml.element("sit:severity", severity)
    let country = incident.details.countryCode
    let source = incident.sources.first?.feed
    if country != nil || source != nil {
      xml.open("sit:source")
      xml.element("com:sourceCountry", country?.lowercased())
      xml.element("com:sourceIdentification", limited(source))
      xml.close()
    }
    validity(incident, publication: publication, into: &xml)
    impact(incident.details, into: &xml)
    if let cause = record.causeType {
      xml.open("sit:cause")
      xml.element("sit:causeType", cause)
      xml.close()
    }
    comments(incident, into: &xml)
    location(incident, into: &xml)
    record.writeDetails(incident, into: &xml)
    xml.close()
    xml.close()
  }

  private static func severity(_ impact: TrafficIncidentImpact) -> String {
    switch impact {
    case .critical: return "highest"
    case .major: return "high"
    case .minor: return "medium"
    case .low: return "low"
    case .unknown: return "unknown"
    }
  }

  private static func validity(
    _ incident: TrafficIncident, publication: Publication, into xml: inout XMLWriter
  ) {
    let start = Publication.startTime(of: incident, publication: publication)
    xml.open("sit:validity")
    xml.element("com:validityStatus", "definedByValidityTimeSpec")
    xml.open("com:validityTimeSpecification")
    xml.element("com:overallStartTime", RFC3339.format(start))
    if let end = incident.endTime { xml.element("com:overallEndTime", RFC3339.format(end)) }
    xml.close()
    xml.close()
  }

  private static func impact(_ details: TrafficIncidentDetails, into xml: inout XMLWriter) {
    let closed = details.lanesClosed.flatMap { $0 > 0 ? $0 : nil }
    let open = details.totalLanes.map { $0 - (details.lanesClosed ?? 0) }
    guard closed != nil || open != nil || details.delayInSeconds != nil else { return }
    xml.open("sit:impact")
    xml.element("sit:numberOfLanesRestricted", closed.map(String.init))
    xml.element("sit:numberOfOperationalLanes", open.map(String.init))
    if let delay = details.delayInSeconds {
      xml.open("sit:delays")
      xml.element("sit:delayTimeValue", String(Int(delay.rounded())))
      xml.close()
    }
    xml.close()
  }

  private static func comments(_ incident: TrafficIncident, into xml: inout XMLWriter) {
    var texts = incident.sourceTexts.filter { !$0.text.isEmpty }
    if texts.isEmpty, !incident.description.text.isEmpty { texts = [incident.description] }
    for text in texts {
      xml.open("sit:generalPublicComment")
      xml.open("sit:comment")
      xml.open("com:values")
      // A long text is several values of its language (the schema allows 1024 characters).
      for piece in pieces(text.text) {
        xml.element("com:value", piece, attributes: [("lang", text.language.identifier)])
      }
      xml.close()
      xml.close()
      xml.element("sit:commentType", "description")
      xml.close()
    }
  }
}
