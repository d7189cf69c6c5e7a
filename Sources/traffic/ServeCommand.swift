import Foundation
import Traffic
import TrafficFeeds
import TrafficPostgres
import TrafficSQLite
import TrafficServer
import TrafficService

/// `traffic serve`: the HTTP service (HERE Traffic API v7 and the project's extensions).
enum ServeCommand: Subcommand {
  static let name = "serve"
  static let summary = "Run the traffic server (HERE Traffic API v7 compatible)"
  static let synopsis = """
    Usage: traffic serve [--db PATH | --postgres URL] [--host H] [--port N] [--network FILE]
                         [--feed [NAME=]FORMAT:URL[@SECONDS]]... [--api-key KEY]... [--keys-file F]
                         [--threads N] [--access-log FILE|stderr|off]
                         [--demo[=live|static] [--state-dir DIR]]

    Serves incidents (and flow, when a road network is given) over HTTP until SIGINT or
    SIGTERM, then finishes the requests in flight and stops.
    """
  static let options: [OptionDefinition] =
    EngineArguments.database + [
      OptionDefinition(
        "--postgres", "URL",
        """
        a PostgreSQL + PostGIS database shared by several nodes (or
        $TRAFFIC_POSTGRES); each node follows the others' writes
        and probes
        """),
      OptionDefinition(
        "--host", "H",
        """
        address to listen on (default 127.0.0.1; without API keys the
        server is open, so bind it to loopback)
        """),
      OptionDefinition(
        "--port", "N", "port (default $TRAFFIC_PORT, else 8080; 0 picks a free one)"),
      OptionDefinition(
        "--network", "FILE", "road network for flow: .osm, .osm.bz2, .osm.pbf or SUMO .net.xml"),
      OptionDefinition("--country", "CC", "ISO country of the network, for default speed limits"),
      OptionDefinition(
        "--feed", "[NAME=]FORMAT:URL[@S]",
        """
        poll a feed every S seconds (default 60); FORMAT is auto or one of
        \(FeedFormat.allCases.map(\.rawValue).joined(separator: ", "));
        NAME names its source (default: the source the document names
        itself, else the URL's host and path)
        """),
      OptionDefinition(
        "--api-key", "KEY",
        "accept this key with every scope (apiKey= or Authorization: Bearer); repeatable;"
          + " shows in ps: prefer --keys-file or TRAFFIC_API_KEYS"),
      OptionDefinition(
        "--keys-file", "F",
        "accept the keys in F, one per line with its scopes: KEY [read] [probes]"
          + " [write:SOURCE,...]"),
      OptionDefinition(
        "--threads", "N", "request threads (default: one per core the process may use)"),
      OptionDefinition(
        "--max-connections-per-address", "N",
        "connections one client address may hold at once (default 64); more are refused"),
      OptionDefinition(
        "--metric-sources", "N",
        "feed sources /metrics names one by one (default 100); later ones are summed as other"),
      OptionDefinition(
        "--failed-key-limit", "R",
        "wrong keys per second one address may send, after a burst of 20 (default 1; off:"
          + " no limit); beyond it 429 whatever key it sends"),
      OptionDefinition(
        "--max-push-records", "N",
        "records one pushed feed document may hold (default 100000); more get 413"),
      OptionDefinition(
        "--max-table-size", "N",
        "the most sources and destinations of a travel-time table (default 100: 100 x 100"
          + " cells, 1...1000) of OSRM's /table/v1 and /v8/matrix; more are refused"),
      OptionDefinition(
        "--max-route-coordinates", "N",
        "the most coordinates of an OSRM route, /route/v1 (default 500, 2...500); more are"
          + " refused"),
      OptionDefinition(
        "--max-source-records", "N",
        "incidents one source may hold through pushes (default 500000); a push beyond gets"
          + " 413"),
      OptionDefinition(
        "--trusted-proxy", "ADDR",
        "a reverse proxy whose X-Forwarded-For names the client; repeatable"),
      OptionDefinition(
        "--head-timeout", "S",
        "seconds a request's head may take to arrive, however it trickles (default 10)"),
      OptionDefinition(
        "--min-body-rate", "B",
        "bytes per second a request body must average after 10 s (default 1024)"),
      OptionDefinition(
        "--publisher", "NAME",
        "who publishes the DATEX II and WZDx feeds (default swift-traffic)"),
      OptionDefinition(
        "--publisher-country", "CC",
        "the publisher's country for DATEX II, ISO 3166-1 alpha-2 (default: the incidents')"),
      OptionDefinition(
        "--access-log", "DEST",
        """
        where the access log goes: stderr (the default), a FILE it
        appends to, or off; written in batches every 100 ms and
        completely when the server stops
        """),
      OptionDefinition(
        "--max-results", "N",
        """
        the most incidents one query answers (default 10000); a
        query matching more without a smaller limit= gets 413
        """),
      OptionDefinition(
        "--max-flow-results", "N",
        "the most road segments one /v7/flow answer holds (default 100000); more gets 413"),
      OptionDefinition(
        "--rate-limit", "R",
        """
        requests per second per key (per client address without
        keys); beyond it 429 with Retry-After
        """),
      OptionDefinition(
        flags: ["--demo", "--demo=live", "--demo=static"], display: "--demo[=live|static]",
        """
        the live demo: SUMO's A10 network south-east of Berlin, traffic
        simulated by SUMO (live) or replayed from a recording (static),
        and demo incidents in DATEX II, WZDx, Waze and Open511 feeds;
        its store and feed files live in --state-dir
        """),
      OptionDefinition(
        "--state-dir", "DIR",
        """
        where the demo keeps its store (demo.sqlite) and feed files
        (demo-feeds/); default $XDG_CACHE_HOME/swift-traffic, else
        ~/.cache/swift-traffic; never the working directory
        """),
      OptionDefinition(
        "--demo-speed", "F",
        """
        how many times faster than real time the demo runs (1...60,
        default 10); the server's clock runs at the same pace
        """),
      ProgressOption.definition,
    ]

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    var configuration = ServerConfiguration()
    if let host = try arguments.option("--host") { configuration.host = host }
    let portOption = try arguments.option("--port")
    let portVariable = ProcessInfo.processInfo.environment["TRAFFIC_PORT"].flatMap {
      $0.isEmpty ? nil : $0
    }
    if let port = portOption ?? portVariable {
      guard let value = Int(port), (0...65_535).contains(value) else {
        let source = portOption != nil ? "--port" : "TRAFFIC_PORT"
        throw UsageError("\(source) expects 0...65535, got '\(port)'")
      }
      configuration.port = value
    }
    if let threads = try arguments.option("--threads") {
      guard let value = Int(threads), (1...256).contains(value) else {
        throw UsageError("--threads expects 1...256, got '\(threads)'")
      }
      configuration.threads = value
    }
    if let text = try arguments.option("--max-connections-per-address") {
      guard let value = Int(text), (1...100_000).contains(value) else {
        throw UsageError("--max-connections-per-address expects 1...100000, got '\(text)'")
      }
      configuration.maxConnectionsPerAddress = value
    }
    if let text = try arguments.option("--metric-sources") {
      guard let value = Int(text), (1...100_000).contains(value) else {
        throw UsageError("--metric-sources expects 1...100000, got '\(text)'")
      }
      configuration.maxMetricSources = value
    }
    if let text = try arguments.option("--failed-key-limit") {
      if text == "off" {
        configuration.failedKeyLimit = nil
      } else {
        guard let rate = AreaArgument.decimal(text), rate.isFinite, rate > 0 else {
          throw UsageError(
            "--failed-key-limit expects wrong keys per second > 0 or off, got '\(text)'")
        }
        configuration.failedKeyLimit = ServerConfiguration.RateLimit(
          requestsPerSecond: rate, burst: 20 * rate)
      }
    }
    if let text = try arguments.option("--max-push-records") {
      guard let value = Int(text), value >= 1 else {
        throw UsageError("--max-push-records expects a whole number >= 1, got '\(text)'")
      }
      configuration.maxPushRecords = value
    }
    if let text = try arguments.option("--max-table-size") {
      guard let value = Int(text), (1...1_000).contains(value) else {
        throw UsageError("--max-table-size expects a whole number 1...1000, got '\(text)'")
      }
      configuration.maxTableSize = value
    }
    if let text = try arguments.option("--max-route-coordinates") {
      guard let value = Int(text), (2...500).contains(value) else {
        throw UsageError("--max-route-coordinates expects 2...500, got '\(text)'")
      }
      configuration.maxRouteCoordinates = value
    }
    if let text = try arguments.option("--max-source-records") {
      guard let value = Int(text), value >= 1 else {
        throw UsageError("--max-source-records expects a whole number >= 1, got '\(text)'")
      }
      configuration.maxSourceRecords = value
    }
    if let text = try arguments.option("--head-timeout") {
      guard let value = Int(text), (1...3_600).contains(value) else {
        throw UsageError("--head-timeout expects seconds 1...3600, got '\(text)'")
      }
      configuration.headTimeoutSeconds = value
    }
    if let text = try arguments.option("--min-body-rate") {
      guard let value = Int(text), (0...1_000_000_000).contains(value) else {
        throw UsageError("--min-body-rate expects bytes per second >= 0, got '\(text)'")
      }
      configuration.minimumBodyBytesPerSecond = value
    }
    if let name = try PublishingArguments.publisher(from: &arguments, option: "--publisher") {
      configuration.publisher = name
    }
    configuration.publisherCountry = try PublishingArguments.country(
      from: &arguments, option: "--publisher-country")
    for proxy in try arguments.repeatedOption("--trusted-proxy") {
      configuration.trustedProxies.insert(proxy)
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
      guard let rate = AreaArgument.decimal(text), rate.isFinite, rate > 0 else {
        throw UsageError("--rate-limit expects requests per second > 0, got '\(text)'")
      }
      configuration.rateLimit = ServerConfiguration.RateLimit(requestsPerSecond: rate)
    }
    // Where each key was given: a key given in two places would have the scopes of
    // whichever came last, silently.
    var givenBy: [String: String] = [:]
    func accept(_ keys: [String: APIKeyScope], from origin: String) throws(UsageError) {
      if let other = keys.keys.lazy.compactMap({ givenBy[$0] }).first {
        throw UsageError(
          "\(origin) gives a key that \(other) gives too; give each key once, with its scopes")
      }
      for key in keys.keys { givenBy[key] = origin }
      configuration.accept(keys)
    }
    for key in try arguments.repeatedOption("--api-key") {
      guard !key.isEmpty else { throw UsageError("--api-key must not be empty") }
      guard givenBy.updateValue("--api-key", forKey: key) == nil else {
        throw UsageError("--api-key: a key is given twice; give each key once")
      }
      configuration.apiKeys.insert(key)
    }
    if let file = try arguments.option("--keys-file") {
      do {
        let keys = try ServerConfiguration.apiKeys(fromFile: file)
        try accept(keys, from: "--keys-file \(file)")
      } catch let error as UsageError {
        throw error
      } catch ServerError.invalidConfiguration(let detail) {
        throw UsageError("--keys-file: \(detail)")
      } catch {
        throw UsageError("--keys-file: \(error)")
      }
    }
    // Keys from the environment, as a keys file writes them (out of `ps`, unlike --api-key).
    if let text = ProcessInfo.processInfo.environment["TRAFFIC_API_KEYS"] {
      do {
        let keys = try ServerConfiguration.apiKeys(fromText: text, origin: "TRAFFIC_API_KEYS")
        try accept(keys, from: "TRAFFIC_API_KEYS")
      } catch let error as UsageError {
        throw error
      } catch ServerError.invalidConfiguration(let detail) {
        throw UsageError(detail)
      } catch {
        throw UsageError("TRAFFIC_API_KEYS: \(error)")
      }
    }
    var feeds: [FeedPoller.Feed] = []
    for text in try arguments.repeatedOption("--feed") {
      let feed: FeedPoller.Feed
      do { feed = try FeedPoller.Feed.parse(text) } catch {
        throw UsageError("--feed: \(error.reason)")
      }
      // A feed's name is its status, its saved state and (unnamed) its source: a second
      // feed of the same name replaced the first, which was never polled.
      if let earlier = feeds.first(where: { $0.name == feed.name }) {
        throw UsageError(
          "--feed: two feeds are named '\(feed.name)' (\(Self.shown(earlier)) and "
            + "\(Self.shown(feed))); name them apart: NAME=FORMAT:URL")
      }
      feeds.append(feed)
    }
    var demo: ServerApplication.Demo?
    if arguments.flag("--demo") || arguments.flag("--demo=live") { demo = .live }
    if arguments.flag("--demo=static") { demo = .recorded }
    var speed = 10.0
    if let text = try arguments.option("--demo-speed") {
      guard let value = AreaArgument.decimal(text), (1...60).contains(value) else {
        throw UsageError("--demo-speed expects 1...60, got '\(text)'")
      }
      speed = value
    }
    let country = try arguments.option("--country")
    let networkFile = try arguments.option("--network")
    let postgres = try arguments.option("--postgres") ?? PostgresTrafficStore.environmentURL
    var givenPath = try arguments.option("--db")
    if let path = givenPath { givenPath = try EngineArguments.checkDatabasePath(path) }
    if postgres != nil, givenPath != nil { throw UsageError("give --db or --postgres, not both") }
    if postgres != nil, demo != nil { throw UsageError("the demo runs on the embedded store") }
    let stateOption = try arguments.option("--state-dir")
    var stateDirectory: URL?
    if demo != nil {
      let directory = try StateDirectory.resolve(stateOption)
      stateDirectory = directory
    } else if stateOption != nil {
      throw UsageError("--state-dir is for --demo (other stores are named with --db)")
    }
    let path =
      givenPath
      ?? stateDirectory.map { $0.appendingPathComponent("demo.sqlite").path }
      ?? SQLiteTrafficStore.defaultPath
    // $TRAFFIC_DB is checked as --db is (`-`, a directory), unless the store is PostgreSQL.
    if postgres == nil { _ = try EngineArguments.checkDatabasePath(path) }
    // Start-up only: while serving, standard error carries the operator's lines.
    let progress = ProgressOption.reporter(&arguments, console: console)
    defer { progress.stop() }
    var limits = TrafficQueryLimits.here
    if let text = try arguments.option("--max-results") {
      guard let count = Int(text), count >= 1 else {
        throw UsageError("--max-results expects a whole number >= 1, got '\(text)'")
      }
      limits.maxResults = count
    }
    if let text = try arguments.option("--max-flow-results") {
      guard let count = Int(text), count >= 1 else {
        throw UsageError("--max-flow-results expects a whole number >= 1, got '\(text)'")
      }
      limits.maxFlowResults = count
    }
    guard try arguments.positionals().isEmpty else {
      throw UsageError("unexpected arguments; see traffic help serve")
    }
    do { try configuration.validate() } catch { throw UsageError("\(error)") }
    if postgres == nil { try EngineArguments.requireWritable(path) }
    // One server per store file: a second would hold (and write) a picture of its own.
    let lock = postgres == nil ? try ServeLock(store: path) : nil
    defer { withExtendedLifetime(lock) {} }

