import Foundation
import Testing
import Traffic
import TrafficTestSupport

/// Random incidents covering every wire field, for round trips and timing.
private func randomIncident(
  _ index: Int, using generator: inout SeededGenerator, vertices: Int? = nil
) throws -> TrafficIncident {
  func point() throws -> GeoCoordinates {
    try GeoCoordinates(
      latitude: Double.random(in: -80...80, using: &generator),
      longitude: Double.random(in: -180...180, using: &generator))
  }
  func polyline(_ count: Int) throws -> GeoPolyline {
    count == 1
      ? GeoPolyline(point: try point())
      : try GeoPolyline(vertices: (0..<count).map { _ in try point() })
  }
  let texts = ["Stau", "Unfall \"A1\" \\ Köln\n", "Baustelle\u{2028}Tab\t", "事故 🚗", "\u{01}ctl"]
  let languages: [LanguageCode] = [.deDE, .enUS, .frFR, try LanguageCode("zh-Hans-CN")]
  let start = Date(
    timeIntervalSince1970: Double(Int.random(in: 1_600_000_000...1_900_000_000, using: &generator)))
  let hasEnd = Bool.random(using: &generator)
  var restrictions: [RestrictedVehicleCategory: VehicleRestriction] = [:]
  if index % 3 == 0 {
    var truck = VehicleRestriction()
    truck.restrictedIfGrossWeightMoreThanInKilograms = 7500
    truck.isTrailerRestricted = true
    truck.restrictedHazardousGoods = [.explosive, .gas]
    truck.restrictedTunnelCategory = .c
    restrictions[.truck] = truck
    restrictions[.all] = .always
  }
  return try TrafficIncident(
    id: "id-\(index)", originalId: index % 2 == 0 ? "orig-\(index)" : nil,
    parentId: index % 5 == 0 ? "parent-\(index)" : nil,
    type: TrafficIncidentType.allCases[index % TrafficIncidentType.allCases.count],
    impact: TrafficIncidentImpact.allCases[index % TrafficIncidentImpact.allCases.count],
    description: LocalizedText(
      text: texts[index % texts.count] + " \(index)", language: languages[index % languages.count]),
    summary: LocalizedText(
      text: texts[(index + 1) % texts.count], language: languages[(index + 1) % languages.count]),
    startTime: index % 7 == 0 ? nil : start,
    endTime: hasEnd
      ? start.addingTimeInterval(Double(Int.random(in: 60...86_400, using: &generator)) + 0.125)
      : nil,
    entryTime: index % 4 == 0 ? start.addingTimeInterval(-3600) : nil,
    isRoadClosed: index % 2 == 1,
    junctionsTraversability: JunctionsTraversability.allCases[
      index % JunctionsTraversability.allCases.count],
    codes: index % 3 == 1 ? [401, index] : [],
    location: TrafficLocation(
      polyline: try polyline(vertices ?? (1 + index % 6)),
      additionalPolylines: index % 4 == 3 ? [try polyline(3)] : [],
      lengthInMeters: index % 2 == 0 ? Double(index) * 10.5 : nil,
      description: index % 3 == 2 ? "A\(index) \"Nord\"" : nil),
    vehicleRestrictions: restrictions)
}

/// Every field the v7 wire carries.
private func expectSameWireFields(
  _ a: TrafficIncident, _ b: TrafficIncident, sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(a.id == b.id, sourceLocation: sourceLocation)
  #expect(a.originalId == b.originalId, sourceLocation: sourceLocation)
  #expect(a.parentId == b.parentId, sourceLocation: sourceLocation)
  #expect(a.type == b.type, sourceLocation: sourceLocation)
  #expect(a.impact == b.impact, sourceLocation: sourceLocation)
  #expect(a.description == b.description, sourceLocation: sourceLocation)
  #expect(a.summary == b.summary, sourceLocation: sourceLocation)
  #expect(a.startTime == b.startTime, sourceLocation: sourceLocation)
  #expect(a.endTime == b.endTime, sourceLocation: sourceLocation)
  #expect(a.entryTime == b.entryTime, sourceLocation: sourceLocation)
  #expect(a.isRoadClosed == b.isRoadClosed, sourceLocation: sourceLocation)
  #expect(a.junctionsTraversability == b.junctionsTraversability, sourceLocation: sourceLocation)
  #expect(a.codes == b.codes, sourceLocation: sourceLocation)
  #expect(a.location == b.location, sourceLocation: sourceLocation)
  #expect(a.vehicleRestrictions == b.vehicleRestrictions, sourceLocation: sourceLocation)
}

