import Codec
import Foundation
import Testing
import Traffic
import Zlib

@testable import TrafficServer

@Suite struct FlowRoutesTests {
  typealias F = FlowServerFixtures

  // MARK: /v7/flow

  @Test func flowWithoutProbesIsFreeFlowAtTheSpeedLimit() throws {
    let server = try F.server()
    let response = server.handle(ServerFixtures.get(F.everywhere))
    #expect(response.status == 200)
    let body = try ServerFixtures.object(response.body)
    let results = try #require(body["results"] as? [[String: Any]])
    #expect(results.count == 7)
    let decoded = try V7FlowWire.decode(response.body)
    #expect(decoded.flows.map(\.segmentID) == Array(0..<7))
    for flow in decoded.flows {
      #expect(flow.speedInMetersPerSecond == F.limit)
      #expect(flow.freeFlowSpeedInMetersPerSecond == F.limit)
      #expect(flow.jamFactor == 0)
      #expect(flow.confidence == 0.5)
      #expect(flow.traversability == .open)
      #expect(flow.functionalClass == 2)
    }
    #expect(decoded.flows.first?.roadName == "West")
  }

  @Test func flowAnswersTheEnginesQueryExactly() throws {
    let server = try F.server()
    let area = try GeoBox(west: 13.008, south: 51.999, east: 13.02, north: 52.001)
    let expected = try server.engine.flow(inside: area, options: TrafficFlowQueryOptions())
    let response = server.handle(
      ServerFixtures.get("/v7/flow?in=bbox:13.008,51.999,13.02,52.001"))
    #expect(try V7FlowWire.decode(response.body).flows == expected)
    #expect(expected.map(\.segmentID) == [2, 3])
  }

  @Test func filtersByJamFactorAndFunctionalClass() throws {
    let server = try F.server()
    func count(_ query: String) throws -> Int {
      let response = server.handle(ServerFixtures.get(F.everywhere + query))
      #expect(response.status == 200, "\(response.bodyText)")
      return try V7FlowWire.decode(response.body).flows.count
    }
    #expect(try count("&minJamFactor=0&maxJamFactor=0") == 7)
    #expect(try count("&minJamFactor=0.5") == 0)
    #expect(try count("&functionalClasses=2") == 7)
    #expect(try count("&functionalClasses=1,3,4,5") == 0)
  }

  @Test func locationReferencingNoneLeavesShapesOut() throws {
    let server = try F.server()
    let none = server.handle(ServerFixtures.get(F.everywhere + "&locationReferencing=none"))
    #expect(none.status == 200)
    #expect(!none.bodyText.contains("shape"))
    let results = try #require(try ServerFixtures.object(none.body)["results"] as? [[String: Any]])
    #expect(results.count == 7)
    #expect(results.allSatisfy { ($0["location"] as? [String: Any])?["length"] != nil })
    let both = server.handle(ServerFixtures.get(F.everywhere + "&locationReferencing=none,shape"))
    #expect(both.bodyText.contains("\"shape\""))
  }

  @Test func postTakesTheSameParametersAsJSON() throws {
    let server = try F.server()
    let body =
      "{\"in\": {\"type\": \"circle\", \"center\": {\"lat\": 52, \"lng\": 13.00728}, "
      + "\"radius\": 2000}, \"functionalClasses\": [2], \"maxJamFactor\": 10}"
    let response = server.handle(ServerFixtures.post("/v7/flow", body))
    #expect(response.status == 200, "\(response.bodyText)")
    #expect(try V7FlowWire.decode(response.body).flows.count == 7)
  }

  @Test func engineWithoutNetworkAnswersNoResults() throws {
    let server = try F.server(network: false)
    let response = server.handle(ServerFixtures.get(F.everywhere))
    #expect(response.status == 200)
    #expect(response.bodyText == "{\"sourceUpdated\":null,\"results\":[]}")
  }