    var options = ServerApplication.Options(
      store: postgres.map { .postgres(url: $0) } ?? .sqlite(path: path),
      configuration: configuration)
    options.feeds = feeds
    options.networkFile = networkFile
    options.countryCode = country
    options.demo = demo
    options.demoSpeed = speed
    options.stateDirectory = stateDirectory
    options.limits = limits
    let reporter = ServerApplication.Reporter(
      status: { console.error($0) }, output: { console.print($0) },
      progress: progress)
    do {
      try ServerApplication(options: options, reporter: reporter).run()
    } catch {
      throw UsageError(error.description)
    }
  }
}

/// Where the demo keeps its state: `--state-dir`, else `$XDG_CACHE_HOME/swift-traffic`,
/// else `~/.cache/swift-traffic` (the XDG base directory rules for data that can be made
/// again), created when missing.
enum StateDirectory {
  static func resolve(_ given: String?) throws(UsageError) -> URL {
    let environment = ProcessInfo.processInfo.environment
    let path: String
    if let given {
      guard !given.isEmpty else { throw UsageError("--state-dir must not be empty") }
      path = given
    } else if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
      path = cache + "/swift-traffic"
    } else if let home = environment["HOME"], home.hasPrefix("/") {
      path = home + "/.cache/swift-traffic"
    } else {
      throw UsageError("no place for the demo's state: set HOME, or name one with --state-dir")
    }
    let url = URL(fileURLWithPath: path, isDirectory: true)
    do {
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    } catch {
      throw UsageError("--state-dir \(path): cannot create: \(FileArguments.reason(error))")
    }
    return url
  }
}

extension ServeCommand {
  /// A feed's URL as a message shows it: without secrets, the query's ellipsis readable.
  static func shown(_ feed: FeedPoller.Feed) -> String {
    feed.displayURL.removingPercentEncoding ?? feed.displayURL
  }
}
