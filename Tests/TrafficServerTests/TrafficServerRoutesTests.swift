import Codec
import Foundation
import Testing
import Traffic

@testable import TrafficServer

@Suite struct TrafficServerRoutesTests {
  let server: TrafficServer

  init() throws {
    server = try ServerFixtures.server()
  }

  func ids(_ target: String) throws -> [String] {
    try ServerFixtures.resultIds(server.handle(ServerFixtures.get(target)))
  }

  // MARK: /v7/incidents

  @Test func incidentsInCirclesBoxesAndCorridors() throws {
    #expect(try ids("/v7/incidents?in=circle:52.52,13.40;r=500") == ["A"])
    #expect(Set(try ids("/v7/incidents?in=circle:52.52,13.40;r=2000")) == ["A", "B"])
    #expect(Set(try ids("/v7/incidents?in=bbox:13.3,52.4,13.5,52.6")) == ["A", "B"])
    #expect(try ids("/v7/incidents?in=bbox:11,48,12,48.5") == ["C"])
    let path = try FlexiblePolyline.encode([
      try GeoCoordinates(latitude: 52.5290, longitude: 13.3990),
      try GeoCoordinates(latitude: 52.5310, longitude: 13.4010),
    ])
    #expect(try ids("/v7/incidents?in=corridor:\(path);r=50") == ["B"])
    let response = server.handle(ServerFixtures.get("/v7/incidents?in=circle:52.52,13.40;r=500"))
    let body = try ServerFixtures.object(response.body)
    #expect(body["sourceUpdated"] is String)
    #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
  }

