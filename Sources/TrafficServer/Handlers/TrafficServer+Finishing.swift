import Codec
import Foundation
import Traffic
import TrafficFeeds
import Zlib

/// What every answer gets last: the error body, compression and the entity tag, the
/// correlation id and CORS headers, 304 for a current copy.
extension TrafficServer {
  /// The JSON error answer of `error`.
  ///
  /// - Parameter explanation: What refused the request, for a case without a detail of its
  ///   own (``TrafficQueryError/authenticationFailed``, ``TrafficQueryError/tooManyRequests``).
  func errorResponse(
    _ error: TrafficQueryError, for route: Endpoint?, explaining explanation: String? = nil
  ) -> HTTPResponse {
    // OSRM's clients read OSRM's shape, also for the server's own refusals; HERE's clients
    // of routes and matrices read v8's for a malformed request (a bad percent escape).
    if route?.isOSRM == true { return Self.osrmError(error, explaining: explanation) }
    switch route {
    case .routes?, .matrix?:
      guard error.httpStatus == 400 else { break }
      var response = V8Failure.malformed(
        AccessLogSink.redactingKeys(in: error.detail ?? error.description)
      ).response
      response.headers.add("Cache-Control", "no-store")
      return response
    default: break
    }
    return errorResponse(error, explaining: explanation)
  }

  func errorResponse(
    _ error: TrafficQueryError, explaining explanation: String? = nil
  ) -> HTTPResponse {
    // A detail may quote a malformed query, key and all.
    let body = V7ErrorAnswer.encode(error, explanation: explanation) {
      AccessLogSink.redactingKeys(in: $0)
    }
    var response = HTTPResponse.json(Data(body), status: error.httpStatus)
    response.headers.add("Cache-Control", "no-store")
    if case .authenticationFailed = error {
      response.headers.add("WWW-Authenticate", "Bearer realm=\"traffic\"")
    }
    // Every 503 is worth trying again (a busy server, a database out of reach); a route
    // that knows better replaces the value.
    if response.status == 503 { response.headers.set("Retry-After", "2") }
    return response
  }

  /// Adds `ETag` and `Vary` to a successful answer and compresses it as the request allows:
  /// what the response cache keeps.
  func prepare(_ response: HTTPResponse, for request: HTTPRequest) -> HTTPResponse {
    guard response.eventStream == nil, response.status == 200, !response.body.isEmpty else {
      return response
    }
    var response = response
    let gzip = response.body.count >= configuration.minimumGzipBytes && Self.acceptsGzip(request)
    // A tag the route set (from what the body is made of) is kept; else the body's.
    let base =
      response.headers["ETag"].map { String($0.dropFirst().dropLast()) }
      ?? Self.fingerprint(response.body)
    let tag = "\"" + base + (gzip ? "-gz\"" : "\"")
    response.headers.set("ETag", tag)
    response.headers.add("Vary", "Accept-Encoding")
    if gzip {
      response.body = Gzip.compress(response.body, level: 5)
      response.sharedBody = nil
      response.headers.add("Content-Encoding", "gzip")
    }
    return response
  }

  /// Adds the correlation id and CORS headers, and answers a matching `If-None-Match` with
  /// 304.
  func finish(
    _ response: HTTPResponse, for request: HTTPRequest, correlationId: String
  ) -> HTTPResponse {
    var response = response
    response.headers.add("X-Correlation-Id", correlationId)
    response.headers.add("Access-Control-Allow-Origin", "*")
    response.headers.add(
      "Access-Control-Expose-Headers",
      "ETag, Last-Modified, Retry-After, X-Correlation-Id, X-Publication, Content-Encoding")
    if response.status >= 400 {
      // The error body was written with an empty correlation id; fill it in.
      let placeholder = Data("\"correlationId\":\"\"}".utf8)
      if response.body.suffix(placeholder.count) == placeholder {
        response.body = response.body.dropLast(2) + Data("\(correlationId)\"}".utf8)
      }
    }
    if response.status == 200, Self.isNotModified(response, for: request, now: engine.now) {
      var notModified = HTTPResponse(status: 304)
      for field in response.headers
      where !field.name.caseInsensitiveEquals("Content-Type")
        && !field.name.caseInsensitiveEquals("Content-Encoding")
      {
        notModified.headers.add(field.name, field.value)
      }
      return notModified
    }
    return response
  }

  /// Whether `Accept-Encoding` allows gzip (RFC 9110 §12.5.3: a token or `*` with q > 0).
  static func acceptsGzip(_ request: HTTPRequest) -> Bool {
    guard let header = request.headers["Accept-Encoding"] else { return false }
    for item in header.split(separator: ",") {
      let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
      guard let coding = parts.first,
        coding.caseInsensitiveEquals("gzip") || coding.caseInsensitiveEquals("x-gzip")
          || coding == "*"
      else { continue }
      let quality = parts.dropFirst().first { $0.lowercased().hasPrefix("q=") }
        .flatMap { Double($0.dropFirst(2)) }
      if let quality, quality <= 0 { continue }
      return true
    }
    return false
  }

}