@Suite struct V7IncidentWireTests {
  @Test func writesTheDocumentedShapeInAFixedOrder() throws {
    var truck = VehicleRestriction()
    truck.restrictedIfGrossWeightMoreThanInKilograms = 7500
    let incident = try TrafficIncident(
      id: "2", originalId: "1", parentId: "0", type: .construction, impact: .low,
      description: LocalizedText(text: "Bauarbeiten \"A1\"", language: .deDE),
      summary: LocalizedText(text: "Bauarbeiten", language: .deDE),
      startTime: Date(timeIntervalSince1970: 1_714_550_400),
      endTime: Date(timeIntervalSince1970: 1_714_636_800.5),
      entryTime: Date(timeIntervalSince1970: 1_714_500_000), isRoadClosed: true,
      junctionsTraversability: .allClosed, codes: [701, 401],
      location: TrafficLocation(
        polyline: try GeoPolyline(vertices: [
          GeoCoordinates(latitude: 52.5, longitude: 13.25),
          GeoCoordinates(latitude: 52.5, longitude: 13.26),
        ]), lengthInMeters: 677.5, description: "A1"),
      vehicleRestrictions: [.truck: truck])
    let text = String(
      decoding: V7IncidentWire.encode(
        [incident], sourceUpdated: Date(timeIntervalSince1970: 1_714_640_000)), as: UTF8.self)
    // The link length is the 0.01° parallel arc at 52.5° N on WGS84: N·cos φ·Δλ = 679.09 m.
    let expected =
      #"{"sourceUpdated":"2024-05-02T08:53:20Z","results":[{"location":{"length":677.5,"description":"A1","#
      + #""shape":{"links":[{"points":[{"lat":52.5,"lng":13.25},{"lat":52.5,"lng":13.26}],"length":679.1}]}},"#
      + #""incidentDetails":{"id":"2","originalId":"1","parentId":"0","startTime":"2024-05-01T08:00:00Z","#
      + #""endTime":"2024-05-02T08:00:00.500Z","entryTime":"2024-04-30T18:00:00Z","roadClosed":true,"#
      + #""criticality":"lowImpact","type":"construction","codes":[701,401],"#
      + #""description":{"value":"Bauarbeiten \"A1\"","language":"de-DE"},"#
      + #""summary":{"value":"Bauarbeiten","language":"de-DE"},"junctionTraversability":"allClosed","#
      + #""vehicleRestrictions":[{"vehicleType":"truck","restrictedIfGrossWeightMoreThanInKilograms":7500}]}}]}"#
    #expect(text == expected)
    let empty = String(decoding: V7IncidentWire.encode([], sourceUpdated: nil), as: UTF8.self)
    #expect(empty == #"{"sourceUpdated":null,"results":[]}"#)
  }

  @Test func roundTripsEveryWireField() throws {
    var generator = SeededGenerator(seed: 7)
    let incidents = try (0..<200).map { try randomIncident($0, using: &generator) }
    let updated = Date(timeIntervalSince1970: 1_714_640_000)
    let data = V7IncidentWire.encode(incidents, sourceUpdated: updated)
    let response = try V7IncidentWire.decode(data)
    #expect(response.problems.isEmpty)
    #expect(response.sourceUpdated == updated)
    try #require(response.incidents.count == incidents.count)
    for (original, decoded) in zip(incidents, response.incidents) {
      expectSameWireFields(original, decoded)
    }
    // Deterministic: the same input gives the same bytes.
    #expect(V7IncidentWire.encode(incidents, sourceUpdated: updated) == data)
    // And the decoded incidents encode to the same text.
    #expect(V7IncidentWire.encode(response.incidents, sourceUpdated: updated) == data)
  }

