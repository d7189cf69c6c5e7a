import Foundation
import Geo
import Traffic

/// Large feed documents written in code, one generator per format, each modelled on the
/// fixtures in `Tests/TrafficFeedsTests/Fixtures` so that every record decodes to exactly
/// one incident (no record is skipped, none is a `POLICE`-style non-incident). Records vary
/// their type, severity, times, texts and geometry so that every branch a real feed takes
/// is taken; positions are seeded, so a run decodes the same bytes every time.
struct FeedWorkload {
  private var random: SplitMix64
  private let times = FeedTimes(base: Date(timeIntervalSince1970: 1_773_129_600))

  /// Creates a generator.
  ///
  /// - Parameter seed: The seed of the positions and choices.
  init(seed: UInt64) { random = SplitMix64(seed: seed) }

  // MARK: DATEX II

  /// A DATEX II v2 `d2LogicalModel` with one SituationPublication of `records`
  /// situation records (one per situation, two in every fourth), each active with a
  /// validity period and a point (`pointByCoordinates`) in Germany.
  mutating func datex2(records: Int) -> Data {
    let kinds = [
      ("Accident", "accidentType", "accident", "Unfall"),
      ("VehicleObstruction", "vehicleObstructionType", "brokenDownVehicle", "Pannenfahrzeug"),
      ("MaintenanceWorks", "roadMaintenanceType", "roadworks", "Baustelle"),
      ("AbnormalTraffic", "abnormalTrafficType", "queuingTraffic", "Stau"),
      ("PoorEnvironmentConditions", "poorEnvironmentType", "denseFog", "Nebel"),
      (
        "RoadOrCarriagewayOrLaneManagement", "roadOrCarriagewayOrLaneManagementType",
        "laneClosures", "Fahrstreifen gesperrt"
      ),
    ]
    let severities = ["highest", "high", "medium", "low"]
    var xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <d2LogicalModel xmlns="http://datex2.eu/schema/2/2_0" \
      xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" modelBaseVersion="2">
        <exchange><supplierIdentification><country>de</country>\
      <nationalIdentifier>BENCH</nationalIdentifier></supplierIdentification></exchange>
        <payloadPublication xsi:type="SituationPublication" lang="de">
          <feedType>snapshot</feedType>
          <publicationTime>\(times.utc(0))</publicationTime>
          <publicationCreator><country>de</country><nationalIdentifier>BENCH</nationalIdentifier>\
      </publicationCreator>

      """
    xml.reserveCapacity(records * 1_500)
    var written = 0
    var situation = 0
    while written < records {
      let inSituation = min(records - written, situation % 4 == 0 ? 2 : 1)
      xml += "    <situation id=\"S\(situation)\" version=\"1\">\n"
      xml += "      <overallSeverity>\(severities[situation % 4])</overallSeverity>\n"
      for part in 0..<inSituation {
        let i = written + part
        let (type, detail, value, word) = kinds[i % kinds.count]
        let created = -Int(random.next() % 7_200)
        let place = randomGermanPlace(&random)
        let lanes = 2 + i % 3
        xml += """
                <situationRecord xsi:type="\(type)" id="R\(i)" version="\(1 + i % 3)">
                  <situationRecordCreationTime>\(times.utc(created))</situationRecordCreationTime>
                  <situationRecordVersionTime>\(times.utc(created + 300))\
          </situationRecordVersionTime>
                  <probabilityOfOccurrence>\(i % 10 == 9 ? "riskOf" : "certain")\
          </probabilityOfOccurrence>
                  <severity>\(severities[i % 4])</severity>
                  <validity>
                    <validityStatus>active</validityStatus>
                    <validityTimeSpecification><overallStartTime>\(times.utc(created))\
          </overallStartTime><overallEndTime>\(times.utc(created + 3_600 * (1 + i % 48)))\
          </overallEndTime></validityTimeSpecification>
                  </validity>
                  <impact><numberOfLanesRestricted>\(1 + i % (lanes - 1))\
          </numberOfLanesRestricted><originalNumberOfLanes>\(lanes)</originalNumberOfLanes>\
          <delays><delayTimeValue>\(60 * (i % 30))</delayTimeValue></delays></impact>
                  <generalPublicComment><comment><values><value lang="de">\(word) auf der \
          A\(1 + i % 99) zwischen Anschlussstelle \(i % 40) und \(i % 40 + 1)</value>\
          <value lang="en">Incident \(i) on the A\(1 + i % 99)</value></values></comment>\
          </generalPublicComment>
                  <groupOfLocations xsi:type="Point"><pointByCoordinates><pointCoordinates>\
          <latitude>\(decimal(place.latitude))</latitude>\
          <longitude>\(decimal(place.longitude))</longitude>\
          </pointCoordinates></pointByCoordinates></groupOfLocations>
                  <\(detail)>\(value)</\(detail)>
                </situationRecord>

          """
      }
      xml += "    </situation>\n"
      written += inSituation
      situation += 1
    }
    xml += "  </payloadPublication>\n</d2LogicalModel>\n"
    return Data(xml.utf8)
  }

  // MARK: WZDx

  /// A WZDx 4.2 `WorkZoneFeed` of `features` work zones (every tenth a detour of the one
  /// before), each a `LineString` of 3 to 6 vertices in Iowa, with lanes on some and
  /// restrictions on every fourth.
  mutating func wzdx(features: Int) -> Data {
    let impacts = [
      "all-lanes-open", "some-lanes-closed", "all-lanes-closed", "alternating-one-way",
      "some-lanes-closed-merge-left",
    ]
    let directions = ["northbound", "southbound", "eastbound", "westbound"]
    var json = """
      {"feed_info":{"publisher":"Bench DOT","version":"4.2",\
      "license":"https://creativecommons.org/publicdomain/zero/1.0/",\
      "update_date":"\(times.utc(0))","update_frequency":300,"data_sources":[{"data_source_id":\
      "ds-1","organization_name":"Bench DOT","update_date":"\(times.utc(-60))"}]},\
      "type":"FeatureCollection","features":[

      """
    json.reserveCapacity(features * 1_300)
    for i in 0..<features {
      let isDetour = i % 10 == 9
      let created = -Int(random.next() % 864_000)
      let impact = impacts[i % impacts.count]
      let road = i % 2 == 0 ? "I-\(35 + i % 60)" : "US \(6 + i % 200)"
      var properties = """
        "core_details":{"event_type":"\(isDetour ? "detour" : "work-zone")",\
        "data_source_id":"ds-1","road_names":["\(road)","County Road \(i % 90)"],\
        "direction":"\(directions[i % 4])","name":"Project \(i)",\
        "description":"\(road) \(directions[i % 4]) \(impact.replacingOccurrences(of: "-", with: " ")) \
        for pavement work between exits \(i % 200) and \(i % 200 + 2).",\
        "creation_date":"\(times.utc(created))","update_date":"\(times.utc(created + 3_600))"
        """
      if isDetour {
        properties +=
          ",\"related_road_events\":[{\"type\":\"related-work-zone\",\"id\":\"wz-\(i - 1)\"}]"
      }
      properties += """
        },"start_date":"\(times.utc(created + 7_200))","end_date":"\(times.utc(created + 86_400 * (2 + i % 60)))",\
        "is_start_date_verified":true,"is_end_date_verified":false,\
        "is_start_position_verified":true,"is_end_position_verified":\(i % 2 == 0),\
        "location_method":"channel-device-method","vehicle_impact":"\(isDetour ? "all-lanes-open" : impact)",\
        "beginning_cross_street":"Exit \(i % 200)","ending_cross_street":"Exit \(i % 200 + 2)",\
        "types_of_work":[{"type_name":"\(i % 3 == 0 ? "maintenance" : "roadway-relocation")",\
        "is_architectural_change":false}],"worker_presence":{"are_workers_present":\(i % 3 == 0)},\
        "reduced_speed_limit_kph":\(56 + 8 * (i % 4))
        """
      if impact.hasPrefix("some-lanes-closed") {
        properties += """
          ,"lanes":[{"order":1,"type":"shoulder","status":"open"},\
          {"order":2,"type":"general","status":"closed"},{"order":3,"type":"general","status":"open"}]
          """
      }
      if i % 4 == 0 {
        properties += """
          ,"restrictions":[{"type":"reduced-width","value":\(10 + i % 3),"unit":"feet"},\
          {"type":"no-trucks"}]
          """
      }
      let line = randomLine(south: 40.6, west: -96.5, north: 43.5, east: -90.2)
      json += """
        {"id":"wz-\(i)","type":"Feature","properties":{\(properties)},\
        "geometry":{"type":"LineString","coordinates":\(geoJSONPositions(line))}}
        """
      json += i == features - 1 ? "\n" : ",\n"
    }
    json += "]}\n"
    return Data(json.utf8)
  }

  // MARK: Open511

  /// An Open511 JSON document of `events` active events in British Columbia: points and
  /// `LineString`s, roads with lane states, schedules of intervals in local time.
  mutating func open511(events: Int) -> Data {
    let kinds = [
      ("CONSTRUCTION", "ROAD_CONSTRUCTION", "Road construction"),
      ("INCIDENT", "ACCIDENT", "Collision"),
      ("ROAD_CONDITION", "ICE_COVERED", "Black ice"),
      ("WEATHER_CONDITION", "STRONG_WINDS", "Strong winds"),
      ("SPECIAL_EVENT", "PARADE", "Parade"),
      ("INCIDENT", "HAZARD", "Debris on the road"),
    ]
    let severities = ["MINOR", "MODERATE", "MAJOR", "UNKNOWN"]
    let states = ["SOME_LANES_CLOSED", "SINGLE_LANE_ALTERNATING", "ALL_LANES_OPEN", "CLOSED"]
    var json = "{\"meta\":{\"version\":\"v1\"},\"events\":[\n"
    json.reserveCapacity(events * 1_000)
    for i in 0..<events {
      let (type, subtype, headline) = kinds[i % kinds.count]
      let created = -Int(random.next() % 172_800)
      let geography: String
      if i % 2 == 0 {
        let point = randomPlace(south: 48.3, west: -128.0, north: 56.0, east: -118.0)
        geography =
          "{\"type\":\"Point\",\"coordinates\":[\(decimal(point.longitude)),\(decimal(point.latitude))]}"
      } else {
        let line = randomLine(south: 48.3, west: -128.0, north: 56.0, east: -118.0)
        geography = "{\"type\":\"LineString\",\"coordinates\":\(geoJSONPositions(line))}"
      }
      let end = i % 3 == 0 ? "" : times.local(created + 3_600 * (2 + i % 72))
      json += """
        {"id":"bench.example/EV-\(i)","url":"https://bench.example/events/EV-\(i)",\
        "jurisdiction_url":"https://bench.example/jurisdictions/bench.example","status":"ACTIVE",\
        "headline":"\(headline)","description":"\(headline) on Highway \(1 + i % 99) between \
        Exit \(i % 50) and Exit \(i % 50 + 2). Expect delays.","event_type":"\(type)",\
        "event_subtypes":["\(subtype)"],"severity":"\(severities[i % 4])",\
        "created":"\(times.utc(created))","updated":"\(times.utc(created + 600))",\
        "roads":[{"name":"Highway \(1 + i % 99)","from":"Exit \(i % 50)",\
        "to":"Exit \(i % 50 + 2)","direction":"\(["N", "S", "E", "W"][i % 4])",\
        "state":"\(states[i % 4])","lanes_closed":\(i % 4 == 2 ? 0 : 1),"lanes_open":2}],\
        "areas":[{"name":"Area \(i % 12)","id":"bench.example/\(i % 12)"}],\
        "geography":\(geography),"schedule":{"intervals":["\(times.local(created))/\(end)"]}}
        """
      json += i == events - 1 ? "\n" : ",\n"
    }
    json += "]}\n"
    return Data(json.utf8)
  }

  // MARK: Waze

  /// A Waze for Cities feed of `items` alerts and jams (seven alerts to three jams) in
  /// Illinois; alerts of every incident type, jams of levels 1 to 5 with lines of 2 to 5
  /// points.
  mutating func waze(items: Int) -> Data {
    let alertKinds = [
      ("ACCIDENT", "ACCIDENT_MAJOR"), ("ACCIDENT", "ACCIDENT_MINOR"),
      ("JAM", "JAM_HEAVY_TRAFFIC"), ("ROAD_CLOSED", "ROAD_CLOSED_CONSTRUCTION"),
      ("HAZARD", "HAZARD_ON_ROAD_CAR_STOPPED"), ("WEATHERHAZARD", "HAZARD_WEATHER_FOG"),
      ("HAZARD", "HAZARD_ON_ROAD_OBJECT"), ("CONSTRUCTION", ""),
    ]
    let jamCount = items * 3 / 10
    let alertCount = items - jamCount
    let windowEnd = 1_773_129_600_000
    var json = "{\"alerts\":[\n"
    json.reserveCapacity(items * 500)
    for i in 0..<alertCount {
      let (type, subtype) = alertKinds[i % alertKinds.count]
      let place = randomPlace(south: 37.0, west: -91.5, north: 42.5, east: -87.5)
      json += """
        {"country":"US","city":"City \(i % 300), IL","reportRating":\(i % 6),\
        "confidence":\(i % 6),"reliability":\(5 + i % 6),"type":"\(type)","subtype":"\(subtype)",\
        "uuid":"\(uuid(i))","roadType":\(1 + i % 7),"magvar":\(i % 360),\
        "street":"I-\(55 + i % 40) N","location":{"x":\(decimal(place.longitude)),\
        "y":\(decimal(place.latitude))},"pubMillis":\(windowEnd - Int(random.next() % 3_600_000)),\
        "reportDescription":"Report \(i)","nThumbsUp":\(i % 9)}
        """
      json += i == alertCount - 1 ? "\n" : ",\n"
    }
    json += "],\"jams\":[\n"
    for i in 0..<jamCount {
      let level = 1 + i % 5
      let line = randomLine(south: 37.0, west: -91.5, north: 42.5, east: -87.5, maxLegs: 4)
      let points = line.map { "{\"x\":\(decimal($0.longitude)),\"y\":\(decimal($0.latitude))}" }
      let speed = level == 5 ? 0 : Double(30 - 5 * level) / 3.6
      json += """
        {"country":"US","city":"City \(i % 300), IL","level":\(level),\
        "line":[\(points.joined(separator: ","))],"speedKMH":\(decimal(speed * 3.6, places: 1)),\
        "length":\(120 + i % 2_000),"turnType":"NONE","type":"NONE","uuid":\(900_000_000 + i),\
        "speed":\(decimal(speed, places: 3)),"roadType":\(1 + i % 7),\
        "delay":\(level == 5 ? -1 : 30 * level),"street":"I-\(55 + i % 40) N",\
        "startNode":"Exit \(i % 90)","endNode":"Exit \(i % 90 + 1)","id":\(900_000_000 + i),\
        "pubMillis":\(windowEnd - Int(random.next() % 3_600_000))}
        """
      json += i == jamCount - 1 ? "\n" : ",\n"
    }
    json += """
      ],"irregularities":[],"startTimeMillis":\(windowEnd - 60_000),"endTimeMillis":\(windowEnd),\
      "startTime":"2026-03-10 07:59:00:000","endTime":"2026-03-10 08:00:00:000"}

      """
    return Data(json.utf8)
  }

  // MARK: HERE v7

  /// A HERE Traffic API v7 incidents response of `results` incidents, written by
  /// `V7IncidentWire.encode` from the incidents of the engine benchmarks (points and lines
  /// over Germany).
  ///
  /// - Throws: A model error, which the generated values never cause.
  mutating func hereV7(results: Int) throws -> Data {
    let incidents = try makeBenchIncidents(count: results, random: &random, now: times.base)
    return V7IncidentWire.encode(incidents, sourceUpdated: times.base)
  }

  // MARK: TomTom

  /// A TomTom Traffic Incident Details v5 response of `incidents` features in the
  /// Netherlands: jams, closures, road works, accidents and broken-down vehicles, half of
  /// them lines.
  mutating func tomtom(incidents: Int) -> Data {
    let kinds = [
      (6, 101, "Stationary traffic"), (8, 401, "Closed"), (9, 701, "Roadworks"),
      (1, 201, "Accident"), (14, 211, "Broken down vehicle"), (7, 601, "Lane closed"),
    ]
    var json = "{\"incidents\":[\n"
    json.reserveCapacity(incidents * 800)
    for i in 0..<incidents {
      let (category, code, text) = kinds[i % kinds.count]
      let start = -Int(random.next() % 14_400)
      let geometry: String
      if i % 2 == 0 {
        let line = randomLine(south: 50.8, west: 3.4, north: 53.5, east: 7.2)
        geometry = "{\"type\":\"LineString\",\"coordinates\":\(geoJSONPositions(line))}"
      } else {
        let point = randomPlace(south: 50.8, west: 3.4, north: 53.5, east: 7.2)
        geometry =
          "{\"type\":\"Point\",\"coordinates\":[\(decimal(point.longitude)),\(decimal(point.latitude))]}"
      }
      json += """
        {"type":"Feature","properties":{"id":"tt-\(String(i, radix: 16))-\(i % 7)",\
        "iconCategory":\(category),"magnitudeOfDelay":\(i % 5),\
        "events":[{"description":"\(text)","code":\(code),"iconCategory":\(category)}],\
        "startTime":"\(times.utc(start))","endTime":"\(times.utc(start + 3_600 * (1 + i % 24)))",\
        "from":"Junction \(i % 80)","to":"Junction \(i % 80 + 1)","length":\(100 + i % 5_000),\
        "delay":\(i % 900),"roadNumbers":["A\(1 + i % 30)"],"timeValidity":"present",\
        "probabilityOfOccurrence":"\(i % 10 == 9 ? "probable" : "certain")",\
        "numberOfReports":\(i % 20),"lastReportTime":"\(times.utc(start + 600))"},\
        "geometry":\(geometry)}
        """
      json += i == incidents - 1 ? "\n" : ",\n"
    }
    json += "]}\n"
    return Data(json.utf8)
  }

  // MARK: Geometry and text

  private mutating func randomPlace(
    south: Double, west: Double, north: Double, east: Double
  ) -> GeoCoordinates {
    let latitude = south + random.nextUnit() * (north - south)
    return GeoCoordinates(
      uncheckedLatitude: latitude, longitude: west + random.nextUnit() * (east - west))
  }

  /// A wandering line of 2 to `maxLegs + 1` vertices, legs of 100 to 500 m.
  private mutating func randomLine(
    south: Double, west: Double, north: Double, east: Double, maxLegs: UInt64 = 5
  ) -> [GeoCoordinates] {
    var vertices = [randomPlace(south: south, west: west, north: north, east: east)]
    var bearing = random.nextUnit() * 360
    for _ in 0..<(1 + Int(random.next() % maxLegs)) {
      bearing += random.nextUnit() * 60 - 30
      vertices.append(
        vertices[vertices.count - 1].destination(
          bearing: bearing, distanceInMeters: 100 + random.nextUnit() * 400))
    }
    return vertices
  }

  private func geoJSONPositions(_ vertices: [GeoCoordinates]) -> String {
    "["
      + vertices.map { "[\(decimal($0.longitude)),\(decimal($0.latitude))]" }
      .joined(separator: ",") + "]"
  }

  /// A version 4 UUID made from a number, as Waze writes alert ids.
  private func uuid(_ number: Int) -> String {
    let hex = String(number, radix: 16)
    return "0b2f6a0e-7a1c-4a8e-9d55-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
  }
}

/// Times of generated documents, as text, relative to a base time: cheap enough to write
/// hundreds of thousands (a formatter per value would dominate generation).
struct FeedTimes {
  /// The time offsets count from, UTC.
  let base: Date
  private let days: [Int: String]

  /// Creates the texts of the days from 30 days before `base` to 90 days after.
  init(base: Date) {
    self.base = base
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withFullDate]
    var days: [Int: String] = [:]
    let baseDay = Int((base.timeIntervalSince1970 / 86_400).rounded(.down))
    for day in (baseDay - 30)...(baseDay + 90) {
      days[day] = formatter.string(from: Date(timeIntervalSince1970: Double(day) * 86_400))
    }
    self.days = days
  }

  /// RFC 3339 UTC time `seconds` after the base (`2026-03-10T08:00:00Z`).
  func utc(_ seconds: Int) -> String { clock(seconds, withSeconds: true) + "Z" }

  /// Open511's local time without offset, minutes only (`2026-03-10T08:00`).
  func local(_ seconds: Int) -> String { clock(seconds, withSeconds: false) }

  private func clock(_ seconds: Int, withSeconds: Bool) -> String {
    let time = Int(base.timeIntervalSince1970) + seconds
    let day = Int((Double(time) / 86_400).rounded(.down))
    let second = time - day * 86_400
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
    let date = days[day] ?? "1970-01-01"
    let hours = "\(date)T\(two(second / 3_600)):\(two(second / 60 % 60))"
    return withSeconds ? hours + ":\(two(second % 60))" : hours
  }
}

/// `value` with `places` decimals and no exponent, as feeds write coordinates.
func decimal(_ value: Double, places: Int = 5) -> String {
  var scale = 1
  for _ in 0..<places { scale *= 10 }
  let scaled = Int((abs(value) * Double(scale)).rounded())
  let fraction = String(scaled % scale)
  let padding = String(repeating: "0", count: places - fraction.count)
  return (value < 0 && scaled != 0 ? "-" : "") + "\(scaled / scale).\(padding)\(fraction)"
}
