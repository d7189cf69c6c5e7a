import Codec
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The HTTP side of a remote `TrafficEngine`: HERE Traffic API v7 requests to a
/// `traffic serve` (or any v7-compatible) server, and their answers decoded back into the
/// SDK's values, with transport failures mapped to HERE's error cases.
final class RemoteTrafficClient: Sendable {
  /// The server's base URL, e.g. `http://127.0.0.1:8080`.
  let baseURL: URL
  private let apiKey: String?
  private let session: URLSession
  /// Why the process's last request that reached no server failed, in plain words
  /// ("connection refused"), for messages that name the reason; the SDK's error keeps
  /// HERE's cases.
  static let lastTransportFailure = Mutex<String?>(nil)
  /// Requests whose URL would exceed this many bytes are sent as `POST` with a JSON body
  /// (long corridors).
  static let maximumURLLength = 2_000
  /// The `sourceUpdated` of the server's last incident and flow answers (the remote
  /// engine's `lastUpdate` and `flowLastUpdate`).
  let sourceUpdated = Mutex<(incidents: Date?, flow: Date?)>((nil, nil))

  init(baseURL: URL, apiKey: String?, timeoutInSeconds: Double) {
    self.baseURL = baseURL
    self.apiKey = apiKey
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeoutInSeconds
    configuration.timeoutIntervalForResource = timeoutInSeconds
    configuration.httpAdditionalHeaders = ["Accept-Encoding": "gzip"]
    session = URLSession(configuration: configuration)
  }

  // MARK: Incidents

  func incidents(
    inside area: some GeoArea, options: TrafficIncidentsQueryOptions
  )
    async throws(TrafficQueryError) -> (incidents: [TrafficIncident], sourceUpdated: Date?)
  {
    let query = V7IncidentQuery(area: area, options: options, locationReferencing: .shape)
    let data = try await send(path: "/v7/incidents", parameters: try query.encode())
    do {
      let response = try V7IncidentWire.decode(data, defaultLanguage: .enUS)
      sourceUpdated.withLock { $0.incidents = response.sourceUpdated }
      return (response.incidents, response.sourceUpdated)
    } catch {
      throw .failedToRetrieveResult("the server's incident list cannot be read: \(error)")
    }
  }

