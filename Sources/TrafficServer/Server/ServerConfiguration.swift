import Codec
import Foundation
import TrafficFeeds
import TrafficRouting

/// How a `TrafficServer` listens, whom it lets in and how much it accepts.
///
/// The defaults suit one machine: loopback only, no keys, HERE's area limits (set on the
/// engine), 10 MB feed documents.
public struct ServerConfiguration: Sendable {
  /// The address to listen on: an IPv4 or IPv6 literal (`"0.0.0.0"`, `"::"`). Without API
  /// keys the default, `127.0.0.1`, keeps the open server private to this machine.
  public var host: String
  /// The TCP port; 0 picks a free one (see `TrafficServer.port` after `start()`).
  public var port: Int
  /// The API keys accepted as `apiKey=` or `Authorization: Bearer`; empty leaves the
  /// server open. A key has the scope `keyScopes` gives it, else every scope.
  public var apiKeys: Set<String>
  /// What each key may do (``APIKeyScope``); a key of `apiKeys` not listed may do everything.
  public var keyScopes: [String: APIKeyScope] = [:]
  /// Requests each key (or, on an open server, each client address) may make; `nil` for no
  /// limit.
  public var rateLimit: RateLimit?
  /// Wrong or missing keys one client address may send on routes that need a key: a burst
  /// of 20, then one a second; past it the address is answered 429 with `Retry-After`
  /// whatever key it sends (no oracle to guess keys against). `nil`: not limited.
  public var failedKeyLimit: RateLimit? = RateLimit(requestsPerSecond: 1, burst: 20)
  /// Threads serving connections; by default one per core the process may run on
  /// (``availableCores``: its CPU affinity).
  public var threads: Int
  /// The most connections open at once (kept below the process's file-descriptor limit).
  public var maxConnections: Int
  /// The most connections one client address may hold at once; more are refused at accept,
  /// so that one client cannot take the connections others need (counted in `/metrics` as
  /// `traffic_connections_refused_total{reason="per_address"}`).
  public var maxConnectionsPerAddress: Int
  /// Reverse proxies whose `X-Forwarded-For` is believed (IP literals): a request from one
  /// of them counts as coming from the client it names, for rate limits and the access log.
  /// Empty (the default): the header is ignored and the TCP peer is the client.
  public var trustedProxies: Set<String> = []
  /// The largest request body, bytes (feed documents, `POST` queries); 413 beyond.
  public var maxBodyBytes: Int
  /// The largest body after `Content-Encoding: gzip` is undone, bytes.
  public var maxDecompressedBodyBytes: Int
  /// The longest request target (path and query), bytes; 414 beyond. The default, 16 KiB,
  /// holds a corridor of HERE's 300 points as a flexible polyline several times over; longer
  /// ones go by `POST`.
  public var maxRequestTargetBytes: Int
  /// Memory per connection for the request line and headers, bytes (libmicrohttpd's
  /// connection memory limit); a request whose head does not fit is refused by the socket
  /// layer with 414 or 431. libmicrohttpd clears this memory between the requests of a
  /// connection, so larger values cost time on every request (at 128 KiB the clearing took
  /// 14 % of the server's CPU under load); the default, 32 KiB, holds a request target of
  /// `maxRequestTargetBytes` with room to spare, so that such targets get this server's JSON
  /// answer.
  public var connectionMemoryBytes: Int
  /// Seconds a connection may stay idle once a request's head is complete (its body, its
  /// answer) before it is closed.
  public var connectionTimeoutSeconds: Int
  /// Seconds of silence after which a connection still waiting for a request's head — a
  /// new one, a head trickling in (slowloris), a kept-alive connection left unused — is
  /// closed.
  public var headTimeoutSeconds = 10
  /// Seconds between heartbeat comments on an event stream.
  public var heartbeatIntervalSeconds: Double
  /// The most bytes an event stream holds for a reader that does not read them (1 MiB); a
  /// reader further behind is dropped, not buffered forever.
  public var maxEventStreamBacklogBytes = 1 << 20
  /// The most event streams one client (API key, else address) may hold open; more are
  /// answered 429.
  public var maxEventStreamsPerClient = 16
  /// The most feed sources `/metrics` gives series of their own, in the order they first
  /// pushed; the others are summed per format under `source="other"`, so that clients
  /// pushing under ever new source names cannot grow the metrics without bound.
  public var maxMetricSources = 100
  /// The most sources and the most destinations of a travel-time table (OSRM's `/table/v1`
  /// and HERE's `/v8/matrix`): at most `maxTableSize × maxTableSize` cells, more are refused
  /// (OSRM's `TooBig`), as `osrm-routed --max-table-size` does.
  public var maxTableSize = 100
  /// The most coordinates of an OSRM route (`/route/v1`): more are refused (OSRM's
  /// `TooBig`), as `osrm-routed --max-viaroute-size` does (its default, 500, is the most).
  public var maxRouteCoordinates = 500
  /// The most records (incidents and flow observations) one pushed feed document may hold;
  /// more are refused with 413 before anything is stored.
  public var maxPushRecords = 100_000
  /// The most incidents one source may hold through pushes (ended ones still kept
  /// included); a push that would take it beyond is refused with 413 before anything is
  /// stored. Changes to what it holds are always taken; the operator's own imports and
  /// polled feeds are not limited.
  public var maxSourceRecords = 500_000
  /// How long an expensive request (a route search, a publication, a tile, an uncached
  /// area query) may wait for a worker before it is answered 503 with `Retry-After`,
  /// seconds (``AdmissionControl``).
  public var admissionDeadlineSeconds = 10.0
  /// A request body must arrive at this many bytes per second on average once
  /// ``slowBodyGraceSeconds`` have passed since its head; slower, the connection is closed.
  public var minimumBodyBytesPerSecond = 1_024
  /// Seconds a request body may take before its rate is checked.
  public var slowBodyGraceSeconds = 10.0
  /// Seconds `stop()` waits for requests in flight before closing connections.
  public var shutdownGracePeriodSeconds: Double
  /// Seconds `stop()` then waits for pushes still being stored (and expensive requests
  /// still running); those not done by then are answered 503, their work going on.
  public var shutdownIngestDrainSeconds = 60.0
  /// Bodies smaller than this are sent uncompressed even when the client accepts gzip.
  public var minimumGzipBytes: Int
  /// Where the access log goes.
  public var accessLog: AccessLogSink
  /// The most answers the response cache holds (successful `GET` incident and flow
  /// queries); 0 turns the cache off.
  public var responseCacheEntries: Int
  /// The most body bytes the response cache holds.
  public var responseCacheBytes: Int
  /// How long a cached answer is served while the data it was made from is unchanged,
  /// seconds; bounds how late answers notice the clock (incidents ending, probes ageing out
  /// of the aggregation window).
  public var responseCacheMaxAgeSeconds: Double
  /// How many tiles are drawn at once; the rest wait (see `GET /tiles/...`). `nil`, the
  /// default, allows one fewer than `threads` (at least one, at most the number of cores),
  /// so that a burst of tile requests leaves a thread for queries.
  public var tileRenderingConcurrency: Int? = nil
  /// The folder served at `/leaflet/`: Leaflet's `leaflet.js`, `leaflet.css` and `images/`,
  /// as Debian's `libjs-leaflet` installs them.
  public var leafletDirectory = "/usr/share/javascript/leaflet"
  /// Who publishes the DATEX II and WZDx documents: WZDx `feed_info.publisher`, DATEX II
  /// `publicationCreator/nationalIdentifier`.
  public var publisher = Publication.defaultPublisher
  /// The publisher's country (ISO 3166-1 alpha-2), DATEX II `publicationCreator/country`;
  /// `nil` for the country most published incidents name, else `XX`.
  public var publisherCountry: String? = nil

