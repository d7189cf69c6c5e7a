import Codec
import Foundation
import Testing
import Traffic
import TrafficTestSupport

/// Random flows covering every wire field.
private func randomFlow(_ index: Int, using generator: inout SeededGenerator) throws -> TrafficFlow
{
  let count = Int.random(in: 2...6, using: &generator)
  let vertices = try (0..<count).map { _ in
    try GeoCoordinates(
      latitude: Double.random(in: -80...80, using: &generator),
      longitude: Double.random(in: -180...180, using: &generator))
  }
  let free = Double.random(in: 1...40, using: &generator)
  let uncapped = Double.random(in: 0...50, using: &generator)
  let names: [String?] = [nil, "A1", "Rosenfelder Straße", "\"quoted\" \\ name\n", "事故 🚗"]
  return TrafficFlow(
    location: try GeoPolyline(vertices: vertices),
    lengthInMeters: Double.random(in: 0...5000, using: &generator),
    roadName: names[index % names.count], functionalClass: 1 + index % 5,
    speedInMetersPerSecond: min(uncapped, free), speedUncappedInMetersPerSecond: uncapped,
    freeFlowSpeedInMetersPerSecond: free,
    jamFactor: index % 7 == 0 ? 10 : Double.random(in: 0...10, using: &generator),
    confidence: Double.random(in: 0...1, using: &generator),
    traversability: Traversability.allCases[index % Traversability.allCases.count],
    jamTendency: index % 4 == 3 ? nil : JamTendency.allCases[index % 3],
    segmentID: index, sourceID: "way/\(index)")
}

@Suite struct V7FlowWireTests {
  @Test func roundTripKeepsEveryField() throws {
    var generator = SeededGenerator(seed: 7)
    let flows = try (0..<200).map { try randomFlow($0, using: &generator) }
    let updated = Date(timeIntervalSince1970: 1_800_000_000.25)
    let data = V7FlowWire.encode(flows, sourceUpdated: updated)
    let decoded = try V7FlowWire.decode(data)
    #expect(decoded.problems.isEmpty)
    #expect(decoded.sourceUpdated == updated)
    #expect(decoded.flows == flows)
    // Deterministic output: the decoded flows encode to the same bytes.
    #expect(V7FlowWire.encode(decoded.flows, sourceUpdated: updated) == data)
  }

