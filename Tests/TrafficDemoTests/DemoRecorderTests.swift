import Foundation
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficDemo

@Suite("Demo recorder")
struct DemoRecorderTests {
  @Test(
    "a window of the simulation is written as NDJSON probes that decode",
    .enabled(if: hasSUMO, noSUMOMessage), .timeLimit(.minutes(1)))
  func shortWindow() throws {
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

  /// Makes `Samples/demo/a10kw-probes.ndjson`: run with
  /// `TRAFFIC_DEMO_RECORD=Samples/demo/a10kw-probes.ndjson swift test --filter DemoRecorderTests`.
  @Test(
    "record the shipped demo recording (only with TRAFFIC_DEMO_RECORD=path)",
    .enabled(
      if: ProcessInfo.processInfo.environment["TRAFFIC_DEMO_RECORD"] != nil && hasSUMO,
      "SKIPPED: set TRAFFIC_DEMO_RECORD=Samples/demo/a10kw-probes.ndjson to re-record"),
    .timeLimit(.minutes(10)))
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
}