  @Test func incidentFiltersOrderAndLimit() throws {
    let near = "/v7/incidents?in=circle:52.52,13.40;r=2000"
    #expect(try ids(near + "&criticality=minor") == ["B"])
    #expect(Set(try ids(near + "&criticality=minor,critical")) == ["A", "B"])
    #expect(try ids(near + "&type=accident") == ["A"])
    #expect(try ids(near + "&sort=distance&from=52.5300,13.4000") == ["B", "A"])
    #expect(try ids(near + "&sort=distance&from=52.5200,13.4000") == ["A", "B"])
    #expect(try ids(near + "&sort=distance&from=52.5300,13.4000&limit=1") == ["B"])
    // The planned closure D shows once the window reaches its start (now + 10 h).
    #expect(
      Set(try ids(near + "&latestEndTime=2028-02-20T23:00:00Z")) == ["A", "B", "D"])
    #expect(
      try ids(
        near + "&earliestStartTime=2028-02-20T22:30:00Z&latestEndTime=2028-02-20T23:00:00Z")
        == ["D"])
    // Unknown parameters are ignored; known harmless ones accepted.
    #expect(
      try ids(
        "/v7/incidents?in=circle:52.52,13.40;r=500&locationReferencing=shape&units=metric"
          + "&lang=de-DE&foo=bar") == ["A"])
  }

  @Test func languageOfTexts() throws {
    let response = server.handle(
      ServerFixtures.get("/v7/incidents?in=circle:52.52,13.40;r=500&lang=de-DE"))
    let body = try ServerFixtures.object(response.body)
    let result = try #require((body["results"] as? [[String: Any]])?.first)
    let details = try #require(result["incidentDetails"] as? [String: Any])
    let description = try #require(details["description"] as? [String: Any])
    #expect(description["language"] as? String == "de-DE")
  }

  @Test func postTakesTheParametersAsJSON() throws {
    let response = server.handle(
      ServerFixtures.post(
        "/v7/incidents?criticality=minor",
        #"{"in": {"type": "circle", "center": {"lat": 52.52, "lng": 13.40}, "radius": 2000}, "#
          + #""type": ["construction", "accident"], "limit": 5}"#))
    #expect(try ServerFixtures.resultIds(response) == ["B"])
    let box = server.handle(
      ServerFixtures.post(
        "/v7/incidents",
        #"{"in": "bbox:13.3,52.4,13.5,52.6", "sort": "distance", "from": "52.53,13.4"}"#))
    #expect(try ServerFixtures.resultIds(box) == ["B", "A"])
  }

  /// JSON does not tell `1` from `1.0` or `1e0`: whole numbers count as whole numbers
  /// however they are written; a fraction is still refused where a whole number is needed.
  @Test func wholeJSONNumbersInAnyNotation() throws {
    let area =
      #"{"in": {"type": "circle", "center": {"lat": 5.252e1, "lng": 13.40}, "#
      + #""radius": 2.0e3}, "sort": "distance", "from": "52.53,13.4", "limit": "#
    #expect(
      try ServerFixtures.resultIds(
        server.handle(ServerFixtures.post("/v7/incidents", area + "1e0}"))) == ["B"])
    #expect(
      try ServerFixtures.resultIds(
        server.handle(ServerFixtures.post("/v7/incidents", area + "2.0}"))) == ["B", "A"])
    ServerFixtures.expectError(
      server.handle(ServerFixtures.post("/v7/incidents", area + "1.5}")), status: 400,
      code: "invalidParameter", mentions: "limit")
    #expect(RequestParameters.integral("1e2") == "100")
    #expect(RequestParameters.integral("-3.0") == "-3")
    #expect(RequestParameters.integral("0.25") == "0.25")
    #expect(RequestParameters.integral("12") == "12")
    #expect(RequestParameters.integral("1e300") == "1e300")
  }

  /// Bad parameters of `/v7/incidents`: (query suffix, status, code, text the detail names).
  static let badIncidentQueries: [(String, Int, String, String)] = [
    ("", 400, "invalidIn", "in"),
    ("?in=circle:52.5,13.4;r=500&in=circle:52.5,13.4;r=600", 400, "invalidIn", "in"),
    ("?in=circle:52.5,13.4;r=60000", 400, "invalidGeometry", "in"),
    ("?in=pentagon:1", 400, "invalidIn", "in"),
    ("?in=circle:52.5,13.4;r=500&lang=xx_YY", 400, "invalidParameter", "lang"),
    ("?in=circle:52.5,13.4;r=500&lang=de&lang=fr", 400, "invalidParameter", "lang"),
    ("?in=circle:52.5,13.4;r=500&criticality=severe", 400, "invalidParameter", "criticality"),
    ("?in=circle:52.5,13.4;r=500&criticality=", 400, "invalidParameter", "criticality"),
    ("?in=circle:52.5,13.4;r=500&type=meteor", 400, "invalidIncident", "type"),
    ("?in=circle:52.5,13.4;r=500&type=accident&type=weather", 400, "invalidIncident", "type"),
    (
      "?in=circle:52.5,13.4;r=500&earliestStartTime=yesterday", 400, "invalidIncident",
      "earliestStartTime"
    ),
    (
      "?in=circle:52.5,13.4;r=500&latestEndTime=2028-13-45T00:00:00Z", 400, "invalidIncident",
      "latestEndTime"
    ),
    // RFC 3339 needs the offset and the seconds; a time without an offset is refused.
    (
      "?in=circle:52.5,13.4;r=500&earliestStartTime=2028-02-20T10:00:00", 400,
      "invalidIncident", "earliestStartTime"
    ),
    (
      "?in=circle:52.5,13.4;r=500&latestEndTime=2028-02-20T10:00:00+0100", 400,
      "invalidIncident", "latestEndTime"
    ),
    (
      "?in=circle:52.5,13.4;r=500&latestEndTime=2028-02-20T10:00Z", 400, "invalidIncident",
      "latestEndTime"
    ),
    (
      "?in=circle:52.5,13.4;r=500&latestEndTime=2028-02-20", 400, "invalidIncident", "latestEndTime"
    ),
    (
      "?in=circle:52.5,13.4;r=500&earliestStartTime=2028-02-21T00:00:00Z"
        + "&latestEndTime=2028-02-20T00:00:00Z", 400, "invalidFilterOptions", "latestEndTime"
    ),
    ("?in=circle:52.5,13.4;r=500&units=imperial", 400, "invalidParameter", "units"),
    ("?in=circle:52.5,13.4;r=500&units=furlongs", 400, "invalidParameter", "units"),
    (
      "?in=circle:52.5,13.4;r=500&locationReferencing=braille", 400, "invalidParameter",
      "locationReferencing"
    ),
    ("?in=circle:52.5,13.4;r=500&sort=distance", 400, "invalidParameter", "from"),
    ("?in=circle:52.5,13.4;r=500&sort=severity&from=52,13", 400, "invalidParameter", "sort"),
    ("?in=circle:52.5,13.4;r=500&from=52,13", 400, "invalidParameter", "sort"),
    ("?in=circle:52.5,13.4;r=500&sort=distance&from=95,13", 400, "invalidParameter", "from"),
    ("?in=circle:52.5,13.4;r=500&sort=distance&from=here", 400, "invalidParameter", "from"),
    ("?in=circle:52.5,13.4;r=500&limit=0", 400, "invalidParameter", "limit"),
    ("?in=circle:52.5,13.4;r=500&limit=-3", 400, "invalidParameter", "limit"),
    ("?in=circle:52.5,13.4;r=500&limit=ten", 400, "invalidParameter", "limit"),
    (
      "?in=circle:52.5,13.4;r=500&limit=99999999999999999999999", 400, "invalidParameter",
      "limit"
    ),
    ("?in=circle:52.5,13.4;r=500&limit=1&limit=2", 400, "invalidParameter", "limit"),
    ("?in=circle:52.5%ZZ", 400, "badRequest", "in"),
  ]

  /// RFC 3339 spellings of one instant that the time parameters take: `T` or `t` or a space
  /// between date and time, `Z` or `z`, an offset, a fraction.
  @Test(arguments: [
    "2028-02-20T22:30:00Z", "2028-02-20t22:30:00z", "2028-02-20%2022:30:00Z",
    "2028-02-20T23:30:00+01:00", "2028-02-20T23:30:00%2B01:00", "2028-02-20T22:30:00.000Z",
  ])
  func timeParametersTakeEveryRFC3339Spelling(_ time: String) throws {
    let server = try ServerFixtures.server()
    let response = server.handle(
      ServerFixtures.get(
        "/v7/incidents?in=circle:52.5,13.4;r=500&earliestStartTime=\(time)"
          + "&latestEndTime=2028-02-20T23:00:00Z"))
    #expect(response.status == 200, "\(time): \(response.bodyText)")
  }

  @Test(arguments: badIncidentQueries)
  func badIncidentParametersAnswer4xxNamingTheParameter(
    suffix: String, status: Int, code: String, mentions: String
  ) {
    let response = server.handle(ServerFixtures.get("/v7/incidents" + suffix))
    ServerFixtures.expectError(response, status: status, code: code, mentions: mentions)
  }

  @Test(arguments: [
    ("", "badRequest", "body"),
    ("[1,2]", "badRequest", "object"),
    ("{\"in\": ", "badRequest", "JSON"),
    (
      #"{"in": {"type": "circle", "center": {"lat": 52.5}, "radius": 10}}"#, "invalidIn",
      "in.center.lng"
    ),
    (#"{"in": "circle:52.5,13.4;r=500", "limit": {"a": 1}}"#, "badRequest", "limit"),
    (#"{"in": "circle:52.5,13.4;r=500", "type": [true]}"#, "badRequest", "type"),
  ])
  func badPostBodies(body: String, code: String, mentions: String) {
    let response = server.handle(ServerFixtures.post("/v7/incidents", body))
    ServerFixtures.expectError(response, status: 400, code: code, mentions: mentions)
  }

  @Test func parameterInBothQueryAndBodyIsADuplicate() {
    let response = server.handle(
      ServerFixtures.post(
        "/v7/incidents?in=circle:52.5,13.4;r=500", #"{"in": "circle:52.5,13.4;r=500"}"#))
    ServerFixtures.expectError(response, status: 400, code: "invalidIn", mentions: "2 times")
  }

  // MARK: /v7/incidents/{id}

  @Test func lookupByOriginalId() throws {
    for target in [
      "/v7/incidents/A", "/v7/incidents/here:traffic:incident:A",
      "/v7/incidents/here%3Atraffic%3Aincident%3AA?lang=fr-FR&units=metric",
    ] {
      let response = server.handle(ServerFixtures.get(target))
      #expect(response.status == 200, "\(target): \(response.bodyText)")
      let body = try ServerFixtures.object(response.body)
      let details = try #require(body["incidentDetails"] as? [String: Any])
      #expect(details["originalId"] as? String == "A")
    }
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get("/v7/incidents/nope")), status: 404,
      code: "incidentIdNotFound", mentions: "nope")
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get("/v7/incidents/")), status: 400, code: "invalidIncident")
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get("/v7/incidents/A%")), status: 400, code: "invalidIncident")
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get("/v7/incidents/A?lang=!!")), status: 400,
      code: "invalidParameter", mentions: "lang")
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get("/v7/incidents/A?locationReferencing=tmcc")),
      status: 400, code: "invalidParameter", mentions: "locationReferencing")
  }

  // MARK: /v7/flow

  @Test func flowAnswersEmptyResultsForValidQueries() throws {
    for request in [
      ServerFixtures.get(
        "/v7/flow?in=circle:52.5,13.4;r=500&minJamFactor=2&maxJamFactor=8&functionalClasses=1,2"),
      ServerFixtures.post("/v7/flow", #"{"in": "bbox:13,52,13.5,52.5", "minJamFactor": 0}"#),
    ] {
      let response = server.handle(request)
      #expect(response.status == 200, "\(response.bodyText)")
      let body = try ServerFixtures.object(response.body)
      #expect(body["sourceUpdated"] is NSNull)
      #expect((body["results"] as? [Any])?.isEmpty == true)
    }
  }

  @Test(arguments: [
    ("", "invalidIn", "in"),
    ("?in=circle:52.5,13.4;r=500&in=bbox:1,2,3,4", "invalidIn", "in"),
    ("?in=circle:52.5,13.4;r=500&minJamFactor=-1", "invalidParameter", "minJamFactor"),
    ("?in=circle:52.5,13.4;r=500&maxJamFactor=10.5", "invalidParameter", "maxJamFactor"),
    ("?in=circle:52.5,13.4;r=500&maxJamFactor=x", "invalidParameter", "maxJamFactor"),
    (
      "?in=circle:52.5,13.4;r=500&minJamFactor=8&maxJamFactor=2", "invalidFilterOptions",
      "minJamFactor"
    ),
    ("?in=circle:52.5,13.4;r=500&functionalClasses=0", "invalidParameter", "functionalClasses"),
    ("?in=circle:52.5,13.4;r=500&functionalClasses=1,6", "invalidParameter", "functionalClasses"),
    (
      "?in=circle:52.5,13.4;r=500&functionalClasses=1,,2", "invalidParameter",
      "functionalClasses"
    ),
    ("?in=circle:52.5,13.4;r=500&units=imperial", "invalidParameter", "units"),
  ])
  func badFlowParameters(suffix: String, code: String, mentions: String) {
    let response = server.handle(ServerFixtures.get("/v7/flow" + suffix))
    ServerFixtures.expectError(response, status: 400, code: code, mentions: mentions)
  }

  // MARK: Service routes

  @Test func healthMetricsAndIndex() throws {
    _ = server.handle(ServerFixtures.get("/v7/incidents?in=circle:52.52,13.40;r=500"))
    let health = try ServerFixtures.object(server.handle(ServerFixtures.get("/healthz")).body)
    #expect(health["status"] as? String == "ok")
    #expect(health["incidents"] as? Int == 4)
    #expect(health["loaded"] as? Bool == true)
    let metrics = server.handle(ServerFixtures.get("/metrics"))
    #expect(metrics.headers["Content-Type"]?.hasPrefix("text/plain; version=0.0.4") == true)
    #expect(
      metrics.bodyText.contains(
        #"traffic_http_requests_total{route="/v7/incidents",status="200"} 1"#))
    #expect(
      metrics.bodyText.contains(
        #"traffic_http_request_duration_seconds_count{route="/v7/incidents"} 1"#))
    #expect(metrics.bodyText.contains("traffic_incidents 4\n"))
    let index = server.handle(ServerFixtures.get("/api"))
    #expect(index.status == 200)
    #expect(index.headers["Content-Type"] == "text/html; charset=utf-8")
    #expect(index.bodyText.contains("/v7/incidents"))
  }

  @Test func unknownRoutesAndMethods() {
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get("/v8/incidents")), status: 404, code: "httpError")
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get("/v1/feeds/a/b")), status: 404, code: "httpError")
    let wrong = server.handle(HTTPRequest(method: "DELETE", target: "/v7/incidents"))
    ServerFixtures.expectError(wrong, status: 405, code: "httpError", mentions: "DELETE")
    #expect(wrong.headers["Allow"] == "GET, HEAD, POST, OPTIONS")
    let getFeed = server.handle(ServerFixtures.get("/v1/feeds/datex2"))
    ServerFixtures.expectError(getFeed, status: 405, code: "httpError")
    #expect(getFeed.headers["Allow"] == "POST, OPTIONS")
  }
}
