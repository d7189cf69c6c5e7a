import Codec
import Foundation
import Synchronization
import Traffic
import TrafficFeeds

#if canImport(Glibc)
  import Glibc
#endif

/// Live floating-car probes from SUMO (Eclipse SUMO, "Simulation of Urban MObility") running
/// as a child process on the demo network, paced to the demo clock and handed over in
/// batches — by default to `TrafficEngine.ingest(probes:)`.
///
/// SUMO writes its floating-car data to a pipe (`--fcd-output /dev/stdout --fcd-output.geo
/// true`), which is read line by line as it comes. A time step is passed on once the demo
/// clock reaches it; until then nothing more is read, the pipe fills, and SUMO blocks on its
/// next write — so the simulation runs exactly as fast as the clock, with no control
/// channel. Probes carry the simulation second added to the demo time at which the
/// simulation started; vehicle ids are prefixed with the run number (`"1/veh12"`), since
/// SUMO reuses ids when it is restarted.
///
/// When the simulation ends (``SUMODemand/durationInSeconds``), it is started again. A run
/// that fails (SUMO exits with an error) is not restarted: ``Statistics/lastError`` says
/// why, with the end of SUMO's error output.
///
/// The child leads its own process group and is started under `setpriv --pdeathsig KILL`
/// when util-linux's `setpriv` is installed (see `ChildProcess`); ``stop()`` — also called
/// when the stream is released — sends `SIGTERM` to the group, then `SIGKILL` after a grace
/// period, and returns once the child has been collected.
package final class SUMOProbeStream: Sendable {
  /// How SUMO is run.
  package struct Configuration: Sendable {
    /// The SUMO executable.
    package var sumoPath = "/usr/bin/sumo"
    /// The SUMO network.
    package var networkURL: URL
    /// The traffic simulated.
    package var demand: SUMODemand
    /// The share of vehicles that report probes (`--device.fcd.probability`), 0...1.
    package var probeShare = 0.2
    /// Seconds between the probes of one vehicle (`--device.fcd.period`), simulated seconds.
    package var probePeriodInSeconds = 2
    /// The random seed (`--seed`); runs after the first use `seed + run − 1`.
    package var seed = 42
    /// Wall seconds between batches handed over.
    package var batchIntervalInSeconds = 1.0
    /// A vehicle stuck this long is moved on (`--time-to-teleport`), simulated seconds:
    /// without it a deadlock at a junction would last for the rest of the run.
    package var timeToTeleportInSeconds = 120
    /// Whether a finished simulation is started again.
    package var restartsWhenFinished = true

    /// A configuration for a network and its demand.
    ///
    /// - Parameters:
    ///   - networkURL: the SUMO `.net.xml`.
    ///   - demand: the traffic.
    package init(networkURL: URL, demand: SUMODemand) {
      self.networkURL = networkURL
      self.demand = demand
    }

    /// The configuration for the demo scenario: its network and packaged routes, and the
    /// roadworks' closed lanes on its roadworks segment.
    ///
    /// - Parameter scenario: the demo scenario.
    package init(scenario: DemoScenario) {
      let segment = scenario.roadworksSegment
      let closure = SUMODemand.LaneClosure(
        edgeID: segment.sourceID, laneCount: segment.laneCount ?? 2,
        closedLanes: scenario.roadworksClosedLanes,
        positionInMeters: segment.lengthInMeters * DemoScenario.roadworksStartFraction)
      self.init(
        networkURL: scenario.networkURL,
        demand: SUMODemand(
          routeDirectory: scenario.networkURL.deletingLastPathComponent(),
          closures: closure.closedLanes > 0 ? [closure] : []))
    }

    /// SUMO's arguments for one run.
    func arguments(routeFile: URL, run: Int) -> [String] {
      [
        "--net-file", networkURL.path, "--route-files", routeFile.path,
        "--fcd-output", "/dev/stdout", "--fcd-output.geo", "true",
        "--fcd-output.attributes", "x,y,speed,angle",
        "--device.fcd.probability", String(probeShare),
        "--device.fcd.period", String(probePeriodInSeconds),
        "--begin", "0", "--end", String(demand.durationInSeconds),
        "--seed", String(seed + run - 1), "--time-to-teleport", String(timeToTeleportInSeconds),
        "--ignore-route-errors", "true", "--xml-validation", "never",
        "--no-step-log", "true", "--no-warnings", "true", "--duration-log.disable", "true",
      ]
    }

    /// Checks the values.
    func validate() throws(DemoError) {
      guard probeShare.isFinite, probeShare > 0, probeShare <= 1 else {
        throw .invalidArgument("probeShare \(probeShare) must be within (0, 1]")
      }
      guard probePeriodInSeconds >= 1, probePeriodInSeconds <= 600 else {
        throw .invalidArgument("probePeriodInSeconds \(probePeriodInSeconds) must be 1...600")
      }
      guard batchIntervalInSeconds.isFinite, batchIntervalInSeconds > 0 else {
        throw .invalidArgument("batchIntervalInSeconds must be > 0")
      }
      guard timeToTeleportInSeconds >= 0 else {
        throw .invalidArgument("timeToTeleportInSeconds must be >= 0")
      }
    }
  }

  /// What the stream has done so far.
  package struct Statistics: Hashable, Sendable {
    /// Probes handed over.
    package var probesDelivered = 0
    /// Batches handed over.
    package var batches = 0
    /// Simulation runs started.
    package var runs = 0
    /// The simulation second reached in the current run.
    package var simulatedSeconds = 0.0
    /// The running SUMO's process id (also its process group id), if one runs.
    package var childProcessID: Int32?
    /// Whether the stream is running.
    package var isRunning = false
    /// Why the stream stopped by itself, if it did.
    package var lastError: String?
  }

  private let runner: StreamRunner

  /// Creates a stream that hands probes to `sink`; nothing runs until ``start()``.
  ///
  /// - Parameters:
  ///   - configuration: how SUMO is run.
  ///   - clock: the demo clock probes are paced to and stamped with.
  ///   - sink: called on the stream's thread with each batch, in time order.
  /// - Throws: ``DemoError/invalidArgument(_:)`` for a value out of range.
  package init(
    configuration: Configuration, clock: DemoClock,
    sink: @escaping @Sendable ([Probe]) -> Void
  ) throws(DemoError) {
    try configuration.validate()
    runner = StreamRunner(
      configuration: configuration, clock: clock, isPaced: true, fixedOrigin: nil,
      window: nil, sink: sink)
  }

  /// Creates a stream that feeds an engine's flow (`engine.ingest(probes:)`).
  ///
  /// - Parameters:
  ///   - configuration: how SUMO is run.
  ///   - engine: the engine; give it `clock: clock.now` when `clock` runs faster than 1×.
  ///   - clock: the demo clock.
  /// - Throws: ``DemoError/invalidArgument(_:)`` for a value out of range.
  package convenience init(
    configuration: Configuration, engine: TrafficEngine, clock: DemoClock
  ) throws(DemoError) {
    try self.init(configuration: configuration, clock: clock) { engine.ingest(probes: $0) }
  }

  /// Used by ``DemoRecorder``: unpaced, stamped from a fixed origin, within a window.
  init(
    configuration: Configuration, origin: Date, window: ClosedRange<Double>,
    sink: @escaping @Sendable ([Probe]) -> Void
  ) throws(DemoError) {
    try configuration.validate()
    var recording = configuration
    recording.restartsWhenFinished = false
    runner = StreamRunner(
      configuration: recording, clock: try DemoClock(origin: origin), isPaced: false,
      fixedOrigin: origin, window: window, sink: sink)
  }

  deinit {
    runner.stop()
  }

  /// Writes the route file and starts SUMO; returns once SUMO runs.
  ///
  /// - Throws: ``DemoError/sumoMissing(path:)`` when SUMO is not installed,
  ///   ``DemoError/io(path:reason:)`` or ``DemoError/invalidArgument(_:)`` when the demand
  ///   cannot be written, ``DemoError/sumoFailed(_:)`` when SUMO cannot be started or the
  ///   stream was started before.
  package func start() throws(DemoError) {
    try runner.start()
  }

  /// Stops SUMO (`SIGTERM` to its process group, `SIGKILL` after `gracePeriodInSeconds`)
  /// and waits until it has exited and been collected; probes not yet handed over are
  /// dropped. Safe to call more than once.
  ///
  /// - Parameter gracePeriodInSeconds: how long SUMO may take to exit after `SIGTERM`.
  package func stop(gracePeriodInSeconds: Double = 2) {
    runner.stop(gracePeriodInSeconds: gracePeriodInSeconds)
  }

  /// Waits until the stream ends by itself or `timeoutInSeconds` pass.
  ///
  /// - Returns: whether it ended.
  @discardableResult
  package func waitUntilFinished(timeoutInSeconds: Double) -> Bool {
    runner.waitUntilFinished(timeoutInSeconds: timeoutInSeconds)
  }

  /// What the stream has done so far.
  package var statistics: Statistics { runner.state.withLock { $0.statistics } }
}

