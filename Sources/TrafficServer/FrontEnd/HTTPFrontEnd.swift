import CMicroHTTPD
import Foundation
import Synchronization
import Traffic

/// The socket layer: a libmicrohttpd daemon whose threads hand each complete request to
/// `TrafficServer.handle(_:)` and queue its response.
///
/// libmicrohttpd calls the access handler several times per request: first to announce it
/// (headers known), then once per piece of body, then a last time with no body left, when
/// the response is queued. Queuing on the first call would make libmicrohttpd close the
/// connection after every response (no keep-alive): a twentyfold loss measured here.
final class HTTPFrontEnd: Sendable {
  /// The daemon, as a bit pattern (OpaquePointer is not Sendable); set once by `listen()`.
  private let daemonBits = Atomic<UInt>(0)
  private let boundPort = Atomic<Int>(0)
  let server: TrafficServer
  private let inFlightCount = Atomic<Int>(0)
  /// Connections suspended while their request runs on an ingest queue.
  let suspendedCount = Atomic<Int>(0)
  /// Those connections' answers and requests, by connection.
  let suspensions = Mutex<[UInt: (DeferredResponse, HTTPRequest)]>([:])
  private let streams = Mutex([ObjectIdentifier: EventStream]())
  /// The retain of `self` handed to libmicrohttpd as the callbacks' context; released after
  /// the daemon stopped.
  private let selfBits = Mutex<UInt>(0)
  /// Closes connections whose request head is late, once a second (thread-safe by itself).
  private nonisolated(unsafe) let headSweeper: any DispatchSourceTimer

  var inFlight: Int { inFlightCount.load(ordering: .relaxed) }

  /// The port bound.
  var port: Int { boundPort.load(ordering: .relaxed) }

  /// Starts a daemon for `server`.
  ///
  /// - Throws: `ServerError.cannotListen` when the address cannot be bound.
  init(server: TrafficServer) throws(ServerError) {
    self.server = server
    // Running before the daemon exists (nothing to sweep yet): a dispatch source must not be
    // released suspended, which would happen if listening failed.
    let sweeper = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
    let deadline = Duration.seconds(server.configuration.headTimeoutSeconds)
    sweeper.schedule(deadline: .now() + 0.5, repeating: 0.5)
    sweeper.setEventHandler { [connections = server.connections, admission = server.admission] in
      connections.closeLateHeads(deadline: deadline)
      // Expensive requests that waited too long for a worker are answered 503.
      admission.expire()
    }
    sweeper.resume()
    headSweeper = sweeper
    do { try listen() } catch {
      sweeper.cancel()
      throw error
    }
  }

