import Dispatch
import Foundation
import Synchronization
import Traffic
import TrafficFeeds
import TrafficRouting

/// A HERE Traffic API v7 compatible HTTP service on a `TrafficEngine`.
///
/// `handle(_:)` answers one request in-process (the router, parameters, errors, access
/// control, compression and caching headers); `start()` puts it on a socket with
/// libmicrohttpd, `stop()` shuts down gracefully and `run()` serves until SIGINT or
/// SIGTERM. Routes and parameters are those of the project's `API.md`.
public final class TrafficServer: Sendable {
  /// The engine answering queries.
  public let engine: TrafficEngine
  /// Routes on the engine's live traffic (`/v8/routes`).
  let router: RoutingEngine
  /// How the server listens and whom it lets in.
  public let configuration: ServerConfiguration

  let metrics = ServerMetrics()
  /// Connections by client address (a share per address; counters for `/metrics`).
  let connections: ConnectionGuard
  /// Event streams open by client (API key, else address).
  let streamsByClient = Mutex<[String: Int]>([:])
  /// Event streams refused because their client held its share.
  let refusedStreams = Atomic<Int>(0)
  /// Large DATEX II / WZDx documents being sent now: a few at a time and one per client,
  /// so that large publications never take every connection's share nor much memory.
  let largePublications = Mutex(LargePublicationSlots())
  /// The last gzip-compressed document of each publication query, with its entity tag: a
  /// document is compressed once per version, not per request.
  let compressedPublications = Mutex<[String: (tag: String, body: SharedBytes)]>([:])
  let feeds: FeedIngest
  /// The feeds this server polls (`traffic serve --feed`), reported by `GET /v1/feeds`.
  let poller: FeedPoller?
  let rateLimiter: RateLimiter?
  let responseCache: ResponseCache
  /// The tiles of `/tiles/...`.
  let tiles: TileService
  /// The bounds `/v1/info` reports, kept while the incidents are unchanged.
  let infoBounds = Mutex<WebMapInfo.Bounds?>(nil)
  /// Wrong keys per client address (`configuration.failedKeyLimit`); past the budget the
  /// address is answered 429 whatever key it sends.
  let failedKeys: RateLimiter?
  /// Where expensive requests wait for a worker of their own (``AdmissionControl``).
  let admission: AdmissionControl
  /// Feed pushes run one after another here, off the socket layer's threads.
  let feedQueue = DispatchQueue(label: "traffic.server.feeds", qos: .utility)
  /// Probe batches run one after another here, off the socket layer's threads.
  let probeQueue = DispatchQueue(label: "traffic.server.probes", qos: .utility)
  private let correlationPrefix: String
  private let correlationCounter = Atomic<Int>(0)
  private let frontEnd = Mutex<HTTPFrontEnd?>(nil)
  /// Signalled to end `run()` as SIGINT and SIGTERM do.
  private let runEnds = DispatchSemaphore(value: 0)
  /// Whether SIGINT and SIGTERM signal `runEnds` (``catchStopSignals()``).
  private let catchesStopSignals = Atomic<Bool>(false)
  private let openStreams = Atomic<Int>(0)
  /// The time base of rate limiting and latency measurement.
  let startInstant = ContinuousClock.now

  /// Creates a server; nothing listens until `start()`.
  ///
  /// - Parameters:
  ///   - engine: The engine answering queries and taking feed pushes.
  ///   - configuration: Address, keys, limits; the defaults listen on 127.0.0.1:8080.
  ///   - poller: The feeds the server's process polls, whose status `GET /v1/feeds` reports
  ///     beside the pushed ones.
  /// - Throws: `ServerError.invalidConfiguration` for a bad setting.
  public init(
    engine: TrafficEngine, configuration: ServerConfiguration = ServerConfiguration(),
    poller: FeedPoller? = nil
  ) throws(ServerError) {
    try configuration.validate()
    self.engine = engine
    router = RoutingEngine(trafficEngine: engine)
    self.poller = poller
    self.configuration = configuration
    feeds = FeedIngest(
      engine: engine, maximumRecords: configuration.maxPushRecords,
      maximumHeldBySource: configuration.maxSourceRecords)
    // A client waits with at most as many requests as it may hold connections: a busy
    // client alone is never refused, only made to wait its turn.
    admission = AdmissionControl(
      workers: configuration.threads, perClientWaiting: configuration.maxConnectionsPerAddress,
      deadlineSeconds: configuration.admissionDeadlineSeconds)
    connections = ConnectionGuard(perAddressLimit: configuration.maxConnectionsPerAddress)
    rateLimiter = configuration.rateLimit.map(RateLimiter.init(limit:))
    failedKeys = configuration.failedKeyLimit.map(RateLimiter.init(limit:))
    responseCache = ResponseCache(
      maxEntries: configuration.responseCacheEntries, maxBytes: configuration.responseCacheBytes,
      maxAgeSeconds: configuration.responseCacheMaxAgeSeconds)
    tiles = TileService(engine: engine, concurrency: configuration.effectiveTileConcurrency)
    correlationPrefix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
  }

  // MARK: Lifecycle

  /// The port the server listens on, once started (useful with port 0); `nil` before.
  public var port: Int? {
    frontEnd.withLock { $0?.port }
  }

  /// Starts listening; requests are served on libmicrohttpd's threads.
  ///
  /// - Throws: `ServerError.cannotListen` when the address cannot be bound (port taken,
  ///   unknown address) or the server already runs.
  public func start() throws(ServerError) {
    try frontEnd.withLock { frontEnd throws(ServerError) in
      guard frontEnd == nil else { throw .cannotListen("the server is already running") }
      frontEnd = try HTTPFrontEnd(server: self)
    }
    // Routes are answered from the start; on a large network the routing bounds that speed
    // them up are ready some seconds later.
    router.prepareBoundsInBackground()
  }

