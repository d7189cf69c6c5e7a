import Foundation
import Roads
import Traffic
import TrafficDemo
import TrafficFeeds
import TrafficPostgres
import TrafficSQLite
import TrafficServer

/// `traffic serve`: the HTTP service (HERE Traffic API v7 and the project's extensions).
enum ServeCommand: Subcommand {
  static let name = "serve"
  static let summary = "Run the traffic server (HERE Traffic API v7 compatible)"
  static let help = """
    Usage: traffic serve [--db PATH | --postgres URL] [--host H] [--port N] [--network FILE]
                         [--feed [NAME=]FORMAT:URL[@SECONDS]]... [--api-key KEY]... [--keys-file F]
                         [--threads N] [--access-log FILE|stderr|off]

    Serves incidents (and flow, when a road network is given) over HTTP until SIGINT or
    SIGTERM, then finishes the requests in flight and stops.

    Options:
      --db PATH             the SQLite store (default: $TRAFFIC_DB or ./traffic.sqlite)
      --postgres URL        a PostgreSQL + PostGIS database shared by several nodes (or
                            $TRAFFIC_POSTGRES); each node follows the others' writes
                            and probes
      --host H              address to listen on (default 127.0.0.1; without API keys the
                            server is open, so bind it to loopback)
      --port N              port (default 8080; 0 picks a free one)
      --network FILE        road network for flow: .osm, .osm.bz2, .osm.pbf or SUMO .net.xml
      --country CC          ISO country of the network, for default speed limits
      --feed [NAME=]FORMAT:URL[@S]
                            poll a feed every S seconds (default 60); FORMAT is auto or one of
                            \(FeedFormat.allCases.map(\.rawValue).joined(separator: ", "));
                            NAME names its source (default: the source the document names
                            itself, else the URL's host and path)
      --api-key KEY         accept this key (apiKey= or Authorization: Bearer); repeatable
      --keys-file F         accept the keys in F, one per line
      --threads N           request threads (default: one per core the process may use)
      --access-log DEST     where the access log goes: stderr (the default), a FILE it
                            appends to, or off; written in batches every 100 ms and
                            completely when the server stops
      --rate-limit R        requests per second per key (per client address without
                            keys); beyond it 429 with Retry-After
      --demo[=live|static]  the live demo: SUMO's A10 network south-east of Berlin, traffic
                            simulated by SUMO (live) or replayed from a recording (static),
                            and demo incidents in DATEX II, WZDx, Waze and Open511 feeds;
                            the store defaults to ./demo.sqlite
      --demo-speed F        how many times faster than real time the demo runs (1...60,
                            default 10); the server's clock runs at the same pace
    """

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    var configuration = ServerConfiguration()
    if let host = try arguments.option("--host") { configuration.host = host }
    if let port = try arguments.option("--port") {
      guard let value = Int(port), (0...65_535).contains(value) else {
        throw UsageError("--port expects 0...65535, got '\(port)'")
      }
      configuration.port = value
    }
    if let threads = try arguments.option("--threads") {
      guard let value = Int(threads), (1...256).contains(value) else {
        throw UsageError("--threads expects 1...256, got '\(threads)'")
      }
      configuration.threads = value
    }
    if let destination = try arguments.option("--access-log") {
      switch destination {
      case "stderr": configuration.accessLog = .standardError
      case "off": configuration.accessLog = .none
      case "": throw UsageError("--access-log expects a file, stderr or off")
      default:
        do {
          configuration.accessLog = try AccessLogSink.file(atPath: destination)
        } catch {
          throw UsageError("--access-log: \(error)")
        }
      }
    }
    if let text = try arguments.option("--rate-limit") {
      guard let rate = Double(text), rate.isFinite, rate > 0 else {
        throw UsageError("--rate-limit expects requests per second > 0, got '\(text)'")
      }
      configuration.rateLimit = ServerConfiguration.RateLimit(requestsPerSecond: rate)
    }
    for key in try arguments.repeatedOption("--api-key") {
      guard !key.isEmpty else { throw UsageError("--api-key must not be empty") }
      configuration.apiKeys.insert(key)
    }
    if let file = try arguments.option("--keys-file") {
      do {
        configuration.apiKeys.formUnion(try ServerConfiguration.apiKeys(fromFile: file))
      } catch {
        throw UsageError("--keys-file: \(error)")
      }
    }
    var feeds: [FeedPoller.Feed] = []
    for text in try arguments.repeatedOption("--feed") {
      do { feeds.append(try FeedPoller.Feed.parse(text)) } catch {
        throw UsageError("--feed: \(error.reason)")
      }
    }
    var demo: DemoMode?
    if arguments.flag("--demo") || arguments.flag("--demo=live") { demo = .live }
    if arguments.flag("--demo=static") { demo = .recorded }
    var speed = 10.0
    if let text = try arguments.option("--demo-speed") {
      guard let value = Double(text), (1...60).contains(value) else {
        throw UsageError("--demo-speed expects 1...60, got '\(text)'")
      }
      speed = value
    }
    let country = try arguments.option("--country")
    let networkFile = try arguments.option("--network")
    let postgres = try arguments.option("--postgres") ?? PostgresTrafficStore.environmentURL
    let givenPath = try arguments.option("--db")
    if postgres != nil, givenPath != nil { throw UsageError("give --db or --postgres, not both") }
    if postgres != nil, demo != nil { throw UsageError("the demo runs on the embedded store") }
    let path = givenPath ?? (demo != nil ? "demo.sqlite" : SQLiteTrafficStore.defaultPath)
    guard try arguments.positionals().isEmpty else {
      throw UsageError("unexpected arguments; see traffic help serve")
    }
    do { try configuration.validate() } catch { throw UsageError("\(error)") }