  @Test func writesTheV7Shape() throws {
    let flow = TrafficFlow(
      location: try GeoPolyline(vertices: [
        try GeoCoordinates(latitude: 52.5, longitude: 13.4),
        try GeoCoordinates(latitude: 52.501, longitude: 13.4),
      ]),
      lengthInMeters: 111, roadName: "Alt-Friedrichsfelde", functionalClass: 2,
      speedInMetersPerSecond: 13.5, speedUncappedInMetersPerSecond: 14.25,
      freeFlowSpeedInMetersPerSecond: 13.75, jamFactor: 1.25, confidence: 0.99,
      traversability: .open, jamTendency: .falling, segmentID: 4, sourceID: "w4")
    let text = String(decoding: V7FlowWire.encode([flow], sourceUpdated: nil), as: UTF8.self)
    #expect(
      text
        == "{\"sourceUpdated\":null,\"results\":[{\"location\":{\"description\":"
        + "\"Alt-Friedrichsfelde\",\"length\":111,\"shape\":{\"links\":[{\"points\":["
        + "{\"lat\":52.5,\"lng\":13.4},{\"lat\":52.501,\"lng\":13.4}],\"length\":111.3}]},"
        + "\"functionalClass\":2,\"segmentId\":4,\"sourceId\":\"w4\"},\"currentFlow\":{"
        + "\"speed\":13.5,\"speedUncapped\":14.25,\"freeFlow\":13.75,\"jamFactor\":1.25,"
        + "\"confidence\":0.99,\"traversability\":\"open\",\"jamTendency\":-1}}]}")
    let shapeless = String(
      decoding: V7FlowWire.encode([flow], sourceUpdated: nil, includeShape: false),
      as: UTF8.self)
    #expect(!shapeless.contains("shape"))
    #expect(shapeless.contains("\"length\":111,\"functionalClass\":2"))
  }

  @Test(arguments: [
    (JamTendency.rising, 1), (.stable, 0), (.falling, -1),
  ])
  func tendencyIsHEREsInteger(tendency: JamTendency, value: Int) {
    #expect(V7FlowWire.wireValue(tendency) == value)
  }

  /// A response as HERE writes it (its guide's example, with a shape instead of OLR):
  /// no project extensions, several links.
  @Test func readsHEREsResponse() throws {
    let text = """
      {"sourceUpdated":"2021-06-08T10:07:23Z","results":[
        {"location":{"description":"Alt-Friedrichsfelde","length":966.0,
          "shape":{"links":[
            {"points":[{"lat":52.51,"lng":13.47},{"lat":52.511,"lng":13.48}],"length":700.0},
            {"points":[{"lat":52.511,"lng":13.48},{"lat":52.512,"lng":13.483}],"length":266.0}]}},
         "currentFlow":{"speed":13.888889,"speedUncapped":14.722222,"freeFlow":13.888889,
           "jamFactor":1.2,"confidence":0.99,"traversability":"open","jamTendency":1,
           "subSegments":[{"length":500,"speed":10,"freeFlow":13,"jamFactor":3,
             "confidence":0.9,"traversability":"open"}]}},
        {"location":{"length":10,"shape":{"links":[{"points":[{"lat":52,"lng":13},
          {"lat":52.0001,"lng":13}]}]}},
         "currentFlow":{"freeFlow":20,"jamFactor":10,"traversability":"closed"}}]}
      """
    let response = try V7FlowWire.decode(Data(text.utf8))
    #expect(response.problems.isEmpty)
    #expect(response.sourceUpdated == RFC3339.parse("2021-06-08T10:07:23Z"))
    #expect(response.flows.count == 2)
    let first = try #require(response.flows.first)
    #expect(first.location.vertices.count == 3)
    #expect(first.roadName == "Alt-Friedrichsfelde")
    #expect(first.lengthInMeters == 966)
    #expect(first.speedInMetersPerSecond == 13.888889)
    #expect(first.speedUncappedInMetersPerSecond == 14.722222)
    #expect(first.jamFactor == 1.2)
    #expect(first.confidence == 0.99)
    #expect(first.jamTendency == .rising)
    #expect(first.functionalClass == 5)
    #expect(first.segmentID == -1)
    let second = try #require(response.flows.last)
    #expect(second.traversability == .closed)
    #expect(second.speedInMetersPerSecond == 20)
    #expect(second.confidence == 0.5)
    #expect(second.jamTendency == nil)
  }

  @Test(arguments: [
    (
      "{\"location\":{\"length\":1},\"currentFlow\":{\"freeFlow\":1,\"jamFactor\":1}}",
      "results[0].location"
    ),
    (
      "{\"location\":{\"shape\":{\"links\":[{\"points\":[{\"lat\":1,\"lng\":1}]}]}},"
        + "\"currentFlow\":{\"freeFlow\":1,\"jamFactor\":1}}", "results[0].location.shape.links"
    ),
    (
      "{\"location\":{\"shape\":{\"links\":[{\"points\":[{\"lat\":91,\"lng\":1},"
        + "{\"lat\":1,\"lng\":1}]}]}},\"currentFlow\":{\"freeFlow\":1,\"jamFactor\":1}}",
      "results[0].location.shape.links[0].points[0]"
    ),
    (
      "{\"location\":{\"shape\":{\"links\":[{\"points\":[{\"lat\":1,\"lng\":1},"
        + "{\"lat\":2,\"lng\":1}]}]}},\"currentFlow\":{\"freeFlow\":1,\"jamFactor\":11}}",
      "results[0].currentFlow.jamFactor"
    ),
    (
      "{\"location\":{\"shape\":{\"links\":[{\"points\":[{\"lat\":1,\"lng\":1},"
        + "{\"lat\":2,\"lng\":1}]}]}},\"currentFlow\":{\"freeFlow\":-3,\"jamFactor\":1}}",
      "results[0].currentFlow.freeFlow"
    ),
    (
      "{\"location\":{\"shape\":{\"links\":[{\"points\":[{\"lat\":1,\"lng\":1},"
        + "{\"lat\":2,\"lng\":1}]}]}},\"currentFlow\":{\"freeFlow\":3,\"jamFactor\":1,"
        + "\"traversability\":\"shut\"}}", "results[0].currentFlow.traversability"
    ),
    (
      "{\"location\":{\"shape\":{\"links\":[{\"points\":[{\"lat\":1,\"lng\":1},"
        + "{\"lat\":2,\"lng\":1}]}]}},\"currentFlow\":{\"jamFactor\":1}}",
      "results[0].currentFlow"
    ),
  ])
  func badResultIsSkippedWithItsPath(result: String, path: String) throws {
    let good =
      "{\"location\":{\"shape\":{\"links\":[{\"points\":[{\"lat\":1,\"lng\":1},"
      + "{\"lat\":2,\"lng\":1}]}]}},\"currentFlow\":{\"freeFlow\":3,\"jamFactor\":1}}"
    let response = try V7FlowWire.decode(
      Data("{\"sourceUpdated\":null,\"results\":[\(result),\(good)]}".utf8))
    #expect(response.flows.count == 1)
    #expect(response.problems.map(\.location) == [path], "\(response.problems)")
  }

  @Test(arguments: [
    ("", "line 1"), ("[]", "$"), ("{}", "$"), ("{\"results\":{}}", "results"),
    ("{\"sourceUpdated\":\"yesterday\",\"results\":[]}", "sourceUpdated"),
  ])
  func brokenDocumentThrows(text: String, location: String) {
    #expect {
      try V7FlowWire.decode(Data(text.utf8))
    } throws: { error in
      ((error as? V7WireError)?.location ?? "").hasPrefix(location)
    }
  }
}
