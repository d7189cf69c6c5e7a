import Codec
import Foundation
import Synchronization
import Testing
import Traffic
import TrafficFeeds
import TrafficTestSupport

@testable import TrafficDemo

#if canImport(Glibc)
  import Glibc
#endif

/// Checks that SUMO and the demo's network are installed (`make test` installs them).
func requireSUMO() throws {
  try DebianFile.require(.sumo, .a10kwNetwork)
}

/// Whether a process (or, with a negative id, a process group) exists.
func processExists(_ pid: Int32) -> Bool {
  kill(pid, 0) == 0 || errno == EPERM
}

@Suite("SUMO probe stream")
struct SUMOProbeStreamTests {
  @Test("FCD is read as it comes, across chunk boundaries, with the lines of its elements")
  func lineReader() {
    let text = """
      <fcd-export xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
          <timestep time="4.00">
              <vehicle id="veh&amp;1" x="13.603146" y="52.312649" angle="302.25" speed="25.62"/>
              <vehicle id="broken" x="13.6" angle="1"/>
          </timestep>
          <timestep time="6.00"/>

      """
    let bytes = Array(text.utf8)
    for cut in [1, 7, 60, 100, bytes.count - 1] {
      var reader = FCDReader()
      var lines: [FCDReader.Element] = []
      bytes[..<cut].withUnsafeBytes { lines += reader.feed($0) }
      bytes[cut...].withUnsafeBytes { lines += reader.feed($0) }
      #expect(
        lines == [
          .timestep(seconds: 4, line: 2),
          .mover(
            kind: "vehicle",
            attributes: [
              "id": "veh&1", "x": "13.603146", "y": "52.312649", "angle": "302.25",
              "speed": "25.62",
            ], line: 3),
          .mover(
            kind: "vehicle", attributes: ["id": "broken", "x": "13.6", "angle": "1"], line: 4),
          .timestep(seconds: 6, line: 6),
        ], "cut at \(cut)")
    }
  }

  @Test("the demand sorts flows by begin time, alternates rush hour and quiet, and closes lanes")
  func demand() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("demand-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    // 4 routes in 1800 s = 8 vehicles an hour at the packaged rate.
    for (file, count) in [
      ("osm.passenger.rou.xml", 4), ("osm.truck.rou.xml", 2), ("osm.passenger_mw.rou.xml", 4),
      ("osm.truck_mw.rou.xml", 1),
    ] {
      let vehicles = (0..<count).map {
        "<vehicle id=\"v\($0)\" depart=\"\($0)\"><route edges=\"a b\(count)\"/></vehicle>"
      }
      try Data("<routes>\(vehicles.joined())</routes>".utf8)
        .write(to: directory.appendingPathComponent(file))
    }
    var demand = SUMODemand(
      routeDirectory: directory,
      closures: [.init(edgeID: "e1", laneCount: 3, closedLanes: 1, positionInMeters: 400)])
    demand.durationInSeconds = 1_500
    let document = try demand.routeDocument()
    let flows = document.split(separator: "\n").filter { $0.contains("<flow ") }
    let begins = flows.compactMap {
      XMLTagScanner.firstTag(in: $0)?.attributes["begin"].flatMap(Double.init)
    }
    #expect(begins == begins.sorted())
    #expect(flows.count == 2 + 3 * 2)
    let rates = Dictionary(
      uniqueKeysWithValues: flows.compactMap { line -> (String, String)? in
        guard let id = XMLTagScanner.firstTag(in: line)?.attributes["id"],
          let rate = XMLTagScanner.firstTag(in: line)?.attributes["vehsPerHour"]
        else { return nil }
        return (id, rate)
      })
    #expect(rates["local_car"] == "4.00")  // 8/h × 0.5
    #expect(rates["motorway_car_0"] == "7.20")  // 8/h × 0.9, rush hour
    #expect(rates["motorway_car_1"] == "0.80")  // quiet
    #expect(rates["motorway_truck_2"] == "1.80")  // 2/h × 0.9
    let last = try #require(flows.last)
    #expect(XMLTagScanner.firstTag(in: last)?.attributes["end"] == "1500")
    #expect(document.contains("<stop lane=\"e1_2\" endPos=\"416.00\""))
    #expect(!document.contains("e1_1\""))
    #expect(document.components(separatedBy: "<route id=\"motorway_car").count == 5)
  }

  @Test(
    "SUMO at 20x for 10 s gives live flow on the A10KW network, and stop() leaves no process",
    .timeLimit(.minutes(1)))
  func liveFlow() throws {
    try requireSUMO()
    let scenario = try DemoScenario()
    let clock = try DemoClock(speedFactor: 20)
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { clock.now() }, network: scenario.network)
    let received = Mutex<(count: Int, future: Int, roadworks: Int)>((0, 0, 0))
    let stream = try SUMOProbeStream(
      configuration: SUMOProbeStream.Configuration(scenario: scenario), clock: clock
    ) { batch in
      let now = clock.now()
      received.withLock {
        $0.count += batch.count
        $0.future += batch.filter { $0.time > now }.count
        $0.roadworks += batch.filter { $0.vehicleID.contains("roadworks") }.count
      }
      engine.ingest(probes: batch)
    }
    try stream.start()
    let pid = try #require(stream.statistics.childProcessID)
    #expect(processExists(pid))
    #expect(getpgid(pid) == pid, "SUMO leads its own process group")
    Thread.sleep(forTimeInterval: 10)
    let statistics = stream.statistics
    stream.stop()
    #expect(!processExists(pid), "sumo \(pid) is gone after stop()")
    #expect(!processExists(-pid), "its process group is gone after stop()")
    #expect(stream.statistics.childProcessID == nil)
    #expect(stream.statistics.isRunning == false)

    // 10 wall seconds at 20x are about 200 simulated seconds; allow for a slow machine.
    #expect(statistics.simulatedSeconds >= 100, "\(statistics)")
    #expect(statistics.simulatedSeconds <= 202, "paced to the clock: \(statistics)")
    #expect(statistics.batches >= 5)
    let counts = received.withLock { $0 }
    #expect(counts.count > 500)
    #expect(counts.future == 0, "no probe is handed over before its time")
    #expect(counts.roadworks == 0, "the roadworks' stopped vehicles are not probes")
    engine.flushProbes()
    let box = try #require(GeoBox.enclosing(scenario.network.nodes.map(\.coordinates)))
    let flows = try engine.flow(inside: box, options: TrafficFlowQueryOptions())
    let live = flows.filter { $0.confidence > 0.7 }
    print("SUMO stream: \(statistics), probes \(counts.count), live segments \(live.count)")
    #expect(live.count >= 10, "segments with live flow: \(live.count)")
    #expect(live.contains { scenario.network.segments[$0.segmentID].roadClass == .motorway })
  }

  @Test("a missing sumo is reported with the remedy")
  func missingSUMO() throws {
    var configuration = SUMOProbeStream.Configuration(
      networkURL: URL(fileURLWithPath: "/x.net.xml"),
      demand: SUMODemand(routeDirectory: URL(fileURLWithPath: "/x")))
    configuration.sumoPath = "/nonexistent/sumo"
    let stream = try SUMOProbeStream(configuration: configuration, clock: try DemoClock()) { _ in }
    #expect(throws: DemoError.sumoMissing(path: "/nonexistent/sumo")) { try stream.start() }
    stream.stop()
  }

  @Test(
    "SUMO failing at start ends the stream with its error, without restarting",
    .timeLimit(.minutes(1)))
  func failingSUMO() throws {
    try requireSUMO()
    let scenario = try DemoScenario()
    var configuration = SUMOProbeStream.Configuration(scenario: scenario)
    configuration.networkURL = URL(fileURLWithPath: "/nonexistent/osm.net.xml")
    let stream = try SUMOProbeStream(configuration: configuration, clock: try DemoClock()) { _ in }
    try stream.start()
    #expect(stream.waitUntilFinished(timeoutInSeconds: 20))
    let statistics = stream.statistics
    #expect(statistics.runs == 1)
    #expect(statistics.lastError?.contains("sumo exited with status 1") == true, "\(statistics)")
    #expect(statistics.childProcessID == nil)
  }
}