    if let postgres {
      try await servePostgres(
        url: postgres, networkFile: networkFile, country: country, configuration: configuration,
        feeds: feeds, console: console)
      return
    }
    let store: SQLiteTrafficStore
    do { store = try SQLiteTrafficStore(path: path) } catch {
      throw UsageError("\(path): \(error)")
    }
    var network = try networkFile.map { file throws(UsageError) in
      try NetworkArguments.load(file, countryCode: country)
    }
    var clock: @Sendable () -> Date = { Date() }
    var scenario: DemoScenario?
    var demoClock: DemoClock?
    if demo != nil {
      do {
        let demoScenario = try DemoScenario()
        let paced = try DemoClock(speedFactor: speed)
        demoClock = paced
        clock = { paced.now() }
        network = demoScenario.network
        scenario = demoScenario
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
          .appendingPathComponent("demo-feeds")
        let written = try demoScenario.writeFeeds(to: directory, now: paced.now())
        feeds += written.map { $0.pollerFeed(intervalInSeconds: 60) }
      } catch {
        throw UsageError("--demo: \(error)")
      }
    } else if network == nil {
      do { network = try store.loadNetwork() } catch { throw UsageError("\(path): \(error)") }
    } else if let network {
      // A network given on the command line becomes the store's, for later commands.
      do { try store.saveNetwork(network) } catch { throw UsageError("\(path): \(error)") }
    }
    let engine: TrafficEngine
    do {
      engine = try TrafficEngine(store: store, clock: clock, network: network)
      if demo == nil { _ = try engine.restoreFlow() }
    } catch {
      throw UsageError("\(path): \(error)")
    }
    var stopProbes: (@Sendable () -> Void)?
    try serve(
      engine, from: path, network: network, feeds: feeds, configuration: configuration,
      console: console,
      started: { port in
        stopProbes = try startDemoProbes(
          demo, scenario: scenario, engine: engine, clock: demoClock, console: console)
        guard demo != nil, let place = scenario?.roadworksSegment.geometry.vertices.first else {
          return
        }
        let area = "circle:\(place.latitude),\(place.longitude);r=5000"
        console.print(
          """

          The demo runs at \(Int(speed))x real time. Open http://\(configuration.host):\(port)/ for the map.
          Try:
            curl 'http://127.0.0.1:\(port)/v7/incidents?in=\(area)&lang=de-DE'
            curl 'http://127.0.0.1:\(port)/v7/flow?in=\(area)&minJamFactor=4'
            traffic incidents --server http://127.0.0.1:\(port) --circle \(place.latitude),\(place.longitude),5000 --lang de-DE
          Ctrl-C stops the server and SUMO.
          """)
      },
      stopping: {
        stopProbes?()
        // Pending positions count, and the current picture survives the restart.
        engine.flushProbes()
        _ = try? engine.saveFlow()
      })
  }
}

