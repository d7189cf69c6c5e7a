import Foundation
import Synchronization
import Testing
import Traffic

@testable import TrafficServer

/// The access log and the duration metrics count from the request's arrival on the socket:
/// a request that waited (for its body, for a worker) shows the wait.
@Suite(.serialized) struct AccessLogTimingTests {
  @Test func aRequestsTimeCountsFromItsHeadsArrival() throws {
    let lines = Mutex([String]())
    var configuration = ServerFixtures.quiet()
    configuration.port = 0
    configuration.accessLog = .custom { line in lines.withLock { $0.append(line) } }
    let server = try ServerFixtures.server(configuration)
    try server.start()
    defer { server.stop() }
    let port = try #require(server.port)
    // The head, then the body 400 ms later: the route answers at once, but the client
    // waited from its head.
    let body = Array(
      "{\"in\": {\"type\": \"circle\", \"center\": {\"lat\": 52.52, \"lng\": 13.4}, \"radius\": 2000}}"
        .utf8)
    let head = Array(
      ("POST /v7/incidents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n").utf8)
    let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(socketDescriptor >= 0)
    defer { close(socketDescriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    try #require(connected == 0)
    try #require(write(socketDescriptor, head, head.count) == head.count)
    usleep(400_000)
    try #require(write(socketDescriptor, body, body.count) == body.count)
    var buffer = [UInt8](repeating: 0, count: 4096)
    var answer = Data()
    while case let count = read(socketDescriptor, &buffer, buffer.count), count > 0 {
      answer.append(contentsOf: buffer[0..<count])
    }
    #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
    let line = try #require(lines.withLock { $0.last })
    let microseconds = try #require(
      line.split(separator: " ").first { $0.hasPrefix("us=") }.flatMap { Int($0.dropFirst(3)) })
    #expect(microseconds >= 390_000, "\(line)")
  }
}
