import Foundation
import Testing
import Traffic
import TrafficFeeds
import TrafficTestSupport

/// Shapes individual publishers give DATEX II (German state feeds, UK councils' v1.0), in
/// documents written for these tests; grid positions converted with PROJ for reference.
@Suite struct DATEXIIPublisherVariantTests {
  let options = FeedOptions(sourceName: "test", now: Date(timeIntervalSince1970: 1_750_000_000))

  /// A v2 document with one situation per record body.
  func document(_ records: [String]) -> Data {
    let situations = records.enumerated().map { index, body in
      """
      <situation id="S\(index)"><situationRecord \(body)</situationRecord></situation>
      """
    }
    return Data(
      """
      <d2LogicalModel xmlns="http://datex2.eu/schema/2/2_0" modelBaseVersion="2"
          xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
        <payloadPublication xsi:type="SituationPublication" lang="de">
          <publicationTime>2026-07-31T00:00:00Z</publicationTime>
          \(situations.joined(separator: "\n"))
        </payloadPublication>
      </d2LogicalModel>
      """.utf8)
  }

  func isClose(_ actual: [[Double]], _ expected: [[Double]]) -> Bool {
    actual.count == expected.count
      && zip(actual, expected).allSatisfy {
        abs($0[0] - $1[0]) <= 1e-8 && abs($0[1] - $1[1]) <= 1e-8
      }
  }

  /// Mecklenburg-Vorpommern writes ETRS89 / UTM 33 with the zone before the easting
  /// (EPSG:5650), easting first, and declares no system; a declared `srsName` is honoured.
  @Test func projectedPositionLists() throws {
    let data = document([
      """
      xsi:type="MaintenanceWorks" id="MV"><validity><validityStatus>active</validityStatus>
      </validity><groupOfLocations xsi:type="Linear"><linearExtension><linearExtended>
      <gmlLineString><posList>33342865.72 6020207.51 33342859.99 6020464.00</posList>
      </gmlLineString></linearExtended></linearExtension></groupOfLocations>
      """,
      """
      xsi:type="MaintenanceWorks" id="UTM32"><validity><validityStatus>active</validityStatus>
      </validity><groupOfLocations xsi:type="Linear"><linearExtension><linearExtended>
      <gmlLineString srsName="urn:ogc:def:crs:EPSG::25832"><posList>5512345.0 512345.0
      5512400.0 512400.0</posList></gmlLineString></linearExtended></linearExtension>
      </groupOfLocations>
      """,
      """
      xsi:type="MaintenanceWorks" id="UNDECLARED"><validity><validityStatus>active
      </validityStatus></validity><groupOfLocations xsi:type="Linear"><linearExtension>
      <linearExtended><gmlLineString><posList>5512345.0 512345.0 5512400.0 512400.0</posList>
      </gmlLineString></linearExtended></linearExtension></groupOfLocations>
      """,
    ])
    let decoded = try DATEXIIDecoder.decode(data, options: options)
    #expect(decoded.incidents.map(\.id) == ["MV", "UTM32"])
    #expect(
      isClose(
        pairs(decoded.incidents[0].location.polyline),
        [[54.305541513677404, 12.58487023329198], [54.30784289448461, 12.584647333973855]]))
    #expect(
      isClose(
        pairs(decoded.incidents[1].location.polyline),
        [[49.76345334072831, 9.171415298881406], [49.763946899380755, 9.172180744379768]]))
    // Plain UTM metres without a declared system cannot be placed: skipped, not guessed.
    #expect(decoded.problems.count == 1)
    #expect(decoded.problems.first?.location?.contains("UNDECLARED") == true)
  }

  /// German state feeds: `linearByCoordinates` with bare `start`/`end` pairs and indexed
  /// `intermediate` points; coordinates under extensions of the publisher's own naming.
  @Test func linearByCoordinatesAndExtensionPoints() throws {
    let data = document([
      """
      xsi:type="Accident" id="LINE"><validity><validityStatus>active</validityStatus>
      </validity><groupOfLocations xsi:type="Linear"><linearByCoordinates>
      <start><latitude>48.6206291</latitude><longitude>10.2168311</longitude></start>
      <end><latitude>48.6304951</latitude><longitude>10.2203178</longitude></end>
      <intermediate index="2"><pointCoordinates><latitude>48.627</latitude>
      <longitude>10.219</longitude></pointCoordinates></intermediate>
      <intermediate index="1"><pointCoordinates><latitude>48.625</latitude>
      <longitude>10.218</longitude></pointCoordinates></intermediate>
      </linearByCoordinates></groupOfLocations>
      """,
      """
      xsi:type="Accident" id="AREA"><validity><validityStatus>active</validityStatus>
      </validity><groupOfLocations xsi:type="Area"><areaExtension><somePublisherPoint>
      <latitude>50.1</latitude><longitude>8.6</longitude></somePublisherPoint></areaExtension>
      </groupOfLocations>
      """,
    ])
    let decoded = try DATEXIIDecoder.decode(data, options: options)
    #expect(decoded.problems.isEmpty)
    #expect(
      pairs(decoded.incidents[0].location.polyline) == [
        [48.6206291, 10.2168311], [48.625, 10.218], [48.627, 10.219], [48.6304951, 10.2203178],
      ])
    #expect(pairs(decoded.incidents[1].location.polyline) == [[50.1, 8.6], [50.1, 8.6]])
  }

  /// A management record whose type says nothing more takes the type its cause names.
  @Test func managementRecordTypedByItsCause() throws {
    let data = document([
      """
      xsi:type="SpeedManagement" id="SPEED"><validity><validityStatus>active</validityStatus>
      </validity><cause xsi:type="NonManagedCause"><causeType>roadMaintenance</causeType>
      </cause><groupOfLocations xsi:type="Point"><locationForDisplay><latitude>52.1</latitude>
      <longitude>4.3</longitude></locationForDisplay></groupOfLocations>
      <speedManagementType>speedRestrictionInOperation</speedManagementType>
      """,
      """
      xsi:type="SpeedManagement" id="PLAIN"><validity><validityStatus>active</validityStatus>
      </validity><groupOfLocations xsi:type="Point"><locationForDisplay><latitude>52.1
      </latitude><longitude>4.3</longitude></locationForDisplay></groupOfLocations>
      """,
    ])
    let decoded = try DATEXIIDecoder.decode(data, options: options)
    #expect(decoded.incidents.map(\.type) == [.construction, .other])
    #expect(decoded.incidents.map(\.details.eventKind) == [.maintenanceWork, nil])
  }

  /// DATEX II v1.0 of UK councils: version element, local times, `impactOnTraffic`.
  @Test func version1LocalTimes() throws {
    let data = try ownFixture("datex2", "v1_local_times.xml")
    #expect(FeedFormat.detect(data) == .datex2)
    let decoded = try DATEXIIDecoder.decode(data, options: options)
    #expect(decoded.problems.isEmpty)
    let works = try #require(decoded.incidents.first)
    #expect(works.id == "GUIDAB0001/1-1_2")
    #expect(works.originalId == "GUIDAB0001/1-1")
    #expect(works.type == .construction)
    #expect(works.impact == .minor)  // impactOnTraffic heavy
    // Local times at the publication time's +01:00.
    #expect(works.startTime == (try utc("2025-07-30T23:00:00Z")))
    #expect(works.endTime == (try utc("2025-08-01T22:59:59Z")))
    #expect(works.entryTime == (try utc("2025-04-18T14:38:37Z")))
    #expect(pairs(works.location.polyline) == [[52.64208, -0.24422], [52.64208, -0.24422]])
    #expect(works.details.countryCode == "GB")
  }
}
