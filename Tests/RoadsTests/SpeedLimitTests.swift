import Roads
import Testing

@Suite struct SpeedLimitTests {
  @Test(
    "maxspeed values",
    arguments: [
      ("50", "DE", 50.0, SpeedLimitSource.posted), ("50 km/h", nil, 50, .posted),
      ("80kmh", nil, 80, .posted), ("30 mph", nil, 48.28032, .posted),
      ("10 knots", nil, 18.52, .posted), ("none", "DE", 130, .unlimited),
      ("none", nil, 120, .unlimited), ("walk", nil, 7, .implicit),
      ("DE:urban", nil, 50, .implicit), ("DE:rural", nil, 100, .implicit),
      ("CH:rural", nil, 80, .implicit), ("CH:motorway", nil, 120, .implicit),
      ("AT:motorway", nil, 130, .implicit), ("FR:rural", nil, 80, .implicit),
      ("DE:zone30", nil, 30, .implicit), ("FR:zone:30", nil, 30, .implicit),
      ("GB:nsl_single", nil, 96.56064, .implicit), ("50;30", nil, 50, .posted),
    ] as [(String, String?, Double, SpeedLimitSource)])
  func parse(_ value: String, _ country: String?, _ kmh: Double, _ source: SpeedLimitSource) throws
  {
    let limit = try #require(SpeedLimit.parse(maxspeed: value, countryCode: country))
    #expect(abs(limit.metersPerSecond * 3.6 - kmh) < 1e-9)
    #expect(limit.source == source)
  }

  @Test(
    "Values that give no limit",
    arguments: ["", "signals", "variable", "fast", "0", "900", "XX:nowhere", "50 furlongs"])
  func unreadable(_ value: String) {
    #expect(SpeedLimit.parse(maxspeed: value) == nil)
  }

  @Test(
    "Defaults by class and country",
    arguments: [
      (RoadClass.motorway, "DE", 130.0), (.motorway, "CH", 120), (.trunk, "FR", 110),
      (.primary, "LI", 80), (.secondary, "AT", 100), (.residential, "DE", 50),
      (.motorwayLink, "DE", 80), (.livingStreet, "DE", 7), (.livingStreet, "CH", 20),
      (.service, "DE", 20), (.primary, nil, 90), (.motorway, "GB", 112.65408),
    ] as [(RoadClass, String?, Double)])
  func defaults(_ roadClass: RoadClass, _ country: String?, _ kmh: Double) {
    let limit = SpeedLimit.defaultSpeed(for: roadClass, countryCode: country)
    #expect(abs(limit.metersPerSecond * 3.6 - kmh) < 1e-9)
    #expect(limit.source == .roadClassDefault)
  }

  @Test("Functional classes")
  func functionalClasses() {
    #expect(
      RoadClass.allCases.map(\.functionalClass) == [
        1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5,
      ])
  }
}
