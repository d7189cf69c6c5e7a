import Testing
import Traffic

@Suite struct TrafficQueryErrorTests {
  static let all: [TrafficQueryError] = [
    .invalidIn("x"), .invalidGeometry("x"), .invalidIncident("x"), .invalidFilterOptions("x"),
    .invalidParameter("x"), .badRequest("x"), .incidentIdNotFound("x"), .authenticationFailed,
    .forbidden, .tooManyRequests, .proxyAuthenticationFailed, .proxyServerUnreachable,
    .serverUnreachable, .timedOut, .offline, .httpError(status: 418, "x"),
    .failedToRetrieveResult("x"), .operationCancelled, .internalError("x"),
  ]

  @Test func statusesAndNames() {
    let expected: [(String, Int)] = [
      ("invalidIn", 400), ("invalidGeometry", 400), ("invalidIncident", 400),
      ("invalidFilterOptions", 400), ("invalidParameter", 400), ("badRequest", 400),
      ("incidentIdNotFound", 404), ("authenticationFailed", 401), ("forbidden", 403),
      ("tooManyRequests", 429), ("proxyAuthenticationFailed", 407),
      ("proxyServerUnreachable", 502), ("serverUnreachable", 502), ("timedOut", 504),
      ("offline", 503), ("httpError", 418), ("failedToRetrieveResult", 502),
      ("operationCancelled", 499), ("internalError", 500),
    ]
    #expect(Self.all.map(\.name) == expected.map(\.0))
    #expect(Self.all.map(\.httpStatus) == expected.map(\.1))
  }

  @Test func messageCarriesTheDetail() {
    let error = TrafficQueryError.invalidGeometry("radius 60000 m exceeds the limit of 50000 m")
    #expect(error.description == "Invalid geometry: radius 60000 m exceeds the limit of 50000 m")
    #expect(TrafficQueryError.forbidden.description == "Forbidden")
    #expect(TrafficQueryError.invalidIn("").detail == nil)
  }

  @Test func rebuiltFromAnErrorBody() {
    for error in Self.all {
      let rebuilt = TrafficQueryError(code: error.name, detail: "x", status: error.httpStatus)
      #expect(rebuilt == error)
    }
    #expect(
      TrafficQueryError(code: "somethingNew", detail: nil, status: 503)
        == .httpError(status: 503, ""))
  }
}
