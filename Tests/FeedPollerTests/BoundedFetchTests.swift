import Foundation
import Testing
import Traffic
import TrafficFeeds

#if canImport(Glibc)
  import Glibc
#endif

/// A polled fetch is bounded as a whole: a server sending its body a byte at a time, or
/// announcing a body over the limit, no longer holds the feed's loop (the session's
/// timeouts bound each wait for a byte only, so a drip took 109 s under a 30 s limit).
@Suite(.serialized) struct BoundedFetchTests {
  /// A one-connection-at-a-time HTTP server on loopback answering every request with
  /// `head`, then `body` a byte at a time, `pause` apart (then it holds the connection).
  final class DrippingServer: @unchecked Sendable {
    let port: Int
    private let descriptor: Int32

    init(head: String, body: [UInt8], pause: Double) throws {
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      self.descriptor = descriptor
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      address.sin_port = 0
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(descriptor, $0, length)
        }
      }
      let listening = listen(descriptor, 8)
      _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          getsockname(descriptor, $0, &length)
        }
      }
      port = Int(UInt16(bigEndian: address.sin_port))
      try #require(bound == 0 && listening == 0)
      let listener = descriptor
      Thread.detachNewThread {
        while true {
          let client = accept(listener, nil, nil)
          guard client >= 0 else { return }
          Thread.detachNewThread {
            var request = [UInt8](repeating: 0, count: 4096)
            _ = read(client, &request, request.count)
            let headBytes = Array(head.utf8)
            // `send` without SIGPIPE: the poller hangs up on purpose.
            let noSignal = Int32(MSG_NOSIGNAL)
            _ = send(client, headBytes, headBytes.count, noSignal)
            for byte in body {
              guard send(client, [byte], 1, noSignal) == 1 else { break }
              Thread.sleep(forTimeInterval: pause)
            }
            Thread.sleep(forTimeInterval: 60)
            close(client)
          }
        }
      }
    }

    func stop() {
      shutdown(descriptor, Int32(SHUT_RDWR))
      close(descriptor)
    }
  }

  static let document = Array(
    #"{"alerts":[],"jams":[],"startTimeMillis":1700000000000,"endTimeMillis":1700000060000}"#.utf8)

  /// Polls a feed at `server` once: how long it took, and its last error.
  static func pollOnce(
    _ server: DrippingServer, timeoutInSeconds: Double, maximumDocumentBytes: Int = 100 << 20
  ) async throws -> (took: Duration, error: String) {
    let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/feed"))
    let poller = FeedPoller(
      feeds: [FeedPoller.Feed(format: .waze, url: url, name: "feed")],
      engine: try TrafficEngine(store: InMemoryTrafficStore()),
      timeoutInSeconds: timeoutInSeconds, maximumDocumentBytes: maximumDocumentBytes)
    let started = ContinuousClock.now
    await poller.poll("feed")
    return (started.duration(to: .now), poller.status.first?.lastError ?? "")
  }

  static func head(length: Int) -> String {
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n"
  }

  @Test func aDrippingBodyEndsAtTheTimeout() async throws {
    let server = try DrippingServer(
      head: Self.head(length: Self.document.count), body: Self.document, pause: 0.2)
    defer { server.stop() }
    let (took, error) = try await Self.pollOnce(server, timeoutInSeconds: 2)
    #expect(took < .seconds(5), "\(took)")
    #expect(error.contains("not done within 2 s"), "\(error)")
  }

  @Test func aBodyAnnouncedOverTheLimitIsRefusedAtOnce() async throws {
    let server = try DrippingServer(
      head: Self.head(length: 209_715_200), body: Self.document, pause: 0.5)
    defer { server.stop() }
    let (took, error) = try await Self.pollOnce(
      server, timeoutInSeconds: 20, maximumDocumentBytes: 1 << 20)
    #expect(took < .seconds(5), "\(took)")
    #expect(error.contains("has 209715200 bytes, more than the limit 1048576"), "\(error)")
  }
}
