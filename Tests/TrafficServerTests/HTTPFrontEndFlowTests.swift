import Foundation
import Testing
import Traffic

@testable import TrafficServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPFrontEndTests {
  @Test func flowRoutesOverTheSocket() async throws {
    let server = try FlowServerFixtures.server(configuration: Self.quietLoopback())
    try server.start()
    defer { server.stop() }
    let port = try #require(server.port)

    // Probe pushes run on the probe queue while the connection is suspended; concurrent
    // pushes are applied one after another and each gets its own answer.
    let answers = try await withThrowingTaskGroup(of: Answer.self) { group in
      for index in 0..<6 {
        group.addTask {
          try await Self.fetch(
            port, "/v1/probes", method: "POST", headers: ["Content-Type": "text/csv"],
            body: Data(
              FlowServerFixtures.csvDrive(vehicles: 2, speed: 7, prefix: "c\(index)-").utf8))
        }
      }
      var answers: [Answer] = []
      for try await answer in group { answers.append(answer) }
      return answers
    }
    #expect(answers.map(\.status) == Array(repeating: 200, count: 6))
    for answer in answers {
      let report = try ServerFixtures.object(answer.body)
      #expect(report["accepted"] as? Int == 2 * (Int(1000 / 35.0) + 1), "\(report)")
    }
    let flushed = try await Self.fetch(
      port, "/v1/probes?flush=true", method: "POST",
      body: Data(FlowServerFixtures.csvDrive(vehicles: 1, speed: 7, prefix: "last").utf8))
    #expect(flushed.status == 200)

    let flow = try await Self.fetch(port, FlowServerFixtures.everywhere)
    #expect(flow.status == 200)
    let decoded = try V7FlowWire.decode(flow.body)
    let west = try #require(decoded.flows.first { $0.segmentID == 0 })
    #expect(abs(west.speedUncappedInMetersPerSecond - 7) < 0.5)
    #expect(west.confidence > 0.7)

    let route = try await Self.fetch(
      port, "/v1/route/traffic", method: "POST",
      body: Data(FlowRoutesTests.routeBody.utf8))
    #expect(route.status == 200)
    let spans = try ServerFixtures.object(route.body)["spans"] as? [[String: Any]]
    #expect(spans?.count == 2)

    let noNetwork = try await Self.fetch(port, "/v1/probes", method: "POST", body: Data())
    #expect(noNetwork.status == 400)
  }
}
