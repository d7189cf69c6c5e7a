/// Why a traffic query or lookup failed, with the case names of the HERE SDK's
/// `TrafficQueryError`.
///
/// Cases about the caller's input carry a detail saying what was wrong. Each case knows the
/// HTTP status it is answered with (`httpStatus`) and its bare name (`name`), which the HTTP
/// API puts in the error body's `code` field.
public enum TrafficQueryError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The area parameter (`in`) is missing, of an unknown type or unparseable.
  case invalidIn(String)
  /// The area is malformed or beyond the configured limits (radius, box size, corridor
  /// length, width or points).
  case invalidGeometry(String)
  /// An incident id, type, `earliestStartTime` or `latestEndTime` is invalid.
  case invalidIncident(String)
  /// One or more filter options are invalid (e.g. `latestEndTime` before
  /// `earliestStartTime`).
  case invalidFilterOptions(String)
  /// Another parameter is invalid (an unknown language tag, a negative limit...).
  case invalidParameter(String)
  /// The request is malformed in a way no more specific case covers.
  case badRequest(String)
  /// No incident has the original id looked up; the detail names the id.
  case incidentIdNotFound(String)
  /// Credentials are missing or wrong.
  case authenticationFailed
  /// The credentials do not give access to this resource.
  case forbidden
  /// Too many requests in a period; the client should wait.
  case tooManyRequests
  /// A proxy between client and server rejected the credentials.
  case proxyAuthenticationFailed
  /// A proxy between client and server could not be reached.
  case proxyServerUnreachable
  /// The server could not be reached.
  case serverUnreachable
  /// The request timed out.
  case timedOut
  /// The device has no network connection.
  case offline
  /// The server answered with an HTTP error status no other case covers.
  case httpError(status: Int, String)
  /// The server's answer could not be read (malformed or unexpected content).
  case failedToRetrieveResult(String)
  /// The operation was cancelled (its `TaskHandle` or task was cancelled).
  case operationCancelled
  /// A failure inside this library or its store; a defect or an environment problem.
  case internalError(String)

  /// The bare case name (`"invalidIn"`), the `code` of the HTTP API's error body.
  public var name: String {
    switch self {
    case .invalidIn: return "invalidIn"
    case .invalidGeometry: return "invalidGeometry"
    case .invalidIncident: return "invalidIncident"
    case .invalidFilterOptions: return "invalidFilterOptions"
    case .invalidParameter: return "invalidParameter"
    case .badRequest: return "badRequest"
    case .incidentIdNotFound: return "incidentIdNotFound"
    case .authenticationFailed: return "authenticationFailed"
    case .forbidden: return "forbidden"
    case .tooManyRequests: return "tooManyRequests"
    case .proxyAuthenticationFailed: return "proxyAuthenticationFailed"
    case .proxyServerUnreachable: return "proxyServerUnreachable"
    case .serverUnreachable: return "serverUnreachable"
    case .timedOut: return "timedOut"
    case .offline: return "offline"
    case .httpError: return "httpError"
    case .failedToRetrieveResult: return "failedToRetrieveResult"
    case .operationCancelled: return "operationCancelled"
    case .internalError: return "internalError"
    }
  }

  /// The HTTP status the error is answered with: 4xx for the caller's mistakes, 5xx for
  /// failures on the way or inside.
  ///
  /// `operationCancelled` is 499 (nginx's "client closed request"), as a cancelled request
  /// has no one left to answer.
  public var httpStatus: Int {
    switch self {
    case .invalidIn, .invalidGeometry, .invalidIncident, .invalidFilterOptions,
      .invalidParameter, .badRequest:
      return 400
    case .authenticationFailed: return 401
    case .forbidden: return 403
    case .incidentIdNotFound: return 404
    case .proxyAuthenticationFailed: return 407
    case .tooManyRequests: return 429
    case .operationCancelled: return 499
    case .internalError: return 500
    case .serverUnreachable, .proxyServerUnreachable, .failedToRetrieveResult: return 502
    case .offline: return 503
    case .timedOut: return 504
    case .httpError(let status, _): return status
    }
  }

  /// A short, fixed title for the error (the HTTP error body's `title`).
  public var title: String {
    switch self {
    case .invalidIn: return "Invalid area parameter"
    case .invalidGeometry: return "Invalid geometry"
    case .invalidIncident: return "Invalid incident parameter"
    case .invalidFilterOptions: return "Invalid filter options"
    case .invalidParameter: return "Invalid parameter"
    case .badRequest: return "Bad request"
    case .incidentIdNotFound: return "Incident not found"
    case .authenticationFailed: return "Authentication failed"
    case .forbidden: return "Forbidden"
    case .tooManyRequests: return "Too many requests"
    case .proxyAuthenticationFailed: return "Proxy authentication failed"
    case .proxyServerUnreachable: return "Proxy server unreachable"
    case .serverUnreachable: return "Server unreachable"
    case .timedOut: return "Request timed out"
    case .offline: return "No network connection"
    case .httpError: return "HTTP error"
    case .failedToRetrieveResult: return "Failed to retrieve result"
    case .operationCancelled: return "Operation cancelled"
    case .internalError: return "Internal error"
    }
  }

  /// What was wrong in detail, when the case carries it (the error body's `detail`).
  public var detail: String? {
    switch self {
    case .invalidIn(let detail), .invalidGeometry(let detail), .invalidIncident(let detail),
      .invalidFilterOptions(let detail), .invalidParameter(let detail), .badRequest(let detail),
      .incidentIdNotFound(let detail), .failedToRetrieveResult(let detail),
      .internalError(let detail):
      return detail.isEmpty ? nil : detail
    case .httpError(let status, let detail):
      return detail.isEmpty ? "status \(status)" : "status \(status): \(detail)"
    default:
      return nil
    }
  }

  /// The title followed by the detail: `"Invalid geometry: radius 60000 m exceeds ..."`.
  public var description: String {
    detail.map { "\(title): \($0)" } ?? title
  }

  /// The error an HTTP error body names, as a remote client rebuilds it.
  ///
  /// - Parameters:
  ///   - code: The body's `code` (a case name).
  ///   - detail: The body's `detail`, when any.
  ///   - status: The HTTP status.
  /// - Returns: The case named by `code`; `httpError` when `code` is not a case name.
  public init(code: String, detail: String?, status: Int) {
    let detail = detail ?? ""
    switch code {
    case "invalidIn": self = .invalidIn(detail)
    case "invalidGeometry": self = .invalidGeometry(detail)
    case "invalidIncident": self = .invalidIncident(detail)
    case "invalidFilterOptions": self = .invalidFilterOptions(detail)
    case "invalidParameter": self = .invalidParameter(detail)
    case "badRequest": self = .badRequest(detail)
    case "incidentIdNotFound": self = .incidentIdNotFound(detail)
    case "authenticationFailed": self = .authenticationFailed
    case "forbidden": self = .forbidden
    case "tooManyRequests": self = .tooManyRequests
    case "proxyAuthenticationFailed": self = .proxyAuthenticationFailed
    case "proxyServerUnreachable": self = .proxyServerUnreachable
    case "serverUnreachable": self = .serverUnreachable
    case "timedOut": self = .timedOut
    case "offline": self = .offline
    case "failedToRetrieveResult": self = .failedToRetrieveResult(detail)
    case "operationCancelled": self = .operationCancelled
    case "internalError": self = .internalError(detail)
    default: self = .httpError(status: status, detail)
    }
  }
}
