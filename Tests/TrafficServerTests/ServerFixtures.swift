import Foundation
import Testing
import Traffic

@testable import TrafficServer

/// Builders and checks shared by the server tests.
enum ServerFixtures {
  /// 2028-02-20 12:00 UTC, the engine's fixed "now".
  static let now = Date(timeIntervalSince1970: 1_834_660_800)

  /// A: accident, critical, at Alexanderplatz-ish (52.5200, 13.4000), active now.
  /// B: construction, minor, ~1.1 km north (52.5300, 13.4000), active now.
  /// C: congestion, major, in Munich (48.1, 11.5), active now.
  /// D: roadClosure, major, beside A (52.5201, 13.4001), planned: now+10h ... now+12h.
  static func incidents() throws -> [TrafficIncident] {
    func make(
      _ id: String, _ latitude: Double, _ longitude: Double, _ type: TrafficIncidentType,
      _ impact: TrafficIncidentImpact, startHours: Double, endHours: Double
    ) throws -> TrafficIncident {
      try TrafficIncident(
        id: "\(id)-v1", originalId: id, type: type, impact: impact,
        startTime: now.addingTimeInterval(startHours * 3600),
        endTime: now.addingTimeInterval(endHours * 3600),
        location: TrafficLocation(
          point: try GeoCoordinates(latitude: latitude, longitude: longitude), description: id))
    }
    return [
      try make("A", 52.5200, 13.4000, .accident, .critical, startHours: -1, endHours: 1),
      try make("B", 52.5300, 13.4000, .construction, .minor, startHours: -2, endHours: 3),
      try make("C", 48.1, 11.5, .congestion, .major, startHours: -1, endHours: 1),
      try make("D", 52.5201, 13.4001, .roadClosure, .major, startHours: 10, endHours: 12),
    ]
  }

  static func engine() throws -> TrafficEngine {
    let engine = try TrafficEngine(store: InMemoryTrafficStore(), clock: { now })
    try engine.apply(IncidentBatch(upserts: try incidents()))
    return engine
  }

  static func server(_ configuration: ServerConfiguration = quiet()) throws -> TrafficServer {
    try TrafficServer(engine: try engine(), configuration: configuration)
  }

  /// The default configuration without an access log.
  static func quiet() -> ServerConfiguration {
    ServerConfiguration(accessLog: .none)
  }

  static func get(_ target: String, headers: HTTPHeaders = [:]) -> HTTPRequest {
    HTTPRequest(method: "GET", target: target, headers: headers)
  }

  static func post(_ target: String, _ body: String, headers: HTTPHeaders = [:]) -> HTTPRequest {
    HTTPRequest(method: "POST", target: target, headers: headers, body: Data(body.utf8))
  }

  /// The JSON object of a response body.
  static func object(
    _ body: Data, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> [String: Any] {
    let value = try JSONSerialization.jsonObject(with: body)
    return try #require(value as? [String: Any], sourceLocation: sourceLocation)
  }

  /// The original ids of the results of an incidents response, in order.
  static func resultIds(
    _ response: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> [String] {
    #expect(response.status == 200, "\(response.bodyText)", sourceLocation: sourceLocation)
    let results = try #require(
      try object(response.body)["results"] as? [[String: Any]], sourceLocation: sourceLocation)
    return results.compactMap {
      ($0["incidentDetails"] as? [String: Any])?["originalId"] as? String
    }
  }

  /// Checks a JSON error answer: status, code, a detail naming `mentions`, a correlation id.
  static func expectError(
    _ response: HTTPResponse, status: Int, code: String, mentions: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(response.status == status, "\(response.bodyText)", sourceLocation: sourceLocation)
    #expect(
      response.headers["Content-Type"]?.hasPrefix("application/json") == true,
      sourceLocation: sourceLocation)
    guard let body = try? object(response.body, sourceLocation: sourceLocation) else {
      Issue.record("not a JSON object: \(response.bodyText)", sourceLocation: sourceLocation)
      return
    }
    #expect(body["status"] as? Int == status, sourceLocation: sourceLocation)
    #expect(body["code"] as? String == code, "\(response.bodyText)", sourceLocation: sourceLocation)
    #expect((body["title"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
    #expect(
      (body["correlationId"] as? String) == response.headers["X-Correlation-Id"],
      sourceLocation: sourceLocation)
    if let mentions {
      let detail = body["detail"] as? String ?? ""
      #expect(detail.contains(mentions), "detail: \(detail)", sourceLocation: sourceLocation)
    }
  }
}
