import Codec
import Foundation
import Roads
import Synchronization
import Traffic
import TrafficDemo
import TrafficFeeds
import TrafficPostgres
import TrafficSQLite
import TrafficServer

/// `traffic serve` as a library: opens the store, the road network and the engine, serves
/// them over HTTP, polls the feeds, purges ended incidents, follows the other nodes of a
/// PostgreSQL deployment, runs the demo, and saves the flow picture when it stops.
///
/// The command-line tool only parses its arguments into ``Options`` and calls ``run(started:)``.
public final class ServerApplication: Sendable {
  /// Where the incidents are kept.
  public enum Store: Sendable, Hashable {
    /// The embedded SQLite store at a path.
    case sqlite(path: String)
    /// A PostgreSQL + PostGIS database shared by several nodes (a libpq URL).
    case postgres(url: String)
  }

  /// Which demo runs.
  public enum Demo: Sendable, Hashable {
    /// SUMO simulates traffic as a child process (a recording is replayed without SUMO).
    case live
    /// A recording of SUMO's probes is replayed.
    case recorded
  }

  /// What to serve and how.
  public struct Options: Sendable {
    /// The store.
    public var store: Store
    /// The HTTP server's settings.
    public var configuration: ServerConfiguration
    /// The engine's query limits: area sizes and the most incidents one answer holds.
    public var limits: TrafficQueryLimits = .here
    /// The feeds to poll.
    public var feeds: [FeedPoller.Feed] = []
    /// A road network file for flow (OSM XML, PBF or SUMO); without one, the SQLite store's
    /// saved network, if any.
    public var networkFile: String?
    /// The network's ISO country, for default speed limits.
    public var countryCode: String?
    /// The demo, if one runs (on the embedded store only).
    public var demo: Demo?
    /// How many times faster than real time the demo runs (1...60).
    public var demoSpeed = 10.0
    /// Where the demo writes its feed files (`demo-feeds/`); beside the store when `nil`.
    public var stateDirectory: URL?

    /// Options for a store and a configuration.
    public init(store: Store, configuration: ServerConfiguration) {
      self.store = store
      self.configuration = configuration
    }
  }

  /// Why the application cannot start or run, in one sentence naming the cause.
  public struct Failure: Error, CustomStringConvertible, Sendable {
    /// The reason, naming what is wrong.
    public var description: String

    init(_ description: String) { self.description = description }
  }

  /// Where the application reports: lines for the operator (standard error), and the lines
  /// a user reads (where it listens, the demo's hints; standard output).
  public struct Reporter: Sendable {
    /// Lines for the operator.
    public var status: @Sendable (String) -> Void
    /// Lines for the user (where the server listens, the demo's hints).
    public var output: @Sendable (String) -> Void
    /// The start-up's progress line (a terminal's), erased before the server listens.
    package var progress: ProgressReporter?

    /// A reporter of both kinds of lines.
    public init(
      status: @escaping @Sendable (String) -> Void, output: @escaping @Sendable (String) -> Void
    ) {
      self.status = status
      self.output = output
    }

    /// A reporter with a progress line for the start-up.
    package init(
      status: @escaping @Sendable (String) -> Void, output: @escaping @Sendable (String) -> Void,
      progress: ProgressReporter?
    ) {
      self.init(status: status, output: output)
      self.progress = progress
    }
  }

  /// The engine served.
  public let engine: TrafficEngine
  private let options: Options
  private let reporter: Reporter
  private let server: TrafficServer
  private let poller: FeedPoller
  private let network: RoadNetwork?
  private let storeName: String
  private let feedCount: Int
  private let demoRun: DemoRun?
  private let sync: PostgresSync?
  /// Why the incidents loading in the background could not be loaded, once that happened.
  private let loadFailure = Mutex<Failure?>(nil)
  /// Whether the engine loads its incidents after the server starts listening (`run`
  /// reports when they are loaded).
  private let loadsInBackground: Bool

  /// The demo's pieces, when one runs.
  private struct DemoRun: Sendable {
    let scenario: DemoScenario
    let clock: DemoClock
  }

