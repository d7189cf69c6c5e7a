import Foundation
import Synchronization

/// The state of one request across the access handler's calls. Only the connection's
/// thread touches it (libmicrohttpd serves a connection on one thread at a time).
final class RequestContext {
  let target: String
  /// Where libmicrohttpd's buffer held the target when the URI callback ran, and where its
  /// C string ended then: compared with the method and version, never read after that call.
  var targetBytes: (start: UnsafePointer<CChar>, end: UnsafePointer<CChar>)?
  /// When the request's head was complete (its body, if any, starts arriving then).
  let started = ContinuousClock.now
  /// The same moment on the wall clock, for the access log.
  let startedDate = Date()
  var announced = false
  var responded = false
  var method = "GET"
  var headers = HTTPHeaders()
  var body: [UInt8] = []
  /// Bytes of a body without a length (chunked) read past the limit and dropped: its 413
  /// is answered once the body has ended (libmicrohttpd sends no answer queued while a
  /// chunked body is still coming).
  var discardedBytes = 0
  var remoteAddress: String?
  /// Set while the request runs on an ingest queue.
  var deferred: DeferredResponse?

  init(target: String) {
    self.target = target
  }

  /// The request as the router sees it, with `body` and the head's arrival.
  func request(body: Data) -> HTTPRequest {
    var request = HTTPRequest(
      method: method, target: target, headers: headers, body: body,
      remoteAddress: remoteAddress)
    request.arrival = HTTPRequest.Arrival(date: startedDate, instant: started)
    return request
  }
}

/// The answer to a request handled on an ingest queue, handed back to the connection's
/// thread.
final class DeferredResponse: Sendable {
  private let slot = Mutex<HTTPResponse?>(nil)
  /// Whether an answer was settled on: the work's, or the stopping server's.
  private let settled = Atomic<Bool>(false)

  func put(_ response: HTTPResponse) { slot.withLock { $0 = response } }

  /// Claims the right to answer: `true` for the first caller only (the work finishing, or
  /// the server stopping without waiting for it any longer).
  func settle() -> Bool {
    settled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
      .exchanged
  }

  /// Whether an answer was put and not yet taken by the connection's thread.
  var isWaitingToBeTaken: Bool { slot.withLock { $0 != nil } }

  func take() -> HTTPResponse? {
    slot.withLock { slot in
      defer { slot = nil }
      return slot
    }
  }
}

/// Ties an event stream to its connection for the content reader callback.
final class StreamBinding: Sendable {
  let stream: EventStream
  let connectionBits: UInt
  let frontEnd: HTTPFrontEnd

  init(stream: EventStream, connection: OpaquePointer, frontEnd: HTTPFrontEnd) {
    self.stream = stream
    connectionBits = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    self.frontEnd = frontEnd
  }
}
