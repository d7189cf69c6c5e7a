import Testing
import Traffic

@Suite struct QueryParametersTests {
  @Test func decodesPairsInOrderKeepingPlusSigns() throws {
    let query = try QueryParameters.parse(
      "in=circle:52.5,13.4;r=500&lang=de%2DDE&&flag&earliestStartTime=2028-02-20T12:00:00+01:00")
    #expect(query.pairs.map(\.name) == ["in", "lang", "flag", "earliestStartTime"])
    #expect(
      query.pairs.map(\.value) == [
        "circle:52.5,13.4;r=500", "de-DE", "", "2028-02-20T12:00:00+01:00",
      ])
  }

  @Test(arguments: ["a=%", "a=%4", "a=%zz", "a=%C3%28", "%ZZ=1"])
  func refusesBrokenEscapes(raw: String) {
    #expect(throws: TrafficQueryError.self) { try QueryParameters.parse(raw[...]) }
  }

  @Test func singleRefusesDuplicatesWithTheGivenCase() throws {
    let query = try QueryParameters.parse("in=a&in=b&lang=x")
    #expect(throws: TrafficQueryError.invalidIn("parameter in is given 2 times; give it once")) {
      try query.single("in", error: TrafficQueryError.invalidIn)
    }
    #expect(try query.single("lang", error: TrafficQueryError.invalidParameter) == "x")
    #expect(try query.single("missing", error: TrafficQueryError.invalidParameter) == nil)
  }

  @Test func listsRefuseEmptyItems() throws {
    let query = try QueryParameters.parse("type=accident,,weather&criticality=major,minor")
    #expect(throws: TrafficQueryError.self) {
      try query.list("type", error: TrafficQueryError.invalidIncident)
    }
    #expect(
      try query.list("criticality", error: TrafficQueryError.invalidParameter) == [
        "major", "minor",
      ])
  }

  @Test("Booleans: true, 1 and the name alone are true; false and 0 false; absent false")
  func booleansFollowOneRule() throws {
    let query = try QueryParameters.parse("a=true&b=1&c&d=&e=false&f=0")
    for name in ["a", "b", "c", "d"] { #expect(try query.boolean(name)) }
    for name in ["e", "f", "missing"] { #expect(try !query.boolean(name)) }
  }

  @Test(
    "Any other Boolean value, or one given twice, is refused naming the parameter",
    arguments: ["flush=yes", "flush=True", "flush=2", "flush=no", "flush=true&flush=false"])
  func booleansRefuseOtherValues(raw: String) throws {
    let query = try QueryParameters.parse(raw[...])
    do {
      _ = try query.boolean("flush")
      Issue.record("\(raw) was taken")
    } catch {
      guard case .invalidParameter(let detail) = error else {
        Issue.record("\(raw): \(error)")
        return
      }
      #expect(detail.contains("flush"))
      if !raw.contains("&") { #expect(detail.contains("true or false (or 1 or 0")) }
    }
  }
}
