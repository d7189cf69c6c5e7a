import Foundation
import Geo
import Synchronization
import Traffic

/// The body of a `text/event-stream` response (Server-Sent Events, WHATWG HTML §9.2): the
/// incident changes in an area, produced over time.
///
/// Each change is one event: `event: added|updated|removed`, `id:` a sequence number and
/// `data:` the incident as a v7 result object on one line. A comment line (`: heartbeat`)
/// goes out when nothing else was sent for a heartbeat interval, so that proxies keep the
/// connection and a vanished client is noticed. The socket layer pulls bytes with
/// `read(into:)`; when there are none it parks the connection and `onReadable` wakes it.
package final class EventStream: Sendable {
  private struct State {
    var pending: [UInt8] = []
    var finished = false
    var parked = false
    var onReadable: (@Sendable () -> Void)?
    /// Run once when the stream finishes (the server's count of streams per client).
    var onFinish: (@Sendable () -> Void)?
    var lastWrite: ContinuousClock.Instant
  }

  /// The outcome of one pull.
  package enum ReadResult: Equatable {
    /// Bytes were copied into the buffer.
    case bytes(Int)
    /// Nothing now; `parked` says whether the caller must wait for `onReadable`.
    case wait
    /// The stream is over.
    case end
  }

  private let state: Mutex<State>
  /// The most bytes held for a reader that does not read them; a reader further behind is
  /// dropped (the stream ends), not buffered forever.
  let maximumPendingBytes: Int
  private let tasks = Mutex([Task<Void, Never>]())

  /// Starts watching `area` on `engine`.
  ///
  /// - Parameters:
  ///   - engine: The engine whose changes are streamed.
  ///   - area: The area watched.
  ///   - heartbeatSeconds: The longest silence before a heartbeat comment.
  ///   - language: The language of texts, when the client asked for one.
  ///   - maximumPendingBytes: The most bytes held for a reader that does not read them.
  init(
    engine: TrafficEngine, area: any GeoArea, heartbeatSeconds: Double, language: LanguageCode?,
    maximumPendingBytes: Int = 1 << 20
  ) {
    self.maximumPendingBytes = maximumPendingBytes
    state = Mutex(State(lastWrite: .now))
    state.withLock {
      $0.pending = Array(": traffic incident changes\nretry: 5000\n\n".utf8)
    }
    let changes = engine.incidentChanges(inside: area)
    let consumer = Task { [weak self] in
      var sequence = 0
      for await change in changes {
        sequence += 1
        let incident = language.map { change.incident.localized(to: $0) } ?? change.incident
        var event = "event: \(change.kind.rawValue)\nid: \(sequence)\ndata: "
        event += String(decoding: V7IncidentWire.encodeLookup(incident), as: UTF8.self)
        event += "\n\n"
        guard let self else { return }
        self.append(Array(event.utf8))
      }
    }
    let heartbeat = Task { [weak self] in
      let interval = Duration.milliseconds(Int64(max(0.01, heartbeatSeconds) * 1000))
      while !Task.isCancelled {
        try? await Task.sleep(for: interval)
        guard let self, !Task.isCancelled else { return }
        let silent = self.state.withLock { $0.lastWrite.duration(to: .now) >= interval * 0.9 }
        if silent { self.append(Array(": heartbeat\n\n".utf8)) }
      }
    }
    tasks.withLock { $0 = [consumer, heartbeat] }
  }

  deinit {
    for task in tasks.withLock({ $0 }) { task.cancel() }
  }

  /// Streams ended because their reader fell `maximumPendingBytes` behind.
  package static let droppedSlowReaders = Atomic<Int>(0)

  private func append(_ bytes: [UInt8]) {
    var dropped = false
    let wake = state.withLock { state -> (@Sendable () -> Void)? in
      guard !state.finished else { return nil }
      if state.pending.count + bytes.count > maximumPendingBytes {
        state.pending = []
        dropped = true
        return nil
      }
      state.pending.append(contentsOf: bytes)
      state.lastWrite = .now
      guard state.parked else { return nil }
      state.parked = false
      return state.onReadable
    }
    if dropped {
      EventStream.droppedSlowReaders.add(1, ordering: .relaxed)
      finish()
      return
    }
    wake?()
  }

  /// Copies pending bytes into `buffer`.
  ///
  /// When nothing is pending, `park` is called (with the stream's lock held, so that a
  /// wake-up cannot slip in between) and `.wait` returned; `onReadable` runs once bytes
  /// arrive.
  /// - Parameters:
  ///   - buffer: Where to copy.
  ///   - park: Called when the reader must wait; the socket layer suspends the connection.
  /// - Returns: The bytes copied, `.wait` or `.end`.
  package func read(
    into buffer: UnsafeMutableRawBufferPointer, park: () -> Void = {}
  ) -> ReadResult {
    state.withLock { state in
      if !state.pending.isEmpty {
        let count = min(buffer.count, state.pending.count)
        state.pending.withUnsafeBytes { source in
          buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<count]))
        }
        state.pending.removeFirst(count)
        return .bytes(count)
      }
      if state.finished { return .end }
      state.parked = true
      park()
      return .wait
    }
  }

  /// Sets what wakes a parked reader.
  package func setOnReadable(_ wake: @escaping @Sendable () -> Void) {
    state.withLock { $0.onReadable = wake }
  }

  /// Ends the stream: pending bytes are still delivered, then `read` answers `.end`.
  package func finish() {
    for task in tasks.withLock({ $0 }) { task.cancel() }
    let (wake, finished) = state.withLock {
      state -> ((@Sendable () -> Void)?, (@Sendable () -> Void)?) in
      let finished = state.onFinish
      state.onFinish = nil
      state.finished = true
      guard state.parked else { return (nil, finished) }
      state.parked = false
      return (state.onReadable, finished)
    }
    finished?()
    wake?()
  }

  /// Runs `body` once, when the stream finishes (at once if it has).
  package func whenFinished(_ body: @escaping @Sendable () -> Void) {
    let now = state.withLock { state -> Bool in
      if state.finished { return true }
      state.onFinish = body
      return false
    }
    if now { body() }
  }

  /// Waits until bytes are pending or the stream ended, then takes them (for tests and
  /// in-process use).
  ///
  /// - Parameter timeoutSeconds: How long to wait at most.
  /// - Returns: The bytes, or `nil` when the stream ended or nothing came in time.
  package func next(timeoutSeconds: Double) async -> Data? {
    let deadline = ContinuousClock.now + .milliseconds(Int64(timeoutSeconds * 1000))
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while ContinuousClock.now < deadline {
      let result = buffer.withUnsafeMutableBytes { read(into: $0) }
      switch result {
      case .bytes(let count): return Data(buffer[0..<count])
      case .end: return nil
      case .wait:
        state.withLock { $0.parked = false }
        try? await Task.sleep(for: .milliseconds(10))
      }
    }
    return nil
  }
}