/// Serves `engine` until the server stops: polls `feeds`, purges ended incidents past their
/// retention every 5 minutes, prints what it serves and where it listens.
///
/// - Parameters:
///   - source: The store, for the banner.
///   - started: Called once the server listens, with its port.
///   - stopping: Called on the way out, after polling stopped.
/// - Throws: `UsageError` when the server cannot start.
private func serve(
  _ engine: TrafficEngine, from source: String, network: RoadNetwork?,
  feeds: [FeedPoller.Feed], configuration: ServerConfiguration, console: Console,
  started: (Int) throws -> Void = { _ in }, stopping: () -> Void
) throws {
  let poller = FeedPoller(feeds: feeds, engine: engine)
  let server: TrafficServer
  do {
    server = try TrafficServer(engine: engine, configuration: configuration, poller: poller)
  } catch {
    throw UsageError("\(error)")
  }
  poller.start()
  let maintenance = Task.detached {
    // Ended incidents leave results when they end; their rows go after the retention.
    while !Task.isCancelled {
      try? await Task.sleep(for: .seconds(300))
      _ = try? engine.purgeExpired()
    }
  }
  defer {
    maintenance.cancel()
    poller.stop()
    stopping()
  }
  console.error(
    "traffic serve: \(engine.incidentCount) incidents from \(source)"
      + (network.map { ", network of \($0.segments.count) segments" } ?? "")
      + (feeds.isEmpty ? "" : ", polling \(feeds.count) feeds"))
  do {
    try server.start()
    let port = server.port ?? configuration.port
    console.print("listening on http://\(configuration.host):\(port)")
    try started(port)
    try server.run()
  } catch let error as UsageError {
    throw error
  } catch {
    throw UsageError("\(error)")
  }
}

/// Which demo `traffic serve --demo` runs.
enum DemoMode {
  /// SUMO simulates traffic as a child process.
  case live
  /// A recording of SUMO's probes is replayed (no SUMO needed to run).
  case recorded
}

/// Starts the demo's probe source, when there is a demo; returns how to stop it.
private func startDemoProbes(
  _ mode: DemoMode?, scenario: DemoScenario?, engine: TrafficEngine, clock: DemoClock?,
  console: Console
) throws -> (@Sendable () -> Void)? {
  guard let mode, let scenario, let clock else { return nil }
  do {
    if mode == .live, FileManager.default.isExecutableFile(atPath: "/usr/bin/sumo") {
      let live = try SUMOProbeStream(
        configuration: SUMOProbeStream.Configuration(scenario: scenario), engine: engine,
        clock: clock)
      try live.start()
      console.error("traffic serve: SUMO simulates traffic on the A10 network (live probes)")
      return { live.stop() }
    }
    let replay = try RecordedProbeStream(
      recordingURL: URL(fileURLWithPath: RecordedProbeStream.defaultRecordingPath),
      engine: engine, clock: clock)
    replay.start()
    console.error(
      "traffic serve: replaying recorded probes from \(RecordedProbeStream.defaultRecordingPath)")
    return { replay.stop() }
  } catch {
    throw UsageError("--demo: \(error)")
  }
}

/// `traffic serve --postgres`: a node of a deployment sharing one PostgreSQL database.
///
/// The node loads the incidents, follows the other nodes' writes (LISTEN/NOTIFY through
/// `PostgresSync`) and writes its own through the engine; the road network, when given, is
/// the node's own (every node loads the same file). With a network, the node loads the flow
/// state saved for it, replays the probe batches shared after it, then ingests the batches
/// the other nodes share; it saves its flow state every minute while probes arrive and when
/// it stops.
private func servePostgres(
  url: String, networkFile: String?, country: String?, configuration: ServerConfiguration,
  feeds: [FeedPoller.Feed], console: Console
) async throws {
  let network = try networkFile.map { file throws(UsageError) in
    try NetworkArguments.load(file, countryCode: country)
  }
  let store: PostgresTrafficStore
  do { store = try PostgresTrafficStore(url: url) } catch {
    throw UsageError("--postgres: \(error)")
  }
  let engine: TrafficEngine
  let sync: PostgresSync
  do {
    engine = try TrafficEngine(store: store, network: network)
    // Also loads the flow state saved for the network and replays the probes after it.
    sync = try PostgresSync(engine: engine)
    if let problem = sync.flowRestoreError {
      console.error("traffic serve: the saved flow state was not loaded: \(problem)")
    }
  } catch {
    throw UsageError("\(store.displayName): \(error)")
  }
  try serve(
    engine, from: store.displayName, network: network, feeds: feeds,
    configuration: configuration, console: console,
    stopping: {
      sync.stop()
      // The current picture survives the restart (pending positions stay with the others).
      _ = try? sync.saveFlow()
    })
}