  /// Opens everything the options name; nothing listens yet.
  ///
  /// - Throws: ``Failure`` naming the store, the network file, the demo or the server
  ///   setting that is wrong.
  public init(options: Options, reporter: Reporter) throws(Failure) {
    self.options = options
    self.reporter = reporter
    // Each start-up phase is logged with its time, so that an operator sees where start-up
    // time goes; on a terminal a progress line shows the phase running.
    let startup = StartupPhases(reporter: reporter)
    defer { reporter.progress?.finish() }
    var feeds = options.feeds
    var network: RoadNetwork?
    if let file = options.networkFile {
      startup.begin("loading the network \(URL(fileURLWithPath: file).lastPathComponent)")
      do {
        network = try NetworkFile.load(
          URL(fileURLWithPath: file), countryCode: options.countryCode,
          progress: reporter.progress
        ).network
      } catch .unrecognized(_, let reason) {
        // The file named once, with the formats it is none of.
        throw Failure("\(file): \(RoadsError.unrecognizedFormat): \(reason)")
      } catch {
        throw Failure("\(file): \(error)")
      }
      startup.end("network loaded (\(network?.segments.count ?? 0) segments)")
    }
    switch options.store {
    case .postgres(let url):
      guard options.demo == nil else { throw Failure("the demo runs on the embedded store") }
      let store: PostgresTrafficStore
      do { store = try PostgresTrafficStore(url: url) } catch {
        throw Failure("--postgres: \(error)")
      }
      storeName = store.displayName
      startup.end("store opened (\(store.displayName))")
      // One line when the database goes out of reach and one when it is back, however many
      // requests and reconnection attempts fail in between.
      store.connectionHealth.onChange { event in reporter.status("traffic serve: \(event)") }
      // As on SQLite, the server answers while the incidents load: area queries and lookups
      // from PostGIS, everything else once they are in memory; following the other nodes
      // starts from where the load was current.
      loadsInBackground = true
      do {
        startup.begin("reading what the store holds")
        engine = try TrafficEngine(
          store: store, limits: options.limits, network: network, loading: .inBackground)
        startup.end("\(engine.incidentCount) incidents in the store, loading them meanwhile")
        // Also loads the flow state saved for the network and replays the probes after it.
        startup.begin("loading the flow state, following the other nodes")
        let following = try PostgresSync(engine: engine)
        startup.end("flow state loaded, following the other nodes")
        if let problem = following.flowRestoreError {
          reporter.status("traffic serve: the saved flow state was not loaded: \(problem)")
        }
        sync = following
      } catch {
        throw Failure("\(store.displayName): \(error)")
      }
      demoRun = nil
    case .sqlite(let path):
      storeName = path
      startup.begin("opening the store \(path)")
      let store: SQLiteTrafficStore
      do { store = try SQLiteTrafficStore(path: path) } catch { throw Failure("\(path): \(error)") }
      startup.end("store opened (\(path))")
      var clock: @Sendable () -> Date = { Date() }
      var run: DemoRun?
      if options.demo != nil {
        do {
          let scenario = try DemoScenario()
          let paced = try DemoClock(speedFactor: options.demoSpeed)
          clock = { paced.now() }
          network = scenario.network
          let directory =
            (options.stateDirectory
            ?? URL(fileURLWithPath: path).deletingLastPathComponent())
            .appendingPathComponent("demo-feeds")
          let written = try scenario.writeFeeds(to: directory, now: paced.now())
          feeds += written.map { $0.pollerFeed(intervalInSeconds: 60) }
          run = DemoRun(scenario: scenario, clock: paced)
        } catch {
          throw Failure("--demo: \(error)")
        }
      } else if let network {
        // A network given on the command line becomes the store's, for later commands.
        do { try store.saveNetwork(network) } catch { throw Failure("\(path): \(error)") }
      } else {
        startup.begin("loading the road network from the store")
        do { network = try store.loadNetwork() } catch { throw Failure("\(path): \(error)") }
        if let network { startup.end("network loaded (\(network.segments.count) segments)") }
      }
      do {
        startup.begin(
          "loading and indexing the incidents" + (network == nil ? "" : ", building the flow state")
        )
        // The server answers while the incidents load: area queries and lookups from the
        // store's own index, everything else once they are in memory (`run` reports it).
        loadsInBackground = run == nil
        engine = try TrafficEngine(
          store: store, limits: options.limits, clock: clock, network: network,
          loading: loadsInBackground ? .inBackground : .immediately)
        startup.end(
          (loadsInBackground
            ? "\(engine.incidentCount) incidents in the store, loading them meanwhile"
            : "\(engine.incidentCount) incidents loaded and indexed")
            + (network == nil ? "" : ", flow state built"))
        if run == nil, network != nil {
          startup.begin("restoring the saved flow")
          if try engine.restoreFlow() { startup.end("saved flow restored") }
        }
      } catch {
        throw Failure("\(path): \(error)")
      }
      demoRun = run
      sync = nil
    }
    self.network = network
    // Loading freed its row chunks and decode buffers (either store); glibc keeps freed
    // heap pages resident unless asked to return them.
    if !loadsInBackground { TrafficServer.returnFreedMemory() }
    feedCount = feeds.count
    poller = FeedPoller(feeds: feeds, engine: engine)
    do {
      server = try TrafficServer(
        engine: engine, configuration: options.configuration, poller: poller)
    } catch {
      throw Failure("\(error)")
    }
  }

