import Foundation
import Testing
import Traffic
import TrafficFeeds
import Zlib

@Suite struct ProbeDecoderTests {
  static let now = Date(timeIntervalSince1970: 1_800_000_000)
  let decoder = ProbeDecoder(now: ProbeDecoderTests.now)

  @Test(
    "RFC 3339 and Unix times",
    arguments: [
      ("2027-01-15T08:00:00Z", 1800000000.0),
      ("2027-01-15T09:00:00+01:00", 1800000000.0),
      ("2027-01-15T08:00:00.250Z", 1800000000.25),
      ("1799942400", 1_799_942_400.0),
      ("1799942400500", 1_799_942_400.5),
      ("2000-02-29T00:00:00Z", 951_782_400.0),
    ] as [(String, Double)])
  func times(text: String, expected: Double) throws {
    let csv = "id,time,lat,lng\ncar,\(text),52.5,13.4\n"
    let batch = try decoder.decode(Data(csv.utf8))
    #expect(batch.probes.first?.time.timeIntervalSince1970 == expected)
  }

  /// A gzip-compressed file (`probes.csv.gz`) reads as the file it holds; one that cannot be
  /// inflated, or inflates past the limit, is refused saying so. It was read as CSV and
  /// refused as lacking the columns.
  @Test func gzipDocumentsAreInflated() throws {
    let csv = "id,time,lat,lng\ncar,1799999000,52.5,13.4\ncar,1799999010,52.5001,13.4\n"
    let plain = try decoder.decode(Data(csv.utf8))
    let packed = Gzip.compress(Data(csv.utf8))
    #expect(try decoder.decode(packed).probes == plain.probes)
    #expect(plain.probes.count == 2)
    #expect(throws: ProbeDecodingError.self) { try decoder.decode(packed.prefix(packed.count - 6)) }
    var small = decoder
    small.maximumInflatedBytes = 20
    #expect(throws: ProbeDecodingError.inflatesBeyond(limit: 20)) { try small.decode(packed) }
  }

  @Test("CSV: header aliases, quotes, optional columns")
  func csv() throws {
    let csv = """
      Vehicle,Timestamp,Latitude,Longitude,speed,heading,accuracy
      "car, one",1799999000,52.5,13.4,12.5,90,4
      car2,1799999001,52.6,13.5,,,
      """
    let batch = try decoder.decode(Data(csv.utf8))
    #expect(batch.acceptedCount == 2)
    #expect(batch.rejectedCount == 0)
    let first = try #require(batch.probes.first)
    #expect(first.vehicleID == "car, one")
    #expect(first.speedInMetersPerSecond == 12.5)
    #expect(first.headingInDegrees == 90)
    #expect(first.accuracyInMeters == 4)
    #expect(first.coordinates.latitude == 52.5)
    #expect(batch.probes[1].speedInMetersPerSecond == nil)
  }

  @Test("CSV: CRLF lines, escaped quotes, text around quotes, spaces trimmed")
  func csvDetails() throws {
    let csv =
      "id,time,lat,lng,speed\r\n"
      + "\"say \"\"hi\"\"\",1799999000, 52.5 ,\t13.4,\u{00A0}7.5\u{2003}\r\n"
      + "Zürich \"bus\" 4,1799999001,52.6,13.5,\r\n"
      + "\r\n"
      + "\"a,b\"c,1799999002,52.7,13.6,1\r\n"
    let batch = try decoder.decode(Data(csv.utf8), format: .csv)
    #expect(batch.rejectedCount == 0)
    #expect(batch.probes.map(\.vehicleID) == ["say \"hi\"", "Zürich bus 4", "a,bc"])
    let first = try #require(batch.probes.first)
    #expect(first.coordinates.latitude == 52.5)
    #expect(first.coordinates.longitude == 13.4)
    // Unicode spaces (no-break, em space) are trimmed as Foundation's whitespace set says.
    #expect(first.speedInMetersPerSecond == 7.5)
    #expect(batch.probes[1].speedInMetersPerSecond == nil)
    #expect(batch.probes[2].time.timeIntervalSince1970 == 1_799_999_002)
  }

