import CMicroHTTPD
import Foundation
import Synchronization

// Requests answered off the connection's thread (pushes on an ingest queue, expensive
// requests waiting for a worker): their connections are suspended meanwhile.
extension HTTPFrontEnd {
  /// Suspends the connection while `work` makes its answer off this thread: the answer is
  /// kept, the connection resumed, and libmicrohttpd calls the access handler again, which
  /// queues it. `work` must call its argument exactly once; when the server stops first,
  /// `request` is answered 503 instead (``answerStillSuspended()``) and the work's answer
  /// is dropped.
  func suspend(
    _ connection: OpaquePointer, context: RequestContext, request: HTTPRequest,
    work: (@escaping @Sendable (HTTPResponse) -> Void) -> Void
  ) {
    let deferred = DeferredResponse()
    context.deferred = deferred
    let connectionBits = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    suspendedCount.add(1, ordering: .relaxed)
    suspensions.withLock { $0[connectionBits] = (deferred, request) }
    MHD_suspend_connection(connection)
    work { [self] response in
      guard deferred.settle() else { return }
      resume(connectionBits, with: response, deferred: deferred)
    }
  }

  /// Hands `response` to a suspended connection and resumes it.
  private func resume(
    _ connectionBits: UInt, with response: HTTPResponse, deferred: DeferredResponse
  ) {
    deferred.put(response)
    suspensions.withLock { _ = $0.removeValue(forKey: connectionBits) }
    if let connection = OpaquePointer(bitPattern: connectionBits) {
      MHD_resume_connection(connection)
    }
    suspendedCount.subtract(1, ordering: .releasing)
  }

  /// At the end of the grace period: the requests whose work has not answered yet (a push
  /// still being merged) are answered 503 and their connections resumed, then waited for
  /// (at most 2 s) until libmicrohttpd has taken them back. libmicrohttpd 0.9.75 aborts the
  /// process when its daemon stops with a connection suspended.
  func answerStillSuspended() {
    var answered: [DeferredResponse] = []
    // Until none is left (at most 2 s): a request may still arrive and be suspended while
    // the server stops, and a work that settled its own answer just before may still be
    // resuming its connection.
    let deadline = ContinuousClock.now + .seconds(2)
    repeat {
      for (connectionBits, (deferred, request)) in suspensions.withLock({ Array($0) })
      where deferred.settle() {
        var refused = request
        refused.admissionRefusal = .stopping
        resume(connectionBits, with: server.serve(refused), deferred: deferred)
        answered.append(deferred)
      }
      if !answered.contains(where: \.isWaitingToBeTaken)
        && suspendedCount.load(ordering: .acquiring) == 0
      {
        return
      }
      Thread.sleep(forTimeInterval: 0.005)
    } while ContinuousClock.now < deadline
  }
}
