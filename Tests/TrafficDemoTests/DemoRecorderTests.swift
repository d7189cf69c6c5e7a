import Foundation
import Testing
import Traffic
import TrafficFeeds
import TrafficTestSupport

@testable import TrafficDemo

@Suite("Demo recorder")
struct DemoRecorderTests {
  @Test(
    "a window of the simulation is written as NDJSON probes that decode",
    .timeLimit(.minutes(1)))
  func shortWindow() throws {
    try requireSUMO()
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("recording-\(UUID().uuidString).ndjson")
    defer { try? FileManager.default.removeItem(at: file) }
    let scenario = try DemoScenario()
    var configuration = DemoRecorder.defaultConfiguration(for: scenario)
    configuration.demand.durationInSeconds = 600
    let count = try DemoRecorder.record(configuration: configuration, window: 100...160, to: file)
    #expect(count > 50)
    let batch = try ProbeDecoder(now: .distantFuture).decode(
      Data(contentsOf: file), format: .ndjson)
    #expect(batch.rejectedCount == 0)
    #expect(batch.probes.count == count)
    let epoch = DemoRecorder.defaultEpoch
    let times = batch.probes.map { $0.time.timeIntervalSince(epoch) }
    #expect(
      times.min() ?? 0 >= 100 && times.max() ?? 0 <= 160,
      "\(times.min() ?? 0)...\(times.max() ?? 0)")
    #expect(
      batch.probes.allSatisfy { $0.speedInMetersPerSecond != nil && $0.headingInDegrees != nil })
    #expect(!batch.probes.contains { $0.vehicleID.hasPrefix("roadworks") })
  }

  /// A SUMO that ignores SIGTERM once the window has passed and keeps its output open (as the
  /// real one does when it deadlocks in its exit handler) is killed after the grace period:
  /// the recording still ends, with the window's probes.
  @Test("a SUMO that will not exit on SIGTERM is killed", .timeLimit(.minutes(1)))
  func sumoThatHangsOnTermination() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("fake-sumo-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let script = directory.appendingPathComponent("sumo")
    var steps = ""
    for second in 0...20 {
      steps +=
        "echo '<timestep time=\"\(second).00\">'; "
        + "echo '<vehicle id=\"car\" x=\"13.60\(second)\" y=\"52.31\" angle=\"90\" speed=\"10\"/>'; "
        + "echo '</timestep>'; "
    }
    try Data(
      "#!/bin/sh\ntrap '' TERM\necho '<fcd-export>'\n\(steps)\nwhile :; do sleep 1; done\n".utf8
    ).write(to: script)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
    let scenario = try DemoScenario()
    var configuration = DemoRecorder.defaultConfiguration(for: scenario)
    configuration.sumoPath = script.path
    let file = directory.appendingPathComponent("recording.ndjson")
    let started = Date()
    let count = try DemoRecorder.record(configuration: configuration, window: 5...10, to: file)
    #expect(count == 6)
    #expect(Date().timeIntervalSince(started) < 30)
  }

  #if TRAFFIC_DEMO_TOOLS
    /// Makes `Sources/TrafficDemo/Resources/a10kw-probes.ndjson`, a tool rather than a test
    /// (compiled only on request, so the suite never lists it as skipped): run with
    /// `TRAFFIC_DEMO_RECORD=Sources/TrafficDemo/Resources/a10kw-probes.ndjson swift test
    /// -Xswiftc -DTRAFFIC_DEMO_TOOLS --filter DemoRecorderTests`.
    @Test("record the shipped demo recording", .timeLimit(.minutes(10)))
    func recordShippedFile() throws {
      let path = try #require(ProcessInfo.processInfo.environment["TRAFFIC_DEMO_RECORD"])
      let url =
        path.hasPrefix("/")
        ? URL(fileURLWithPath: path) : Fixtures.repositoryRoot.appendingPathComponent(path)
      let scenario = try DemoScenario()
      let count = try DemoRecorder.record(
        configuration: DemoRecorder.defaultConfiguration(for: scenario), to: url)
      print("recorded \(count) probes into \(url.path)")
    }
  #endif
}