  /// How many requests a client may make: a token bucket refilled at
  /// `requestsPerSecond` holding at most `burst` tokens.
  public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    /// Tokens added per second.
    public var requestsPerSecond: Double
    /// The most tokens saved up, so the largest burst of requests.
    public var burst: Double

    /// Creates a limit.
    ///
    /// - Parameters:
    ///   - requestsPerSecond: The sustained rate, > 0.
    ///   - burst: The largest burst; `requestsPerSecond` (one second's worth) by default.
    public init(requestsPerSecond: Double, burst: Double? = nil) {
      self.requestsPerSecond = requestsPerSecond
      self.burst = burst ?? max(1, requestsPerSecond)
    }

    /// `"50 requests per second, bursts of 100"`.
    public var description: String {
      func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
      }
      return "\(number(requestsPerSecond)) requests per second, bursts of \(number(burst))"
    }
  }

  /// Creates a configuration; every argument has the default described on its property.
  public init(
    host: String = "127.0.0.1", port: Int = 8080, apiKeys: Set<String> = [],
    rateLimit: RateLimit? = nil, threads: Int = ServerConfiguration.availableCores,
    maxConnections: Int = 1024, maxConnectionsPerAddress: Int = 64,
    maxBodyBytes: Int = 10 << 20,
    maxDecompressedBodyBytes: Int = 64 << 20, maxRequestTargetBytes: Int = 16 << 10,
    connectionMemoryBytes: Int = 32 << 10, connectionTimeoutSeconds: Int = 30,
    heartbeatIntervalSeconds: Double = 15, shutdownGracePeriodSeconds: Double = 10,
    minimumGzipBytes: Int = 1024, accessLog: AccessLogSink = .standardError,
    responseCacheEntries: Int = 4096, responseCacheBytes: Int = 64 << 20,
    responseCacheMaxAgeSeconds: Double = 1
  ) {
    self.host = host
    self.port = port
    self.apiKeys = apiKeys
    self.rateLimit = rateLimit
    self.threads = threads
    self.maxConnections = maxConnections
    self.maxConnectionsPerAddress = maxConnectionsPerAddress
    self.maxBodyBytes = maxBodyBytes
    self.maxDecompressedBodyBytes = maxDecompressedBodyBytes
    self.maxRequestTargetBytes = maxRequestTargetBytes
    self.connectionMemoryBytes = connectionMemoryBytes
    self.connectionTimeoutSeconds = connectionTimeoutSeconds
    self.heartbeatIntervalSeconds = heartbeatIntervalSeconds
    self.shutdownGracePeriodSeconds = shutdownGracePeriodSeconds
    self.minimumGzipBytes = minimumGzipBytes
    self.accessLog = accessLog
    self.responseCacheEntries = responseCacheEntries
    self.responseCacheBytes = responseCacheBytes
    self.responseCacheMaxAgeSeconds = responseCacheMaxAgeSeconds
  }

  /// The scope a key has: `nil` for a key the server does not accept (with keys), every
  /// scope on an open server.
  public func scope(ofKey key: String?) -> APIKeyScope? {
    guard !apiKeys.isEmpty else { return .full }
    guard let key, apiKeys.contains(key) else { return nil }
    return keyScopes[key] ?? .full
  }

  /// Adds the keys and scopes of `keys` (``apiKeys(fromFile:)``).
  public mutating func accept(_ keys: [String: APIKeyScope]) {
    for (key, scope) in keys {
      apiKeys.insert(key)
      keyScopes[key] = scope
    }
  }

  /// Reads API keys and their scopes from a file: one key per line, then its scopes
  /// separated by spaces (``APIKeyScope``: `KEY read`, `KEY write:wzdx:colorado,datex2:ndw`;
  /// the key alone has every scope); blank lines and lines starting with `#` are skipped,
  /// and a `#` word after a key begins a comment.
  ///
  /// - Parameter path: The file.
  /// - Returns: The scope of each key.
  /// - Throws: `ServerError.invalidConfiguration` when the file cannot be read, holds no
  ///   key, or a line is not a key with scopes (naming the line).
  public static func apiKeys(fromFile path: String) throws(ServerError) -> [String: APIKeyScope] {
    let text: String
    do {
      text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
      throw .invalidConfiguration(
        "cannot read the API keys file \(path): \(SystemErrorText.reason(error, path: path))")
    }
    return try apiKeys(fromText: text, origin: "the API keys file \(path)")
  }

  /// The keys and scopes of a keys file's text (``apiKeys(fromFile:)``); `origin` names
  /// where it came from in errors (`the API keys file F`, `TRAFFIC_API_KEYS`).
  public static func apiKeys(
    fromText text: String, origin: String
  ) throws(ServerError) -> [String: APIKeyScope] {
    var keys: [String: APIKeyScope] = [:]
    for (number, line) in text.split(
      omittingEmptySubsequences: false, whereSeparator: \.isNewline
    ).enumerated() {
      // A word starting with `#` begins a comment, at the start of a line or after a key.
      let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        .prefix { !$0.hasPrefix("#") }
      guard let key = words.first else { continue }
      let scope: APIKeyScope
      do { scope = try APIKeyScope.parse(Array(words.dropFirst())) } catch {
        throw .invalidConfiguration("\(origin), line \(number + 1): \(error)")
      }
      guard keys.updateValue(scope, forKey: String(key)) == nil else {
        throw .invalidConfiguration("\(origin), line \(number + 1): the key is given twice")
      }
    }
    guard !keys.isEmpty else { throw .invalidConfiguration("\(origin) holds no key") }
    return keys
  }

  /// Checks the values that can be wrong by themselves.
  ///
  /// - Throws: `ServerError.invalidConfiguration` naming the setting.
  public func validate() throws(ServerError) {
    func fail(_ text: String) -> ServerError { .invalidConfiguration(text) }
    guard (0...65_535).contains(port) else { throw fail("port \(port) is outside 0...65535") }
    // Checked here, before a store is opened or created for a server that cannot listen.
    guard ClientAddress.isAddress(host) else {
      throw fail("host \(host) is not an IPv4 or IPv6 address (such as 127.0.0.1 or ::1)")
    }
    guard threads >= 1 else { throw fail("threads \(threads) must be >= 1") }
    guard maxConnections >= 1 else { throw fail("maxConnections must be >= 1") }
    guard minimumBodyBytesPerSecond >= 0, slowBodyGraceSeconds.isFinite, slowBodyGraceSeconds >= 1
    else {
      throw fail("minimumBodyBytesPerSecond must be >= 0 and slowBodyGraceSeconds >= 1")
    }
    guard headTimeoutSeconds >= 1 else { throw fail("headTimeoutSeconds must be >= 1") }
    guard maxEventStreamsPerClient >= 1 else {
      throw fail("maxEventStreamsPerClient must be >= 1")
    }
    guard maxMetricSources >= 1 else { throw fail("maxMetricSources must be >= 1") }
    guard maxEventStreamBacklogBytes >= 1_024 else {
      throw fail("maxEventStreamBacklogBytes must be >= 1024")
    }
    guard maxConnectionsPerAddress >= 1 else {
      throw fail("maxConnectionsPerAddress must be >= 1")
    }
    if let bad = trustedProxies.sorted().first(where: { !ClientAddress.isAddress($0) }) {
      throw fail("trusted proxy \"\(bad)\" is not an IPv4 or IPv6 address")
    }
    guard maxBodyBytes >= 0, maxDecompressedBodyBytes >= 0 else {
      throw fail("body limits must be >= 0")
    }
    guard maxRequestTargetBytes >= 1 else { throw fail("maxRequestTargetBytes must be >= 1") }
    guard connectionMemoryBytes >= 4096 else {
      throw fail("connectionMemoryBytes must be >= 4096")
    }
    guard connectionTimeoutSeconds >= 0 else { throw fail("connectionTimeoutSeconds must be >= 0") }
    guard heartbeatIntervalSeconds > 0, heartbeatIntervalSeconds.isFinite else {
      throw fail("heartbeatIntervalSeconds must be > 0")
    }
    guard shutdownIngestDrainSeconds >= 0, shutdownIngestDrainSeconds.isFinite else {
      throw fail("shutdownIngestDrainSeconds must be >= 0")
    }
    guard shutdownGracePeriodSeconds >= 0, shutdownGracePeriodSeconds.isFinite else {
      throw fail("shutdownGracePeriodSeconds must be >= 0")
    }
    if let rateLimit {
      guard rateLimit.requestsPerSecond > 0, rateLimit.requestsPerSecond.isFinite,
        rateLimit.burst >= 1, rateLimit.burst.isFinite
      else { throw fail("rate limit must have requestsPerSecond > 0 and burst >= 1") }
    }
    if let failedKeyLimit {
      guard failedKeyLimit.requestsPerSecond > 0, failedKeyLimit.requestsPerSecond.isFinite,
        failedKeyLimit.burst >= 1, failedKeyLimit.burst.isFinite
      else { throw fail("failed key limit must have requestsPerSecond > 0 and burst >= 1") }
    }
    guard !apiKeys.contains(where: \.isEmpty) else { throw fail("an API key is empty") }
    guard maxPushRecords >= 1 else { throw fail("maxPushRecords must be >= 1") }
    guard (1...1_000).contains(maxTableSize) else { throw fail("maxTableSize must be 1...1000") }
    guard (2...OSRMQuery.maximumRouteCoordinates).contains(maxRouteCoordinates) else {
      throw fail("maxRouteCoordinates must be 2...\(OSRMQuery.maximumRouteCoordinates)")
    }
    guard maxSourceRecords >= 1 else { throw fail("maxSourceRecords must be >= 1") }
    guard admissionDeadlineSeconds > 0, admissionDeadlineSeconds.isFinite else {
      throw fail("admissionDeadlineSeconds must be > 0")
    }
    guard responseCacheEntries >= 0, responseCacheBytes >= 0 else {
      throw fail("response cache bounds must be >= 0")
    }
    guard responseCacheMaxAgeSeconds >= 0, responseCacheMaxAgeSeconds.isFinite else {
      throw fail("responseCacheMaxAgeSeconds must be >= 0")
    }
    if let tileRenderingConcurrency, tileRenderingConcurrency < 1 {
      throw fail("tileRenderingConcurrency \(tileRenderingConcurrency) must be >= 1")
    }
  }

  /// The number of tiles drawn at once: `tileRenderingConcurrency`, or its default.
  var effectiveTileConcurrency: Int {
    tileRenderingConcurrency
      ?? max(1, min(Self.availableCores, threads - 1))
  }
}

/// Why the server could not be configured or started.
public enum ServerError: Error, Hashable, Sendable, CustomStringConvertible {
  /// A setting is invalid; the detail names it.
  case invalidConfiguration(String)
  /// The socket layer could not start (the port is taken, the address is not local...).
  case cannotListen(String)

  /// A sentence saying what is wrong.
  public var description: String {
    switch self {
    case .invalidConfiguration(let detail): return "invalid server configuration: \(detail)"
    case .cannotListen(let detail): return "cannot listen: \(detail)"
    }
  }
}