  func incident(
    originalId: String, options: TrafficIncidentLookupOptions
  )
    async throws(TrafficQueryError) -> TrafficIncident
  {
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "/?#")
    // `stream` is the path of the event stream, and `.` or `..` a path step a URL resolves
    // away (even percent-encoded): those ids are asked in v7's namespace form.
    let reached =
      originalId == "stream" || originalId.allSatisfy({ $0 == "." })
      ? V7IncidentWire.idNamespace + originalId : originalId
    let escaped = reached.addingPercentEncoding(withAllowedCharacters: allowed) ?? reached
    let query = V7IncidentLookupQuery(options: options)
    let data = try await send(path: "/v7/incidents/\(escaped)", parameters: query.encode())
    do {
      return try V7IncidentWire.decodeLookup(data, defaultLanguage: .enUS)
    } catch {
      throw .failedToRetrieveResult("the server's incident cannot be read: \(error)")
    }
  }

  // MARK: Transport

  /// The request of `GET /v7/incidents/stream` with these parameters.
  func streamRequest(parameters: [(String, String)]) throws(TrafficQueryError) -> URLRequest {
    var request = URLRequest(url: try url(path: "/v7/incidents/stream", parameters: parameters))
    request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
    if let apiKey { request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization") }
    return request
  }

  /// The URL of `path` on the server with `parameters` (and the key) as its query.
  func url(path: String, parameters: [(String, String)]) throws(TrafficQueryError) -> URL {
    try urlComponents(path: path, parameters: parameters).url
  }

  /// The URL of `path` with `parameters` (and the key) as its query, and its components.
  private func urlComponents(
    path: String, parameters: [(String, String)]
  ) throws(TrafficQueryError) -> (url: URL, components: URLComponents) {
    guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
      throw .invalidParameter("the server URL \(baseURL) is not usable")
    }
    let basePath = components.percentEncodedPath
    components.percentEncodedPath =
      (basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath) + path
    var query = URLQueryItem.encoded(parameters)
    if let apiKey { query.append(URLQueryItem(name: "apiKey", value: apiKey)) }
    components.queryItems = query.isEmpty ? nil : query
    // `+` is a space in query strings; the v7 parameters never mean a space by it.
    components.percentEncodedQuery = components.percentEncodedQuery?
      .replacingOccurrences(of: "+", with: "%2B")
    guard let url = components.url else {
      throw .invalidParameter("cannot build a request URL for \(path)")
    }
    return (url, components)
  }

  /// Sends a `GET`, or a `POST` with the parameters as a JSON object when the URL would be
  /// too long, and returns the body of a 200 answer.
  func send(path: String, parameters: [(String, String)]) async throws(TrafficQueryError) -> Data {
    var (url, components) = try urlComponents(path: path, parameters: parameters)
    var request: URLRequest
    if url.absoluteString.utf8.count > Self.maximumURLLength {
      components.queryItems = apiKey.map { [URLQueryItem(name: "apiKey", value: $0)] }
      guard let postURL = components.url else {
        throw .invalidParameter("cannot build a request URL for \(path)")
      }
      request = URLRequest(url: postURL)
      request.httpMethod = "POST"
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      var writer = JSONWriter(capacity: 256)
      writer.beginObject()
      for (name, value) in parameters {
        writer.key(name)
        writer.string(value)
      }
      writer.endObject()
      request.httpBody = Data(writer.bytes)
    } else {
      request = URLRequest(url: url)
    }
    if let apiKey { request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization") }
    return try await perform(request)
  }

  /// Sends a `GET` and returns the status and body of any HTTP answer (for APIs whose error
  /// bodies are not v7's, such as Routing v8).
  ///
  /// - Throws: `TrafficQueryError` for a transport failure.
  func get(
    path: String, parameters: [(String, String)]
  ) async throws(TrafficQueryError) -> (status: Int, body: Data) {
    var request = URLRequest(url: try url(path: path, parameters: parameters))
    if let apiKey { request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization") }
    return try await exchange(request)
  }

  /// Sends a `POST` of a JSON body and returns the status and body of any HTTP answer (for
  /// APIs whose error bodies are not v7's, such as Matrix Routing v8).
  ///
  /// - Throws: `TrafficQueryError` for a transport failure.
  func post(
    path: String, parameters: [(String, String)], json body: Data
  ) async throws(TrafficQueryError) -> (status: Int, body: Data) {
    var request = URLRequest(url: try url(path: path, parameters: parameters))
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = body
    if let apiKey { request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization") }
    return try await exchange(request)
  }

  private func perform(_ request: URLRequest) async throws(TrafficQueryError) -> Data {
    let (status, data) = try await exchange(request)
    if status == 200 { return data }
    throw V7ErrorAnswer.decode(status: status, body: data)
  }

  /// Sends a request; the status and body of the HTTP answer.
  ///
  /// - Throws: `TrafficQueryError` for a transport failure or an answer that is not HTTP.
  private func exchange(_ request: URLRequest) async throws(TrafficQueryError) -> (Int, Data) {
    let data: Data
    let response: URLResponse
    do {
      (data, response) = try await session.data(for: request)
    } catch let error as URLError {
      Self.lastTransportFailure.withLock { $0 = SystemErrorText.reason(error) }
      throw Self.map(error)
    } catch is CancellationError {
      throw .operationCancelled
    } catch {
      Self.lastTransportFailure.withLock { $0 = SystemErrorText.reason(error) }
      throw .serverUnreachable
    }
    guard let http = response as? HTTPURLResponse else {
      throw .failedToRetrieveResult("the server's answer is not HTTP")
    }
    return (http.statusCode, data)
  }

  static func map(_ error: URLError) -> TrafficQueryError {
    switch error.code {
    case .timedOut: return .timedOut
    case .notConnectedToInternet, .networkConnectionLost, .dataNotAllowed: return .offline
    case .cancelled: return .operationCancelled
    case .userAuthenticationRequired: return .authenticationFailed
    default: return .serverUnreachable
    }
  }
}

extension URLQueryItem {
  /// Query items of name/value pairs.
  static func encoded(_ pairs: [(String, String)]) -> [URLQueryItem] {
    pairs.map { URLQueryItem(name: $0.0, value: $0.1) }
  }
}

extension RemoteTrafficClient {
  /// The nearest incident, asked as a circle query sorted by distance (measured to the
  /// segments by the server) with a limit of one.
  func nearest(
    to point: GeoCoordinates, within radiusInMeters: Double,
    options: TrafficIncidentsQueryOptions, limits: TrafficQueryLimits
  ) async throws(TrafficQueryError) -> TrafficIncidentDistance? {
    let circle: GeoCircle
    do { circle = try GeoCircle(center: point, radiusInMeters: radiusInMeters) } catch {
      throw .invalidGeometry("radius \(radiusInMeters) must be a finite number >= 0")
    }
    try limits.check(circle)
    var sorted = options.sortedByDistance(from: point)
    sorted.limit = 1
    guard let incident = try await incidents(inside: circle, options: sorted).incidents.first
    else { return nil }
    return TrafficIncidentDistance(
      incident: incident, distanceInMeters: TrafficEngine.distance(from: point, to: incident))
  }
}

extension RemoteTrafficClient {
  /// Flow in an area from `GET /v7/flow`.
  func flow(
    inside area: some GeoArea, options: TrafficFlowQueryOptions
  )
    async throws(TrafficQueryError) -> [TrafficFlow]
  {
    let query = V7FlowQuery(area: area, options: options, includeShape: true)
    let data = try await send(path: "/v7/flow", parameters: try query.encode())
    do {
      let response = try V7FlowWire.decode(data)
      sourceUpdated.withLock { $0.flow = response.sourceUpdated }
      return response.flows
    } catch {
      throw .failedToRetrieveResult("the server's flow list cannot be read: \(error)")
    }
  }
}

extension RemoteTrafficClient {
  /// The traffic along a route from `POST /v1/route/traffic`.
  func trafficOnRoute(
    _ route: GeoPolyline, corridorHalfWidthInMeters: Double
  ) async throws(TrafficQueryError) -> TrafficOnRoute {
    let body = RouteTrafficWire.encodeQuery(
      route, corridorHalfWidthInMeters: corridorHalfWidthInMeters)
    let (status, data) = try await post(path: "/v1/route/traffic", parameters: [], json: body)
    guard status == 200 else { throw V7ErrorAnswer.decode(status: status, body: data) }
    do {
      return try RouteTrafficWire.decode(data, defaultLanguage: .enUS).traffic
    } catch {
      throw .failedToRetrieveResult("the server's traffic on the route cannot be read: \(error)")
    }
  }
}
