import Codec
import Foundation
import Synchronization
import Traffic
import TrafficFeeds

/// Probes replayed from a recording, in a loop, paced to the demo clock like
/// ``SUMOProbeStream`` — the demo's traffic on machines without SUMO.
///
/// The recording is a probe document in any format of `ProbeDecoder` (the demo's own,
/// `Resources/a10kw-probes.ndjson`, was made by ``DemoRecorder``). It is read whole at
/// ``init(recordingURL:clock:batchIntervalInSeconds:sink:)``; replay shifts its times so that
/// its first probe falls at the demo time ``start()`` is called, and each further loop
/// follows the last after one probe period, with vehicle ids prefixed by the loop number
/// (`"2/veh12"`) so that tracks never run backwards in time.
package final class RecordedProbeStream: Sendable {
  /// The recording shipped with the project (`Sources/TrafficDemo/Resources`), found from
  /// the binary's location: `$TRAFFIC_RESOURCES/demo/a10kw-probes.ndjson` when set, else the
  /// module's resource bundle.
  package static var defaultRecordingURL: URL {
    if let folder = InstalledResources.overridden("demo") {
      return folder.appendingPathComponent(recordingName)
    }
    // A binary whose folder this user cannot search has no bundle to ask (and Foundation
    // would trap making it): the recording is then missing, which the demo reports.
    guard InstalledResources.bundlesAreReachable else {
      return URL(fileURLWithPath: recordingName)
    }
    return Bundle.module.url(forResource: "a10kw-probes", withExtension: "ndjson")
      ?? Bundle.module.bundleURL.appendingPathComponent(recordingName)
  }

  /// The recording's file name.
  static let recordingName = "a10kw-probes.ndjson"

  /// The probes of the recording, sorted by time.
  package let probes: [Probe]
  /// The time from the first probe of one loop to the first of the next, seconds.
  package let loopLengthInSeconds: Double

  private let clock: DemoClock
  private let batchIntervalInSeconds: Double
  private let sink: @Sendable ([Probe]) -> Void
  /// The replay state, in an object of its own so that the replay thread does not keep the
  /// stream alive (its release stops the replay).
  private let shared = SharedState()

  private final class SharedState: Sendable {
    let state = Mutex(State())
  }

  private struct State {
    var started = false
    var stopping = false
    var finished = false
    var statistics = Statistics()
  }

  /// What the replay has done so far.
  package struct Statistics: Hashable, Sendable {
    /// Probes handed over.
    package var probesDelivered = 0
    /// Batches handed over.
    package var batches = 0
    /// Loops begun.
    package var loops = 0
    /// Whether the replay runs.
    package var isRunning = false
  }

  /// Reads a recording.
  ///
  /// - Parameters:
  ///   - recordingURL: the probe file (CSV, NDJSON or SUMO FCD XML).
  ///   - clock: the demo clock.
  ///   - batchIntervalInSeconds: wall seconds between batches.
  ///   - sink: called on the replay thread with each batch, in time order.
  /// - Throws: ``DemoError/recordingMissing(path:)``,
  ///   ``DemoError/recordingUnreadable(path:reason:)`` for a file that does not decode or
  ///   holds no probes.
  /// - Complexity: O(n log n) for n probes.
  package init(
    recordingURL: URL, clock: DemoClock, batchIntervalInSeconds: Double = 1,
    sink: @escaping @Sendable ([Probe]) -> Void
  ) throws(DemoError) {
    guard FileManager.default.fileExists(atPath: recordingURL.path) else {
      throw .recordingMissing(path: recordingURL.path)
    }
    let data: Data
    do {
      data = try Data(contentsOf: recordingURL)
    } catch {
      throw .recordingUnreadable(path: recordingURL.path, reason: SystemErrorText.reason(error))
    }
    let batch: ProbeBatch
    do {
      batch = try ProbeDecoder(now: .distantFuture, simulationStart: Date(timeIntervalSince1970: 0))
        .decode(data, format: nil)
    } catch {
      throw .recordingUnreadable(path: recordingURL.path, reason: "\(error)")
    }
    let sorted = batch.probes.sorted { $0.time < $1.time }
    guard let first = sorted.first, let last = sorted.last else {
      throw .recordingUnreadable(path: recordingURL.path, reason: "it holds no probes")
    }
    guard batchIntervalInSeconds.isFinite, batchIntervalInSeconds > 0 else {
      throw .invalidArgument("batchIntervalInSeconds must be > 0")
    }
    probes = sorted
    var period = Double.infinity
    for (a, b) in zip(sorted, sorted.dropFirst()) where b.time > a.time {
      period = min(period, b.time.timeIntervalSince(a.time))
    }
    loopLengthInSeconds = last.time.timeIntervalSince(first.time) + (period.isFinite ? period : 1)
    self.clock = clock
    self.batchIntervalInSeconds = batchIntervalInSeconds
    self.sink = sink
  }

  /// Reads a recording whose probes feed an engine's flow (`engine.ingest(probes:)`).
  ///
  /// - Parameters:
  ///   - recordingURL: the probe file.
  ///   - engine: the engine; give it `clock: clock.now` when `clock` runs faster than 1×.
  ///   - clock: the demo clock.
  /// - Throws: as ``init(recordingURL:clock:batchIntervalInSeconds:sink:)``.
  package convenience init(
    recordingURL: URL, engine: TrafficEngine, clock: DemoClock
  ) throws(DemoError) {
    try self.init(recordingURL: recordingURL, clock: clock) { engine.ingest(probes: $0) }
  }

  deinit {
    stop()
  }

  /// Starts replaying on a thread of its own, looping until ``stop()``.
  ///
  /// - Parameter loops: how many loops to play; `nil` for no end.
  package func start(loops: Int? = nil) {
    let shared = shared
    let alreadyStarted = shared.state.withLock { state in
      defer {
        state.started = true
        state.statistics.isRunning = true
      }
      return state.started
    }
    guard !alreadyStarted else { return }
    let probes = probes
    let loopLength = loopLengthInSeconds
    let clock = clock
    let interval = batchIntervalInSeconds
    let sink = sink
    let thread = Thread {
      let pacer = ProbePacer(
        clock: clock, batchIntervalInSeconds: interval, isPaced: true, sink: sink,
        isStopped: { shared.state.withLock { $0.stopping } })
      let first = probes[0].time
      let start = clock.now()
      var loop = 0
      replay: while loops.map({ loop < $0 }) ?? true {
        loop += 1
        shared.state.withLock { $0.statistics.loops = loop }
        let shift = start.addingTimeInterval(Double(loop - 1) * loopLength)
          .timeIntervalSince(first)
        var index = 0
        while index < probes.count {
          let time = probes[index].time.addingTimeInterval(shift)
          guard pacer.wait(until: time) else { break replay }
          while index < probes.count, probes[index].time.addingTimeInterval(shift) <= time {
            var probe = probes[index]
            probe.vehicleID = "\(loop)/\(probe.vehicleID)"
            probe.time = time
            pacer.add(probe)
            index += 1
          }
          pacer.flushIfDue()
          shared.state.withLock {
            $0.statistics.probesDelivered = pacer.delivered
            $0.statistics.batches = pacer.batches
          }
        }
      }
      if !shared.state.withLock({ $0.stopping }) { pacer.flush() }
      shared.state.withLock {
        $0.statistics.probesDelivered = pacer.delivered
        $0.statistics.batches = pacer.batches
        $0.statistics.isRunning = false
        $0.finished = true
      }
    }
    thread.name = "recorded-probe-stream"
    thread.start()
  }

  /// Stops the replay and waits for its thread to end (at most about a tenth of a second).
  package func stop() {
    let started = shared.state.withLock { state in
      state.stopping = true
      return state.started
    }
    guard started else { return }
    waitUntilFinished(timeoutInSeconds: 5)
  }

  /// Waits until the replay ends (after its last loop, or stopped) or the timeout passes.
  ///
  /// - Returns: whether it ended.
  @discardableResult
  package func waitUntilFinished(timeoutInSeconds: Double) -> Bool {
    let deadline = Date().addingTimeInterval(timeoutInSeconds)
    while true {
      let (started, finished) = shared.state.withLock { ($0.started, $0.finished) }
      if !started || finished { return true }
      if Date() >= deadline { return false }
      Thread.sleep(forTimeInterval: 0.01)
    }
  }

  /// What the replay has done so far.
  package var statistics: Statistics { shared.state.withLock { $0.statistics } }
}