  private func listen() throws(ServerError) {
    let configuration = server.configuration
    var flags =
      MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
      | MHD_ALLOW_SUSPEND_RESUME.rawValue
    var settings = traffic_mhd_settings()
    settings.thread_pool_size = UInt32(clamping: configuration.threads)
    settings.connection_limit = UInt32(clamping: HTTPFrontEnd.connectionLimit(configuration))
    settings.connection_memory_limit = configuration.connectionMemoryBytes
    settings.connection_timeout_seconds = UInt32(clamping: configuration.connectionTimeoutSeconds)
    settings.listen_backlog = 1024
    var v4 = sockaddr_in()
    var v6 = sockaddr_in6()
    let port = UInt16(clamping: configuration.port)
    if inet_pton(AF_INET, configuration.host, &v4.sin_addr) == 1 {
      v4.sin_family = sa_family_t(AF_INET)
      v4.sin_port = port.bigEndian
    } else if inet_pton(AF_INET6, configuration.host, &v6.sin6_addr) == 1 {
      v6.sin6_family = sa_family_t(AF_INET6)
      v6.sin6_port = port.bigEndian
      flags |= MHD_USE_IPv6.rawValue
    } else {
      throw .cannotListen("host \(configuration.host) is not an IPv4 or IPv6 address")
    }
    settings.flags = flags
    // The context pointer outlives every callback: released only after MHD_stop_daemon.
    let context = Unmanaged.passUnretained(self)
    let daemon: OpaquePointer? = withUnsafePointer(to: &v4) { v4Pointer in
      withUnsafePointer(to: &v6) { v6Pointer in
        settings.address =
          flags & MHD_USE_IPv6.rawValue != 0
          ? UnsafeRawPointer(v6Pointer).assumingMemoryBound(to: sockaddr.self)
          : UnsafeRawPointer(v4Pointer).assumingMemoryBound(to: sockaddr.self)
        return traffic_mhd_start(
          &settings, accessHandler, context.toOpaque(), uriLogger, context.toOpaque(),
          requestCompleted, context.toOpaque(), acceptPolicy, connectionNotifier,
          context.toOpaque())
      }
    }
    guard let daemon else {
      throw .cannotListen(
        "libmicrohttpd could not listen on \(configuration.host) port \(configuration.port) "
          + "(port taken or address not local)")
    }
    daemonBits.store(
      UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(daemon))), ordering: .releasing)
    boundPort.store(Int(traffic_mhd_bind_port(daemon)), ordering: .releasing)
    selfBits.withLock { $0 = UInt(bitPattern: Int(bitPattern: context.retain().toOpaque())) }
  }

  /// The connection limit: the configured one, kept 64 below the process's file-descriptor
  /// limit (the store, logs and the other sockets need descriptors too).
  static func connectionLimit(_ configuration: ServerConfiguration) -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < 1 << 30
    else { return configuration.maxConnections }
    return max(1, min(configuration.maxConnections, Int(limit.rlim_cur) - 64))
  }

  private var daemon: OpaquePointer? {
    OpaquePointer(bitPattern: daemonBits.load(ordering: .acquiring))
  }

  /// Stops accepting, ends event streams, waits for requests in flight (at most
  /// `gracePeriodSeconds`), then stops the daemon, closing every connection.
  func shutdown(gracePeriodSeconds: Double) {
    // First: the sweeper must not shut a socket once libmicrohttpd closes connections.
    headSweeper.cancel()
    guard let daemon else { return }
    // Not MHD_quiesce_daemon: with a thread pool on epoll, libmicrohttpd 0.9.75 removes the
    // listening socket from each worker's epoll set while the workers may remove it
    // themselves, and aborts the process ("Failed to remove listen FD from epoll set") when
    // it loses that race (seen in tests). Connections arriving during the grace period are
    // answered; MHD_stop_daemon closes the listening socket.
    for stream in streams.withLock({ Array($0.values) }) { stream.finish() }
    let deadline = ContinuousClock.now + .milliseconds(Int64(gracePeriodSeconds * 1000))
    while inFlight > 0, ContinuousClock.now < deadline {
      Thread.sleep(forTimeInterval: 0.005)
    }
    // Suspended connections must be resumed before the daemon stops (libmicrohttpd's
    // rule); finished streams resume theirs, so wait briefly for them to drain.
    let drain = ContinuousClock.now + .seconds(1)
    while !streams.withLock({ $0.isEmpty }), ContinuousClock.now < drain {
      Thread.sleep(forTimeInterval: 0.005)
    }
    // Expensive requests still waiting for a worker are answered 503 now (their
    // connections resume); the running ones and ingest work finish: libmicrohttpd must not
    // stop with suspended connections.
    server.admission.refuseWaiting()
    let ingestDrain =
      ContinuousClock.now
      + .milliseconds(Int64(server.configuration.shutdownIngestDrainSeconds * 1000))
    while suspendedCount.load(ordering: .acquiring) > 0, ContinuousClock.now < ingestDrain {
      Thread.sleep(forTimeInterval: 0.005)
    }
    answerStillSuspended()
    MHD_stop_daemon(daemon)
    let bits = selfBits.withLock { bits -> UInt in
      defer { bits = 0 }
      return bits
    }
    if let pointer = UnsafeMutableRawPointer(bitPattern: bits) {
      Unmanaged<HTTPFrontEnd>.fromOpaque(pointer).release()
    }
  }

  // MARK: Called from the C callbacks

  func begin(target: String) -> RequestContext {
    inFlightCount.add(1, ordering: .relaxed)
    return RequestContext(target: target)
  }

  func end() {
    inFlightCount.subtract(1, ordering: .relaxed)
  }

  /// Handles the access handler's calls for one request.
  ///
  /// `method` and `version` are libmicrohttpd's, read on the first call only.
  func access(
    connection: OpaquePointer, context: RequestContext, method: UnsafePointer<CChar>?,
    version: UnsafePointer<CChar>?, upload: UnsafePointer<CChar>?,
    uploadSize: UnsafeMutablePointer<Int>
  ) -> MHD_Result {
    let limit = server.configuration.maxBodyBytes
    if !context.announced {
      context.announced = true
      // The head is complete: the body and the answer get the longer timeout.
      server.connections.headComplete(connection: UInt(bitPattern: Int(bitPattern: connection)))
      traffic_mhd_set_connection_timeout(
        connection, UInt32(clamping: server.configuration.connectionTimeoutSeconds))
      context.method = method.map { String(cString: $0) } ?? "GET"
      context.headers = Self.headers(of: connection)
      var address = [CChar](repeating: 0, count: 64)
      traffic_mhd_client_address(connection, &address, address.count)
      let peer = String(
        decoding: address.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      context.remoteAddress = ClientAddress.resolve(
        peer: peer,
        forwardedFor: ClientAddress.joined(context.headers.values(of: "X-Forwarded-For")),
        trusted: server.configuration.trustedProxies)
      // A head RFC 9112 refuses is answered before any route runs, and closes.
      if let violation = RequestHeadCheck.violation(
        target: context.target, version: version.map { String(cString: $0) } ?? "HTTP/1.1",
        headers: context.headers,
        requestLineVerbatim: context.targetBytes.map {
          traffic_mhd_request_line_is_verbatim(method, $0.start, $0.end, version) != 0
        } ?? true,
        linesVerbatim: traffic_mhd_head_is_verbatim(connection, method) != 0)
      {
        return reject(connection, context: context, headViolation: violation)
      }
      if let length = context.headers["Content-Length"].flatMap(Int.init), length > limit {
        return reject(connection, context: context)
      }
      return TRAFFIC_MHD_YES
    }
    if uploadSize.pointee > 0 {
      let count = uploadSize.pointee
      uploadSize.pointee = 0
      guard !context.responded else { return TRAFFIC_MHD_YES }
      if context.discardedBytes == 0, context.body.count + count > limit {
        // A body of a known length is refused at once (libmicrohttpd skips the rest); a
        // chunked one is read to its end, dropped, and refused then, up to a bound past
        // which the connection is closed.
        guard context.headers["Content-Length"] == nil else {
          return reject(connection, context: context)
        }
        context.discardedBytes = context.body.count
        context.body = []
      }
      // A body trickling in below the minimum rate (after a grace period) holds a
      // connection for nothing: the connection is closed (counted as a slow body).
      let configuration = server.configuration
      let elapsed = context.started.duration(to: .now)
      let seconds = Double(elapsed.components.seconds)
      let received = context.body.count + context.discardedBytes + count
      if seconds >= configuration.slowBodyGraceSeconds,
        Double(received) / seconds < Double(configuration.minimumBodyBytesPerSecond)
      {
        server.connections.slowBodyClosed()
        return TRAFFIC_MHD_NO
      }
      if context.discardedBytes > 0 {
        context.discardedBytes += count
        return context.discardedBytes <= Self.discardedBodyBound(limit: limit)
          ? TRAFFIC_MHD_YES : TRAFFIC_MHD_NO
      }
      if let upload {
        upload.withMemoryRebound(to: UInt8.self, capacity: count) {
          context.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
        }
      }
      return TRAFFIC_MHD_YES
    }
    if context.responded {
      // Called again after a resume: the ingest queue's answer is ready.
      guard let deferred = context.deferred, let response = deferred.take() else {
        return TRAFFIC_MHD_YES
      }
      context.deferred = nil
      return queue(response, on: connection)
    }
    if context.discardedBytes > 0 { return reject(connection, context: context) }
    context.responded = true
    let request = context.request(body: Data(context.body))
    context.body = []
    let server = self.server
    if let ingestQueue = server.ingestQueue(for: request) {
      // Run the ingest off this thread, one push after another.
      suspend(connection, context: context, request: request) { answer in
        ingestQueue.async { answer(server.serve(request)) }
      }
      return TRAFFIC_MHD_YES
    }
    if let (lane, client) = server.admission(for: request) {
      // Expensive work waits for a worker of its own, its client's turn among the others;
      // refused (too many of its client's waiting, or too long a wait): 503.
      suspend(connection, context: context, request: request) { answer in
        server.admission.submit(
          lane: lane, client: client, run: { answer(server.serve(request)) },
          refuse: { reason in
            var refused = request
            refused.admissionRefusal = reason
            answer(server.serve(refused))
          })
      }
      return TRAFFIC_MHD_YES
    }
    let response = server.serve(request)
    return queue(response, on: connection)
  }

  /// Answers before the whole body arrived: `headViolation` for a malformed head, else 413
  /// for a body over the limit. libmicrohttpd then discards the rest of the request.
  private func reject(
    _ connection: OpaquePointer, context: RequestContext,
    headViolation: TrafficQueryError? = nil
  ) -> MHD_Result {
    context.responded = true
    context.body = []
    var request = context.request(body: Data())
    request.headViolation = headViolation
    request.bodyExceedsLimit = headViolation == nil
    return queue(server.serve(request), on: connection)
  }

  private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let mhdResponse: OpaquePointer?
    if let stream = response.eventStream {
      let binding = StreamBinding(stream: stream, connection: connection, frontEnd: self)
      streams.withLock { $0[ObjectIdentifier(stream)] = stream }
      server.eventStreamOpened()
      let bindingPointer = Unmanaged.passRetained(binding).toOpaque()
      stream.setOnReadable { [connectionBits = binding.connectionBits] in
        if let connection = OpaquePointer(bitPattern: connectionBits) {
          MHD_resume_connection(connection)
        }
      }
      mhdResponse = MHD_create_response_from_callback(
        traffic_mhd_size_unknown(), 16 * 1024, streamReader, bindingPointer, streamFreed)
    } else if let body = response.bodyStream {
      // A document written as it is sent; closed when libmicrohttpd is done with it.
      let retained = Unmanaged.passRetained(body).toOpaque()
      mhdResponse = MHD_create_response_from_callback(
        traffic_mhd_size_unknown(), ResponseBodyStream.blockBytes, bodyReader, retained, bodyFreed)
      if mhdResponse == nil {
        Unmanaged<ResponseBodyStream>.fromOpaque(retained).release()
      }
    } else if let shared = response.sharedBody, shared.bytes.count == response.body.count,
      let base = shared.bytes.baseAddress, shared.bytes.count > 0
    {
      // A cached body: sent from the cache's buffer, retained until libmicrohttpd is done.
      let retained = Unmanaged.passRetained(shared).toOpaque()
      mhdResponse = MHD_create_response_from_buffer_with_free_callback_cls(
        shared.bytes.count, UnsafeMutableRawPointer(mutating: base), sharedBodyFreed, retained)
      if mhdResponse == nil { Unmanaged<SharedBytes>.fromOpaque(retained).release() }
    } else {
      mhdResponse = response.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(
          bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
          TRAFFIC_MHD_RESPMEM_MUST_COPY)
      }
    }
    guard let mhdResponse else { return TRAFFIC_MHD_NO }
    defer { MHD_destroy_response(mhdResponse) }
    for field in response.headers {
      _ = MHD_add_response_header(mhdResponse, field.name, field.value)
    }
    return MHD_queue_response(connection, UInt32(response.status), mhdResponse)
  }

  func streamClosed(_ stream: EventStream) {
    stream.finish()
    streams.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(stream)) }
    server.eventStreamClosed()
  }

  private static func headers(of connection: OpaquePointer) -> HTTPHeaders {
    final class Collector {
      var headers = HTTPHeaders()
    }
    let collector = Collector()
    let pointer = Unmanaged.passUnretained(collector).toOpaque()
    _ = MHD_get_connection_values(
      connection, TRAFFIC_MHD_HEADER_KIND,
      { cls, _, key, value in
        guard let cls, let key else { return TRAFFIC_MHD_YES }
        let collector = Unmanaged<Collector>.fromOpaque(cls).takeUnretainedValue()
        collector.headers.add(String(cString: key), value.map { String(cString: $0) } ?? "")
        return TRAFFIC_MHD_YES
      }, pointer)
    return collector.headers
  }
}