  @Test func roundTripsLookupAnswers() throws {
    var generator = SeededGenerator(seed: 11)
    for index in 0..<20 {
      let incident = try randomIncident(index, using: &generator)
      let data = V7IncidentWire.encodeLookup(incident)
      #expect(data.first == UInt8(ascii: "{"))
      #expect(String(decoding: data, as: UTF8.self).hasPrefix(#"{"location":"#))
      expectSameWireFields(incident, try V7IncidentWire.decodeLookup(data))
      #expect(try V7IncidentWire.decode(data).incidents.count == 1)
    }
  }

  @Test func writesAndReadsLocationReferences() throws {
    let first = try TMCLocationReference(
      countryCode: "D", extendedCountryCode: "E0", tableNumber: "1", tableVersion: "19.1",
      primaryLocationCode: 10429, secondaryLocationCode: 10430, extent: 1, direction: .negative,
      primaryOffsetInMeters: 0, secondaryOffsetInMeters: 12.5, affectedLengthInMeters: 634)
    let second = try TMCLocationReference(
      countryCode: "8", tableNumber: "1.11", primaryLocationCode: 7, direction: .both)
    let incident = try TrafficIncident(
      id: "x", type: .accident, impact: .major,
      location: TrafficLocation(
        point: try GeoCoordinates(latitude: 52, longitude: 13), tmc: [first, second],
        openLR: "IyVUdwmSoA=="))
    let data = V7IncidentWire.encodeLookup(incident, locationReferencing: .all)
    let text = String(decoding: data, as: UTF8.self)
    let parts: [String] = [
      #""olr":"IyVUdwmSoA==","tmc":{"extendedCountryCode":"E0","ebuCountryCode":"D","#,
      #""tableId":"1","tableVersion":"19.1","locationId":"10429","#,
      #""secondaryLocationId":"10430","queuingDirection":"-","extent":1,"#,
      #""primaryOffset":0,"secondaryOffset":12.5,"affectedLength":634},"#,
      #""additionalTmc":[{"ebuCountryCode":"8","tableId":"1.11","locationId":"7","#,
      #""queuingDirection":"both"}]},"incidentDetails""#,
    ]
    let expected = parts.joined()
    #expect(text.contains(expected))
    let decoded = try V7IncidentWire.decodeLookup(data)
    #expect(decoded.location == incident.location)
    // Without the options the references stay out, and read back as none.
    let plain = try V7IncidentWire.decodeLookup(V7IncidentWire.encodeLookup(incident))
    #expect(plain.location.tmc.isEmpty && plain.location.openLR == nil)
  }

