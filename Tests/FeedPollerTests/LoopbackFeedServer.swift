import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A feed publisher on 127.0.0.1 for poller tests: answers each `GET` with what `respond`
/// returns and remembers every request's head, so tests see exactly which validators the
/// poller sent. One request per connection (`Connection: close`), served on a thread of its
/// own, off the cooperative pool.
final class LoopbackFeedServer: Sendable {
  /// The head of one request received.
  struct Request: Sendable {
    var method: String
    var target: String
    /// Header fields by lowercased name.
    var headers: [String: String]
  }

  /// What to answer.
  struct Response: Sendable {
    var status: Int
    var headers: [String: String] = [:]
    var body = Data()
  }

  struct SocketError: Error, CustomStringConvertible {
    var description: String
  }

  /// The port listened on.
  let port: Int
  private let listener: Int32
  private let respond: @Sendable (Request) -> Response
  private let received = Mutex<[Request]>([])
  private let stopped = Atomic<Bool>(false)

  /// Listens on a free loopback port and starts serving.
  ///
  /// - Parameter respond: Makes the answer to a request (called on the server's thread).
  /// - Throws: `SocketError` when no socket can be bound.
  init(respond: @escaping @Sendable (Request) -> Response) throws {
    let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socketDescriptor >= 0 else { throw SocketError(description: "socket: \(errno)") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(socketDescriptor, 16) == 0 else {
      close(socketDescriptor)
      throw SocketError(description: "bind/listen: \(errno)")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(socketDescriptor, $0, &length)
      }
    }
    listener = socketDescriptor
    port = Int(UInt16(bigEndian: address.sin_port))
    self.respond = respond
    let thread = Thread { [self] in serve() }
    thread.start()
  }

  /// The requests received so far, oldest first.
  var requests: [Request] { received.withLock { $0 } }

  /// The URL of `path` on this server.
  func url(_ path: String) -> URL? { URL(string: "http://127.0.0.1:\(port)\(path)") }

  /// Stops listening; the serving thread ends (and releases the server).
  func stop() {
    guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
    shutdown(listener, Int32(SHUT_RDWR))
    close(listener)
  }

  private func serve() {
    while !stopped.load(ordering: .sequentiallyConsistent) {
      let client = accept(listener, nil, nil)
      guard client >= 0 else {
        if errno == EINTR { continue }
        return
      }
      handle(client)
      close(client)
    }
  }

  private func handle(_ client: Int32) {
    var head = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while head.range(of: Data("\r\n\r\n".utf8)) == nil, head.count < 65_536 {
      let count = read(client, &buffer, buffer.count)
      guard count > 0 else { return }
      head.append(contentsOf: buffer[0..<count])
    }
    let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
    let requestLine = lines.first?.split(separator: " ").map(String.init) ?? []
    guard requestLine.count >= 2 else { return }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] =
        line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    let request = Request(method: requestLine[0], target: requestLine[1], headers: headers)
    received.withLock { $0.append(request) }
    let response = respond(request)
    var text = "HTTP/1.1 \(response.status) \(response.status == 304 ? "Not Modified" : "OK")\r\n"
    for (name, value) in response.headers { text += "\(name): \(value)\r\n" }
    if response.status != 304 { text += "Content-Length: \(response.body.count)\r\n" }
    text += "Connection: close\r\n\r\n"
    var bytes = Data(text.utf8)
    if response.status != 304 { bytes.append(response.body) }
    bytes.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let written = write(client, raw.baseAddress.map { $0 + offset }, raw.count - offset)
        guard written > 0 else { return }
        offset += written
      }
    }
  }
}