// MARK: C callbacks (plain functions: no captures, context through `cls`)

private func uriLogger(
  cls: UnsafeMutableRawPointer?, uri: UnsafePointer<CChar>?, connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
  guard let cls else { return nil }
  let frontEnd = Unmanaged<HTTPFrontEnd>.fromOpaque(cls).takeUnretainedValue()
  let context = frontEnd.begin(target: uri.map { String(cString: $0) } ?? "/")
  if let uri { context.targetBytes = (uri, uri + strlen(uri)) }
  // The query was copied above; keep libmicrohttpd from splitting it into arguments in the
  // connection's small memory pool (hundreds of pairs closed the connection unanswered).
  traffic_mhd_hide_query(uri)
  return Unmanaged.passRetained(context).toOpaque()
}

private func accessHandler(
  cls: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
  method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
  uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>?,
  contextSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
  guard let cls, let connection, let uploadDataSize, let contextSlot else { return TRAFFIC_MHD_NO }
  let frontEnd = Unmanaged<HTTPFrontEnd>.fromOpaque(cls).takeUnretainedValue()
  let context: RequestContext
  if let pointer = contextSlot.pointee {
    context = Unmanaged<RequestContext>.fromOpaque(pointer).takeUnretainedValue()
  } else {
    // No URI callback ran (should not happen); start the request here.
    context = frontEnd.begin(target: url.map { String(cString: $0) } ?? "/")
    contextSlot.pointee = Unmanaged.passRetained(context).toOpaque()
  }
  return frontEnd.access(
    connection: connection, context: context, method: method, version: version,
    upload: uploadData, uploadSize: uploadDataSize)
}

