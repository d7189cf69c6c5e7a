import Codec
import Foundation
import Roads
import Traffic

extension DemoScenario {
  /// A DATEX II v2 SituationPublication (CEN/TS 16157-2, namespace
  /// `http://datex2.eu/schema/2/2_0`) of motorway roadworks with lanes closed, written in
  /// German as German road authorities publish it: a `MaintenanceWorks` record
  /// (`roadMaintenanceType` roadworks), the lanes restricted and the original lane count,
  /// the road name and number, a `generalPublicComment` with `lang="de"`, and the location as
  /// a GML line string (latitude first) of the closed stretch.
  func datexRoadworks(start: Date, end: Date, now: Date) -> String {
    let segment = roadworksSegment
    let totalLanes = segment.laneCount ?? 2
    let closed = roadworksClosedLanes
    let open = totalLanes - closed
    let road = [roadNumber(of: segment), segment.name].compactMap { $0 }.joined(separator: " ")
    let comment =
      "\(road.isEmpty ? "Autobahn" : road): Baustelle, "
      + (closed == 1 ? "linker Fahrstreifen gesperrt" : "\(closed) Fahrstreifen gesperrt")
      + ", Fahrbahn auf \(Self.germanLaneCount(open)) verengt. Stau möglich."
    let posList = Self.stretch(
      of: segment, from: Self.roadworksStartFraction, to: Self.roadworksEndFraction
    )
    .map { "\(Self.decimal($0.latitude)) \(Self.decimal($0.longitude))" }
    .joined(separator: " ")
    let roadName = segment.name.map {
      "<roadName><values><value lang=\"de\">\(Self.xmlEscaped($0))</value></values></roadName>"
    }
    let roadNumber = roadNumber(of: segment).map {
      "<roadNumber>\(Self.xmlEscaped($0))</roadNumber>"
    }
    let linearElement = [roadName, roadNumber].compactMap { $0 }.joined()
    return """
      <?xml version="1.0" encoding="UTF-8"?>
      <d2LogicalModel xmlns="http://datex2.eu/schema/2/2_0" \
      xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" modelBaseVersion="2">
        <exchange>
          <supplierIdentification><country>de</country>\
      <nationalIdentifier>swift-traffic-demo</nationalIdentifier></supplierIdentification>
        </exchange>
        <payloadPublication xsi:type="SituationPublication" lang="de">
          <feedType>snapshot</feedType>
          <publicationTime>\(RFC3339.format(now))</publicationTime>
          <publicationCreator><country>de</country>\
      <nationalIdentifier>swift-traffic-demo</nationalIdentifier></publicationCreator>
          <situation id="demo-roadworks" version="1">
            <overallSeverity>medium</overallSeverity>
            <headerInformation><confidentiality>noRestriction</confidentiality>\
      <informationStatus>real</informationStatus></headerInformation>
            <situationRecord xsi:type="MaintenanceWorks" id="demo-roadworks-1" version="1">
              <situationRecordCreationTime>\(RFC3339.format(start))</situationRecordCreationTime>
              <situationRecordVersionTime>\(RFC3339.format(start))</situationRecordVersionTime>
              <probabilityOfOccurrence>certain</probabilityOfOccurrence>
              <severity>medium</severity>
              <source><sourceCountry>de</sourceCountry>\
      <sourceIdentification>swift-traffic-demo</sourceIdentification></source>
              <validity>
                <validityStatus>definedByValidityTimeSpec</validityStatus>
                <validityTimeSpecification>
                  <overallStartTime>\(RFC3339.format(start))</overallStartTime>
                  <overallEndTime>\(RFC3339.format(end))</overallEndTime>
                </validityTimeSpecification>
              </validity>
              <impact>
                <numberOfLanesRestricted>\(closed)</numberOfLanesRestricted>
                <numberOfOperationalLanes>\(open)</numberOfOperationalLanes>
                <originalNumberOfLanes>\(totalLanes)</originalNumberOfLanes>
              </impact>
              <generalPublicComment>
                <comment><values><value lang="de">\(Self.xmlEscaped(comment))</value></values></comment>
                <commentType>description</commentType>
              </generalPublicComment>
              <groupOfLocations xsi:type="Linear">
                <linearWithinLinearElement><linearElement>\(linearElement)</linearElement>\
      </linearWithinLinearElement>
                <linearExtension><gmlLineString><posList srsDimension="2">\(posList)</posList>\
      </gmlLineString></linearExtension>
              </groupOfLocations>
              <roadMaintenanceType>roadworks</roadMaintenanceType>
            </situationRecord>
          </situation>
        </payloadPublication>
      </d2LogicalModel>

      """
  }

