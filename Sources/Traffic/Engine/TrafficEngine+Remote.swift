import Foundation

extension TrafficEngine {
  /// An engine that asks a traffic server — `traffic serve`, or any HERE Traffic API v7
  /// compatible service — instead of a local store: the same API as the embedded engine.
  ///
  /// Queries, lookups and nearest-incident searches go over HTTP (`GET /v7/incidents`, or
  /// `POST` when a corridor makes the URL too long); transport failures become HERE's error
  /// cases (`serverUnreachable`, `timedOut`, `offline`, `authenticationFailed`,
  /// `tooManyRequests`, `httpError`...). Area limits are checked locally first, so an area
  /// beyond them fails without a round trip.
  /// - Parameters:
  ///   - server: The server's base URL, e.g. `http://127.0.0.1:8080`.
  ///   - apiKey: The key sent as `Authorization: Bearer` and `apiKey=`, when the server
  ///     requires one.
  ///   - limits: The area limits to check locally; HERE's by default (as the server's).
  ///   - timeoutInSeconds: How long one request may take.
  /// - Throws: `TrafficEngineError.invalidConfiguration` for a URL that is not http(s) or a
  ///   timeout that is not positive.
  public convenience init(
    server: URL, apiKey: String? = nil, limits: TrafficQueryLimits = .here,
    timeoutInSeconds: Double = 30
  ) throws(TrafficEngineError) {
    guard let scheme = server.scheme?.lowercased(), scheme == "http" || scheme == "https",
      server.host != nil
    else {
      throw .invalidConfiguration(
        "the server URL \(server) must be http:// or https:// with a host")
    }
    guard timeoutInSeconds.isFinite, timeoutInSeconds > 0 else {
      throw .invalidConfiguration("timeout \(timeoutInSeconds) s must be > 0")
    }
    try self.init(
      store: InMemoryTrafficStore(), limits: limits, retentionInSeconds: 0, clock: { Date() },
      network: nil,
      remote: RemoteTrafficClient(
        baseURL: server, apiKey: apiKey, timeoutInSeconds: timeoutInSeconds))
  }

  /// Whether this engine asks a server rather than a local store.
  public var isRemote: Bool { remote != nil }

  /// Why the process's last request to a server that reached none failed, in plain words
  /// ("connection refused"), or `nil`.
  package static var lastTransportFailure: String? {
    RemoteTrafficClient.lastTransportFailure.withLock { $0 }
  }

  /// A `GET` of `path` on the server of a remote engine, with the status and body of any
  /// HTTP answer; `nil` for an embedded engine.
  ///
  /// - Throws: `TrafficQueryError` for a transport failure.
  package func remoteGet(
    path: String, parameters: [(String, String)]
  ) async throws(TrafficQueryError) -> (status: Int, body: Data)? {
    guard let remote else { return nil }
    return try await remote.get(path: path, parameters: parameters)
  }

  /// A `POST` of a JSON body to `path` on the server of a remote engine, with the status and
  /// body of any HTTP answer; `nil` for an embedded engine.
  ///
  /// - Throws: `TrafficQueryError` for a transport failure.
  package func remotePost(
    path: String, parameters: [(String, String)], json body: Data
  ) async throws(TrafficQueryError) -> (status: Int, body: Data)? {
    guard let remote else { return nil }
    return try await remote.post(path: path, parameters: parameters, json: body)
  }
}
