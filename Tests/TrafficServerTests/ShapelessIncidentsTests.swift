import Foundation
import Testing
import Traffic

@testable import TrafficServer

@Suite struct ShapelessIncidentsTests {
  /// Incidents whose texts hold what the shape's delimiters are made of.
  static func incidents() throws -> [TrafficIncident] {
    let tricky = [
      "A", ",\"shape\":{\"links\":[", "}]}},\"incidentDetails\":", "Straße \\ \"x\"", "\n",
    ]
    return try tricky.enumerated().map { index, text in
      let start = try GeoCoordinates(latitude: 52 + Double(index) * 0.01, longitude: 13)
      let end = try GeoCoordinates(latitude: 52.001 + Double(index) * 0.01, longitude: 13.002)
      return try TrafficIncident(
        id: "\(index)-v1", originalId: text, type: .accident, impact: .major,
        description: LocalizedText(text: text, language: .enUS),
        startTime: ServerFixtures.now, endTime: ServerFixtures.now.addingTimeInterval(60),
        location: TrafficLocation(
          polyline: try GeoPolyline(vertices: [start, end]),
          additionalPolylines: index % 2 == 0 ? [GeoPolyline(point: end)] : [],
          description: index % 3 == 0 ? nil : text))
    }
  }

  @Test func removesOnlyTheShapes() throws {
    let incidents = try Self.incidents()
    let withShapes = V7IncidentWire.encode(incidents, sourceUpdated: ServerFixtures.now)
    let without = ShapelessIncidents.encode(incidents, sourceUpdated: ServerFixtures.now)
    let full = try ServerFixtures.object(withShapes)
    let stripped = try ServerFixtures.object(without)
    let fullResults = try #require(full["results"] as? [[String: Any]])
    let strippedResults = try #require(stripped["results"] as? [[String: Any]])
    #expect(strippedResults.count == incidents.count)
    for (a, b) in zip(fullResults, strippedResults) {
      var location = try #require(a["location"] as? [String: Any])
      location.removeValue(forKey: "shape")
      let strippedLocation = try #require(b["location"] as? [String: Any])
      #expect(strippedLocation["shape"] == nil)
      #expect(NSDictionary(dictionary: location) == NSDictionary(dictionary: strippedLocation))
      let details = try #require(a["incidentDetails"] as? [String: Any])
      let strippedDetails = try #require(b["incidentDetails"] as? [String: Any])
      #expect(NSDictionary(dictionary: details) == NSDictionary(dictionary: strippedDetails))
    }
    #expect(stripped["sourceUpdated"] as? String == full["sourceUpdated"] as? String)
  }

  @Test func lookupWithoutShape() throws {
    let incident = try #require(try Self.incidents().last)
    let object = try ServerFixtures.object(ShapelessIncidents.encodeLookup(incident))
    let location = try #require(object["location"] as? [String: Any])
    #expect(location["shape"] == nil)
    #expect(location["length"] != nil)
    #expect((object["incidentDetails"] as? [String: Any])?["id"] as? String == incident.id)
  }

  @Test func incidentsRouteHonoursLocationReferencingNone() throws {
    let server = try ServerFixtures.server()
    let target = "/v7/incidents?in=circle:52.52,13.40;r=2000"
    let none = server.handle(ServerFixtures.get(target + "&locationReferencing=none"))
    #expect(try ServerFixtures.resultIds(none) == ["A", "B"])
    #expect(!none.bodyText.contains("shape"))
    let shape = server.handle(ServerFixtures.get(target + "&locationReferencing=shape"))
    #expect(shape.bodyText.contains("\"shape\""))
    let lookup = server.handle(ServerFixtures.get("/v7/incidents/A?locationReferencing=none"))
    #expect(lookup.status == 200)
    #expect(!lookup.bodyText.contains("shape"))
  }
}