  @Test("CSV: a quoted field may hold line breaks; a stray quote spoils its own line only")
  func csvRecordsOverSeveralLines() throws {
    let records =
      "id,time,lat,lng,note\n"
      + "a,1799999990,52.5,13.4,\"two\nlines\"\n"
      + "b,1799999991,52.5,13.4,\"three\r\n\"\"lines\"\"\r\nhere\"\n"
    let csv =
      records + "c,1799999992,52.5,13.4,\"never closed\n" + "d,1799999993,52.5,13.4,plain\n"
    let batch = try decoder.decode(Data(csv.utf8))
    // Four rows: a, b (each one record; each was two or three rows before), c's line, d.
    #expect(batch.probes.map(\.vehicleID) == ["a", "b", "c", "d"])
    #expect(batch.rejectedCount == 0)
    let bad = try decoder.decode(Data((records + "e,x,52.5,13.4,\"n\nm\"\n").utf8))
    // Rows are named by the line they begin on: e begins on line 7.
    #expect(bad.rejections.map(\.line) == [7])
    #expect(bad.probes.map(\.vehicleID) == ["a", "b"])
  }

  @Test("bad rows are counted by reason and never stop the batch")
  func rejections() throws {
    let csv = """
      id,time,lat,lng,speed
      a,1799999000,52.5,13.4,10
      b,yesterday,52.5,13.4,10
      c,1799999000,95,13.4,10
      d,1799999000,52.5,13.4,-3
      e,1800009000,52.5,13.4,10
      a,1799999000,52.5,13.4,10
      f,1799999000,52.5,x,10
      g,1799999100,52.5,13.4,10
      """
    let batch = try decoder.decode(Data(csv.utf8), format: .csv)
    #expect(batch.probes.map(\.vehicleID) == ["a", "g"])
    #expect(
      batch.rejectedCounts == [.unparseable: 2, .outOfRange: 2, .timeInFuture: 1, .duplicate: 1])
    #expect(batch.rejections.map(\.line) == [3, 4, 5, 6, 7, 8])
  }

  @Test("nan, inf and hexadecimal are unparseable; overflow and times before 1970 out of range")
  func numbersMustBeDecimal() throws {
    let csv = """
      id,time,lat,lng,speed
      a,1799999000,NaN,13.4,10
      b,1799999000,52.5,inf,10
      c,1799999000,52.5,13.4,0x10
      d,0x6B49D200,52.5,13.4,10
      e,1799999000,1e400,13.4,10
      f,-1,52.5,13.4,10
      g,0001-01-01T00:00:00Z,52.5,13.4,10
      h,1.799999e9,52.5,13.4,1e1
      """
    let batch = try decoder.decode(Data(csv.utf8), format: .csv)
    #expect(batch.probes.map(\.vehicleID) == ["h"])
    #expect(batch.probes.first?.speedInMetersPerSecond == 10)
    #expect(batch.rejectedCounts == [.unparseable: 4, .outOfRange: 3])
    #expect(
      batch.rejections.map(\.reason) == [
        .unparseable, .unparseable, .unparseable, .unparseable, .outOfRange, .outOfRange,
        .outOfRange,
      ])
    #expect(batch.rejections[0].detail == "lat \"NaN\" is not a number")
    // Too large for a double: said so, not printed as "inf".
    #expect(batch.rejections[4].detail.contains("beyond any number"), "\(batch.rejections[4])")
    #expect(batch.rejections[5].detail == "time 1969-12-31T23:59:59Z is before 1970")
    let ndjson = """
      {"id": "a", "time": 1799999000, "lat": "NaN", "lng": 13.4}
      {"id": "b", "time": "0x6B49D200", "lat": 52.5, "lng": 13.4}
      {"id": "c", "time": 1799999000, "lat": " 52.5 ", "lng": 13.4}
      """
    let lines = try decoder.decode(Data(ndjson.utf8), format: .ndjson)
    #expect(lines.probes.map(\.vehicleID) == ["c"])
    #expect(lines.rejectedCounts == [.unparseable: 2])
  }

  @Test("a JSON array is named as such, in the format detected or given")
  func jsonArrayIsNamed() throws {
    let array = Data(#"[{"id": "a", "time": 1799999000, "lat": 52.5, "lng": 13.4}]"#.utf8)
    #expect(ProbeFormat.detect(array) == .ndjson)
    let batch = try decoder.decode(array)
    #expect(batch.rejections.first?.detail.contains("a JSON array") == true, "\(batch.rejections)")
  }

  @Test("an NDJSON number too large for a double is out of range, as in CSV")
  func ndjsonOverflowIsOutOfRange() throws {
    let ndjson = """
      {"id": "a", "time": 1799999000, "lat": 1e400, "lng": 13.4}
      {"id": "b", "time": 1799999000, "lat": 52.5, "lng": -1e400}
      {"id": "c", "time": 1799999000, "lat": 52.5, "lng": 13.4, "speed": 1e400}
      {"id": "d", "time": 1799999000, "lat": true, "lng": 13.4}
      {"id": "e", "time": 1799999000, "lat": 52.5, "lng": 13.4}
      {"id": "f", "time": 1e400, "lat": 52.5, "lng": 13.4}
      """
    let lines = try decoder.decode(Data(ndjson.utf8), format: .ndjson)
    #expect(lines.probes.map(\.vehicleID) == ["e"])
    // A time of 1e400 too (it was "missing or unreadable time").
    #expect(
      lines.rejections.map(\.reason) == [
        .outOfRange, .outOfRange, .outOfRange, .unparseable, .outOfRange,
      ])
    let csv = try decoder.decode(Data("id,time,lat,lng\ng,1e400,52.5,13.4\n".utf8))
    #expect(csv.rejections.map(\.reason) == [.outOfRange])
    // A SUMO time too large for a double is no date, said so (not "before 1970").
    let fcd = """
      <fcd-export><timestep time="1e400"><vehicle id="v" x="13.4" y="52.5" speed="5"/></timestep>
      <timestep time="10"><vehicle id="w" x="13.4" y="52.5" speed="5"/></timestep></fcd-export>
      """
    var started = decoder
    started.simulationStart = Self.now
    let steps = try started.decode(Data(fcd.utf8), format: .sumoFCD)
    #expect(
      steps.rejections.contains { $0.detail.contains("beyond any date") }, "\(steps.rejections)")
    #expect(!steps.rejections.contains { $0.detail.contains("before 1970") }, "\(steps.rejections)")
    // Aligned on the last time step, it is beyond a year of simulation (and aligns nothing).
    let aligned = try decoder.decode(Data(fcd.utf8), format: .sumoFCD)
    #expect(aligned.rejections.map(\.reason) == [.outOfRange])
    #expect(aligned.probes.map(\.time) == [Self.now])
  }

  @Test("details write times in RFC 3339; reasons have the names of the HTTP answer")
  func rejectionDetailsAndWireNames() throws {
    let csv =
      "id,time,lat,lng\na,1800003600,52.5,13.4\nb,1799999000,52.5,13.4\n"
      + "b,1799999000,52.5,13.4\n"
    let batch = try decoder.decode(Data(csv.utf8), format: .csv)
    #expect(
      batch.rejections.map(\.detail) == [
        "time 2027-01-15T09:00:00Z is after now (2027-01-15T08:00:00Z)",
        "vehicle b already reported time 2027-01-15T07:43:20Z",
      ])
    #expect(
      ProbeRejectionReason.allCases.map(\.wireName) == [
        "unparseable", "outOfRange", "future", "duplicate", "outOfOrder",
      ])
  }

  @Test("a CSV header without the required columns is an error naming them")
  func missingColumns() {
    #expect(throws: ProbeDecodingError.missingColumns(["time", "lng"])) {
      try decoder.decode(Data("id,lat,speed\na,1,2\n".utf8), format: .csv)
    }
    #expect(throws: ProbeDecodingError.unknownFormat) { try decoder.decode(Data("  \n".utf8)) }
  }

  @Test("NDJSON: numbers or strings, unknown keys ignored, bad lines rejected")
  func ndjson() throws {
    let text = """
      {"id": "a", "time": "2027-01-15T08:00:00Z", "lat": 52.5, "lng": 13.4, "speed": 8}
      {"id": 7, "time": 1799999000, "lat": "52.6", "lng": 13.5, "extra": true}
      not json
      {"id": "c", "time": 1799999000, "lat": 52.6}

      """
    let batch = try decoder.decode(Data(text.utf8))
    #expect(batch.probes.map(\.vehicleID) == ["a", "7"])
    #expect(batch.probes[0].speedInMetersPerSecond == 8)
    #expect(batch.probes[1].coordinates.latitude == 52.6)
    #expect(batch.rejectedCounts == [.unparseable: 2])
  }

  static let fcd = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!-- generated by sumo -->
    <fcd-export xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
        <timestep time="0.00">
            <vehicle id="veh0" x="13.603459" y="52.316984" angle="220.24" type="passenger" speed="13.81" pos="287.90" lane="26216780#0_0" slope="0.00"/>
        </timestep>
        <timestep time="5.00">
            <vehicle id="veh0" x="13.603338" y="52.316902" angle="225.21" type="passenger" speed="11.19" pos="1.11" lane=":21432442_0_0" slope="0.00"/>
            <vehicle id="a&amp;b" x="13.6" y="52.3" angle="10" speed="0"/>
        </timestep>
    </fcd-export>
    """

  @Test("SUMO FCD: simulation seconds from a start date, or aligned to now")
  func sumoFCD() throws {
    var decoder = self.decoder
    decoder.simulationStart = Date(timeIntervalSince1970: 1_700_000_000)
    let batch = try decoder.decode(Data(Self.fcd.utf8))
    #expect(batch.probes.map(\.vehicleID) == ["veh0", "veh0", "a&b"])
    #expect(
      batch.probes.map(\.time.timeIntervalSince1970) == [
        1_700_000_000, 1_700_000_005, 1_700_000_005,
      ])
    #expect(batch.probes[0].coordinates.longitude == 13.603459)
    #expect(batch.probes[0].headingInDegrees == 220.24)
    #expect(batch.probes[1].speedInMetersPerSecond == 11.19)
    let aligned = try self.decoder.decode(Data(Self.fcd.utf8))
    #expect(aligned.probes.last?.time == Self.now)
  }

  @Test("SUMO FCD aligned on its last time step: one far-out step moves no other row")
  func fcdAlignedOnItsLastTimeStep() throws {
    func row(_ time: String, _ id: String) -> String {
      "<timestep time=\"\(time)\"><vehicle id=\"\(id)\" x=\"13.4\" y=\"52.5\" speed=\"5\"/></timestep>"
    }
    // A corrupt time step: its row alone is refused; the others keep their times.
    let outlier =
      "<fcd-export>" + ["0", "5", "10", "1e11"].map { row($0, "v\($0)") }.joined()
      + "</fcd-export>"
    let batch = try decoder.decode(Data(outlier.utf8), format: .sumoFCD)
    #expect(batch.probes.map(\.vehicleID) == ["v0", "v5", "v10"])
    #expect(batch.probes.map(\.time) == [Self.now - 10, Self.now - 5, Self.now])
    #expect(batch.rejectedCounts == [.outOfRange: 1])
    #expect(batch.rejections.first?.detail.contains("--simulation-start") == true)
    // The last time step is now, vehicles in it or not (SUMO writes the empty steps up to
    // its `--end`).
    let trailing =
      "<fcd-export>" + row("0", "a") + row("100", "a")
      + "<timestep time=\"500\"/><timestep time=\"1000\"></timestep></fcd-export>"
    let late = try decoder.decode(Data(trailing.utf8), format: .sumoFCD)
    #expect(late.probes.map(\.time) == [Self.now - 1000, Self.now - 900])
  }

  @Test("SUMO FCD written with --human-readable-time: HH:MM:SS, D:HH:MM:SS")
  func fcdOfHumanReadableTimes() throws {
    #expect(FCDReader.seconds("00:00:05") == 5)
    #expect(FCDReader.seconds("01:02:03.50") == 3723.5)
    #expect(FCDReader.seconds("1:00:00:01") == 86_401)
    #expect(FCDReader.seconds("12.5") == 12.5)
    for bad in ["00:60:00", "1:24:00:00", "1:2", "::", "00:00:0x", "a:b:c", "-1:00:00"] {
      #expect(FCDReader.seconds(bad) == nil, "\(bad)")
    }
    let text = """
      <fcd-export><timestep time="00:00:00"><vehicle id="v" x="13.4" y="52.5" speed="5"/>
      </timestep><timestep time="00:01:00"><vehicle id="v" x="13.41" y="52.5" speed="5"/>
      </timestep></fcd-export>
      """
    let batch = try decoder.decode(Data(text.utf8), format: .sumoFCD)
    #expect(batch.probes.map(\.time) == [Self.now - 60, Self.now])
  }

  @Test("SUMO FCD: persons and containers are no probes; x and y in meters are named")
  func fcdOfVehiclesAlone() throws {
    var decoder = self.decoder
    decoder.simulationStart = Date(timeIntervalSince1970: 1_700_000_000)
    // SUMO numbers persons as it numbers vehicles: person 0 and vehicle 0 share id and time.
    let text = """
      <fcd-export><timestep time="0.00">
      <vehicle id="0" x="13.6034" y="52.3169" angle="220" speed="13.8"/>
      <person id="0" x="13.6001" y="52.3101" angle="10" speed="1.3" edge="e1"/>
      <container id="1" x="13.6002" y="52.3102" angle="10" speed="0"/>
      </timestep><timestep time="1.00">
      <vehicle id="0" x="1252.36" y="740.51" angle="220" speed="13.8"/>
      </timestep></fcd-export>
      """
    let batch = try decoder.decode(Data(text.utf8))
    #expect(batch.probes.map(\.vehicleID) == ["0"])
    #expect(batch.probes.first?.coordinates.latitude == 52.3169)
    #expect(batch.rejectedCounts == [.outOfRange: 1])
    #expect(batch.rejections.first?.detail.contains("--fcd-output.geo true") == true)
  }

  @Test("FCD that breaks off inside a tag is malformed at its line")
  func truncatedFCD() {
    let text = "<fcd-export>\n<timestep time=\"0\">\n<vehicle id=\"a\" x=\"13\""
    #expect(
      throws: ProbeDecodingError.malformed(line: 3, reason: "the document ends inside <vehicle>")
    ) {
      try decoder.decode(Data(text.utf8))
    }
  }

  @Test("round trip: probes written as CSV and NDJSON read back equal")
  func roundTrip() throws {
    var probes: [Probe] = []
    for i in 0..<20 {
      let value = Double(i)
      let time = Date(timeIntervalSince1970: 1_799_990_000 + value)
      let coordinates = try GeoCoordinates(latitude: 52 + value / 1000, longitude: 13.25)
      probes.append(
        Probe(
          vehicleID: "v\(i % 3)", time: time, coordinates: coordinates,
          speedInMetersPerSecond: value, headingInDegrees: Double(i * 17 % 360),
          accuracyInMeters: 5))
    }
    var csv = "id,time,lat,lng,speed,heading,accuracy\n"
    var ndjson = ""
    for p in probes {
      let t = Int(p.time.timeIntervalSince1970)
      let speed = p.speedInMetersPerSecond ?? 0
      let heading = p.headingInDegrees ?? 0
      let position = "\(p.coordinates.latitude),\(p.coordinates.longitude)"
      let fields = "\(position),\(speed),\(heading),5.0"
      csv += "\(p.vehicleID),\(t),\(fields)\n"
      let latLng = "\"lat\":\(p.coordinates.latitude),\"lng\":\(p.coordinates.longitude)"
      ndjson +=
        "{\"id\":\"\(p.vehicleID)\",\"time\":\(t),\(latLng),\"speed\":\(speed),"
        + "\"heading\":\(heading),\"accuracy\":5}\n"
    }
    #expect(try decoder.decode(Data(csv.utf8)).probes == probes)
    #expect(try decoder.decode(Data(ndjson.utf8)).probes == probes)
  }
}