  /// A Waze for Cities (CCP) feed window with one `ACCIDENT` / `ACCIDENT_MAJOR` alert in the
  /// middle of the accident segment.
  func wazeAccident(start: Date, now: Date) -> String {
    let segment = accidentSegment
    let point = segment.geometry.coordinates(atDistance: segment.lengthInMeters / 2)
    let street = [roadNumber(of: segment), segment.name].compactMap { $0 }.joined(separator: " ")
    let startMillis = Int(start.timeIntervalSince1970 * 1000)
    let nowMillis = Int(now.timeIntervalSince1970 * 1000)
    let magvar = Int(Self.heading(of: segment).rounded()) % 360
    return """
      {
        "startTimeMillis": \(nowMillis - 60_000),
        "endTimeMillis": \(nowMillis),
        "startTime": "\(RFC3339.format(now.addingTimeInterval(-60)))",
        "endTime": "\(RFC3339.format(now))",
        "alerts": [
          {
            "uuid": "demo-accident",
            "country": "DE",
            "type": "ACCIDENT",
            "subtype": "ACCIDENT_MAJOR",
            "street": \(Self.jsonString(street.isEmpty ? "Motorway" : street)),
            "roadType": 3,
            "magvar": \(magvar),
            "location": {"x": \(Self.decimal(point.longitude)), "y": \(Self.decimal(point.latitude))},
            "pubMillis": \(startMillis),
            "reportDescription": "Serious accident, emergency services on site",
            "reliability": 8,
            "confidence": 3,
            "reportRating": 4,
            "nThumbsUp": 6
          }
        ]
      }

      """
  }

  /// A WZDx 4.2 WorkZoneFeed (US DOT, Work Zone Data Exchange v4.2) with one work zone
  /// closing one lane of the work-zone segment (`some-lanes-closed`), along its whole
  /// geometry.
  func wzdxWorkZone(start: Date, end: Date, now: Date) -> String {
    let segment = workZoneSegment
    let lanes = max(segment.laneCount ?? 2, 2)
    let road = segment.name ?? segment.ref ?? "Zubringer zur \(motorwayNumber ?? "Autobahn")"
    var laneList = JSONWriter()
    laneList.beginArray()
    for order in 1...lanes {
      laneList.beginObject()
      laneList.member("order", order)
      laneList.member("type", "general")
      laneList.member("status", order == lanes ? "closed" : "open")
      laneList.endObject()
    }
    laneList.endArray()
    return """
      {
        "feed_info": {
          "publisher": "swift-traffic demo",
          "version": "4.2",
          "license": "https://creativecommons.org/publicdomain/zero/1.0/",
          "update_date": "\(RFC3339.format(now))",
          "update_frequency": 60,
          "contact_name": "swift-traffic",
          "data_sources": [
            {"data_source_id": "demo", "organization_name": "swift-traffic demo", \
      "update_date": "\(RFC3339.format(now))"}
          ]
        },
        "type": "FeatureCollection",
        "features": [
          {
            "id": "demo-work-zone",
            "type": "Feature",
            "properties": {
              "core_details": {
                "event_type": "work-zone",
                "data_source_id": "demo",
                "road_names": [\(Self.jsonString(road))],
                "direction": "\(Self.wzdxDirection(Self.heading(of: segment)))",
                "name": "Resurfacing",
                "description": "Resurfacing: one lane closed, the others open.",
                "creation_date": "\(RFC3339.format(start))",
                "update_date": "\(RFC3339.format(start))"
              },
              "start_date": "\(RFC3339.format(start))",
              "end_date": "\(RFC3339.format(end))",
              "is_start_date_verified": true,
              "is_end_date_verified": false,
              "is_start_position_verified": true,
              "is_end_position_verified": true,
              "location_method": "channel-device-method",
              "vehicle_impact": "some-lanes-closed",
              "types_of_work": [{"type_name": "surface-work", "is_architectural_change": false}],
              "worker_presence": {"are_workers_present": true, "method": "scheduled"},
              "lanes": \(String(decoding: laneList.bytes, as: UTF8.self))
            },
            "geometry": \(Self.lineString(segment.geometry))
          }
        ]
      }

      """
  }

