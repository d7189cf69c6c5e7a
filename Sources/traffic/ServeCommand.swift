import Foundation
import Roads
import Traffic
import TrafficFeeds
import TrafficSQLite
import TrafficServer

/// `traffic serve`: the HTTP service (HERE Traffic API v7 and the project's extensions).
enum ServeCommand: Subcommand {
  static let name = "serve"
  static let summary = "Run the traffic server (HERE Traffic API v7 compatible)"
  static let help = """
    Usage: traffic serve [--db PATH] [--host H] [--port N] [--network FILE]
                         [--feed FORMAT:URL[@SECONDS]]... [--api-key KEY]... [--keys-file F]
                         [--threads N]

    Serves incidents (and flow, when a road network is given) over HTTP until SIGINT or
    SIGTERM, then finishes the requests in flight and stops.

    Options:
    \(EngineArguments.usage)
      --host H              address to listen on (default 127.0.0.1; without API keys the
                            server is open, so bind it to loopback)
      --port N              port (default 8080; 0 picks a free one)
      --network FILE        road network for flow: .osm, .osm.bz2, .osm.pbf or SUMO .net.xml
      --country CC          ISO country of the network, for default speed limits
      --feed FORMAT:URL[@S] poll a feed every S seconds (default 60); FORMAT is auto or one of
                            \(FeedFormat.allCases.map(\.rawValue).joined(separator: ", "))
      --api-key KEY         accept this key (apiKey= or Authorization: Bearer); repeatable
      --keys-file F         accept the keys in F, one per line
      --threads N           request threads (default: one per core)
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
    while let key = try arguments.option("--api-key") {
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
    while let text = try arguments.option("--feed") {
      do { feeds.append(try FeedPoller.Feed.parse(text)) } catch {
        throw UsageError("--feed: \(error.reason)")
      }
    }
    let country = try arguments.option("--country")
    let networkFile = try arguments.option("--network")
    let path = try EngineArguments.databasePath(from: &arguments)
    guard try arguments.positionals().isEmpty else {
      throw UsageError("unexpected arguments; see traffic help serve")
    }
    do { try configuration.validate() } catch { throw UsageError("\(error)") }

    let network = try networkFile.map { file throws(UsageError) in
      try NetworkArguments.load(file, countryCode: country)
    }
    let engine: TrafficEngine
    do {
      engine = try TrafficEngine(store: SQLiteTrafficStore(path: path), network: network)
    } catch {
      throw UsageError("\(path): \(error)")
    }
    let server: TrafficServer
    do { server = try TrafficServer(engine: engine, configuration: configuration) } catch {
      throw UsageError("\(error)")
    }
    let poller = FeedPoller(feeds: feeds, engine: engine)
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
    }
    console.error(
      "traffic serve: \(engine.incidentCount) incidents from \(path)"
        + (network.map { ", network of \($0.segments.count) segments" } ?? "")
        + (feeds.isEmpty ? "" : ", polling \(feeds.count) feeds"))
    do {
      try server.start()
      console.print(
        "listening on http://\(configuration.host):\(server.port ?? configuration.port)")
      try server.run()
    } catch {
      throw UsageError("\(error)")
    }
  }
}
