import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The client side of `GET /v7/incidents/stream` (Server-Sent Events): the incident changes a
/// remote engine's `incidentChanges(inside:)` yields.
///
/// Each event is `event: added|updated|removed` and `data:` a v7 result object; comments
/// (heartbeats) are skipped. When the connection ends, the stream reconnects after the
/// server's `retry:` delay (5 s by default) until the consumer stops iterating.
final class RemoteChangeStream: NSObject, URLSessionDataDelegate, Sendable {
  private let request: URLRequest
  private let continuation: AsyncStream<IncidentChange>.Continuation
  private let buffer = Mutex([UInt8]())
  private let retryMilliseconds = Mutex(5_000)
  private let stopped = Mutex(false)
  private let session = Mutex<URLSession?>(nil)

  init(request: URLRequest, continuation: AsyncStream<IncidentChange>.Continuation) {
    self.request = request
    self.continuation = continuation
  }

  func start() {
    guard !stopped.withLock({ $0 }) else { return }
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = 3600
    configuration.timeoutIntervalForResource = .infinity
    let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    self.session.withLock { $0 = session }
    session.dataTask(with: request).resume()
  }

  func stop() {
    stopped.withLock { $0 = true }
    session.withLock {
      $0?.invalidateAndCancel()
      $0 = nil
    }
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let events = buffer.withLock { buffer -> [[UInt8]] in
      buffer.append(contentsOf: data)
      var events: [[UInt8]] = []
      // Events end with a blank line.
      while let end = Self.blankLine(in: buffer) {
        events.append(Array(buffer[..<end.lowerBound]))
        buffer.removeSubrange(..<end.upperBound)
      }
      return events
    }
    for event in events { handle(event) }
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    session.finishTasksAndInvalidate()
    guard !stopped.withLock({ $0 }) else { return }
    buffer.withLock { $0.removeAll() }
    let delay = retryMilliseconds.withLock { $0 }
    Task { [weak self] in
      try? await Task.sleep(for: .milliseconds(delay))
      self?.start()
    }
  }

  private func handle(_ event: [UInt8]) {
    var kind: IncidentChange.Kind?
    var payload = ""
    for line in String(decoding: event, as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false)
    {
      if line.hasPrefix(":") { continue }
      if line.hasPrefix("event:") {
        kind = IncidentChange.Kind(rawValue: line.dropFirst(6).trimmingCharacters(in: .whitespaces))
      } else if line.hasPrefix("data:") {
        payload += line.dropFirst(5).trimmingCharacters(in: .whitespaces)
      } else if line.hasPrefix("retry:"),
        let value = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
      {
        retryMilliseconds.withLock { $0 = max(100, value) }
      }
    }
    guard let kind, !payload.isEmpty,
      let incident = try? V7IncidentWire.decodeLookup(Data(payload.utf8))
    else { return }
    continuation.yield(IncidentChange(kind: kind, incident: incident))
  }

  /// The range of the first blank line (`\n\n` or `\r\n\r\n`) in `bytes`.
  private static func blankLine(in bytes: [UInt8]) -> Range<Int>? {
    guard bytes.count >= 2 else { return nil }
    for index in 0..<(bytes.count - 1) where bytes[index] == 0x0A {
      if bytes[index + 1] == 0x0A { return index..<(index + 2) }
      if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A {
        return index..<(index + 3)
      }
    }
    return nil
  }
}

extension RemoteTrafficClient {
  /// The changes in `area`, from the server's event stream.
  func changes(inside area: some GeoArea) -> AsyncStream<IncidentChange> {
    let (stream, continuation) = AsyncStream<IncidentChange>.makeStream()
    guard let parameters = try? V7IncidentStreamQuery(area: area).encode(),
      let request = try? streamRequest(parameters: parameters)
    else {
      continuation.finish()
      return stream
    }
    let client = RemoteChangeStream(request: request, continuation: continuation)
    continuation.onTermination = { _ in client.stop() }
    client.start()
    return stream
  }
}