/// The state shared by a stream and its reader thread.
final class StreamRunner: Sendable {
  struct State {
    var statistics = SUMOProbeStream.Statistics()
    var started = false
    var stopping = false
    var finished = false
  }

  let configuration: SUMOProbeStream.Configuration
  let clock: DemoClock
  let isPaced: Bool
  let fixedOrigin: Date?
  let window: ClosedRange<Double>?
  let sink: @Sendable ([Probe]) -> Void
  let state = Mutex(State())

  init(
    configuration: SUMOProbeStream.Configuration, clock: DemoClock, isPaced: Bool,
    fixedOrigin: Date?, window: ClosedRange<Double>?, sink: @escaping @Sendable ([Probe]) -> Void
  ) {
    self.configuration = configuration
    self.clock = clock
    self.isPaced = isPaced
    self.fixedOrigin = fixedOrigin
    self.window = window
    self.sink = sink
  }

  func start() throws(DemoError) {
    guard FileManager.default.isExecutableFile(atPath: configuration.sumoPath) else {
      throw .sumoMissing(path: configuration.sumoPath)
    }
    let alreadyStarted = state.withLock { state in
      defer { state.started = true }
      return state.started
    }
    guard !alreadyStarted else { throw .sumoFailed("the stream was started before") }
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("traffic-demo-sumo-\(UUID().uuidString)")
    let routeFile = directory.appendingPathComponent("demo.rou.xml")
    do {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    } catch {
      throw .io(path: directory.path, reason: SystemErrorText.reason(error))
    }
    let routes = try configuration.demand.routeDocument()
    do {
      try Data(routes.utf8).write(to: routeFile)
    } catch {
      throw .io(path: routeFile.path, reason: SystemErrorText.reason(error))
    }
    let started = DispatchSemaphore(value: 0)
    let startError = Mutex<DemoError?>(nil)
    state.withLock { $0.statistics.isRunning = true }
    let thread = Thread { [self] in
      run(directory: directory, routeFile: routeFile) { error in
        startError.withLock { $0 = error }
        started.signal()
      }
      try? FileManager.default.removeItem(at: directory)
      state.withLock {
        $0.statistics.isRunning = false
        $0.finished = true
      }
    }
    thread.name = "sumo-probe-stream"
    thread.start()
    started.wait()
    if let error = startError.withLock({ $0 }) { throw error }
  }