#if TRAFFIC_DEMO_TOOLS
  /// Not part of the suite (compiled only on request, so it is never listed as skipped): prints
  /// how flow on the motorway upstream of the roadworks changes over the demo's first 40
  /// simulated minutes. Run with
  /// `swift test -Xswiftc -DTRAFFIC_DEMO_TOOLS --filter SUMOJamMeasurement`.
  @Suite("SUMO jam measurement")
  struct SUMOJamMeasurement {
    @Test("jam factors upstream of the roadworks over time", .timeLimit(.minutes(10)))
    func measure() throws {
      let speed = Double(ProcessInfo.processInfo.environment["TRAFFIC_DEMO_SPEED"] ?? "") ?? 60
      let minutes = Double(ProcessInfo.processInfo.environment["TRAFFIC_DEMO_MINUTES"] ?? "") ?? 40
      let scenario = try DemoScenario()
      let clock = try DemoClock(speedFactor: speed)
      let engine = try TrafficEngine(
        store: InMemoryTrafficStore(), clock: { clock.now() }, network: scenario.network)
      var configuration = FlowConfiguration()
      configuration.windowInSeconds = 120
      try engine.configureFlow(configuration)
      let stream = try SUMOProbeStream(
        configuration: SUMOProbeStream.Configuration(scenario: scenario), engine: engine,
        clock: clock)
      let network = scenario.network
      // The roadworks segment and the motorway segments leading to it, nearest first.
      var chain = [scenario.roadworksSegment]
      while chain.count < 5,
        let previous = network.segments.first(where: {
          $0.roadClass == .motorway && $0.toNode == chain[chain.count - 1].fromNode
        })
      {
        chain.append(previous)
      }
      print("segments:", chain.map { "\($0.sourceID) (\(Int($0.lengthInMeters)) m)" })
      try stream.start()
      let started = clock.now()
      let box = try #require(GeoBox.enclosing(network.nodes.map(\.coordinates)))
      while clock.now().timeIntervalSince(started) < minutes * 60 {
        Thread.sleep(forTimeInterval: 60 / speed)
        let flows = try engine.flow(inside: box, options: TrafficFlowQueryOptions())
        let bySegment = Dictionary(uniqueKeysWithValues: flows.map { ($0.segmentID, $0) })
        let row = chain.map { segment -> String in
          guard let flow = bySegment[segment.id], flow.confidence > 0.7 else { return "   - " }
          return String(format: "%4.1f", flow.jamFactor)
        }
        let minute = Int(clock.now().timeIntervalSince(started) / 60)
        print(String(format: "min %3d  jam:", minute), row.joined(separator: " "))
      }
      stream.stop()
    }
  }
#endif
