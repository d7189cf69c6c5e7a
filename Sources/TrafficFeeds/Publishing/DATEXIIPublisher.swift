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
/// `version` the version an `<originalId>_<version>` id names, else the id itself, so that
/// `DATEXIIDecoder` reads the same incident back. Impact becomes `severity` (`critical`
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
    var xml = XMLWriter(capacity: 1024 + publication.incidents.count * 2048)
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
    xml.element("com:nationalIdentifier", publication.publisher)
    xml.close()
    for incident in publication.incidents {
      situation(incident, publication: publication, into: &xml)
    }
    return xml.finish()
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
    let version =
      Publication.versionNumber(of: incident).map(String.init)
      ?? (incident.id == incident.originalId ? "" : incident.id)
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
      xml.element("com:sourceIdentification", source)
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
    let start = incident.startTime ?? incident.entryTime ?? publication.publicationTime
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
      xml.element("com:value", text.text, attributes: [("lang", text.language.identifier)])
      xml.close()
      xml.close()
      xml.element("sit:commentType", "description")
      xml.close()
    }
  }

  /// The record type of an incident and the detail elements it requires.
  struct RecordType {
    var name: String
    /// The cause written for a record whose type alone does not say it.
    var causeType: String?
    /// The type's own elements, in schema order, after the location.
    var details: [(String, String)] = []
    /// Whether the type is a `TrafficElement`, which may carry `trafficConstrictionType`.
    var isTrafficElement = false
    /// Whether `NetworkManagement` requires `complianceOption` first.
    var isNetworkManagement = false

    init(_ incident: TrafficIncident) {
      let kind = incident.details.eventKind
      switch (incident.type, kind) {
      case (.accident, _):
        self.init(
          "Accident",
          ("accidentType", kind == .multiVehicleAccident ? "multipleVehicleAccident" : "accident"),
          trafficElement: true)
      case (.congestion, _):
        let type: String?
        switch kind {
        case .stationaryTraffic: type = "stationaryTraffic"
        case .queuingTraffic: type = "queuingTraffic"
        case .slowTraffic: type = "slowTraffic"
        default: type = nil
        }
        self.init(name: "AbnormalTraffic", isTrafficElement: true)
        if let type { details.append(("abnormalTrafficType", type)) }
        if let queue = incident.details.queueLengthInMeters {
          details.append(("queueLength", String(Int(queue.rounded()))))
        }
      case (.construction, _):
        self.init(
          "MaintenanceWorks",
          ("roadMaintenanceType", kind == .maintenanceWork ? "maintenanceWork" : "roadworks"))
      case (.roadClosure, _):
        self.init(name: "RoadOrCarriagewayOrLaneManagement", isNetworkManagement: true)
        details = [("roadOrCarriagewayOrLaneManagementType", "roadClosed")]
      case (.laneRestriction, _):
        self.init(name: "RoadOrCarriagewayOrLaneManagement", isNetworkManagement: true)
        details = [("roadOrCarriagewayOrLaneManagementType", "laneClosures")]
      case (.disabledVehicle, _):
        self.init(
          "VehicleObstruction",
          ("vehicleObstructionType", kind == .vehicleFire ? "vehicleOnFire" : "brokenDownVehicle"),
          trafficElement: true)
      case (.roadHazard, .animalsOnRoad?):
        self.init(
          "AnimalPresenceObstruction", ("animalPresenceType", "animalsOnTheRoad"),
          trafficElement: true)
      case (.roadHazard, .wrongWayDriver?):
        self.init(
          "VehicleObstruction", ("vehicleObstructionType", "vehicleOnWrongCarriageway"),
          trafficElement: true)
      case (.roadHazard, _):
        let type: String
        switch kind {
        case .peopleOnRoad: type = "peopleOnRoadway"
        case .objectOnRoad: type = "objectOnTheRoad"
        default: type = "hazardsOnTheRoad"
        }
        self.init("GeneralObstruction", ("obstructionType", type), trafficElement: true)
      case (.weather, .flooding?):
        self.init(
          "EnvironmentalObstruction", ("environmentalObstructionType", "flooding"),
          trafficElement: true)
      case (.weather, .ice?):
        self.init(
          "WeatherRelatedRoadConditions", ("weatherRelatedRoadConditionType", "ice"),
          trafficElement: true)
      case (.weather, .snow?):
        self.init(
          "WeatherRelatedRoadConditions", ("weatherRelatedRoadConditionType", "snowOnTheRoad"),
          trafficElement: true)
      case (.weather, _):
        let type: String
        switch kind {
        case .fog: type = "fog"
        case .strongWinds: type = "strongWinds"
        default: type = "badWeather"
        }
        self.init("PoorEnvironmentConditions", ("poorEnvironmentType", type), trafficElement: true)
      case (.plannedEvent, _):
        self.init(
          "PublicEvent", ("publicEventType", kind == .demonstration ? "parade" : "majorEvent"),
          trafficElement: true)
      case (.other, .demonstration?):
        self.init(
          "DisturbanceActivity", ("disturbanceActivityType", "demonstration"),
          trafficElement: true)
      case (.massTransit, _):
        self.init(name: "GenericSituationRecord", causeType: "transitServiceDisruption")
        details = [("genericSituationRecordName", Self.name(incident))]
      case (.other, _), (.unknown, _):
        self.init(name: "GenericSituationRecord")
        details = [("genericSituationRecordName", Self.name(incident))]
      }
      // A closed road on a record that cannot say it (an operator action or a generic
      // record): a road closure, caused by what the incident is.
      if incident.isRoadClosed, !isTrafficElement,
        !(name == "RoadOrCarriagewayOrLaneManagement" && details.first?.1 == "roadClosed")
      {
        let cause = Self.causeType(of: incident.type)
        self.init(name: "RoadOrCarriagewayOrLaneManagement", isNetworkManagement: true)
        causeType = cause
        details = [("roadOrCarriagewayOrLaneManagementType", "roadClosed")]
      }
    }

    private init(_ name: String, _ detail: (String, String), trafficElement: Bool = false) {
      self.init(name: name, isTrafficElement: trafficElement)
      details = [detail]
    }

    private init(
      name: String, causeType: String? = nil, isTrafficElement: Bool = false,
      isNetworkManagement: Bool = false
    ) {
      self.name = name
      self.causeType = causeType
      self.isTrafficElement = isTrafficElement
      self.isNetworkManagement = isNetworkManagement
    }

    private static func name(_ incident: TrafficIncident) -> String {
      let summary = incident.summary.text
      return summary.isEmpty ? incident.type.rawValue : summary
    }

    /// The DATEX II cause of a closure for an incident of `type`.
    private static func causeType(of type: TrafficIncidentType) -> String? {
      switch type {
      case .construction: return "roadMaintenance"
      case .massTransit: return "transitServiceDisruption"
      case .laneRestriction: return "roadOrCarriagewayOrLaneManagement"
      default: return nil
      }
    }

    func writeDetails(_ incident: TrafficIncident, into xml: inout XMLWriter) {
      if isTrafficElement, incident.isRoadClosed {
        xml.element("sit:trafficConstrictionType", "roadBlocked")
      }
      if isNetworkManagement {
        xml.element("sit:complianceOption", "mandatory")
      }
      for (element, value) in details { xml.element("sit:" + element, value) }
    }
  }

  // MARK: Locations

  private static func location(_ incident: TrafficIncident, into xml: inout XMLWriter) {
    let location = incident.location
    let polylines = location.allPolylines
    if polylines.count == 1 {
      member(
        polylines[0], of: incident, isFirst: true, element: "sit:locationReference", into: &xml)
      return
    }
    xml.open("sit:locationReference", [("xsi:type", "loc:LocationGroupByList")])
    for (index, polyline) in polylines.enumerated() {
      member(
        polyline, of: incident, isFirst: index == 0, element: "loc:locationContainedInGroup",
        into: &xml)
    }
    xml.close()
  }

  /// One location: a point or a line; the first carries the references and road.
  private static func member(
    _ polyline: GeoPolyline, of incident: TrafficIncident, isFirst: Bool, element: String,
    into xml: inout XMLWriter
  ) {
    let vertices = polyline.vertices
    let isPoint = vertices.allSatisfy { $0 == vertices[0] }
    xml.open(
      element, [("xsi:type", isPoint ? "loc:PointLocation" : "loc:SingleRoadLinearLocation")])
    supplementaryDescription(incident.details, into: &xml)
    let tmc = isFirst ? incident.location.tmc : []
    if isPoint {
      xml.open("loc:pointByCoordinates")
      coordinates("loc:pointCoordinates", vertices[0], into: &xml)
      xml.close()
      for reference in tmc { alertC(reference, isLinear: false, into: &xml) }
    } else {
      if isFirst, let text = incident.location.openLR,
        case .line(let line)? = try? OpenLR.decode(base64: text)
      {
        openLR(line, into: &xml)
      }
      xml.open("loc:gmlLineString", [("srsName", "EPSG:4326"), ("srsDimension", "2")])
      var positions = ""
      positions.reserveCapacity(vertices.count * 24)
      for (index, vertex) in vertices.enumerated() {
        if index > 0 { positions += " " }
        positions += degrees(vertex.latitude) + " " + degrees(vertex.longitude)
      }
      xml.element("loc:posList", positions)
      xml.close()
      for reference in tmc { alertC(reference, isLinear: true, into: &xml) }
    }
    xml.close()
  }

  private static func supplementaryDescription(
    _ details: TrafficIncidentDetails, into xml: inout XMLWriter
  ) {
    let road = [details.towards, details.roadName, details.roadNumber]
    guard details.totalLanes != nil || road.contains(where: { $0 != nil }) else { return }
    xml.open("loc:supplementaryPositionalDescription")
    if let total = details.totalLanes {
      xml.open("loc:carriageway")
      xml.element("loc:carriageway", "mainCarriageway")
      xml.element("loc:originalNumberOfLanes", String(total))
      xml.close()
    }
    if road.contains(where: { $0 != nil }) {
      xml.open("loc:roadInformation")
      xml.element("loc:roadDestination", details.towards)
      xml.element("loc:roadName", details.roadName)
      xml.element("loc:roadNumber", details.roadNumber)
      xml.close()
    }
    xml.close()
  }

  private static func coordinates(
    _ element: String, _ point: GeoCoordinates, into xml: inout XMLWriter
  ) {
    xml.open(element)
    xml.element("loc:latitude", degrees(point.latitude))
    xml.element("loc:longitude", degrees(point.longitude))
    xml.close()
  }

  /// Degrees with 7 decimals (about 1 cm), without trailing zeros.
  private static func degrees(_ value: Double) -> String {
    var text = String(format: "%.7f", value)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text == "-0" ? "0" : text
  }

  private static func openLR(_ line: OpenLR.Line, into xml: inout XMLWriter) {
    guard line.points.count >= 2 else { return }
    xml.open("loc:openlrLinear")
    xml.open("loc:firstDirection")
    for point in line.points.dropLast() {
      xml.open("loc:openlrLocationReferencePoint")
      coordinates("loc:openlrCoordinates", point.coordinates, into: &xml)
      lineAttributes(point, into: &xml)
      xml.open("loc:openlrPathAttributes")
      xml.element(
        "loc:openlrLowestFrcToNextLRPoint",
        "frc\(min(max(point.lowestFunctionalRoadClassToNext, 0), 7))")
      xml.element(
        "loc:openlrDistanceToNextLRPoint",
        String(Int(max(0, point.distanceToNextInMeters).rounded())))
      xml.close()
      xml.close()
    }
    if let last = line.points.last {
      xml.open("loc:openlrLastLocationReferencePoint")
      coordinates("loc:openlrCoordinates", last.coordinates, into: &xml)
      lineAttributes(last, into: &xml)
      xml.close()
    }
    if line.positiveOffset > 0 || line.negativeOffset > 0 {
      xml.open("loc:openlrOffsets")
      xml.element("loc:openlrPositiveOffset", String(Int(line.positiveOffset.rounded())))
      xml.element("loc:openlrNegativeOffset", String(Int(line.negativeOffset.rounded())))
      xml.close()
    }
    xml.close()
    xml.close()
  }

  private static func lineAttributes(_ point: OpenLR.ReferencePoint, into xml: inout XMLWriter) {
    xml.open("loc:openlrLineAttributes")
    xml.element("loc:openlrFunctionalRoadClass", "frc\(min(max(point.functionalRoadClass, 0), 7))")
    xml.element("loc:openlrFormOfWay", formOfWay(point.formOfWay))
    let bearing = Int(point.bearingInDegrees.rounded()) % 360
    xml.element("loc:openlrBearing", String(bearing < 0 ? bearing + 360 : bearing))
    xml.close()
  }

  private static func formOfWay(_ value: OpenLR.FormOfWay) -> String {
    switch value {
    case .undefined: return "undefined"
    case .motorway: return "motorway"
    case .multipleCarriageway: return "multipleCarriageway"
    case .singleCarriageway: return "singleCarriageway"
    case .roundabout: return "roundabout"
    case .trafficSquare: return "trafficSquare"
    case .slipRoad: return "slipRoad"
    case .other: return "other"
    }
  }

  /// An ALERT-C location: method 4 when it has offsets, else method 2.
  private static func alertC(
    _ reference: TMCLocationReference, isLinear: Bool, into xml: inout XMLWriter
  ) {
    let hasOffsets =
      reference.primaryOffsetInMeters != nil || reference.secondaryOffsetInMeters != nil
    let method = hasOffsets ? 4 : 2
    guard !isLinear || reference.secondaryLocationCode != nil else { return }
    let element = isLinear ? "loc:alertCLinear" : "loc:alertCPoint"
    xml.open(
      element,
      [("xsi:type", "loc:AlertCMethod\(method)" + (isLinear ? "Linear" : "Point"))])
    xml.element("loc:alertCLocationCountryCode", reference.countryCode)
    xml.element("loc:alertCLocationTableNumber", reference.tableNumber)
    xml.element("loc:alertCLocationTableVersion", reference.tableVersion ?? "")
    xml.open("loc:alertCDirection")
    xml.element(
      "loc:alertCDirectionCoded", reference.direction == .negative ? "negative" : "positive")
    let affected: String
    switch reference.direction {
    case .positive, .negative: affected = "aligned"
    case .both: affected = "both"
    case .unknown: affected = "unknown"
    }
    xml.element("loc:alertCAffectedDirection", affected)
    xml.close()
    pointLocation(
      "loc:alertCMethod\(method)PrimaryPointLocation", code: reference.primaryLocationCode,
      offset: hasOffsets ? reference.primaryOffsetInMeters ?? 0 : nil, into: &xml)
    if isLinear, let secondary = reference.secondaryLocationCode {
      pointLocation(
        "loc:alertCMethod\(method)SecondaryPointLocation", code: secondary,
        offset: hasOffsets ? reference.secondaryOffsetInMeters ?? 0 : nil, into: &xml)
    }
    xml.close()
  }

  private static func pointLocation(
    _ element: String, code: Int, offset: Double?, into xml: inout XMLWriter
  ) {
    xml.open(element)
    xml.open("loc:alertCLocation")
    xml.element("loc:specificLocation", String(code))
    xml.close()
    if let offset {
      xml.open("loc:offsetDistance")
      xml.element("loc:offsetDistance", String(Int(max(0, offset).rounded())))
      xml.close()
    }
    xml.close()
  }
}