private func requestCompleted(
  cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
  contextSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
  reason: MHD_RequestTerminationCode
) {
  if let cls, traffic_mhd_timed_out(reason) != 0 {
    Unmanaged<HTTPFrontEnd>.fromOpaque(cls).takeUnretainedValue().server.connections
      .requestTimedOut()
  }
  if let cls, let connection {
    // A kept-alive connection waits for its next head with the head timeout.
    let server = Unmanaged<HTTPFrontEnd>.fromOpaque(cls).takeUnretainedValue().server
    traffic_mhd_set_connection_timeout(
      connection, UInt32(clamping: server.configuration.headTimeoutSeconds))
    server.connections.awaitHead(
      connection: UInt(bitPattern: Int(bitPattern: connection)),
      socket: traffic_mhd_connection_fd(connection))
  }
  guard let cls, let contextSlot, let pointer = contextSlot.pointee else { return }
  contextSlot.pointee = nil
  Unmanaged<RequestContext>.fromOpaque(pointer).release()
  Unmanaged<HTTPFrontEnd>.fromOpaque(cls).takeUnretainedValue().end()
}

/// Accepts a connection unless its address holds its share already.
private func acceptPolicy(
  cls: UnsafeMutableRawPointer?, address: UnsafePointer<sockaddr>?, length: socklen_t
) -> MHD_Result {
  guard let cls else { return TRAFFIC_MHD_YES }
  var text = [CChar](repeating: 0, count: 64)
  traffic_mhd_address_text(address, &text, text.count)
  let frontEnd = Unmanaged<HTTPFrontEnd>.fromOpaque(cls).takeUnretainedValue()
  return frontEnd.server.connections.admits(addressText(text))
    ? TRAFFIC_MHD_YES : TRAFFIC_MHD_NO
}