  @Test func noReferencesLeavesOnlyLengthAndDescription() throws {
    var generator = SeededGenerator(seed: 5)
    let incidents = try (0..<20).map { try randomIncident($0, using: &generator) }
    let with = try #require(
      try JSONSerialization.jsonObject(
        with: V7IncidentWire.encode(incidents, sourceUpdated: nil)) as? [String: Any])
    let without = try #require(
      try JSONSerialization.jsonObject(
        with: V7IncidentWire.encode(incidents, sourceUpdated: nil, locationReferencing: []))
        as? [String: Any])
    let a = try #require(with["results"] as? [[String: Any]])
    let b = try #require(without["results"] as? [[String: Any]])
    #expect(a.count == b.count)
    for (full, bare) in zip(a, b) {
      var location = try #require(full["location"] as? [String: Any])
      location.removeValue(forKey: "shape")
      #expect(
        NSDictionary(dictionary: location)
          == NSDictionary(dictionary: try #require(bare["location"] as? [String: Any])))
      #expect(
        NSDictionary(dictionary: try #require(full["incidentDetails"] as? [String: Any]))
          == NSDictionary(dictionary: try #require(bare["incidentDetails"] as? [String: Any])))
    }
  }

  /// A result with only `olr` (HERE's `locationReferencing=olr`) is placed by it.
  @Test func placesAResultWithoutShapeByItsOpenLR() throws {
    let body: String = [
      #"{"location":{"length":560,"olr":"CwRbWyNG9RpsCQCb/jsbtAT/6/+jK1lE"},"#,
      #""incidentDetails":{"id":"1","description":{"value":"x","language":"en"}}}"#,
    ].joined()
    let incident = try V7IncidentWire.decodeLookup(Data(body.utf8))
    #expect(incident.location.polyline.vertices.count == 3)
    #expect(abs(incident.location.polyline.vertices[0].latitude - 49.6085178) < 1e-7)
    #expect(incident.location.lengthInMeters == 560)
    let broken = #"{"location":{"length":1,"olr":"CwRb"},"incidentDetails":{"id":"1"}}"#
    #expect(
      throws: V7WireError(
        location: "$.location.olr",
        reason: "malformed OpenLR at position 3: a line location needs at least 16 bytes, found 3")
    ) {
      try V7IncidentWire.decodeLookup(Data(broken.utf8))
    }
    let badTMC: String = [
      #"{"location":{"length":1,"shape":{"links":[{"points":[{"lat":1,"lng":1}]}]},"#,
      #""tmc":{"ebuCountryCode":"D","tableId":"1","locationId":"x"}},"incidentDetails":{"id":"1"}}"#,
    ].joined()
    #expect(
      throws: V7WireError(
        location: "$.location.tmc.locationId", reason: "\"x\" is not a location code")
    ) {
      try V7IncidentWire.decodeLookup(Data(badTMC.utf8))
    }
  }

  @Test func encodedTextIsValidJSONForFoundation() throws {
    var generator = SeededGenerator(seed: 3)
    let incidents = try (0..<30).map { try randomIncident($0, using: &generator) }
    let data = V7IncidentWire.encode(incidents, sourceUpdated: nil)
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let results = try #require(object["results"] as? [[String: Any]])
    #expect(results.count == 30)
    let details = try #require(results[1]["incidentDetails"] as? [String: Any])
    let description = try #require(details["description"] as? [String: Any])
    #expect(description["value"] as? String == "Unfall \"A1\" \\ Köln\n 1")
  }

  @Test func joinsConsecutiveLinksAndKeepsDisconnectedOnes() throws {
    let text = """
      {"results": [{"location": {"length": 30, "shape": {"links": [
        {"points": [{"lat": 1, "lng": 1}, {"lat": 1, "lng": 1.0001}]},
        {"points": [{"lat": 1, "lng": 1.0001}, {"lat": 1, "lng": 1.0002}]},
        {"points": [{"lat": 2, "lng": 2}, {"lat": 2, "lng": 2.0001}]}]}},
        "incidentDetails": {"id": "x", "roadClosed": false}}]}
      """
    let incident = try #require(try V7IncidentWire.decode(Data(text.utf8)).incidents.first)
    #expect(incident.location.polyline.vertices.map(\.longitude) == [1, 1.0001, 1.0002])
    #expect(
      incident.location.additionalPolylines.map { $0.vertices.map(\.longitude) } == [[2, 2.0001]])
    #expect(incident.type == .unknown)
    #expect(incident.impact == .unknown)
    #expect(incident.originalId == "x")
    #expect(incident.startTime == nil)
  }

  @Test(arguments: [
    (
      #"{"results": [{"location": {"shape": {"links": [{"points": [{"lat": 91, "lng": 0}]}]}}, "incidentDetails": {"id": "a"}}]}"#,
      "results[0].location.shape.links[0].points[0]"
    ),
    (
      #"{"results": [{"location": {"shape": {"links": []}}, "incidentDetails": {"id": "a"}}]}"#,
      "results[0].location.shape.links"
    ),
    (
      #"{"results": [{"location": {"shape": {"links": [{"points": [{"lat": 1, "lng": 1}]}]}}, "incidentDetails": {}}]}"#,
      "results[0].incidentDetails"
    ),
    (
      #"{"results": [{"location": {"shape": {"links": [{"points": [{"lat": 1, "lng": 1}]}]}}, "incidentDetails": {"id": "a", "criticality": "huge"}}]}"#,
      "results[0].incidentDetails.criticality"
    ),
    (
      #"{"results": [{"location": {"shape": {"links": [{"points": [{"lat": 1, "lng": 1}]}]}}, "incidentDetails": {"id": "a", "startTime": "2024-02-30T00:00:00Z"}}]}"#,
      "results[0].incidentDetails.startTime"
    ),
    (
      #"{"results": [{"location": {"shape": {"links": [{"points": [{"lat": 1, "lng": 1}]}]}}, "incidentDetails": {"id": "a", "description": {"value": "x", "language": "not a tag!"}}}]}"#,
      "results[0].incidentDetails.description.language"
    ),
    (
      #"{"results": [{"location": {"shape": {"links": [{"points": [{"lat": 1, "lng": 1}]}]}}, "incidentDetails": {"id": "a", "vehicleRestrictions": [{"vehicleType": "spaceship"}]}}]}"#,
      "results[0].incidentDetails.vehicleRestrictions[0].vehicleType"
    ),
    (
      #"{"results": [{"location": {"shape": {"links": [{"points": [{"lat": 1, "lng": 1}]}]}}, "incidentDetails": {"id": "a", "codes": [1.5]}}]}"#,
      "results[0].incidentDetails.codes[0]"
    ),
    (
      #"{"results": [{"location": {"length": -1, "shape": {"links": [{"points": [{"lat": 1, "lng": 1}]}]}}, "incidentDetails": {"id": "a"}}]}"#,
      "results[0].location.length"
    ),
    (
      #"{"results": [{"location": {"shape": {"links": [{"points": [{"lat": 1, "lng": 1}]}]}}, "incidentDetails": {"id": "a", "startTime": "2024-02-02T00:00:00Z", "endTime": "2024-02-01T00:00:00Z"}}]}"#,
      "results[0].incidentDetails"
    ),
  ])
  func skipsBadResultsNamingThePath(text: String, path: String) throws {
    let response = try V7IncidentWire.decode(Data(text.utf8))
    #expect(response.incidents.isEmpty)
    #expect(response.problems.map(\.location) == [path])
  }

  @Test func rejectsDocumentsThatAreNotResponses() {
    #expect(throws: V7WireError(location: "$", reason: "missing member \"results\"")) {
      try V7IncidentWire.decode(Data("{}".utf8))
    }
    #expect(throws: V7WireError.self) { try V7IncidentWire.decode(Data("{\"results\": [".utf8)) }
    #expect(throws: V7WireError.self) { try V7IncidentWire.decodeLookup(Data("{}".utf8)) }
    #expect(throws: V7WireError.self) {
      try V7IncidentWire.decode(Data((String(repeating: "[", count: 100_000)).utf8))
    }
  }

  @Test func encodesAThousandIncidentsQuickly() throws {
    var generator = SeededGenerator(seed: 1)
    let incidents = try (0..<1000).map { try randomIncident($0, using: &generator, vertices: 10) }
    var best = Duration.seconds(100)
    var size = 0
    for _ in 0..<5 {
      let clock = ContinuousClock()
      let elapsed = clock.measure {
        size = V7IncidentWire.encode(incidents, sourceUpdated: nil).count
      }
      best = min(best, elapsed)
    }
    print("V7IncidentWire.encode: 1000 incidents, 10 vertices each, \(size) bytes in \(best)")
    // Debug builds are ~10x slower than release; this bound catches accidental quadratic work.
    #expect(best < .milliseconds(500))
  }
}
