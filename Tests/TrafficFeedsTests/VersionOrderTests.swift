import Codec
import Foundation
import Geo
import Testing
import Traffic

@testable import TrafficFeeds

/// A record's versions are ordered by the source's version (DATEX II `version`, WZDx
/// `update_date`, Open511 `updated`), not by its creation time, which publishers keep across
/// versions: a late copy of an older version never replaces a newer one, and never brings a
/// cancelled or archived record back.
@Suite struct VersionOrderTests {
  private static let now = Date(timeIntervalSince1970: 1_714_660_000)

  private static func time(_ offset: TimeInterval) -> String {
    RFC3339.format(now + offset)
  }

  /// One DATEX II v3 accident record `r1`, created an hour ago.
  private static func datex(
    version: Int, versionTime: TimeInterval, cancelled: Bool, written: String = "true"
  ) -> Data {
    let management =
      cancelled
      ? "<sit:management><sit:lifeCycleManagement><sit:cancel>\(written)</sit:cancel>"
        + "</sit:lifeCycleManagement></sit:management>" : ""
    return Data(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <payload xmlns="http://datex2.eu/schema/3/d2Payload" \
      xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
      xmlns:sit="http://datex2.eu/schema/3/situation" \
      xmlns:com="http://datex2.eu/schema/3/common" \
      xmlns:loc="http://datex2.eu/schema/3/locationReferencing" \
      xsi:type="sit:SituationPublication" lang="en" modelBaseVersion="3">
      <com:publicationTime>\(time(versionTime))</com:publicationTime>
      <com:publicationCreator><com:country>DE</com:country>\
      <com:nationalIdentifier>T</com:nationalIdentifier></com:publicationCreator>
      <sit:situation id="s1" version="\(version)">
      <sit:situationRecord xsi:type="sit:Accident" id="r1" version="\(version)">
      <sit:situationRecordCreationTime>\(time(-3600))</sit:situationRecordCreationTime>
      <sit:situationRecordVersionTime>\(time(versionTime))</sit:situationRecordVersionTime>
      <sit:severity>\(cancelled ? "highest" : "medium")</sit:severity>
      <sit:validity><com:validityStatus>active</com:validityStatus>\
      <com:validityTimeSpecification><com:overallStartTime>\(time(-3600))</com:overallStartTime>\
      <com:overallEndTime>\(time(3 * 3600))</com:overallEndTime></com:validityTimeSpecification>\
      </sit:validity>
      <sit:locationReference xsi:type="loc:SingleRoadLinearLocation"><loc:gmlLineString \
      srsName="EPSG:4326"><loc:posList>45.0 7.0 45.001 7.001</loc:posList></loc:gmlLineString>\
      </sit:locationReference>
      \(management)<sit:accidentType>accident</sit:accidentType>
      </sit:situationRecord>
      </sit:situation>
      </payload>
      """.utf8)
  }

  /// One WZDx 4.2 work zone `w1`, created a day ago.
  private static func wzdx(updated: TimeInterval, impact: String) -> Data {
    Data(
      """
      {"feed_info": {"publisher": "T", "version": "4.2", "update_date": "\(time(updated))",
       "data_sources": [{"data_source_id": "d", "organization_name": "T"}]},
       "type": "FeatureCollection", "features": [{"id": "w1", "type": "Feature", "properties": {
        "core_details": {"event_type": "work-zone", "data_source_id": "d", "road_names": ["B1"],
         "direction": "eastbound", "creation_date": "\(time(-86_400))",
         "update_date": "\(time(updated))"},
        "start_date": "\(time(-3600))", "end_date": "\(time(86_400))",
        "is_start_date_verified": false, "is_end_date_verified": false,
        "is_start_position_verified": false, "is_end_position_verified": false,
        "location_method": "unknown", "vehicle_impact": "\(impact)"},
       "geometry": {"type": "LineString", "coordinates": [[13.6, 52.52], [13.605, 52.52]]}}]}
      """.utf8)
  }

  /// One Open511 event `o1`, created a day ago.
  private static func open511(updated: TimeInterval, status: String) -> Data {
    Data(
      """
      {"events": [{"id": "t/o1", "status": "\(status)", "headline": "Roadworks",
       "event_type": "CONSTRUCTION", "severity": "MAJOR", "created": "\(time(-86_400))",
       "updated": "\(time(updated))", "geography": {"type": "Point", "coordinates": [-123.5, 49.5]},
       "schedule": {"intervals": ["\(time(-3600))/\(time(86_400))"]}}]}
      """.utf8)
  }

  private static func apply(
    _ data: Data, _ format: FeedFormat, to engine: TrafficEngine
  ) throws -> IngestReport {
    var application = try FeedApplication(
      decoding: .data(data), format: format,
      options: FeedOptions(sourceName: "S", now: now), given: "S")
    return try application.apply(to: engine)
  }

  @Test func aLateOlderDATEXVersionDoesNotBringACancelledRecordBack() async throws {
    let engine = try TrafficEngine(store: InMemoryTrafficStore(), clock: { Self.now })
    let first = Self.datex(version: 1, versionTime: -1200, cancelled: false)
    #expect(try Self.apply(first, .datex2, to: engine).added == 1)
    let cancelled = Self.datex(version: 2, versionTime: -300, cancelled: true)
    #expect(try Self.apply(cancelled, .datex2, to: engine).updated == 1)
    #expect(try await engine.lookupIncident(with: "r1").id == "r1_2")
    // Version 1 again, the same creation time: stale (it was `updated`, active again).
    #expect(try Self.apply(first, .datex2, to: engine).stale == 1)
    let held = try await engine.lookupIncident(with: "r1")
    #expect(held.id == "r1_2")
    #expect(held.endTime.map { $0 <= Self.now } == true, "cancelled stays ended")
  }

  @Test(arguments: ["true", "1", " 1 "])
  func aCancelWrittenAsAnyXMLSchemaTrueEndsTheRecord(written: String) async throws {
    let engine = try TrafficEngine(store: InMemoryTrafficStore(), clock: { Self.now })
    let cancelled = Self.datex(version: 2, versionTime: -300, cancelled: true, written: written)
    try Self.apply(cancelled, .datex2, to: engine)
    #expect(try await engine.lookupIncident(with: "r1").endTime == Self.now - 300)
  }

  @Test(arguments: ["completed", "cancelled", "active"])
  func aWZDxEventStatusOfCompletedOrCancelledEndsTheWorkZone(status: String) throws {
    var text = String(decoding: Self.wzdx(updated: -600, impact: "all-lanes-closed"), as: UTF8.self)
    text = text.replacingOccurrences(
      of: #""vehicle_impact""#, with: #""event_status": "\#(status)", "vehicle_impact""#)
    let document = try WZDxDecoder.decode(
      Data(text.utf8), options: FeedOptions(sourceName: "S", now: Self.now))
    let incident = try #require(document.incidents.first)
    #expect(incident.endTime == (status == "active" ? Self.now + 86_400 : Self.now - 600))
  }

  @Test func open511LocalTimesTakeTheOffsetInForceThen() throws {
    // America/Vancouver: clocks go forward 2026-03-08 02:00 and back 2026-11-01 02:00.
    func start(_ local: String) throws -> Date? {
      let data = Data(
        """
        {"events": [{"id": "t/d", "status": "ACTIVE", "event_type": "CONSTRUCTION",
         "timezone": "America/Vancouver", "geography": {"type": "Point",
         "coordinates": [-123.1, 49.3]}, "schedule": {"intervals": ["\(local)/"]}}]}
        """.utf8)
      let document = try Open511Decoder.decode(
        data, options: FeedOptions(sourceName: "S", now: Self.now))
      return document.incidents.first?.startTime
    }
    let expected = [
      "2026-03-08T05:00:00": "2026-03-08T12:00:00Z",
      "2026-11-01T03:00:00": "2026-11-01T11:00:00Z",
      "2026-11-01T06:00:00": "2026-11-01T14:00:00Z",
      "2026-07-01T12:00:00": "2026-07-01T19:00:00Z",
    ]
    for (local, utc) in expected {
      #expect(try start(local) == RFC3339.parse(utc), "\(local)")
    }
  }

  @Test func aLateOlderWZDxOrOpen511VersionIsStale() async throws {
    let engine = try TrafficEngine(store: InMemoryTrafficStore(), clock: { Self.now })
    #expect(
      try Self.apply(Self.wzdx(updated: -1800, impact: "some-lanes-closed"), .wzdx, to: engine)
        .added == 1)
    #expect(
      try Self.apply(Self.wzdx(updated: -60, impact: "all-lanes-closed"), .wzdx, to: engine)
        .updated == 1)
    #expect(
      try Self.apply(Self.wzdx(updated: -1800, impact: "some-lanes-closed"), .wzdx, to: engine)
        .stale == 1)
    #expect(try await engine.lookupIncident(with: "w1").type == .roadClosure)

    #expect(
      try Self.apply(Self.open511(updated: -1800, status: "ACTIVE"), .open511, to: engine).added
        == 1)
    #expect(
      try Self.apply(Self.open511(updated: -60, status: "ARCHIVED"), .open511, to: engine)
        .updated == 1)
    #expect(
      try Self.apply(Self.open511(updated: -1800, status: "ACTIVE"), .open511, to: engine)
        .stale == 1)
    let archived = try await engine.lookupIncident(with: "t/o1")
    #expect(archived.endTime.map { $0 <= Self.now } == true, "archived stays ended")
  }

  @Test func aRecordCreatedAgainIsNewWhateverVersionItRestartsFrom() throws {
    let engine = try TrafficEngine(store: InMemoryTrafficStore(), clock: { Self.now })
    var first = try TrafficIncident(
      id: "x_7", originalId: "x", type: .accident, impact: .major, startTime: nil, endTime: nil,
      entryTime: Self.now - 3600, isRoadClosed: false,
      location: TrafficLocation(
        polyline: GeoPolyline(vertices: [
          GeoCoordinates(latitude: 45, longitude: 7),
          GeoCoordinates(latitude: 45.001, longitude: 7.001),
        ])))
    try engine.ingest([first], from: "S", isFullRefresh: false)
    // The publisher restarted its numbering for a record entered later.
    first = try TrafficIncident(
      id: "x_1", originalId: "x", type: .accident, impact: .critical, startTime: nil,
      endTime: nil, entryTime: Self.now - 60, isRoadClosed: false, location: first.location)
    #expect(try engine.ingest([first], from: "S", isFullRefresh: false).updated == 1)
  }
}
