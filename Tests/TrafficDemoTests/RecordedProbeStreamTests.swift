import Foundation
import Synchronization
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficDemo

@Suite("Recorded probe stream")
struct RecordedProbeStreamTests {
  /// The shipped recording, as the installed binary finds it (its resource bundle).
  static let recording = RecordedProbeStream.defaultRecordingURL

  @Test(
    "a recording replays in loops, shifted to now, ids prefixed by the loop, never ahead of the clock"
  )
  func loops() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("recorded-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("probes.ndjson")
    // Two vehicles over 20 s, every 2 s.
    var lines: [String] = []
    for second in stride(from: 0, through: 20, by: 2) {
      for vehicle in ["a", "b"] {
        lines.append(
          "{\"id\":\"\(vehicle)\",\"time\":\(1_700_000_000 + second),\"lat\":52.3,"
            + "\"lng\":\(13.5 + Double(second) * 0.0003),\"speed\":25}")
      }
    }
    try Data(lines.joined(separator: "\n").utf8).write(to: file)
    let clock = try DemoClock(speedFactor: 20)
    let received = Mutex<[(probe: Probe, at: Date)]>([])
    let stream = try RecordedProbeStream(recordingURL: file, clock: clock) { batch in
      let now = clock.now()
      received.withLock { $0 += batch.map { ($0, now) } }
    }
    #expect(stream.probes.count == 22)
    #expect(stream.loopLengthInSeconds == 22)
    let started = clock.now()
    stream.start(loops: 2)
    // 2 loops of 22 demo seconds at 20x take 2.2 wall seconds.
    #expect(stream.waitUntilFinished(timeoutInSeconds: 10))
    let probes = received.withLock { $0 }
    #expect(probes.count == 44)
    #expect(probes.allSatisfy { $0.probe.time <= $0.at }, "no probe is handed over early")
    let firstLoop = probes.filter { $0.probe.vehicleID == "1/a" }.map(\.probe.time)
    let secondLoop = probes.filter { $0.probe.vehicleID == "2/a" }.map(\.probe.time)
    #expect(firstLoop.count == 11 && secondLoop.count == 11)
    let firstTime = try #require(firstLoop.first)
    #expect(abs(firstTime.timeIntervalSince(started)) < 1)
    #expect(secondLoop.first == firstTime.addingTimeInterval(22))
    #expect(zip(firstLoop, firstLoop.dropFirst()).allSatisfy { $1.timeIntervalSince($0) == 2 })
    #expect(stream.statistics.loops == 2)
    #expect(stream.statistics.probesDelivered == 44)
  }

  @Test("stop() ends an endless replay at once")
  func stop() throws {
    let clock = try DemoClock(speedFactor: 1)
    let stream = try RecordedProbeStream(recordingURL: Self.recording, clock: clock) { _ in }
    stream.start()
    Thread.sleep(forTimeInterval: 0.2)
    let began = Date()
    stream.stop()
    #expect(Date().timeIntervalSince(began) < 1)
    #expect(stream.statistics.isRunning == false)
  }

  @Test("missing and broken recordings are refused with the path")
  func badRecordings() throws {
    let clock = try DemoClock()
    #expect(throws: DemoError.recordingMissing(path: "/nonexistent.ndjson")) {
      try RecordedProbeStream(
        recordingURL: URL(fileURLWithPath: "/nonexistent.ndjson"), clock: clock
      ) { _ in }
    }
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("empty-\(UUID().uuidString).csv")
    try Data("id,time,lat,lng\n".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    #expect(throws: DemoError.recordingUnreadable(path: file.path, reason: "it holds no probes")) {
      try RecordedProbeStream(recordingURL: file, clock: clock) { _ in }
    }
    #expect(throws: DemoError.invalidArgument("the demo speed factor 0.5 must be within 1...60")) {
      try DemoClock(speedFactor: 0.5)
    }
  }

  @Test(
    "the shipped recording replays into live flow on the A10KW network",
    .timeLimit(.minutes(1)))
  func shippedRecording() throws {
    try DebianFile.a10kwNetwork.require()
    let size = try #require(
      try FileManager.default.attributesOfItem(atPath: Self.recording.path)[.size] as? Int)
    #expect(size < 4_000_000, "the recording stays small: \(size) bytes")
    let scenario = try DemoScenario()
    let clock = try DemoClock(speedFactor: 60)
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { clock.now() }, network: scenario.network)
    let stream = try RecordedProbeStream(recordingURL: Self.recording, engine: engine, clock: clock)
    #expect(stream.loopLengthInSeconds > 1_000)
    stream.start()
    Thread.sleep(forTimeInterval: 5)
    stream.stop()
    #expect(stream.statistics.probesDelivered > 1_000)
    engine.flushProbes()
    let box = try #require(GeoBox.enclosing(scenario.network.nodes.map(\.coordinates)))
    let live = try engine.flow(inside: box, options: TrafficFlowQueryOptions())
      .filter { $0.confidence > 0.7 }
    #expect(live.count >= 10, "segments with live flow: \(live.count)")
  }
}