  /// Stops gracefully: ends event streams, waits up to `shutdownGracePeriodSeconds` for
  /// requests in flight (connections arriving meanwhile are still answered), then closes
  /// every connection and the listening socket.
  /// Does nothing when the server is not running.
  public func stop() {
    let running = frontEnd.withLock { frontEnd -> HTTPFrontEnd? in
      defer { frontEnd = nil }
      return frontEnd
    }
    running?.shutdown(gracePeriodSeconds: configuration.shutdownGracePeriodSeconds)
    configuration.accessLog.flush()
  }

  /// Ends `run()` as SIGINT or SIGTERM would (a `run()` that starts later returns at once).
  public func endRun() {
    runEnds.signal()
  }

  /// From now on, SIGINT and SIGTERM end `run()`, also when they come before it: a process
  /// that says it listens only after this call stops on a signal sent the moment it says so
  /// (``StopSignals``). `run()` calls it when nobody did.
  ///
  /// - Throws: `ServerError.cannotListen` when the process has no file descriptor left.
  public func catchStopSignals() throws(ServerError) {
    guard !catchesStopSignals.exchange(true, ordering: .sequentiallyConsistent) else { return }
    do { try StopSignals.watch(runEnds) } catch {
      catchesStopSignals.store(false, ordering: .sequentiallyConsistent)
      throw error
    }
  }

  /// Gives SIGINT and SIGTERM back to what they did before ``catchStopSignals()`` (once no
  /// other server of the process catches them); `run()` calls it when it returns.
  public func releaseStopSignals() {
    guard catchesStopSignals.exchange(false, ordering: .sequentiallyConsistent) else { return }
    StopSignals.unwatch(runEnds)
  }

  /// Starts the server (unless `start()` already did) and serves until the process receives
  /// SIGINT or SIGTERM (or `endRun()` is called), then stops gracefully and returns.
  ///
  /// - Throws: `ServerError.cannotListen` when the server cannot start.
  public func run() throws(ServerError) {
    try catchStopSignals()
    defer { releaseStopSignals() }
    if port == nil { try start() }
    runEnds.wait()
    stop()
  }

  // MARK: Bookkeeping for the socket layer

  /// The serial queue a request's work runs on, off the socket layer's threads: feed pushes
  /// and probe batches each on their own, so that slow ingestion never occupies the threads
  /// that answer queries; `nil` for everything else.
  func ingestQueue(for request: HTTPRequest) -> DispatchQueue? {
    guard request.method == "POST", let route = Endpoint(rawPath: request.rawPath) else {
      return nil
    }
    switch route {
    case .feedPush: return feedQueue
    case .probes: return probeQueue
    default: return nil
    }
  }

  /// Where the socket layer runs a request: in an admission lane (off its threads, with
  /// its client's fair share) for the expensive classes — route searches and matrices,
  /// publications, tiles, area queries without a fresh cached answer —, or inline (`nil`)
  /// for the rest and for requests that fail at once (a malformed head, a wrong key).
  func admission(for request: HTTPRequest) -> (lane: AdmissionControl.Lane, client: String)? {
    guard request.headViolation == nil, let route = Endpoint(rawPath: request.rawPath) else {
      return nil
    }
    let lane: AdmissionControl.Lane
    switch route {
    case .routes, .routeTraffic, .matrix, .osrm: lane = .routes
    case .datex2Situations, .wzdxFeed: lane = .publications
    case .tile: lane = .tiles
    case .incidents, .flow:
      guard !hasCachedAnswer(request, route: route) else { return nil }
      lane = .queries
    default: return nil
    }
    guard let key = try? Self.apiKeyParameter(request.rawQuery) ?? Self.bearerKey(request)
    else { return configuration.apiKeys.isEmpty ? (lane, request.remoteAddress ?? "") : nil }
    // A key the server does not know is refused inline, at once.
    guard configuration.scope(ofKey: key) != nil else { return nil }
    return (lane, configuration.apiKeys.isEmpty ? request.remoteAddress ?? "" : "key:" + key)
  }

  /// The number of event streams open now.
  var openEventStreams: Int { openStreams.load(ordering: .relaxed) }

  func eventStreamOpened() { openStreams.add(1, ordering: .relaxed) }

  func eventStreamClosed() { openStreams.subtract(1, ordering: .relaxed) }

  /// The number of requests being handled by the socket layer now.
  var requestsInFlight: Int { frontEnd.withLock { $0?.inFlight } ?? 0 }

  /// Requests whose connections wait while their work runs off the socket threads.
  var suspendedRequests: Int {
    frontEnd.withLock { $0?.suspendedCount.load(ordering: .acquiring) } ?? 0
  }

  func nextCorrelationId() -> String {
    let number = UInt64(truncatingIfNeeded: correlationCounter.add(1, ordering: .relaxed).newValue)
    // "PREFIX-HEX" written in one allocation (the request path's string concatenations and
    // radix formatting were a visible part of a cached answer).
    let digits = max(1, (64 - number.leadingZeroBitCount + 3) / 4)
    let prefix = correlationPrefix.utf8
    return String(unsafeUninitializedCapacity: prefix.count + 1 + digits) { buffer in
      var index = 0
      for byte in prefix {
        buffer[index] = byte
        index += 1
      }
      buffer[index] = UInt8(ascii: "-")
      index += 1
      for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) {
        let nibble = UInt8((number >> UInt64(shift)) & 0xf)
        buffer[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
        index += 1
      }
      return index
    }
  }

  /// Seconds since the server was created, on a monotonic clock.
  func monotonicSeconds() -> Double {
    let elapsed = startInstant.duration(to: .now).components
    return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
  }
}
