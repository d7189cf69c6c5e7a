import Foundation
import Testing
import TrafficTestSupport

@testable import traffic_bench

/// The accuracy harness's test drives (`make accuracy`, the "traffic-bench" executable):
/// the trips file SUMO drives them from, and how a drive is judged.
@Suite struct TestDrivesTests {
  static func trip(
    _ vehicle: String, depart: Double, edges: [String], exits: [Double], teleported: Bool = false
  ) -> SimulatedDay.Trip {
    SimulatedDay.Trip(
      vehicle: vehicle, depart: depart, arrival: exits.last ?? depart, edges: edges,
      exitTimes: exits, teleported: teleported)
  }

  @Test("the driven vehicles' trips become vehicles on the routes given, the others stay")
  func tripsBecomeRoutes() throws {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("test-drives-\(UUID().uuidString).xml")
    defer { try? FileManager.default.removeItem(at: url) }
    let original = """
      <?xml version="1.0" encoding="UTF-8"?>
      <routes xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
          <vType id="p5" vClass="passenger">
          </vType>
          <trip id="v1" type="p5" depart="12.50" departLane="best" departSpeed="max" from="a" to="d"/>
          <trip id="v2" type="car" depart="14.00" departLane="best" departSpeed="max" from="x" to="y"/>
      </routes>
      """
    try Data(original.utf8).write(to: url)
    try AccuracySimulator.give(["v1": ["a", "b&c", "d"]], in: url)
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
      .map { $0.trimmingCharacters(in: .whitespaces) }
    #expect(
      lines.contains(
        "<vehicle id=\"v1\" type=\"driven\" depart=\"12.50\" departLane=\"best\" departSpeed=\"max\">"
          + "<route edges=\"a b&amp;c d\"/></vehicle>"))
    #expect(lines.contains { $0.hasPrefix("<trip id=\"v2\"") })
    #expect(!lines.contains { $0.hasPrefix("<trip id=\"v1\"") })
    // The type without SUMO's rerouting device, right after the opening element.
    let opening = try #require(lines.firstIndex { $0.hasPrefix("<routes") })
    #expect(lines[opening + 1].contains("id=\"driven\""))
    #expect(lines[opening + 1].contains("has.rerouting.device\" value=\"false"))
    // A vehicle the day does not have is refused by name of the count.
    try Data(original.utf8).write(to: url)
    #expect(throws: AccuracyError.self) {
      try AccuracySimulator.give(["v1": ["a", "d"], "v9": ["x"]], in: url)
    }
  }

  @Test("a drive is judged over its second to last-but-one edge, against every estimate")
  func drivesAreJudgedOnTheirSpan() throws {
    // The first simulation's trip: 100 s over b, c (its span), on its own route.
    let first = Self.trip("v1", depart: 0, edges: ["a", "b", "c", "d"], exits: [10, 60, 110, 120])
    let plan = TestDrives.Plan(
      trip: first.judgedSpan, route: ["a", "b", "e", "d"], eta: 90, free: 50)
    // SUMO drove v1 on the route given in 120 s over b and e; v2 and v3 drove e around then.
    let driven = SimulatedDay(
      day: AccuracyDay(label: "t", seed: 1, level: 1, closure: nil, start: Date()),
      vehicleNames: [], edgeNames: [], records: [], edgeData: [], fleetEdgeData: [:],
      trips: [
        Self.trip("v1", depart: 0, edges: ["a", "b", "e", "d"], exits: [10, 70, 130, 140]),
        Self.trip("v2", depart: 50, edges: ["b", "e"], exits: [110, 170]),
        Self.trip("v3", depart: 60, edges: ["b", "e"], exits: [120, 200]),
      ], teleports: 0, loopReadings: [], sumoSeconds: 0)
    let lastRuns = EdgeRuns(trips: [], reporting: [])
    let outcome = TestDrives.judge(
      [plan], unplanned: 2, driven: driven, lastRuns: lastRuns,
      roads: try CrossingNetwork.network(), segments: [:])
    #expect(outcome.failed == 2)
    let drive = try #require(outcome.drives.first)
    #expect(abs(drive.seconds - 120) < 1e-9)
    #expect(abs(drive.ownSeconds - 100) < 1e-9)
    #expect(abs(drive.ours - 30.0 / 120) < 1e-9)
    #expect(abs(drive.free - 70.0 / 120) < 1e-9)
    // The clairvoyant: b at the others' 60 s, e at their (60 + 80) / 2 = 70 s.
    #expect(abs(drive.clairvoyant - 10.0 / 120) < 1e-9)
    #expect(outcome.congested.count == 1)
    // Driven on another route, or teleported: not a drive of ours.
    var teleported = driven
    teleported.trips[0].teleported = true
    #expect(
      TestDrives.judge(
        [plan], driven: teleported, lastRuns: lastRuns,
        roads: try CrossingNetwork.network(), segments: [:]
      ).failed == 1)
  }

  @Test("a median's standard error is nothing below three values and none when all agree")
  func medianStandardError() {
    #expect(AccuracyOutcome.medianStandardError([0.1, 0.2]).isNaN)
    #expect(AccuracyOutcome.medianStandardError([0.3, 0.3, 0.3, 0.3]) < 1e-12)
    let spread = AccuracyOutcome.medianStandardError((0..<50).map { Double($0) / 50 })
    #expect(spread > 0.02 && spread < 0.15)
    #expect(AccuracyOutcome.boldMedian([0.1, 0.2]) == "**20.0 %**")
    #expect(AccuracyOutcome.boldMedian([0.3, 0.3, 0.3]) == "**30.0 %** ± 0.0")
  }
}
