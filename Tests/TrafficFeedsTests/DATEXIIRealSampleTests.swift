import Foundation
import Testing
import Traffic
import TrafficFeeds
import TrafficTestSupport

/// Published DATEX II documents of real publishers (see `Fixtures/README.md`); the expected
/// values are read from the files by hand, positions in national grids converted with PROJ.
@Suite struct DATEXIIRealSampleTests {
  let options = FeedOptions(sourceName: "test", now: Date(timeIntervalSince1970: 1_750_000_000))

  func decode(_ name: String) throws -> FeedDocument {
    let data = try ownFixture("datex2", name)
    #expect(FeedFormat.detect(data) == .datex2)
    return try DATEXIIDecoder.decode(data, options: options)
  }

  /// Whether `polyline` is the point `expected` (a point is stored as two equal vertices),
  /// within 1e-8 degrees (about a millimetre) in latitude and longitude.
  func isClose(_ polyline: GeoPolyline, _ expected: [[Double]]) -> Bool {
    let actual = pairs(polyline)
    let expected = expected + expected
    return actual.count == expected.count
      && zip(actual, expected).allSatisfy {
        abs($0[0] - $1[0]) <= 1e-8 && abs($0[1] - $1[1]) <= 1e-8
      }
  }

  /// DGT (Spain) publishes DATEX II v3.6 under `http://levelC/schema/3/...` namespaces, most
  /// records as `GenericSituationRecord` typed by their `causeType`, locations as TPEG points
  /// and from/to pairs, times with `+01:00`/`+02:00` offsets.
  @Test func dgtLevelCNamespacesAndGenericRecords() throws {
    let document = try decode("real-dgt-v3-levelc.xml")
    #expect(document.problems.isEmpty)
    #expect(document.isFullRefresh)
    #expect(isNear(document.publicationTime, try utc("2026-09-02T22:52:41Z") + 0.560))
    #expect(
      document.incidents.map(\.id) == ["27433286_1", "20276492_3", "26710501_2", "27470012_1"])
    #expect(
      document.incidents.map(\.type) == [.accident, .roadClosure, .weather, .disabledVehicle])
    #expect(document.incidents.map(\.impact) == [.low, .critical, .minor, .minor])
    #expect(
      document.incidents.map(\.details.eventKind) == [
        .accident, nil, .flooding, .brokenDownVehicle,
      ])

    let accident = document.incidents[0]
    #expect(accident.startTime == (try utc("2026-09-02T04:30:00Z")))
    #expect(accident.endTime == nil)
    #expect(accident.entryTime == (try utc("2026-09-02T04:32:54Z")))
    #expect(
      pairs(accident.location.polyline) == [[39.136375, -0.48124817], [39.136375, -0.48124817]])
    #expect(accident.details.roadName == "CV-550")

    let closure = document.incidents[1]
    #expect(closure.isRoadClosed)
    #expect(closure.startTime == (try utc("2026-02-19T12:00:00Z")))
    #expect(closure.endTime == (try utc("2026-12-31T22:59:00Z")))
    #expect(closure.entryTime == (try utc("2026-02-19T12:19:14Z")))
    // `to` comes before `from` in the file: the line still runs from `from` to `to`.
    #expect(
      pairs(closure.location.polyline) == [[37.41493, -4.5017304], [37.31576, -4.3549824]])

    let flooding = document.incidents[2]
    #expect(flooding.startTime == (try utc("2026-09-01T16:00:00Z")))
    #expect(flooding.entryTime == (try utc("2026-09-01T16:05:10Z")))
    #expect(
      pairs(flooding.location.polyline) == [[37.458626, -3.6391692], [37.458626, -3.6391692]])
  }

  /// Fintraffic's v3 variable speed limits write ETRS-TM35FIN metres in `latitude` (northing)
  /// and `longitude` (easting).
  @Test func fintrafficV3GridMetres() throws {
    let document = try decode("real-fintraffic-v3-speed-management.xml")
    #expect(document.problems.isEmpty)
    #expect(isNear(document.publicationTime, try utc("2025-09-22T09:29:34Z") + 0.995))
    #expect(
      document.incidents.map(\.id) == [
        "KRM021323_1758233391165", "KRM01K001_1758247908068",
      ])
    #expect(document.incidents.map(\.type) == [.other, .other])
    #expect(document.incidents.map(\.impact) == [.major, .major])
    #expect(isNear(document.incidents[0].startTime, try utc("2025-09-18T22:09:51Z") + 0.165))
    #expect(isNear(document.incidents[0].entryTime, try utc("2025-09-18T22:09:51Z") + 0.165))
    #expect(document.incidents[0].details.countryCode == "FI")
    // N 6 704 207, E 286 946 and N 6 672 259, E 379 389 (EPSG:3067), by PROJ.
    #expect(
      isClose(document.incidents[0].location.polyline, [[60.417834350822986, 23.129905037484345]]))
    #expect(
      isClose(document.incidents[1].location.polyline, [[60.169370796085396, 24.826265157697488]]))
  }

  /// Fintraffic's v2 feed writes the same grid with the easting in `latitude`.
  @Test func fintrafficV2SwappedGridMetres() throws {
    let document = try decode("real-fintraffic-v2-speed-management.xml")
    #expect(document.problems.isEmpty)
    #expect(document.incidents.map(\.originalId) == ["KRM043951", "KRM044051"])
    #expect(isNear(document.incidents[1].startTime, try utc("2021-04-13T05:13:21Z") + 0.932))
    // E 326 986.03, N 6 818 407 and E 328 063, N 6 818 573 (EPSG:3067), by PROJ.
    #expect(
      isClose(document.incidents[0].location.polyline, [[61.460652524545004, 23.75306534254971]]))
    #expect(
      isClose(document.incidents[1].location.polyline, [[61.46261996475703, 23.77308473951295]]))
  }

  /// Grid metres are only read as such for Finnish publishers: elsewhere they stay an error.
  @Test func gridMetresOfOtherCountriesAreSkipped() throws {
    var text = String(
      decoding: try ownFixture("datex2", "real-fintraffic-v3-speed-management.xml"), as: UTF8.self)
    text = text.replacingOccurrences(of: "<country>FI</country>", with: "<country>SE</country>")
    let document = try DATEXIIDecoder.decode(Data(text.utf8), options: options)
    #expect(document.incidents.isEmpty)
    #expect(document.problems.count == 2)
    #expect(document.problems.first?.reason.contains("6704207") == true)
  }
}