/// Counts connections by address as they start and close (the address rides in the
/// connection's socket context between the two).
private func connectionNotifier(
  cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
  socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
  code: MHD_ConnectionNotificationCode
) {
  guard let cls, let connection, let socketContext else { return }
  let connections = Unmanaged<HTTPFrontEnd>.fromOpaque(cls).takeUnretainedValue().server
    .connections
  if traffic_mhd_connection_started(code) != 0 {
    // Until a request's head is complete, silence is closed sooner (slowloris heads).
    let frontEnd = Unmanaged<HTTPFrontEnd>.fromOpaque(cls).takeUnretainedValue()
    traffic_mhd_set_connection_timeout(
      connection, UInt32(clamping: frontEnd.server.configuration.headTimeoutSeconds))
    var text = [CChar](repeating: 0, count: 64)
    traffic_mhd_client_address(connection, &text, text.count)
    let address = ConnectionAddress(addressText(text))
    connections.opened(address.text)
    connections.awaitHead(
      connection: UInt(bitPattern: Int(bitPattern: connection)),
      socket: traffic_mhd_connection_fd(connection))
    socketContext.pointee = Unmanaged.passRetained(address).toOpaque()
  } else {
    connections.forget(connection: UInt(bitPattern: Int(bitPattern: connection)))
    if let pointer = socketContext.pointee {
      socketContext.pointee = nil
      let address = Unmanaged<ConnectionAddress>.fromOpaque(pointer).takeRetainedValue()
      connections.closed(address.text)
    }
  }
}

/// The text of a NUL-terminated address buffer.
private func addressText(_ buffer: [CChar]) -> String {
  String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// A connection's client address, kept from its start to its close.
private final class ConnectionAddress {
  let text: String
  init(_ text: String) { self.text = text }
}

extension TrafficServer {
  /// Hands the pages of freed heap memory back to the system (glibc's `malloc_trim`): for
  /// the service once its start-up has freed its load buffers.
  package static func returnFreedMemory() {
    traffic_return_freed_memory()
  }
}