  /// The reader thread: runs SUMO again and again, reading and pacing its output.
  private func run(
    directory: URL, routeFile: URL, onFirstStart: @escaping (DemoError?) -> Void
  ) {
    var reportStart: ((DemoError?) -> Void)? = onFirstStart
    let pacer = ProbePacer(
      clock: clock, batchIntervalInSeconds: configuration.batchIntervalInSeconds,
      isPaced: isPaced, sink: sink, isStopped: { [self] in state.withLock { $0.stopping } })
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
    defer { buffer.deallocate() }
    var run = 0
    while !state.withLock({ $0.stopping }) {
      run += 1
      let log = directory.appendingPathComponent("sumo-\(run).log")
      let child: ChildProcess
      do {
        child = try ChildProcess(
          executable: configuration.sumoPath,
          arguments: configuration.arguments(routeFile: routeFile, run: run), errorLog: log)
      } catch {
        state.withLock { $0.statistics.lastError = error.description }
        reportStart?(error)
        return
      }
      state.withLock {
        $0.statistics.childProcessID = child.pid
        $0.statistics.runs = run
        $0.statistics.simulatedSeconds = 0
      }
      reportStart?(nil)
      reportStart = nil
      let origin = fixedOrigin ?? clock.now()
      var reader = FCDReader()
      var steps = 0
      var time = 0.0
      var delivering = true
      while true {
        let count = child.read(into: buffer)
        if count == 0 { break }
        guard delivering else { continue }
        for line in reader.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) {
          switch line {
          case .timestep(let readable, _):
            guard let seconds = readable else { continue }
            time = seconds
            steps += 1
            if let window, seconds > window.upperBound {
              delivering = false
              state.withLock { $0.stopping = true }
              child.signalGroup(SIGTERM)
              killAfterGracePeriod()
            } else if !pacer.wait(until: origin.addingTimeInterval(seconds)) {
              delivering = false
            }
            state.withLock {
              $0.statistics.simulatedSeconds = seconds
              $0.statistics.probesDelivered = pacer.delivered
              $0.statistics.batches = pacer.batches
            }
          case .mover(let kind, let attributes, _):
            guard delivering, kind == "vehicle", let id = attributes["id"],
              !id.hasPrefix("roadworks_"), window?.contains(time) ?? true,
              let longitude = attributes["x"].flatMap({ ProbeDecoder.decimal($0) }),
              let latitude = attributes["y"].flatMap({ ProbeDecoder.decimal($0) }),
              let coordinates = try? GeoCoordinates(latitude: latitude, longitude: longitude)
            else { continue }
            let speed = attributes["speed"].flatMap { ProbeDecoder.decimal($0) }
            let angle = attributes["angle"].flatMap { ProbeDecoder.decimal($0) }
            pacer.add(
              Probe(
                vehicleID: fixedOrigin == nil ? "\(run)/\(id)" : id,
                time: origin.addingTimeInterval(time), coordinates: coordinates,
                speedInMetersPerSecond: speed.flatMap { $0 >= 0 ? $0 : nil },
                headingInDegrees: angle.flatMap { $0.isFinite ? $0 : nil }))
          }
        }
        if delivering { pacer.flushIfDue() }
        if !delivering { break }
      }
      // Stopping: let SUMO exit (the stopper signals its group) while draining the pipe.
      while child.read(into: buffer) > 0 {}
      // Collected under the lock that `stop()` signals under, so that it never signals a
      // process group whose id was reused after the child was collected.
      var exitStatus: Int32?
      while exitStatus == nil {
        exitStatus = state.withLock { state -> Int32? in
          guard let code = child.reap(blocking: false) else { return nil }
          state.statistics.childProcessID = nil
          return code
        }
        if exitStatus == nil { Thread.sleep(forTimeInterval: 0.005) }
      }
      let status = exitStatus ?? -1
      let stopping = state.withLock { $0.stopping }
      if !stopping || fixedOrigin != nil { pacer.flush() }
      state.withLock {
        $0.statistics.probesDelivered = pacer.delivered
        $0.statistics.batches = pacer.batches
      }
      if stopping { break }
      if status != 0 || steps == 0 {
        let tail = Self.tail(of: log)
        state.withLock {
          $0.statistics.lastError =
            "sumo exited with status \(status) after \(steps) time steps"
            + (tail.isEmpty ? "" : ": \(tail)")
        }
        break
      }
      if !configuration.restartsWhenFinished { break }
    }
  }

  /// The last lines of a log file, joined.
  static func tail(of url: URL) -> String {
    guard let text = try? String(contentsOf: url, encoding: .utf8) else { return "" }
    return text.split(separator: "\n").suffix(3).joined(separator: " / ")
  }

  /// SIGKILLs SUMO's group if it has not exited a few seconds after a SIGTERM: SUMO can hang
  /// in its own exit handler (seen here: a SIGTERM handled during start-up deadlocks on
  /// glibc's locale lock in `exit`), and the reader waits for the end of its output.
  func killAfterGracePeriod(seconds: Double = 3) {
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
      state.withLock { state in
        // Under the lock the reader clears the id under when it collects the child, so a
        // reused process id is never signalled.
        if let pid = state.statistics.childProcessID { kill(-pid, SIGKILL) }
      }
    }
  }

  func stop(gracePeriodInSeconds: Double = 2) {
    let pid = state.withLock { state -> Int32? in
      state.stopping = true
      return state.statistics.childProcessID
    }
    guard state.withLock({ $0.started }) else { return }
    if let pid { kill(-pid, SIGTERM) }
    if waitUntilFinished(timeoutInSeconds: gracePeriodInSeconds) { return }
    state.withLock { state in
      // Under the lock: the reader collects the child and clears the id under it too.
      if let pid = state.statistics.childProcessID { kill(-pid, SIGKILL) }
    }
    waitUntilFinished(timeoutInSeconds: 10)
  }

  @discardableResult
  func waitUntilFinished(timeoutInSeconds: Double) -> Bool {
    let deadline = Date().addingTimeInterval(timeoutInSeconds)
    while true {
      let (started, finished) = state.withLock { ($0.started, $0.finished) }
      if !started || finished { return true }
      if Date() >= deadline { return false }
      Thread.sleep(forTimeInterval: 0.01)
    }
  }
}
