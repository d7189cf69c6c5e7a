import Foundation
import Testing
import Traffic

@testable import TrafficServer

/// The server's own v7 answers, read with Traffic's codecs (as the remote engine reads
/// them), encode back to the same bytes.
@Suite struct WireRoundTripTests {
  static let incidentQueries = [
    "", "&locationReferencing=shape", "&locationReferencing=shape,olr,tmc", "&lang=de-DE",
    "&lang=fr-FR&locationReferencing=tmc,shape&sort=distance&from=52.52,13.4&limit=2",
    "&type=accident,congestion&criticality=critical,minor",
  ]

  @Test(arguments: incidentQueries)
  func incidentAnswersReadBackToTheSameText(suffix: String) throws {
    let server = try LocationReferencingRoutesTests.server()
    let rawQuery = "in=circle:52.52,13.40;r=2000" + suffix
    let response = server.handle(ServerFixtures.get("/v7/incidents?" + rawQuery))
    try #require(response.status == 200, "\(response.bodyText)")
    let query = try V7IncidentQuery(QueryParameters.parse(rawQuery[...]), limits: .here)
    let answer = try V7IncidentWire.decode(response.body)
    #expect(answer.problems.isEmpty)
    #expect(!answer.incidents.isEmpty)
    let text = V7IncidentWire.encode(
      answer.incidents, sourceUpdated: answer.sourceUpdated,
      locationReferencing: query.locationReferencing)
    #expect(String(decoding: text, as: UTF8.self) == response.bodyText)
  }

  @Test(arguments: [
    "/v7/incidents/A", "/v7/incidents/A?lang=de-DE",
    "/v7/incidents/T?locationReferencing=shape,olr,tmc",
  ])
  func lookupAnswersReadBackToTheSameText(target: String) throws {
    let server = try LocationReferencingRoutesTests.server()
    let response = server.handle(ServerFixtures.get(target))
    try #require(response.status == 200, "\(response.bodyText)")
    let rawQuery = target.split(separator: "?").dropFirst().first ?? ""
    let query = try V7IncidentLookupQuery(QueryParameters.parse(rawQuery))
    let incident = try V7IncidentWire.decodeLookup(response.body)
    let text = V7IncidentWire.encodeLookup(
      incident, locationReferencing: query.locationReferencing)
    #expect(String(decoding: text, as: UTF8.self) == response.bodyText)
  }

  @Test(arguments: [
    FlowServerFixtures.everywhere, FlowServerFixtures.everywhere + "&functionalClasses=2",
    FlowServerFixtures.everywhere + "&locationReferencing=shape&minJamFactor=0",
  ])
  func flowAnswersReadBackToTheSameText(target: String) throws {
    let server = try FlowServerFixtures.server()
    let response = server.handle(ServerFixtures.get(target))
    try #require(response.status == 200, "\(response.bodyText)")
    let answer = try V7FlowWire.decode(response.body)
    #expect(answer.problems.isEmpty)
    #expect(!answer.flows.isEmpty)
    let text = V7FlowWire.encode(answer.flows, sourceUpdated: answer.sourceUpdated)
    #expect(String(decoding: text, as: UTF8.self) == response.bodyText)
  }

  @Test(arguments: [
    "/v7/incidents", "/v7/incidents?in=circle:52.5,13.4;r=60000", "/v7/incidents/nowhere",
    "/v7/flow?in=bbox:1,2,3", "/v7/incidents?in=circle:52.5,13.4;r=5&limit=0",
  ])
  func errorAnswersReadBackToTheSameText(target: String) throws {
    let server = try ServerFixtures.server()
    let response = server.handle(ServerFixtures.get(target))
    #expect(response.status >= 400)
    let correlationId = try #require(response.headers["X-Correlation-Id"])
    let error = V7ErrorAnswer.decode(status: response.status, body: response.body)
    #expect(error.httpStatus == response.status)
    let text = V7ErrorAnswer.encode(error, correlationId: correlationId)
    #expect(String(decoding: text, as: UTF8.self) == response.bodyText)
  }
}