  /// Times the start-up's phases: each finished phase is a status line with its seconds.
  private final class StartupPhases: Sendable {
    let reporter: Reporter
    let started = Mutex(ContinuousClock.now)

    init(reporter: Reporter) { self.reporter = reporter }

    func begin(_ phase: String) {
      started.withLock { $0 = ContinuousClock.now }
      reporter.progress?.begin("traffic serve start-up", detail: phase, unit: .items(""))
    }

    func end(_ what: String) {
      let elapsed = started.withLock { ContinuousClock.now - $0 }
      reporter.progress?.finish()
      let seconds =
        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
      reporter.status("traffic serve: start-up: \(what) in \(String(format: "%.2f", seconds)) s")
    }
  }

  /// The port the server listens on, once it does.
  public var port: Int? { server.port }

  /// Serves until the process receives SIGINT or SIGTERM (or `stop()` is called), then
  /// stops polling and probes, and saves the flow picture.
  ///
  /// - Parameter started: Called once the server listens, with its port.
  /// - Throws: ``Failure`` when the server cannot listen or the demo cannot start.
  public func run(started: (Int) -> Void = { _ in }) throws(Failure) {
    // Caught before anything starts: a signal at any moment from here, even before the
    // "listening" line, stops the server gracefully (and saves the flow picture).
    do { try server.catchStopSignals() } catch { throw Failure("\(error)") }
    defer { server.releaseStopSignals() }
    poller.start()
    let engine = self.engine
    let maintenance = Task.detached {
      // Ended incidents leave results when they end; their rows go after the retention.
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(300))
        _ = try? engine.purgeExpired()
      }
    }
    let flowSaves = Task.detached {
      // The flow state is saved at most once a minute after ingests; the last batches
      // before a quiet spell are saved by this timer, not only at a planned stop.
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(10))
        _ = try? engine.saveFlowIfPending()
      }
    }
    var stopProbes: (@Sendable () -> Void)?
    defer {
      maintenance.cancel()
      flowSaves.cancel()
      poller.stop()
      stopProbes?()
      if let sync {
        sync.stop()
        // The current picture survives the restart (pending positions stay with the others).
        _ = try? sync.saveFlow()
      } else {
        // Pending positions count, and the current picture survives the restart.
        engine.flushProbes()
        _ = try? engine.saveFlow()
      }
    }
    reporter.status(
      "traffic serve: \(engine.incidentCount) incidents from \(storeName)"
        + (network.map { ", network of \($0.segments.count) segments" } ?? "")
        + (feedCount == 0 ? "" : ", polling \(feedCount) feeds"))
    do {
      try server.start()
    } catch {
      throw Failure("\(error)")
    }
    let port = server.port ?? options.configuration.port
    reporter.output("listening on http://\(Self.urlHost(options.configuration.host)):\(port)")
    watchLoading()
    let probes = try startDemoProbes()
    stopProbes = probes?.stop
    if demoRun != nil {
      reporter.output(demoHints(port: port, simulating: probes?.simulating == true))
    }
    started(port)
    do {
      try server.run()
    } catch {
      throw Failure("\(error)")
    }
    if let failure = loadFailure.withLock({ $0 }) { throw failure }
  }

  /// While the engine loads its incidents in the background: reports when they are loaded
  /// (and hands the load's freed memory back), or, when the load fails, stops the server,
  /// whose `run` then throws it.
  private func watchLoading() {
    // Also when the load already ended: the start-up line said it would be reported.
    guard loadsInBackground else { return }
    let started = ContinuousClock.now
    DispatchQueue.global(qos: .utility).async { [self] in
      do {
        try engine.waitUntilLoaded()
        TrafficServer.returnFreedMemory()
        let elapsed = ContinuousClock.now - started
        let seconds =
          Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        reporter.status(
          "traffic serve: \(engine.incidentCount) incidents loaded and indexed "
            + "\(String(format: "%.2f", seconds)) s after listening")
      } catch {
        loadFailure.withLock { $0 = Failure("\(storeName): \(error)") }
        reporter.status("traffic serve: \(storeName): \(error); stopping")
        stop()
      }
    }
  }

  /// Ends `run(started:)` as SIGTERM does: it stops gracefully and returns.
  public func stop() {
    server.endRun()
  }

  /// Starts the demo's probe source, when there is a demo; returns how to stop it, and
  /// whether SUMO simulates the traffic (else a recording is replayed: `--demo=static`, or
  /// no SUMO installed).
  private func startDemoProbes() throws(Failure) -> (
    stop: @Sendable () -> Void, simulating: Bool
  )? {
    guard let mode = options.demo, let demoRun else { return nil }
    do {
      if mode == .live, FileManager.default.isExecutableFile(atPath: "/usr/bin/sumo") {
        let live = try SUMOProbeStream(
          configuration: SUMOProbeStream.Configuration(scenario: demoRun.scenario),
          engine: engine, clock: demoRun.clock)
        try live.start()
        reporter.status("traffic serve: SUMO simulates traffic on the A10 network (live probes)")
        return ({ live.stop() }, true)
      }
      let replay = try RecordedProbeStream(
        recordingURL: RecordedProbeStream.defaultRecordingURL,
        engine: engine, clock: demoRun.clock)
      replay.start()
      reporter.status(
        "traffic serve: replaying recorded probes from \(RecordedProbeStream.defaultRecordingURL.path)"
      )
      return ({ replay.stop() }, false)
    } catch {
      throw Failure("--demo: \(error)")
    }
  }

  /// A host as a URL writes it: an IPv6 address in brackets.
  package static func urlHost(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

  /// The base URL a client on this machine reaches a server listening on `host` by: the
  /// loopback address for a wildcard one (`0.0.0.0`), and `localhost` for an IPv6 address
  /// (the command line's HTTP client, Foundation's, cannot fetch an IPv6 literal).
  package static func clientBase(host: String, port: Int) -> String {
    let reached =
      host == "0.0.0.0" ? "127.0.0.1" : host.contains(":") ? "localhost" : urlHost(host)
    return "http://\(reached):\(port)"
  }

  /// What to try against the demo, and what Ctrl-C stops (SUMO only when it runs).
  private func demoHints(port: Int, simulating: Bool) -> String {
    guard let place = demoRun?.scenario.roadworksSegment.geometry.vertices.first else {
      return ""
    }
    let area = "circle:\(place.latitude),\(place.longitude);r=5000"
    let base = Self.clientBase(host: options.configuration.host, port: port)
    return """

      The demo runs at \(Int(options.demoSpeed))x real time. Open \(base)/ for the map.
      Try:
        curl '\(base)/v7/incidents?in=\(area)&lang=de-DE'
        curl '\(base)/v7/flow?in=\(area)&minJamFactor=4'
        traffic incidents --server \(base) --circle \(place.latitude),\(place.longitude),5000 --lang de-DE
      Ctrl-C stops the server\(simulating ? " and SUMO" : "").
      """
  }
}