  @Test(arguments: [
    ("&minJamFactor=11", "minJamFactor", "invalidParameter"),
    ("&minJamFactor=-1", "minJamFactor", "invalidParameter"),
    ("&maxJamFactor=nan", "maxJamFactor", "invalidParameter"),
    ("&maxJamFactor=", "maxJamFactor", "invalidParameter"),
    ("&minJamFactor=5&maxJamFactor=2", "minJamFactor", "invalidFilterOptions"),
    ("&minJamFactor=1&minJamFactor=2", "minJamFactor", "invalidParameter"),
    ("&functionalClasses=0", "functionalClasses", "invalidParameter"),
    ("&functionalClasses=6", "functionalClasses", "invalidParameter"),
    ("&functionalClasses=1,,2", "functionalClasses", "invalidParameter"),
    ("&functionalClasses=x", "functionalClasses", "invalidParameter"),
    ("&functionalClasses=99999999999999999999", "functionalClasses", "invalidParameter"),
    ("&locationReferencing=olr", "locationReferencing", "invalidParameter"),
    ("&locationReferencing=tmc", "locationReferencing", "invalidParameter"),
    ("&locationReferencing=", "locationReferencing", "invalidParameter"),
    ("&in=bbox:1,2,3,4", "in", "invalidIn"),
  ])
  func badFlowParametersAreNamed(suffix: String, parameter: String, code: String) throws {
    let server = try F.server()
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get(F.everywhere + suffix)), status: 400, code: code,
      mentions: parameter)
  }

  @Test(arguments: [
    ("/v7/flow", "in", "invalidIn"),
    ("/v7/flow?in=circle:95,13;r=10", "in", "invalidGeometry"),
    ("/v7/flow?in=circle:52,13;r=50001", "in", "invalidGeometry"),
    ("/v7/flow?in=bbox:13,52,14.5,52.5", "in", "invalidGeometry"),
    ("/v7/flow?in=triangle:1,2", "in", "invalidIn"),
  ])
  func badAreasAreNamed(target: String, parameter: String, code: String) throws {
    let server = try F.server()
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get(target)), status: 400, code: code, mentions: parameter)
  }

  // MARK: /v1/probes

  @Test func probesShowInFlowWithinTheAggregationInterval() throws {
    let server = try F.server()
    let csv = F.csvDrive(vehicles: 4, speed: 8)
    let push = server.handle(
      ServerFixtures.post("/v1/probes", csv, headers: ["Content-Type": "text/csv"]))
    #expect(push.status == 200, "\(push.bodyText)")
    let report = try ServerFixtures.object(push.body)
    let rows = csv.split(separator: "\n").count - 1
    #expect(report["accepted"] as? Int == rows)
    #expect(report["rejected"] as? Int == 0)
    #expect(report["matched"] as? Int ?? 0 > rows / 2)
    #expect(report["unmatched"] as? Int == 0)
    // No flush: the positions decided so far (fixed-lag matching) are already published.
    let flow = server.handle(ServerFixtures.get(F.everywhere))
    let west = try #require(try F.currentFlow(flow, segment: 0))
    let speed = try #require(west["speedUncapped"] as? Double)
    #expect(abs(speed - 8) < 0.5, "\(west)")
    #expect(west["confidence"] as? Double ?? 0 > 0.7)
    let jam = try #require(west["jamFactor"] as? Double)
    #expect(jam > 0 && jam < 10)
    // The opposite direction saw no probes.
    #expect(try F.currentFlow(flow, segment: 1)?["confidence"] as? Double == 0.5)
    let sourceUpdated = try ServerFixtures.object(flow.body)["sourceUpdated"] as? String
    #expect(sourceUpdated != nil)
  }

  @Test func historicalProbesTeachTheTypicalWeekThatFlowAnswersNowAndAtAnotherTime() throws {
    let server = try F.server()
    let week = 7 * 86_400.0
    // Three weeks back at this time of the week: a crawl at 4 m/s; six hours later in each
    // of those weeks: 13 m/s.
    for k in 1...3 {
      for (hours, speed) in [(0.0, 4.0), (6, 13)] {
        let csv = F.csvDrive(
          vehicles: 3, speed: speed, endAgo: Double(k) * week - hours * 3_600,
          prefix: "w\(k)h\(Int(hours))-")
        let push = server.handle(
          ServerFixtures.post("/v1/probes?flush=true", csv, headers: ["Content-Type": "text/csv"]))
        #expect(push.status == 200, "\(push.bodyText)")
        #expect(try ServerFixtures.object(push.body)["rejected"] as? Int == 0)
      }
    }
    let now = try #require(
      try F.currentFlow(server.handle(ServerFixtures.get(F.everywhere)), segment: 0))
    #expect(abs((now["speedUncapped"] as? Double ?? 0) - 4) < 1.2, "\(now)")
    let confidence = try #require(now["confidence"] as? Double)
    #expect(confidence > 0.5 && confidence <= 0.7)
    #expect(now["jamFactor"] as? Double ?? 0 > 5)
    let at = RFC3339.format(Date().addingTimeInterval(6 * 3_600))
    let later = try #require(
      try F.currentFlow(server.handle(ServerFixtures.get(F.everywhere + "&at=" + at)), segment: 0))
    #expect(abs((later["speedUncapped"] as? Double ?? 0) - 13) < 3, "\(later)")
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get(F.everywhere + "&at=tomorrow")), status: 400,
      code: "invalidParameter", mentions: "at")
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get(F.everywhere + "&at=2026-12-01T08:00:00")), status: 400,
      code: "invalidParameter", mentions: "offset")
    // The years the API answers end with 4999: the year 5000 and later are refused.
    for late in ["5000-01-01T00:00:00Z", "5001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"] {
      ServerFixtures.expectError(
        server.handle(ServerFixtures.get(F.everywhere + "&at=" + late)), status: 400,
        code: "invalidFilterOptions", mentions: "year 5000")
    }
    #expect(
      server.handle(ServerFixtures.get(F.everywhere + "&at=4999-12-31T23:59:59Z")).status == 200)
  }

  @Test func probesInEveryFormatAndGzip() throws {
    let server = try F.server()
    let now = Date().timeIntervalSince1970
    let ndjson = (0..<5).map { k in
      let point = F.coordinates(east: 100 + Double(k) * 40)
      return "{\"id\":\"nd\",\"time\":\(now - 30 + Double(k) * 5),\"lat\":\(point.latitude),"
        + "\"lng\":\(point.longitude),\"speed\":8}"
    }.joined(separator: "\n")
    let fcd =
      "<fcd-export>"
      + (0..<5).map { k in
        let point = F.coordinates(east: 100 + Double(k) * 40, north: 0.5)
        return "<timestep time=\"\(k * 5).00\"><vehicle id=\"sumo\" x=\"\(point.longitude)\" "
          + "y=\"\(point.latitude)\" speed=\"8\" angle=\"90\"/></timestep>"
      }.joined() + "</fcd-export>"
    let cases: [(String, HTTPHeaders, Data)] = [
      ("ndjson", ["Content-Type": "application/x-ndjson"], Data(ndjson.utf8)),
      ("fcd", ["Content-Type": "application/xml"], Data(fcd.utf8)),
      ("detected", [:], Data(ndjson.replacingOccurrences(of: "\"nd\"", with: "\"d\"").utf8)),
      (
        "gzip", ["Content-Type": "text/csv", "Content-Encoding": "gzip"],
        Gzip.compress(Data(F.csvDrive(vehicles: 1, speed: 8, prefix: "gz").utf8), level: 5)
      ),
    ]
    for (name, headers, body) in cases {
      let response = server.handle(
        HTTPRequest(method: "POST", target: "/v1/probes", headers: headers, body: body))
      #expect(response.status == 200, "\(name): \(response.bodyText)")
      let report = try ServerFixtures.object(response.body)
      #expect(report["accepted"] as? Int ?? 0 >= 5, "\(name): \(response.bodyText)")
      #expect(report["rejected"] as? Int == 0, "\(name): \(response.bodyText)")
    }
  }

  @Test func rejectedRowsAreCountedByReason() throws {
    let server = try F.server()
    let now = Date().timeIntervalSince1970
    let csv = """
      id,time,lat,lng
      a,\(now - 10),52,13
      a,\(now - 10),52,13
      b,\(now - 9),95,13
      c,\(now + 86_400),52,13
      d,yesterday,52,13
      e,\(now - 8),52.0001,13.0001
      """
    let response = server.handle(ServerFixtures.post("/v1/probes", csv))
    #expect(response.status == 200, "\(response.bodyText)")
    let report = try ServerFixtures.object(response.body)
    #expect(report["accepted"] as? Int == 2)
    #expect(report["rejected"] as? Int == 4)
    let reasons = try #require(report["reasons"] as? [String: Int])
    #expect(
      reasons == [
        "unparseable": 1, "outOfRange": 1, "future": 1, "duplicate": 1, "outOfOrder": 0,
      ], "\(reasons)")
  }

  /// The same batch sent twice (a client retrying after a lost answer): the second time
  /// every row is a duplicate, rejected as such, and the flow is not counted twice.
  @Test func aBatchSentAgainIsRejectedAsDuplicates() throws {
    let server = try F.server()
    let csv = F.csvDrive(vehicles: 2, speed: 8)
    let rows = csv.split(separator: "\n").count - 1
    let first = server.handle(
      ServerFixtures.post("/v1/probes", csv, headers: ["Content-Type": "text/csv"]))
    #expect(try ServerFixtures.object(first.body)["accepted"] as? Int == rows)
    let again = server.handle(
      ServerFixtures.post("/v1/probes", csv, headers: ["Content-Type": "text/csv"]))
    #expect(again.status == 200, "\(again.bodyText)")
    let report = try ServerFixtures.object(again.body)
    #expect(report["accepted"] as? Int == 0, "\(again.bodyText)")
    #expect(report["rejected"] as? Int == rows)
    let reasons = try #require(report["reasons"] as? [String: Int])
    #expect(reasons["duplicate"] == rows, "\(reasons)")
    #expect(report["outOfOrder"] as? Int == 0)
  }

  @Test func probesNeedANetwork() throws {
    let server = try F.server(network: false)
    let response = server.handle(
      ServerFixtures.post("/v1/probes", F.csvDrive(vehicles: 1, speed: 8)))
    ServerFixtures.expectError(response, status: 409, code: "httpError", mentions: "network")
  }

  @Test(arguments: [
    ("", "text/csv", 400, "badRequest", "empty"),
    ("id,when\nx,1\n", "text/csv", 400, "badRequest", "time"),
    ("id,time,lat,lng\na,x,y,z\nb,x,y,z\n", "text/csv", 400, "badRequest", "none"),
    ("<fcd-export><timestep time=\"1\"><vehicle", "application/xml", 400, "badRequest", "probes"),
    ("id,time,lat,lng\n", "image/png", 415, "httpError", "Content-Type"),
    // No probe row at all: a CSV read as FCD, HTML, a header alone (200 with zeros before).
    ("id,time,lat,lng\na,1700000000,52,13\n", "application/xml", 400, "badRequest", "no probe"),
    ("<html><body>hi</body></html>", "text/xml", 400, "badRequest", "SUMO FCD"),
    ("id,time,lat,lng\n", "text/csv", 400, "badRequest", "no probe"),
  ])
  func unreadableProbesAre4xx(
    body: String, contentType: String, status: Int, code: String, mentions: String
  ) throws {
    let server = try F.server()
    let response = server.handle(
      ServerFixtures.post("/v1/probes", body, headers: ["Content-Type": contentType]))
    ServerFixtures.expectError(response, status: status, code: code, mentions: mentions)
  }

  @Test func aGzipBodyInflatingBeyondTheLimitIs413WithOrWithoutContentEncoding() throws {
    let server = try F.server(
      configuration: ServerConfiguration(
        maxBodyBytes: 10_000, maxDecompressedBodyBytes: 5000, accessLog: .none))
    let csv = "id,time,lat,lng\n" + String(repeating: "a,1799999000,52.5,13.4\n", count: 1000)
    let bomb = Gzip.compress(Data(csv.utf8))
    for headers: HTTPHeaders in [["Content-Encoding": "gzip"], ["Content-Type": "text/csv"]] {
      let response = server.handle(
        HTTPRequest(method: "POST", target: "/v1/probes", headers: headers, body: bomb))
      // Without the header it was a 400 "cannot be read".
      ServerFixtures.expectError(response, status: 413, code: "httpError")
    }
  }

  @Test func probeQueryParametersAreChecked() throws {
    let server = try F.server()
    let csv = F.csvDrive(vehicles: 1, speed: 8)
    ServerFixtures.expectError(
      server.handle(ServerFixtures.post("/v1/probes?flush=maybe", csv)), status: 400,
      code: "invalidParameter", mentions: "flush")
    ServerFixtures.expectError(
      server.handle(ServerFixtures.post("/v1/probes?simulationStart=noon", csv)), status: 400,
      code: "invalidParameter", mentions: "simulationStart")
    let flushed = server.handle(ServerFixtures.post("/v1/probes?flush=true", csv))
    #expect(flushed.status == 200)
    #expect(try ServerFixtures.object(flushed.body)["decided"] as? Int ?? 0 > 0)
    ServerFixtures.expectError(
      server.handle(ServerFixtures.get("/v1/probes")), status: 405, code: "httpError")
  }

  // MARK: /v1/route/traffic

  /// The route from W to E through B, as coordinates.
  static let routeBody =
    "{\"route\": {\"coordinates\": [{\"lat\": 52, \"lng\": 13}, {\"lat\": 52, \"lng\": "
    + "13.00728}, {\"lat\": 52, \"lng\": 13.01456}]}}"

  @Test func routeTrafficGivesSpansAndTotals() throws {
    let server = try F.server()
    _ = server.handle(
      ServerFixtures.post("/v1/probes?flush=true", F.csvDrive(vehicles: 4, speed: 8)))
    let response = server.handle(ServerFixtures.post("/v1/route/traffic", Self.routeBody))
    #expect(response.status == 200, "\(response.bodyText)")
    let body = try ServerFixtures.object(response.body)
    let spans = try #require(body["spans"] as? [[String: Any]])
    #expect(spans.map { $0["segmentId"] as? Int } == [0, 2])
    let first = try #require(spans.first)
    #expect(first["offset"] as? Double == 0)
    #expect(abs((first["length"] as? Double ?? 0) - 500) < 2)
    #expect(first["baseSpeed"] as? Double == F.limit)
    #expect(abs((first["trafficSpeed"] as? Double ?? 0) - 8) < 0.5)
    let delays = spans.compactMap { $0["delay"] as? Double }
    #expect(delays.count == 2)
    #expect(delays[0] > 20)  // 500 m at 8 m/s instead of 13.89 m/s: about 26 s.
    let total = try #require(body["totalDelay"] as? Double)
    #expect(abs(total - delays.reduce(0, +)) < 0.2)
    #expect(body["blocked"] as? Bool == false)
    #expect(abs((body["length"] as? Double ?? 0) - 1000) < 2)
    // The same answer as the engine.
    let route = try GeoPolyline(vertices: [
      F.coordinates(east: 0), try GeoCoordinates(latitude: 52, longitude: 13.00728),
      try GeoCoordinates(latitude: 52, longitude: 13.01456),
    ])
    let engine = try server.engine.trafficOnRoute(route)
    #expect(abs(engine.totalDelayInSeconds - total) < 0.06)
  }

  @Test func routeTrafficByPolylineListsIncidentsWithOffsets() throws {
    let accident = try TrafficIncident(
      id: "acc-v1", originalId: "acc", type: .accident, impact: .major,
      startTime: Date().addingTimeInterval(-600), endTime: Date().addingTimeInterval(3600),
      location: TrafficLocation(point: F.coordinates(east: 750), description: "acc"))
    let server = try F.server(incidents: [accident])
    let polyline = try FlexiblePolyline.encode([
      F.coordinates(east: 0), F.coordinates(east: 500), F.coordinates(east: 1000),
    ])
    let response = server.handle(
      ServerFixtures.post(
        "/v1/route/traffic",
        "{\"route\": {\"polyline\": \"\(polyline)\"}, \"corridorHalfWidth\": 20}"))
    #expect(response.status == 200, "\(response.bodyText)")
    let body = try ServerFixtures.object(response.body)
    let incidents = try #require(body["incidents"] as? [[String: Any]])
    #expect(incidents.count == 1)
    let offset = try #require(incidents.first?["offset"] as? Double)
    #expect(abs(offset - 750) < 2)
    let details = (incidents.first?["incident"] as? [String: Any])?["incidentDetails"]
    #expect((details as? [String: Any])?["originalId"] as? String == "acc")
  }

  @Test func routeTrafficWithoutNetworkHasNoSpans() throws {
    let server = try F.server(network: false)
    let response = server.handle(ServerFixtures.post("/v1/route/traffic", Self.routeBody))
    #expect(response.status == 200)
    let body = try ServerFixtures.object(response.body)
    #expect((body["spans"] as? [Any])?.isEmpty == true)
    #expect(body["totalDelay"] as? Double == 0)
  }

  @Test(arguments: [
    ("", 400, "badRequest", "body"),
    ("[1]", 400, "badRequest", "object"),
    ("{\"route\": 1}", 400, "invalidParameter", "route"),
    ("{\"route\": {}}", 400, "invalidParameter", "route"),
    ("{\"route\": {\"polyline\": \"!!\"}}", 400, "invalidParameter", "route.polyline"),
    ("{\"route\": {\"polyline\": \"x\", \"coordinates\": []}}", 400, "invalidParameter", "both"),
    (
      "{\"route\": {\"coordinates\": [{\"lat\": 52, \"lng\": 13}]}}", 400, "invalidParameter",
      "2 points"
    ),
    (
      "{\"route\": {\"coordinates\": [{\"lat\": 99, \"lng\": 13}, {\"lat\": 52, \"lng\": 13}]}}",
      400, "invalidParameter", "route.coordinates[0]"
    ),
    (
      "{\"route\": {\"coordinates\": [{\"lat\": 52, \"lng\": 13}, {\"lat\": \"x\"}]}}", 400,
      "invalidParameter", "route.coordinates[1]"
    ),
    (
      "{\"route\": {\"coordinates\": [{\"lat\": 52, \"lng\": 13}, {\"lat\": 40, \"lng\": 13}]}}",
      400, "invalidGeometry", "route"
    ),
    (
      "{\"route\": {\"coordinates\": [{\"lat\": 52, \"lng\": 13}, {\"lat\": 52.1, \"lng\": 13}]},"
        + " \"corridorHalfWidth\": -1}", 400, "invalidParameter", "corridorHalfWidth"
    ),
    (
      "{\"route\": {\"coordinates\": [{\"lat\": 52, \"lng\": 13}, {\"lat\": 52.1, \"lng\": 13}]},"
        + " \"corridorHalfWidth\": 1e9}", 400, "invalidParameter", "corridorHalfWidth"
    ),
  ])
  func badRoutesAreNamed(body: String, status: Int, code: String, mentions: String) throws {
    let server = try F.server()
    ServerFixtures.expectError(
      server.handle(ServerFixtures.post("/v1/route/traffic", body)), status: status, code: code,
      mentions: mentions)
  }

  @Test func tooManyRoutePointsAreRefused() throws {
    let server = try F.server()
    let points = (0...RouteTrafficParameters.maxRoutePoints).map { index in
      "{\"lat\": 52, \"lng\": \(13 + Double(index) * 1e-6)}"
    }
    let body = "{\"route\": {\"coordinates\": [\(points.joined(separator: ","))]}}"
    ServerFixtures.expectError(
      server.handle(ServerFixtures.post("/v1/route/traffic", body)), status: 400,
      code: "invalidGeometry", mentions: "route")
  }
}