  /// An Open511 events document (open511.org, Road Events v1) with one incident whose road
  /// is `CLOSED`, along the closure segment; schedule times are written in UTC without an
  /// offset, as Open511 writes local times, with `updated` at offset zero.
  func open511Closure(start: Date, end: Date, now: Date) -> String {
    let segment = closureSegment
    let name = segment.name ?? segment.ref ?? "Road"
    func local(_ date: Date) -> String { String(RFC3339.format(date).prefix(19)) }
    return """
      {
        "meta": {"version": "v1"},
        "events": [
          {
            "id": "swift-traffic.demo/closure-1",
            "status": "ACTIVE",
            "headline": \(Self.jsonString("\(name) closed")),
            "description": \(Self.jsonString(
              "\(name) is closed in both directions for a water main repair.")),
            "event_type": "INCIDENT",
            "severity": "MAJOR",
            "created": "\(RFC3339.format(start))",
            "updated": "\(RFC3339.format(start))",
            "roads": [{"name": \(Self.jsonString(name)), "direction": "BOTH", "state": "CLOSED"}],
            "geography": \(Self.lineString(segment.geometry)),
            "schedule": {"intervals": ["\(local(start))/\(local(end))"]}
          }
        ]
      }

      """
  }

  /// "einen Fahrstreifen", "zwei Fahrstreifen", ...
  static func germanLaneCount(_ count: Int) -> String {
    let words = [1: "einen", 2: "zwei", 3: "drei", 4: "vier", 5: "fünf"]
    return "\(words[count] ?? String(count)) Fahrstreifen"
  }

  /// WZDx's direction of travel from a heading in degrees clockwise from north.
  static func wzdxDirection(_ heading: Double) -> String {
    switch (heading.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(
      dividingBy: 360)
    {
    case 45..<135: return "eastbound"
    case 135..<225: return "southbound"
    case 225..<315: return "westbound"
    default: return "northbound"
    }
  }

  /// Degrees with 6 decimals (about 0.1 m).
  static func decimal(_ value: Double) -> String {
    String(format: "%.6f", value)
  }

  /// Text for XML character data and attribute values.
  static func xmlEscaped(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;")
      .replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;")
      .replacingOccurrences(of: "\"", with: "&quot;")
  }

  /// A polyline as a GeoJSON `LineString` object.
  static func lineString(_ polyline: GeoPolyline) -> String {
    // A polyline always has the two vertices a line string needs.
    let json = (try? GeoJSON.encode(.lineString(polyline.vertices))) ?? Data()
    return String(decoding: json, as: UTF8.self)
  }

  /// A JSON string literal (escaped by the one JSON writer).
  static func jsonString(_ text: String) -> String {
    var writer = JSONWriter()
    writer.string(text)
    return String(decoding: writer.bytes, as: UTF8.self)
  }
}
